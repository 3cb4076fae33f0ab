import Foundation
import GRDB

/// A saved playlist keeps a list of tracks; a smart one keeps a query and is evaluated when read.
public enum PlaylistKind: String, Sendable, Codable, CaseIterable {
    case saved, smart
}

/// One playlist in a listing (`songbox playlist ls`, Lua `playlist.list()`).
public struct PlaylistSummary: Sendable, Equatable {
    public var name: String
    public var kind: PlaylistKind
    /// The query of a smart playlist; nil for a saved one and one defined by a script function.
    public var query: String?
    /// The script whose function defines a smart playlist (an absolute path); nil otherwise.
    public var script: String?
    /// Tracks in it now (for a smart playlist: what its query gives at the time of listing).
    public var trackCount: Int
    /// Seconds, all tracks together.
    public var duration: Double
    /// Unix seconds.
    public var created: Int64
    /// Unix seconds of the last change of its name, items or query.
    public var modified: Int64
    /// Why a smart playlist cannot be evaluated (its stored query no longer parses, its function
    /// fails); nil when it can.
    public var problem: String?
}

/// A playlist with its tracks, in order.
public struct Playlist: Sendable, Equatable {
    public var name: String
    public var kind: PlaylistKind
    public var query: String?
    public var script: String?
    public var created: Int64
    public var modified: Int64
    /// In playlist order. A saved playlist may hold a track more than once.
    public var tracks: [Track]

    /// Seconds, all tracks together.
    public var duration: Double { tracks.reduce(0) { $0 + $1.duration } }
}

/// Playlists: the services the CLI, Lua and (later) the MPD server share.
///
/// Names are unique and compared exactly (case matters). Positions are 0-based and always dense:
/// a saved playlist of n items has positions 0..n-1. Every change is one transaction and sets the
/// playlist's `modified` time. A smart playlist has no items: reading it runs its query (or its
/// script function, see `ScriptPlaylist`), so it follows the library and the play history as they
/// change. Its query may name other playlists
/// (`playlist:NAME`); a smart playlist may not refer to itself, directly or through others.
/// `LibraryStore.playlists`.
public struct PlaylistStore: Sendable {
    /// The library whose script evaluator runs playlists defined by a function.
    let library: LibraryStore
    var runner: StatementRunner { library.runner }

    // MARK: Reading

    /// Every playlist, by name (case- and point-insensitive order), with its size now.
    /// `evaluated`: what the function of each script playlist gave (`functionPlaylists()`), or
    /// why it failed; the problem of one missing is that nothing evaluated it.
    public func all(now: Date = Date(), evaluated: [String: Result<[Int64], SongboxError>] = [:]) throws(SongboxError) -> [PlaylistSummary] {
        let records = try runner.read { db in try PlaylistRecord.fetchAll(db) }
        var results = evaluated
        for record in records where results[record.name] == nil {
            if let script = record.scriptPlaylist { results[record.name] = .failure(Self.notEvaluated(script)) }
        }
        let evaluated = results
        return try runner.read { db in
            try records.map { record in
                var summary = PlaylistSummary(name: record.name, kind: record.kind, query: record.query,
                                              script: record.script, trackCount: 0, duration: 0,
                                              created: record.created, modified: record.modified)
                let row: Row?
                if let result = evaluated[record.name] {
                    switch result {
                    case .success(let ids):
                        row = try Row.fetchOne(db, sql: """
                            SELECT count(*), coalesce(sum(library.duration), 0) FROM json_each(?)
                            JOIN library ON library.id = json_each.value
                            """, arguments: [LibrarySQL.jsonList(ids)])
                    case .failure(let error):
                        summary.problem = error.message
                        row = nil
                    }
                } else if let text = record.query {
                    do {
                        let query = try Self.parseSmartQuery(text, of: record.name, now: now)
                        let (sql, arguments) = try LibrarySQL.statement(for: query, selecting: "count(*), coalesce(sum(duration), 0)",
                                                                  in: db, evaluated: evaluated.compactMapValues { try? $0.get() },
                                                                  expanding: [record.name])
                        row = try Row.fetchOne(db, sql: sql, arguments: arguments)
                    } catch let error as SongboxError {
                        summary.problem = error.message
                        row = nil
                    }
                } else {
                    row = try Row.fetchOne(db, sql: """
                        SELECT count(*), coalesce(sum(library.duration), 0) FROM playlist_items
                        JOIN library ON library.id = playlist_items.track_id WHERE playlist_id = ?
                        """, arguments: [record.id])
                }
                if let row {
                    summary.trackCount = row[0]
                    summary.duration = row[1]
                }
                return summary
            }
            .sorted { (SearchKey.fold($0.name), $0.name) < (SearchKey.fold($1.name), $1.name) }
        }
    }

