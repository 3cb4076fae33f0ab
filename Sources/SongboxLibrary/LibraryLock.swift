import Foundation

/// An exclusive `flock` on a library's database file, held while a scan runs or while a
/// library is created or migrated. SQLite locks with `fcntl`, which `flock` does not meet, so
/// this lock is songbox's own; it goes with the process: a killed scan leaves nothing behind.
final class LibraryLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// One scan of a library at a time (from the command line or the daemon): a second is
    /// refused, naming the first one's pid. Nil when there is no file to lock yet.
    static func scan(database path: String) throws(SongboxError) -> LibraryLock? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
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
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
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
