import Foundation
import GRDB

/// The tracks: search, listing, edits and removal, and what is kept of each (lyrics, stickers,
/// highlights, audio features): the services the CLI, Lua and the MPD server share.
/// `LibraryStore.tracks`.
public struct TrackStore: Sendable {
    /// The library whose playlists a query may name (`playlist:NAME`).
    let library: LibraryStore
    var runner: StatementRunner { library.runner }

    /// Tracks matching `query`, in the query's order. `playlist:NAME` works for saved and smart
    /// playlists (see `LibrarySQL.statement(for:selecting:in:)`); `evaluated` holds the track ids
    /// of the function playlists it reaches (`PlaylistStore.functionPlaylists(reachedFrom:)`),
    /// as every read of a query here does.
    public func matching(_ query: LibraryQuery, evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> [Track] {
        return try runner.read { db in
            let (sql, arguments) = try LibrarySQL.statement(for: query, in: db, evaluated: evaluated)
            return try Track.fetchAll(db, sql: sql, arguments: arguments)
        }
    }

    /// Tracks matching the query text (see docs/query-language.md).
    public func matching(_ text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> [Track] {
        try matching(LibraryQuery.parse(text, now: now), evaluated: evaluated)
    }

    /// The id, path and length of each track matching the query text, in its order: what a
    /// queue needs, without reading every tag of every track.
    public func files(matching text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> [LibraryFile] {
        let query = try LibraryQuery.parse(text, now: now)
        return try runner.read { db in
            let (sql, arguments) = try LibrarySQL.statement(for: query, selecting: "id, path, duration, album, albumartist, artist, disc, track",
                                                            in: db, evaluated: evaluated)
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            var files: [LibraryFile] = []
            while let row = try rows.next() {
                files.append(LibraryFile(id: row[0], path: row[1], duration: row[2], album: row[3], albumArtist: row[4] ?? row[5],
                                         disc: row[6], track: row[7]))
            }
            return files
        }
    }

    /// Calls `body` with each track matching the query text, one at a time from a cursor: what
    /// prints a large answer keeps one track in memory, not the answer. Returns the count.
    @discardableResult
    public func forEach(matching text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:],
                        _ body: @escaping @Sendable (Track) -> Void) throws(SongboxError) -> Int {
        let query = try LibraryQuery.parse(text, now: now)
        return try runner.read { db in
            let (sql, arguments) = try LibrarySQL.statement(for: query, in: db, evaluated: evaluated)
            let cursor = try Track.fetchCursor(db, sql: sql, arguments: arguments)
            var count = 0
            while let track = try cursor.next() {
                body(track)
                count += 1
            }
            return count
        }
    }

    public func track(id: Int64) throws(SongboxError) -> Track? { try track(where: "id", is: id) }

    public func track(path: String) throws(SongboxError) -> Track? { try track(where: "path", is: path) }

    /// The track whose `column` is `value`. The statement is kept prepared on each connection:
    /// the library view's many columns cost SQLite's compiler millions of instructions, and
    /// the player, `currentsong` and `lsinfo` look tracks up one at a time.
    private func track(where column: String, is value: some DatabaseValueConvertible & Sendable) throws(SongboxError) -> Track? {
        try runner.read { db in try Track.fetchOne(db.cachedStatement(sql: "SELECT * FROM library WHERE \(column) = ?"), arguments: [value]) }
    }

    /// Removes tracks from the library and from playlists, and keeps their files out of later
    /// scans. The files themselves are not touched. Returns how many were removed.
    @discardableResult
    public func remove(ids: [Int64], now: Date = Date()) throws(SongboxError) -> Int {
        try runner.write { db in
            var removed = 0
            for id in ids {
                guard let path = try String.fetchOne(db, sql: "SELECT path FROM tracks WHERE id = ?", arguments: [id]) else { continue }
                try db.execute(sql: "INSERT OR REPLACE INTO excluded (path, at) VALUES (?, ?)",
                               arguments: [path, Int(now.timeIntervalSince1970)])
                try db.execute(sql: "DELETE FROM tracks WHERE id = ?", arguments: [id])
                removed += 1
            }
            try PlaylistStore.closePlaylistGaps(in: db)
            return removed
        }
    }

    /// Records a user's edits of a track (see `TrackEdit`). The music file is never written.
    public func apply(_ edits: [TrackEdit], to id: Int64) throws(SongboxError) {
        guard try track(id: id) != nil else {
            throw SongboxError(.notFound, "no track with id \(id)", hint: "find ids with `songbox ls`")
        }
        try runner.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO overrides (track_id) VALUES (?)", arguments: [id])
            for edit in edits {
                try db.execute(sql: "UPDATE overrides SET \(edit.field.rawValue) = ? WHERE track_id = ?",
                               arguments: [edit.value, id])
                if edit.field.hasSearchKey {
                    try db.execute(sql: "UPDATE overrides SET \(edit.field.rawValue)_key = ? WHERE track_id = ?",
                                   arguments: [(edit.value as? String).map { SearchKey.fold($0) }, id])
                }
            }
            // An override row with nothing left in it is dropped.
            try db.execute(sql: """
                DELETE FROM overrides WHERE track_id = ? AND title IS NULL AND artist IS NULL
                  AND album IS NULL AND genre IS NULL AND year IS NULL AND rating IS NULL AND liked IS NULL
                  AND language IS NULL
                """, arguments: [id])
        }
    }
}

/// A track as the queue takes it, read compactly: its file, length and place on its album.
public struct LibraryFile: Sendable, Hashable {
    public var id: Int64
    public var path: String
    public var duration: Double
    public var album: String?
    /// The album artist, else the artist.
    public var albumArtist: String?
    public var disc: Int?
    public var track: Int?
}

/// One edit of a track: a field and its new value, or nil to go back to the file's tag.
public struct TrackEdit: Sendable {
    public enum Field: String, CaseIterable, Sendable {
        case title, artist, album, genre, year, rating, liked, language

