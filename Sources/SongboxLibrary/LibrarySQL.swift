import Foundation
import GRDB

/// How the library's statements are built: the one SELECT for a query (with the playlists it
/// names expanded), and the values statements take (times in whole seconds, id lists as JSON).
enum LibrarySQL {
    /// The SELECT for `query`, with every smart playlist its `playlist:NAME` terms reach (directly
    /// or through other smart playlists) read from the database and expanded in place. Run it in
    /// the same transaction as `db`. Playlists defined by a script function are `evaluated` first,
    /// by the caller (the library runs no Lua): one missing there is an error.
    static func statement(for query: LibraryQuery, selecting columns: String = "*", in db: Database,
                          evaluated: [String: [Int64]]) throws -> (sql: String, arguments: StatementArguments) {
        try statement(for: query, selecting: columns, in: db, evaluated: evaluated, expanding: [])
    }

    static func statement(for query: LibraryQuery, selecting columns: String = "*", in db: Database,
                          evaluated: [String: [Int64]], expanding: [String]) throws -> (sql: String, arguments: StatementArguments) {
        var smart: [String: LibraryQuery] = [:]
        var pending = query.playlistNames
        var seen = Set(pending)
        // A name typed in the query itself must be a playlist (a typo is said, with the close
        // names); one inside a stored smart query may have been renamed or deleted since: it
        // matches nothing (the rename reported it).
        let typed = expanding.isEmpty ? Set(pending) : []
        while let name = pending.popLast() {
            guard let record = try PlaylistRecord.fetch(name, in: db) else {
                guard typed.contains(name) else { continue }
                let names = try String.fetchAll(db, sql: "SELECT name FROM playlists ORDER BY name")
                throw SongboxError(.notFound, "no playlist named '\(name)'\(Suggestions.phrase(for: name, among: names))",
                                   hint: names.isEmpty ? "there are no playlists yet: `songbox playlist save NAME QUERY` makes one"
                                       : "`songbox playlist ls` lists them")
            }
            if let script = record.scriptPlaylist, evaluated[name] == nil { throw PlaylistStore.notEvaluated(script) }
            guard let text = record.query else { continue }
            let parsed: LibraryQuery
            do throws(SongboxError) { parsed = try query.parseNested(text) } catch {
                throw SongboxError(.invalidQuery, "smart playlist '\(name)' has a query songbox cannot read: \(error.message)",
                                   hint: "define it again with `songbox playlist smart \"\(name)\" QUERY`")
            }
            smart[name] = parsed
            for next in parsed.playlistNames where seen.insert(next).inserted { pending.append(next) }
        }
        return query.statement(selecting: columns, smartPlaylists: smart, evaluatedPlaylists: evaluated, expanding: expanding)
    }

    /// Unix seconds, truncated: how the library keeps a time.
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// `ids` as a JSON array, one SQL argument that `json_each` reads.
    static func jsonList(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}