    /// The playlist called `name` with its tracks in order. A smart playlist is evaluated now;
    /// `evaluated` holds the track ids of the function playlists it reaches
    /// (`functionPlaylists(reachedFrom: [name])`), itself among them when it is one.
    public func playlist(named name: String, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> Playlist {
        let record = try runner.read { db in try PlaylistRecord.require(name, in: db) }
        let query = try record.query.map { text throws(SongboxError) in try Self.parseSmartQuery(text, of: name, now: now) }
        let scripted = try record.scriptPlaylist.map { script throws(SongboxError) in
            guard let ids = evaluated[script.name] else { throw Self.notEvaluated(script) }
            return ids
        }
        return try runner.read { db in
            let tracks: [Track]
            if let scripted {
                // In the function's order; a track it gives twice is there twice.
                tracks = try Track.fetchAll(db, sql: """
                    SELECT library.* FROM json_each(?) JOIN library ON library.id = json_each.value ORDER BY json_each.key
                    """, arguments: [LibrarySQL.jsonList(scripted)])
            } else if let query {
                let (sql, arguments) = try LibrarySQL.statement(for: query, in: db, evaluated: evaluated, expanding: [record.name])
                tracks = try Track.fetchAll(db, sql: sql, arguments: arguments)
            } else {
                tracks = try Track.fetchAll(db, sql: """
                    SELECT library.* FROM playlist_items JOIN library ON library.id = playlist_items.track_id
                    WHERE playlist_items.playlist_id = ? ORDER BY playlist_items.position
                    """, arguments: [record.id])
            }
            return Playlist(name: record.name, kind: record.kind, query: record.query, script: record.script,
                            created: record.created, modified: record.modified, tracks: tracks)
        }
    }

    /// Whether a playlist called `name` exists.
    public func playlistExists(named name: String) throws(SongboxError) -> Bool {
        try runner.read { db in try PlaylistRecord.fetch(name, in: db) != nil }
    }

    /// The names of the playlists, in order, without reading any: a smart playlist's function
    /// does not run.
    public func playlistNames() throws(SongboxError) -> [String] {
        try runner.read { db in try PlaylistRecord.fetchAll(db).map(\.name).sorted() }
    }

    // MARK: Saved playlists

    /// Saves `trackIDs`, in that order, as the saved playlist `name`. An existing playlist of that
    /// name (saved or smart) is replaced only when `replace` is true; it keeps its creation time.
    public func savePlaylist(named name: String, trackIDs: [Int64], replace: Bool = false,
                             now: Date = Date()) throws(SongboxError) {
        try PlaylistRecord.validate(name: name)
        try runner.write { db in
            try Self.requireTracks(trackIDs, in: db)
            let id: Int64
            if let existing = try PlaylistRecord.fetch(name, in: db) {
                guard replace else { throw Self.exists(existing) }
                try db.execute(sql: "UPDATE playlists SET query = NULL, script = NULL, script_function = NULL WHERE id = ?",
                               arguments: [existing.id])
                id = existing.id
            } else {
                id = try PlaylistRecord.insert(name, query: nil, now: now, in: db)
            }
            try Self.setItems(trackIDs, of: id, now: now, in: db)
        }
    }

    /// Inserts `trackIDs` into the saved playlist `name` before `position` (0-based), or at the
    /// end when `position` is nil. `position` may be the count (the end).
    public func addToPlaylist(named name: String, trackIDs: [Int64], at position: Int? = nil,
                              now: Date = Date()) throws(SongboxError) {
        try runner.write { db in
            let record = try PlaylistRecord.requireSaved(name, changing: "add tracks to", in: db)
            try Self.requireTracks(trackIDs, in: db)
            var items = try PlaylistItems(of: record.id, in: db)
            let at = position ?? items.shown.count
            guard (0...items.shown.count).contains(at) else {
                throw SongboxError(.invalidArgument, "position \(at) is outside playlist '\(name)'",
                                   hint: "positions start at 0; '\(name)' has \(items.shown.count) tracks, so use 0 to \(items.shown.count)")
            }
            items.shown.insert(contentsOf: trackIDs, at: at)
            try Self.setItems(items.all, of: record.id, now: now, in: db)
        }
    }

    /// Removes the items at `positions` (0-based, as they are before the removal) from the saved
    /// playlist `name`. Nothing is removed when any position is outside the playlist.
    public func removeFromPlaylist(named name: String, positions: [Int], now: Date = Date()) throws(SongboxError) {
        try runner.write { db in
            let record = try PlaylistRecord.requireSaved(name, changing: "remove tracks from", in: db)
            var items = try PlaylistItems(of: record.id, in: db)
            if let bad = positions.first(where: { !items.shown.indices.contains($0) }) {
                throw Self.outside(bad, name, count: items.shown.count)
            }
            for position in Set(positions).sorted(by: >) { items.shown.remove(at: position) }
            try Self.setItems(items.all, of: record.id, now: now, in: db)
        }
    }

    /// Moves the item at `from` so that it ends up at `to` (both 0-based) in the saved playlist `name`.
    public func movePlaylistItem(named name: String, from: Int, to: Int, now: Date = Date()) throws(SongboxError) {
        guard from >= 0, from < Int.max else { throw Self.outside(from, name, count: 0) }
        try movePlaylistItems(named: name, from: from..<(from + 1), to: to, now: now)
    }

    /// Moves the tracks at `from` so the first is at `to` (a position in the playlist without them).
    public func movePlaylistItems(named name: String, from: Range<Int>, to: Int, now: Date = Date()) throws(SongboxError) {
        try runner.write { db in
            let record = try PlaylistRecord.requireSaved(name, changing: "move tracks in", in: db)
            var items = try PlaylistItems(of: record.id, in: db)
            let count = items.shown.count
            guard from.lowerBound >= 0, from.upperBound <= count else { throw Self.outside(max(from.upperBound - 1, from.lowerBound), name, count: count) }
            guard to >= 0, to <= count - from.count else { throw Self.outside(to, name, count: count) }
            let moved = Array(items.shown[from])
            items.shown.removeSubrange(from)
            items.shown.insert(contentsOf: moved, at: to)
            try Self.setItems(items.all, of: record.id, now: now, in: db)
        }
    }

    // MARK: Smart playlists

    /// Stores `query` as the smart playlist `name`. The query must parse, and may not make the
    /// playlist refer to itself (directly or through other smart playlists). Defining an existing
    /// smart playlist again replaces its query (a plugin does this at every start); replacing a
    /// saved playlist needs `replace`.
    public func saveSmartPlaylist(named name: String, query text: String, replace: Bool = false,
                                  now: Date = Date()) throws(SongboxError) {
        try PlaylistRecord.validate(name: name)
        _ = try LibraryQuery.parse(text, now: now)
        try runner.write { db in
            if let existing = try PlaylistRecord.fetch(name, in: db) {
                guard existing.kind == .smart || replace else { throw Self.exists(existing) }
                try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [existing.id])
                try db.execute(sql: "UPDATE playlists SET query = ?, script = NULL, script_function = NULL, modified = ? WHERE id = ?",
                               arguments: [text, LibrarySQL.seconds(now), existing.id])
            } else {
                _ = try PlaylistRecord.insert(name, query: text, now: now, in: db)
            }
            try Self.refuseCycle(from: name, now: now, in: db)
        }
    }

