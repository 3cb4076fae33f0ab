import Foundation
import SongboxMessages

/// The daemon that serves a library, as a file beside it (`library.db-daemon`): the daemon
/// holds an exclusive `flock` on it for as long as it runs and writes its pid and its control
/// socket in it. So a second daemon on the same library is refused, naming the first, and a
/// command finds the daemon of *its* library, wherever its socket is, or knows there is none;
/// a daemon that was killed leaves a file no lock holds, which says nothing.
public final class LibraryDaemon: Sendable {
    private let descriptor: Int32
    public let file: String

    /// The record's file for the library at `database`: beside its real file, whatever link
    /// or relative path named it.
    public static func file(of database: String) -> String {
        guard let real = realpath(database, nil) else { return database + "-daemon" }
        defer { free(real) }
        return String(cString: real) + "-daemon"
    }

    /// Claims `database` for this process; throws when a daemon already serves it.
    public init(claiming database: String) throws(DaemonError) {
        file = Self.file(of: database)
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw DaemonError("cannot mark the library as served (\(file)): \(String(cString: strerror(errno)))",
                              hint: "the daemon needs to write in the library's folder")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let running = Self.record(descriptor)
            close(descriptor)
            let pid = running.pid.map(String.init) ?? "?", socket = running.socket ?? "?"
            throw DaemonError("a songbox daemon (pid \(pid)) already serves this library on \(socket)",
                              hint: "stop it first (systemctl --user stop songbox, or kill its pid), or give this daemon another library with --db")
        }
        self.descriptor = descriptor
        write(socket: nil)
    }

    deinit { close(descriptor) }

    /// Says where the daemon answers, once it does.
    public func announce(socket: String) { write(socket: socket) }

    private func write(socket: String?) {
        let text = "pid=\(getpid())\n" + (socket.map { "socket=\($0)\n" } ?? "")
        ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// The control socket of the daemon serving `database`; nil when none does.
    public static func socket(serving database: String) -> String? {
        let descriptor = open(file(of: database), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A lock that can be had is one no daemon holds.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { return nil }
        return record(descriptor).socket
    }

    /// What the record says.
    private static func record(_ descriptor: Int32) -> (pid: Int32?, socket: String?) {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (nil, nil) }
        var pid: Int32?, socket: String?
        for line in String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("pid=") { pid = Int32(line.dropFirst(4)) }
            if line.hasPrefix("socket=") { socket = String(line.dropFirst(7)) }
        }
        return (pid, socket)
    }
}

/// The folder a control socket goes in by default, checked: only a folder that is the user's
/// own and closed to everyone else is used, or another user could stand in for the daemon.
public enum RuntimeFolder {
    /// Why `folder` is not safe for this user's socket; nil when it is (or does not exist yet).
    public static func problem(with folder: String) -> String? {
        var info = stat()
        guard lstat(folder, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) != S_IFDIR { return "it is not a folder" }
        if info.st_uid != getuid() { return "it belongs to another user (uid \(info.st_uid))" }
        if info.st_mode & 0o077 != 0 { return "others may use it (mode \(String(info.st_mode & 0o7777, radix: 8)))" }
        return nil
    }

    /// The socket folder made for this user when the default one is not safe: new, private.
    public static func makePrivate() throws(DaemonError) -> String {
        var template = Array("/tmp/songbox-\(getuid())-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw DaemonError("cannot make a folder for the control socket: \(String(cString: strerror(errno)))")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
