import Foundation
import SongboxScript
import SongboxServer

/// `songbox.daemon` for `songbox run` scripts: while a daemon runs it owns the player, so a script
/// that wants music plays it there, through the daemon's control socket, with the commands an
/// MPD client has (and songbox's own, such as `queryplay`). Not for the daemon's plugins: they
/// are inside it and use `songbox.player` and `songbox.queue`.
///
/// - `daemon.running()`: whether a daemon answers on the control socket.
/// - `daemon.command(name, ...)`: sends one command; its answer as `{{key=, value=}, ...}`, or
///   `nil, message` (no daemon, or its `ACK`).
public enum DaemonAPI {
    /// The most answer lines a command may return to a script (a script asking for the whole
    /// library with `listallinfo` is told to query the library instead).
    static let longestAnswer = 10_000

    /// `database`: the script's library, whose daemon it speaks to.
    public static func install(on runtime: LuaRuntime, database: String) throws(LuaScriptError) {
        try runtime.register("daemon.running") { _ in
            [.boolean((try? ControlClient(serving: database)) != nil)]
        }
        try runtime.register("daemon.command", writes: true) { args in
            let name = try args.string(1)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) else {
                throw LuaFunctionError.argument(1, "a command name (letters and _), got '\(name)'")
            }
            let arguments = try (2..<max(2, args.count + 1)).map { n throws(LuaFunctionError) in
                let text = try args.string(n)
                // One command a line: a line break would smuggle in another.
                guard !text.contains(where: \.isNewline) else { throw LuaFunctionError.argument(n, "an argument is one line") }
                return text
            }
            let fields: [(String, String)]
            do {
                // Read no more than a script may get: a whole library's listing stays in the daemon.
                fields = try ControlClient(serving: database).send(name, arguments, most: longestAnswer)
            } catch let error as DaemonError {
                return [.nil, .string("songbox.daemon.command: \(error.message)")]
            } catch let tooLong as AnswerTooLong {
                return [.nil, .string("songbox.daemon.command: the answer to \(tooLong.command) is longer than \(tooLong.most) lines; "
                                      + "read the library with songbox.library instead")]
            }
            return [.array(fields.map { .table(["key": .string($0.0), "value": .string($0.1)]) })]
        }
    }
}
