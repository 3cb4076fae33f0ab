import Foundation
import ArgumentParser
import SongboxLibrary
import SongboxMessages
import SongboxScript
import SongboxServer

/// The program's entry point.
///
/// `songbox [--db PATH] ls [QUERY...]`, what scripts and status bars run most, is read by hand
/// when it has no other option, and answered over a read-only SQLite connection
/// (`LibraryStore.quickSummaries`): swift-argument-parser's start-up (instantiating its generic
/// property wrappers, each a scan of the Swift runtime's conformance tables) was a third of
/// that command's time, and GRDB's set-up and statement authorizer a quarter of the rest. Everything else — other commands, `--json`, `--help`, and any error
/// on the way — goes through swift-argument-parser, so messages and behaviour stay the same.
public enum Entry {
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        // The quick listing prints a table: its headings need the catalog only for a language
        // other than English (and it starts faster without).
        if let listing = QuickListing(arguments) {
            if Catalog.mayTranslate { Catalog.activate() }
            if listing.run() { return }
        }
        Catalog.activate()
        if let script = QuickRun(arguments) { return script.run() }
        refuseUnknownCommand(arguments)
        do {
            var command = try SongboxCommand.parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// Ends the program as swift-argument-parser does (the same text, stream and status),
    /// in the reader's language where songbox wrote the text: its own errors, with their hints,
    /// and the `Error:` in front of the parser's. Help and version are the parser's.
    static func exit(withError error: any Error) -> Never {
        let status = SongboxCommand.exitCode(for: error)
        if status == .success { SongboxCommand.exit(withError: error) }
        let ours = (error as? SongboxError)?.localized ?? (error as? DaemonError)?.localized
        var text = ours.map { "Error: " + $0 } ?? SongboxCommand.fullMessage(for: error)
        let prefix = "Error: "
        if text.hasPrefix(prefix) { text = tr("Error: \(Message(verbatim: String(text.dropFirst(prefix.count))))") }
        if !text.isEmpty { FileHandle.standardError.write(Data((text + "\n").utf8)) }
        Foundation.exit(status.rawValue)
    }

    /// `songbox lss`: an unknown command, said with the close ones.
    static func refuseUnknownCommand(_ arguments: [String]) {
        var rest = arguments[...]
        _ = takeDatabase(&rest)
        guard let word = rest.first, !word.hasPrefix("-") else { return }
        let names = SongboxCommand.configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return }
        complain("Error: unknown command '\(word)'\(Suggestions.phrase(for: word, among: names))\n  See 'songbox --help' for the commands.")
        Foundation.exit(64)
    }

    /// `--db PATH` at the front of `rest`, taken off it; nil when it is not there.
    static func takeDatabase(_ rest: inout ArraySlice<String>) -> String? {
        guard rest.first == "--db", rest.count >= 2 else { return nil }
        defer { rest = rest.dropFirst(2) }
        return rest[rest.index(after: rest.startIndex)]
    }
}

/// `[--db PATH] run FILE [ARG...]` with no option anywhere (no argument starts with `-`): the
/// plain way to run a script, without swift-argument-parser's start-up, which was half of the
/// instructions of `songbox run hello.lua`. It runs what `Run` runs; errors are reported as
/// swift-argument-parser reports them.
struct QuickRun {
    let database: String?
    let file: String
    let arguments: [String]

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        let database = Entry.takeDatabase(&rest)
        guard rest.first == "run", rest.count >= 2 else { return nil }
        rest = rest.dropFirst()
        guard !rest.contains(where: { $0.hasPrefix("-") }) else { return nil }
        self.database = database
        file = rest.removeFirst()
        self.arguments = Array(rest)
    }

    func run() {
        do {
            try Run.run(file: file, arguments: arguments, database: database, limits: .userScript, dryRun: false,
                        output: nil, fast: false)
        } catch {
            Entry.exit(withError: error)
        }
    }
}

/// `[--db PATH] ls [--db PATH] [QUERY...]`, with no other option.
struct QuickListing {
    let database: String?
    let query: [String]

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        var database = Entry.takeDatabase(&rest)
        guard rest.first == "ls" else { return nil }
        rest = rest.dropFirst()
        database = Entry.takeDatabase(&rest) ?? database
        // Options (--json, --help, -h, a late --db) are swift-argument-parser's; a single dash
        // starts a negated query term (`-artist:x`).
        guard !rest.contains(where: { $0.hasPrefix("--") || $0 == "-h" }) else { return nil }
        self.database = database
        query = Array(rest)
    }

    /// Prints the listing; false (having printed nothing) when the quick read cannot answer.
    func run() -> Bool {
        guard let tracks = LibraryStore.quickSummaries(path: database ?? defaultDatabasePath(),
                                                        matching: QueryArguments.join(query)),
              let table = List.table(tracks) else { return false }  // nothing found: said by the long way
        print(table)
        return true
    }
}
