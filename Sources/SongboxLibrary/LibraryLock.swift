import Foundation

/// An exclusive `flock` on a file beside a library's database (`library.db-lock`), held while
/// a scan runs or while a library is created or migrated; it goes with the process: a killed
/// scan leaves nothing behind.
///
/// Never on the database file itself: closing any descriptor of a file drops every `fcntl` lock
/// the process holds on it, SQLite's among them. A daemon whose scan closed such a descriptor
/// held no lock on its library any more, so the next command that read the library beside it
/// took itself for the last reader, checkpointed and deleted the write-ahead log the daemon
/// still wrote to: every play, queue change and rescan after that was lost.
final class LibraryLock {
    /// The lock file of the library at `database`.
    static func file(of database: String) -> String { database + "-lock" }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// One scan of a library at a time (from the command line or the daemon): a second is
    /// refused, naming the first one's pid. Nil when there is no file to lock yet.
    static func scan(database path: String) throws(SongboxError) -> LibraryLock? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var descriptor = open(file(of: path), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // A library in a folder songbox may not write: a lock file someone made, else none.
        if descriptor < 0 { descriptor = open(file(of: path), O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return LibraryLock(descriptor: descriptor) }
        let holder = holder(of: descriptor)
        close(descriptor)
        let pid = holder.map { " (pid \($0))" } ?? ""
        throw SongboxError(.scanRunning, "another scan of this library is running\(Message(verbatim: pid))", at: path,
                           hint: "wait for it to finish, or stop it")
    }

    /// Creating or migrating the schema, one process at a time: waits at most `bound` for
    /// another process doing it. Nil when the file cannot be opened for it (a read-only one: then
    /// nothing is created either) or the wait ran out (SQLite's own errors then say what is wrong).
    static func schema(database path: String, within bound: TimeInterval) -> LibraryLock? {
        var descriptor = open(file(of: path), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 { descriptor = open(file(of: path), O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        let deadline = ContinuousClock.now + .seconds(bound)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK, ContinuousClock.now < deadline else {
                close(descriptor)
                return nil
            }
            usleep(20_000)
        }
        return LibraryLock(descriptor: descriptor)
    }

    /// The pid holding a `flock` on the file open at `descriptor`, from `/proc/locks`
    /// (`1: FLOCK  ADVISORY  WRITE 1234 00:2d:5678 0 EOF`).
    private static func holder(of descriptor: Int32) -> Int32? {
        var info = stat()
        guard fstat(descriptor, &info) == 0,
              let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let inode = Substring(String(info.st_ino))
        for line in text.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5].split(separator: ":").last == inode else { continue }
            return Int32(fields[4])
        }
        return nil
    }
}
