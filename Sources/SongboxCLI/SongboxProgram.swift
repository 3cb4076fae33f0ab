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
public enum SongboxProgram {
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async {
        refuseTooManyWords(arguments)
        // The quick listing prints a table: its headings need the catalog only for a language
        // other than English (and it starts faster without).
        if let listing = PlainListCommand(arguments) {
            if Catalog.mayTranslate { Catalog.activate() }
            if listing.run() { return }
        }
        Catalog.activate()
        if let script = PlainRunCommand(arguments) { return script.run() }
        if let scan = PlainScanCommand(arguments) { return scan.run() }
        refuseUnknownCommand(arguments)
        do {
            var command = try SongboxCommand.parseAsRoot(arguments)
            // The daemon runs its services as tasks: awaited here, no thread parked on it.
            if var running = command as? any AsyncParsableCommand { try await running.run() } else { try command.run() }
        } catch {
            exit(withError: error)
        }
    }

    /// Ends the program as swift-argument-parser does (the same text, stream and status),
    /// in the reader's language where songbox wrote the text: its own errors, with their hints,
    /// and the `Error:` in front of the parser's. Help and version are the parser's.
    static func exit(withError error: any Error) -> Never {
        if let cannot = error as? CannotStart { exit(withError: cannot.reason, status: CannotStart.exitStatus) }
        exit(withError: error, status: nil)
    }

    private static func exit(withError error: any Error, status wanted: Int32?) -> Never {
        let status = wanted.map { ExitCode($0) } ?? SongboxCommand.exitCode(for: error)
        if status == .success { SongboxCommand.exit(withError: error) }
        let ours = (error as? SongboxError)?.localized ?? (error as? DaemonError)?.localized
        var text = ours.map { "Error: " + $0 } ?? SongboxCommand.fullMessage(for: error)
        let prefix = "Error: "
        if text.hasPrefix(prefix) { text = tr("Error: \(Message(verbatim: String(text.dropFirst(prefix.count))))") }
        if !text.isEmpty { writeToStandardError(text) }
        Foundation.exit(status.rawValue)
    }

    /// The most words a command line may have. swift-argument-parser looks through the list
    /// for each word it takes, work that grows with the square of their number: 10,000 query
    /// terms joined by `OR` took 9 seconds before the query's own length limit refused them. No
    /// command needs more (a query has at most `LibraryQuery.maximumTerms` terms).
    static let maximumWords = 4_096

    /// Refuses a command line of more than `maximumWords` words, before any parsing.
    static func refuseTooManyWords(_ arguments: [String]) {
        guard arguments.count > maximumWords else { return }
        exit(withError: SongboxError(.invalidArgument, "too many arguments (\(arguments.count); at most \(maximumWords))",
                                     hint: "a query has at most \(LibraryQuery.maximumTerms) terms and \(LibraryQuery.maximumLength) bytes: keep the track list in a playlist and query playlist:NAME"))
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
