import Foundation
import SongboxLibrary

/// `[--db PATH] ls [--db PATH] [QUERY...]`, with no other option.
struct PlainListCommand {
    let database: String?
    let query: [String]

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        var database = SongboxProgram.takeDatabase(&rest)
        guard rest.first == "ls" else { return nil }
        rest = rest.dropFirst()
        database = SongboxProgram.takeDatabase(&rest) ?? database
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
