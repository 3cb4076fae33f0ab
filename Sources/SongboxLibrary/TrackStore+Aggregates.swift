import Foundation
import GRDB

/// Values and totals over the tracks a query finds: what MPD's `list` and `count` answer.
extension TrackStore {
    /// Columns of the `library` view the aggregates may name (the rest are not tags).
    public static let tagColumns: Set<String> = [
        "title", "artist", "album", "albumartist", "genre", "comment", "year", "date", "track", "disc",
        "mb_trackid", "mb_albumid", "mb_artistid", "mb_albumartistid", "mb_releasegroupid", "isrc", "path",
        // A tag no track has: one group, without a value.
        "NULL", albumArtistOrArtist,
    ]

    /// The album artist, or the artist of a track without one: what MPD lists and groups as
    /// AlbumArtist.
    public static let albumArtistOrArtist = "coalesce(nullif(albumartist, ''), artist)"

    /// The distinct combinations of `columns` among the tracks `text` finds, sorted by them in
    /// order; a missing tag is nil. Streamed to `visit`, one combination at a time.
    public func forEachDistinct(_ columns: [String], matching text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:],
                                _ visit: @escaping @Sendable ([String?]) -> Void) throws(SongboxError) {
        try checkTagColumns(columns)
        guard !columns.isEmpty else { return }
        let query = try LibraryQuery.parse(text, now: now)
        try runner.read { db in
            let list = columns.joined(separator: ", ")
            let cursor: RowCursor
            if text.trimmingCharacters(in: .whitespaces).isEmpty {
                cursor = try Row.fetchCursor(db, sql: "SELECT DISTINCT \(list) FROM library ORDER BY \(list)")
            } else {
                let (inner, arguments) = try LibrarySQL.statement(for: query, selecting: "id", in: db, evaluated: evaluated)
                cursor = try Row.fetchCursor(db, sql: """
                    SELECT DISTINCT \(list) FROM library WHERE id IN (\(inner)) ORDER BY \(list)
                    """, arguments: arguments)
            }
            while let row = try cursor.next() {
                visit((0..<columns.count).map { index in
                    let value = row[index] as DatabaseValue
                    return value.isNull ? nil : String(describing: value.storage.value!)
                })
            }
        }
    }

    /// The number of tracks `text` finds and their seconds, in one group or grouped by `column`
    /// (sorted; a missing tag is nil).
    public func totals(matching text: String, groupedBy column: String? = nil, now: Date = Date(),
                       evaluated: [String: [Int64]] = [:]) throws(SongboxError)
        -> [(group: String?, songs: Int, seconds: Double)] {
        if let column { try checkTagColumns([column]) }
        let query = try LibraryQuery.parse(text, now: now)
        return try runner.read { db in
            let (inner, arguments) = try LibrarySQL.statement(for: query, selecting: "id", in: db, evaluated: evaluated)
            let group = column.map { "\($0)" } ?? "NULL"
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(group), count(*), coalesce(sum(duration), 0) FROM library WHERE id IN (\(inner))
                \(column.map { "GROUP BY \($0) ORDER BY \($0)" } ?? "")
                """, arguments: arguments)
            return rows.map { row in
                let value = row[0] as DatabaseValue
                return (value.isNull ? nil : String(describing: value.storage.value!), row[1] as Int, row[2] as Double)
            }
        }
    }

    private func checkTagColumns(_ columns: [String]) throws(SongboxError) {
        if let unknown = columns.first(where: { !Self.tagColumns.contains($0) }) {
            throw SongboxError(.invalidArgument, "'\(unknown)' is not a tag the library can list")
        }
    }
}

extension TrackStore {
    /// The music folders scans go over, sorted.
    public func musicFolders() throws(SongboxError) -> [String] {
        try runner.read { db in try String.fetchAll(db, sql: "SELECT path FROM folders ORDER BY path") }
    }

    /// Unix seconds of the newest track a scan added (0: none yet): MPD's `db_update`.
    public func lastScan() throws(SongboxError) -> Int64 {
        try runner.read { db in try Int64.fetchOne(db, sql: "SELECT coalesce(max(added), 0) FROM tracks") ?? 0 }
    }
}

extension TrackStore {
    /// The bounds of the paths inside `folder` ("" or "/": every path), for `path >= lower AND
    /// path < upper`: SQLite compares text by its bytes, and '0' is the byte after '/', so the
    /// range is one walk of the path index.
    static func pathRange(under folder: String) -> (lower: String, upper: String) {
        var trimmed = folder
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard !trimmed.isEmpty, trimmed != "/" else { return ("/", "0") }
        return (trimmed + "/", trimmed + "0")
    }

    /// What a folder holds directly: a folder (some track is under it) or a track's file.
    public enum FolderEntry: Sendable, Equatable {
        case folder(String)
        case file(String)
    }

    /// The folders and files directly in `folder`, in path order, each once
    /// (`RawReader.forEachEntry`). How many entries.
    @discardableResult
    public func forEachEntry(in folder: String, _ body: @escaping @Sendable (FolderEntry) -> Void) throws(SongboxError) -> Int {
        try runner.readRaw { reader in try reader.forEachEntry(in: folder, body) }
    }

    /// The tracks inside `folder` (at any depth), in path order, streamed.
    @discardableResult
    public func forEach(under folder: String, _ body: @escaping @Sendable (Track) -> Void) throws(SongboxError) -> Int {
        let (lower, upper) = Self.pathRange(under: folder)
        return try runner.read { db in
            let cursor = try Track.fetchCursor(db, sql: "SELECT * FROM library WHERE path >= ? AND path < ? ORDER BY path",
                                               arguments: [lower, upper])
            var count = 0
            while let track = try cursor.next() {
                body(track)
                count += 1
            }
            return count
        }
    }
}
