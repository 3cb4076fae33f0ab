import Foundation

/// Who else has a library database open, and whether its disk is full: what an error about a
/// lock or a failed write says beside SQLite's code.
enum DatabaseHolders {
    /// The other processes with `path` open, from `/proc/PID/fd` (a user sees their own
    /// processes; root sees all): ` (held by pid 1234: songbox scan)`, or "" when none is found.
    static func describe(_ path: String) -> String {
        let holders = processes(holding: path)
        guard !holders.isEmpty else { return "" }
        return " (held by " + holders.prefix(3).map { "pid \($0.pid): \($0.command)" }.joined(separator: ", ") + ")"
    }

    static func processes(holding path: String) -> [(pid: Int32, command: String)] {
        guard let target = FilePaths.real(path),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let own = getpid()
        var found: [(pid: Int32, command: String)] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != own,
                  let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            let holds = fds.contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)")) == target
            }
            if holds { found.append((pid, command(of: pid))) }
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// The command line of `pid` on one line, its program by its file name (`songbox scan`),
    /// at most 60 characters.
    static func command(of pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return "?" }
        var words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        if let program = words.first { words[0] = String(program.split(separator: "/").last ?? Substring(program)) }
        let line = String(words.joined(separator: " ").map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return line.count > 60 ? line.prefix(59) + "…" : line
    }

    /// Whether the file system holding `path` has no block left for an ordinary user.
    static func diskIsFull(_ path: String) -> Bool {
        var info = statvfs()
        let folder = FilePaths.parent(path)
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return false }
        return info.f_bavail == 0
    }
}