        var hasSearchKey: Bool { [.title, .artist, .album, .genre].contains(self) }
    }

    public let field: Field
    public let value: (any DatabaseValueConvertible & Sendable)?

    init(field: Field, value: (any DatabaseValueConvertible & Sendable)?) {
        self.field = field
        self.value = value
    }

    /// Parses `field=value`. An empty value clears the override.
    public init(parsing text: String) throws(SongboxError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw SongboxError(.invalidArgument, "expected field=value, got '\(text)'",
                               hint: "for example: title=\"Erev shel shoshanim\" rating=5 liked=yes")
        }
        let name = text[..<equals].lowercased()
        let raw = String(text[text.index(after: equals)...])
        guard let field = Field(rawValue: name) else {
            throw SongboxError(.invalidArgument, "'\(name)' cannot be edited",
                               hint: "editable fields: \(Field.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.field = field
        guard !raw.isEmpty else { value = nil; return }
        switch field {
        case .title, .artist, .album, .genre:
            value = raw
        case .year:
            guard let year = Int(raw), (0...9999).contains(year) else {
                throw SongboxError(.invalidArgument, "year must be a number, got '\(raw)'")
            }
            value = year
        case .rating:
            guard let rating = Int(raw), (0...5).contains(rating) else {
                throw SongboxError(.invalidArgument, "rating must be 1 to 5 (0 clears it), got '\(raw)'")
            }
            value = rating == 0 ? nil : rating
        case .liked:
            switch raw.lowercased() {
            case "true", "yes", "1": value = 1
            case "false", "no", "0": value = 0
            default: throw SongboxError(.invalidArgument, "liked must be yes or no, got '\(raw)'")
            }
        case .language:
            let code = raw.lowercased()
            guard TrackLanguage.isValid(code) else {
                throw SongboxError(.invalidArgument, "language must be 2 to 8 letters such as he or en, got '\(raw)'")
            }
            value = code
        }
    }
}

/// Totals over the whole library.
public struct LibraryStatistics: Sendable, Codable, Equatable {
    public var tracks: Int
    public var artists: Int
    public var albums: Int
    public var genres: Int
    /// Seconds.
    public var duration: Double
    /// Bytes of music.
    public var size: Int64
    public var plays: Int
    public var skips: Int
    public var playlists: Int
    public var unreadable: Int
    /// Tracks whose files the last scans did not find, kept with their history for a while.
    public var missing: Int
    public var excluded: Int
    public var folders: [String]
    /// Bytes of the database and its WAL.
    public var databaseSize: Int64
}

extension TrackStore {
    /// The tracks of `ids` that are in the library, by id, in one statement.
    static func byID(_ ids: [Int64], in db: Database) throws -> [Int64: Track] {
        let tracks = try Track.fetchAll(db, sql: "SELECT * FROM library WHERE id IN (SELECT value FROM json_each(?))",
                                        arguments: [LibrarySQL.jsonList(ids)])
        return Dictionary(tracks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The tracks of `ids` that are in the library, by id (one read, however many ids).
    public func byID(_ ids: [Int64]) throws(SongboxError) -> [Int64: Track] {
        try runner.read { db in try Self.byID(ids, in: db) }
    }

    /// Files the last scans could not read, with the reason.
    public func unreadableFiles() throws(SongboxError) -> [(path: String, reason: String)] {
        try runner.read { db in
            try Row.fetchAll(db, sql: "SELECT path, reason FROM unreadable ORDER BY path").map { ($0[0], $0[1]) }
        }
    }
}

/// What a listing shows of a track (`songbox ls`), read by column position and nothing more:
/// a listing of hundreds of tracks skips decoding the other forty fields of each.
public struct TrackSummary: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var artist: String?
    public var title: String?
    public var album: String?
    public var year: Int?
    public var duration: Double

    /// The columns, in the order `init(row:)` reads them.
    static let columns = "id, path, artist, title, album, year, duration"

    init(id: Int64, path: String, artist: String?, title: String?, album: String?, year: Int?, duration: Double) {
        self.id = id
        self.path = path
        self.artist = artist
        self.title = title
        self.album = album
        self.year = year
        self.duration = duration
    }

    init(row: Row) {
        id = row[0]
        path = row[1]
        artist = row[2]
        title = row[3]
        album = row[4]
        year = row[5]
        duration = row[6]
    }
}

extension TrackStore {
    /// The listing of the tracks matching the query text, in the query's order.
    public func summaries(matching text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> [TrackSummary] {
        let query = try LibraryQuery.parse(text, now: now)
        return try runner.read { db in
            let (sql, arguments) = try LibrarySQL.statement(for: query, selecting: TrackSummary.columns, in: db, evaluated: evaluated)
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            var found: [TrackSummary] = []
            while let row = try rows.next() { found.append(TrackSummary(row: row)) }
            return found
        }
    }
}