    // MARK: Either kind

    /// Renames a playlist. Returns the smart playlists whose queries still name `old`: they are
    /// not rewritten, so `playlist:OLD` in them now matches nothing until they are changed.
    @discardableResult
    public func renamePlaylist(_ old: String, to new: String, now: Date = Date()) throws(SongboxError) -> [String] {
        try PlaylistRecord.validate(name: new)
        return try runner.write { db in
            let record = try PlaylistRecord.require(old, in: db)
            guard old != new else { return [] }
            if let existing = try PlaylistRecord.fetch(new, in: db) { throw Self.exists(existing) }
            try db.execute(sql: "UPDATE playlists SET name = ?, modified = ? WHERE id = ?",
                           arguments: [new, LibrarySQL.seconds(now), record.id])
            if record.kind == .smart { try Self.refuseCycle(from: new, now: now, in: db) }
            return try Self.smartPlaylists(naming: old, now: now, in: db)
        }
    }

    /// Deletes a playlist (its tracks stay in the library).
    public func deletePlaylist(named name: String) throws(SongboxError) {
        try runner.write { db in
            let record = try PlaylistRecord.require(name, in: db)
            try db.execute(sql: "DELETE FROM playlists WHERE id = ?", arguments: [record.id])
        }
    }

    // MARK: Helpers

    static func parseSmartQuery(_ text: String, of name: String, now: Date) throws(SongboxError) -> LibraryQuery {
        do throws(SongboxError) { return try LibraryQuery.parse(text, now: now) } catch {
            throw SongboxError(.invalidQuery, "smart playlist '\(name)' has a query songbox cannot read: \(error.message)",
                               hint: "define it again with `songbox playlist smart \"\(name)\" QUERY`")
        }
    }

    /// A saved playlist's items as positions count them: the tracks in the library (`shown`),
    /// and apart the missing ones with the place each had, kept so that a track whose file comes
    /// back is where it was. Edits change `shown`; `all` puts the missing ones back.
    struct PlaylistItems {
        var shown: [Int64] = []
        var hidden: [(index: Int, id: Int64)] = []

        init(of playlist: Int64, in db: Database) throws {
            let rows = try Row.fetchCursor(db, sql: """
                SELECT i.track_id, t.missing_since IS NOT NULL FROM playlist_items i JOIN tracks t ON t.id = i.track_id
                WHERE i.playlist_id = ? ORDER BY i.position
                """, arguments: [playlist])
            var index = 0
            while let row = try rows.next() {
                if row[1] { hidden.append((index, row[0])) } else { shown.append(row[0]) }
                index += 1
            }
        }

        var all: [Int64] {
            var items = shown
            for (index, id) in hidden { items.insert(id, at: min(index, items.count)) }
            return items
        }
    }

    static func items(of playlist: Int64, in db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT track_id FROM playlist_items WHERE playlist_id = ? ORDER BY position",
                           arguments: [playlist])
    }

    /// Writes the items afresh, positions 0..n-1, and marks the playlist modified (unless `now` is nil).
    static func setItems(_ trackIDs: [Int64], of playlist: Int64, now: Date?, in db: Database) throws {
        try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [playlist])
        let insert = try db.cachedStatement(sql: "INSERT INTO playlist_items (playlist_id, position, track_id) VALUES (?, ?, ?)")
        for (position, id) in trackIDs.enumerated() {
            try insert.execute(arguments: [playlist, position, id])
        }
        if let now {
            try db.execute(sql: "UPDATE playlists SET modified = ? WHERE id = ?", arguments: [LibrarySQL.seconds(now), playlist])
        }
    }

    /// Numbers the items of every playlist 0..n-1 again where removed tracks left gaps (the
    /// foreign key deletes a removed track's items). Call it in the transaction that removed tracks.
    public static func closePlaylistGaps(in db: Database) throws {
        let gapped = try Int64.fetchAll(db, sql: """
            SELECT playlist_id FROM playlist_items GROUP BY playlist_id HAVING max(position) <> count(*) - 1
            """)
        for playlist in gapped {
            try setItems(items(of: playlist, in: db), of: playlist, now: nil, in: db)
        }
    }

    /// Throws `notFound` naming the ids that are not in the library.
    static func requireTracks(_ ids: [Int64], in db: Database) throws {
        let lookup = try db.cachedStatement(sql: "SELECT 1 FROM library WHERE id = ?")
        var missing: [Int64] = []
        for id in Set(ids).sorted() {
            if try Int.fetchOne(lookup, arguments: [id]) == nil { missing.append(id) }
        }
        guard missing.isEmpty else {
            let list = missing.prefix(10).map(String.init).joined(separator: ", ") + (missing.count > 10 ? ", ..." : "")
            throw SongboxError(.notFound, Message(count: missing.count, one: "no track with id \(list) in the library",
                                                  other: "no tracks with id \(list) in the library"),
                               hint: "find ids with `songbox ls`")
        }
    }

    static func exists(_ record: PlaylistRecord) -> SongboxError {
        SongboxError(.invalidArgument, "a \(record.kind.rawValue) playlist named '\(record.name)' already exists",
                     hint: "choose another name, delete it first, or replace it (--replace)")
    }

    static func outside(_ position: Int, _ name: String, count: Int) -> SongboxError {
        SongboxError(.invalidArgument, "position \(position) is outside playlist '\(name)'",
                     hint: count == 0 ? "'\(name)' is empty" : "positions start at 0; '\(name)' has \(count) tracks, so use 0 to \(count - 1)")
    }

    /// Throws when the smart playlist `start` reaches itself through `playlist:` terms.
    static func refuseCycle(from start: String, now: Date, in db: Database) throws {
        var queries: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, query FROM playlists WHERE query IS NOT NULL") {
            queries[row[0]] = row[1]
        }
        func references(_ name: String) -> [String] {
            guard let text = queries[name], let query = try? LibraryQuery.parse(text, now: now) else { return [] }
            return query.playlistNames.filter { queries[$0] != nil }
        }
        var visited = Set<String>()
        func walk(_ name: String, path: [String]) -> [String]? {
            for next in references(name) {
                if next == start { return path + [next] }
                if visited.insert(next).inserted, let cycle = walk(next, path: path + [next]) { return cycle }
            }
            return nil
        }
        if let cycle = walk(start, path: [start]) {
            throw SongboxError(.invalidQuery, "smart playlist '\(start)' would include itself: \(cycle.map { "'\($0)'" }.joined(separator: " → "))",
                               hint: "a smart playlist cannot name itself with playlist:, directly or through other playlists")
        }
    }

    /// Smart playlists whose query names `name`.
    static func smartPlaylists(naming name: String, now: Date, in db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT name, query FROM playlists WHERE query IS NOT NULL ORDER BY name")
            .filter { row in (try? LibraryQuery.parse(row[1] as String, now: now))?.playlistNames.contains(name) == true }
            .map { row in row[0] as String }
    }
}

/// A row of `playlists`.
struct PlaylistRecord: Sendable {
    var id: Int64
    var name: String
    var query: String?
    var script: String?
    var scriptFunction: String?
    var created: Int64
    var modified: Int64

    var kind: PlaylistKind { query == nil && script == nil ? .saved : .smart }

    /// Where the function of a smart playlist defined by a script is; nil for other playlists.
    var scriptPlaylist: ScriptPlaylist? {
        guard let script else { return nil }
        return ScriptPlaylist(name: name, script: script, function: scriptFunction ?? name)
    }

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        query = row["query"]
        script = row["script"]
        scriptFunction = row["script_function"]
        created = row["created"]
        modified = row["modified"]
    }

    private static let columns = "id, name, query, script, script_function, created, modified"

    static func fetchAll(_ db: Database) throws -> [PlaylistRecord] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM playlists").map(PlaylistRecord.init)
    }

    static func fetch(_ name: String, in db: Database) throws -> PlaylistRecord? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM playlists WHERE name = ?", arguments: [name]).map(PlaylistRecord.init)
    }

    /// The playlist, or `notFound` with a hint (a name that differs only in case is suggested).
    static func require(_ name: String, in db: Database) throws -> PlaylistRecord {
        if let record = try fetch(name, in: db) { return record }
        let folded = SearchKey.fold(name)
        let similar = try String.fetchAll(db, sql: "SELECT name FROM playlists ORDER BY name")
            .filter { SearchKey.fold($0) == folded }
        throw SongboxError(.notFound, "no playlist named '\(name)'",
                           hint: similar.first.map { "did you mean '\($0)'? Names are exact" }
                               ?? "list playlists with `songbox playlist ls`")
    }

    /// A saved playlist: a smart one has no items to change.
    static func requireSaved(_ name: String, changing action: String, in db: Database) throws -> PlaylistRecord {
        let record = try require(name, in: db)
        guard record.kind == .saved else {
            let source = record.script.map { "its function in \($0)" } ?? "its query"
            throw SongboxError(.invalidArgument, "cannot \(action) '\(name)': it is a smart playlist, its tracks come from \(source)",
                               hint: "change its query with `songbox playlist smart \"\(name)\" QUERY`, or save a copy with `songbox playlist save NEW playlist:\"\(name)\"` and edit that")
        }
        return record
    }

    static func insert(_ name: String, query: String? = nil, script: ScriptPlaylist? = nil, now: Date,
                       in db: Database) throws -> Int64 {
        let time = LibrarySQL.seconds(now)
        try db.execute(sql: """
            INSERT INTO playlists (name, query, script, script_function, created, modified) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [name, query, script?.script, script?.function, time, time])
        return db.lastInsertedRowID
    }

    /// A name has a visible character and no control characters (it appears in M3U lines and
    /// terminal tables).
    static func validate(name: String) throws(SongboxError) {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SongboxError(.invalidArgument, "a playlist needs a name", hint: "for example \"Road trip\"")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SongboxError(.invalidArgument, "a playlist name cannot contain line breaks, tabs or other control characters")
        }
    }
}
