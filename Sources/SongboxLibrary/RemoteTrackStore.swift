import Foundation
import GRDB

extension ProbedFile {
    /// What is known of a remote track without its file: a title, an artist, a length.
    static func remote(title: String?, artist: String?, duration: Double) -> ProbedFile {
        var tags = FileTags()
        tags.title = title
        tags.artist = artist
        return ProbedFile(tags: tags, audio: AudioFacts(duration: duration, bitrate: 0, sampleRate: 0, channels: 0))
    }
}

/// A remote track kept for offline listening, as the `offline` table and the library know it.
public struct OfflineEntry: Sendable, Equatable {
    public var trackID: Int64
    public var url: String
    public var title: String?
    /// `keep_offline`: downloaded, and never evicted.
    public var pinned: Bool
    /// The cache file is complete (and so is played instead of the network).
    public var complete: Bool
    public var size: Int64
}

/// Remote tracks (a URL for a path) and their offline copies: `LibraryStore.offline`.
public struct RemoteTrackStore: Sendable {
    let runner: StatementRunner

    /// Keeps `url` as a library track, counted like a local one: its tags and length read from
    /// `copy` (the whole file, downloaded; nil for a live stream, which has neither), with
    /// `title`, `artist` and `album` given by the user over them. A URL kept before is updated.
    /// Returns its id, and whether it is new.
    public func keepRemote(url: String, copy: String?, size: Int64, title: String?, artist: String?, album: String?,
                           now: Date = Date()) throws(SongboxError) -> (id: Int64, added: Bool) {
        var probed = ProbedFile.remote(title: nil, artist: nil, duration: 0)
        if let copy { probed = try TrackFileReader().read(path: copy) }
        if let title { probed.tags.title = title }
        if let artist { probed.tags.artist = artist }
        if let album { probed.tags.album = album }
        return try runner.write { [probed] db in
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE path = ?", arguments: [url]) {
                let values = TrackWriter.columnValues(FoundFile(path: url, size: size, mtime: 0), probed)
                let assignments = values.map { "\($0.0) = ?" }.joined(separator: ", ")
                try db.execute(sql: "UPDATE tracks SET \(assignments) WHERE id = ?", arguments: StatementArguments(values.map(\.1) + [id.databaseValue]))
                return (id, false)
            }
            return (try Self.insert(url: url, probed: probed, size: size, now: now, in: db), true)
        }
    }

    /// Adds the track `url` with what `probed` says of it; returns its id.
    static func insert(url: String, probed: ProbedFile, size: Int64 = 0, now: Date = Date(), in db: Database) throws -> Int64 {
        let values = TrackWriter.columnValues(FoundFile(path: url, size: size, mtime: 0), probed)
        let columns = values.map(\.0) + ["added"]
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try db.execute(sql: "INSERT INTO tracks (\(columns.joined(separator: ", "))) VALUES (\(placeholders))",
                       arguments: StatementArguments(values.map(\.1) + [Int64(now.timeIntervalSince1970).databaseValue]))
        return db.lastInsertedRowID
    }

    /// Every remote track the offline cache knows (pinned, or with a file), oldest use first:
    /// when it was last played, else when it was cached (the order eviction goes by).
    public func offlineEntries() throws(SongboxError) -> [OfflineEntry] {
        try runner.read { db in
            try Row.fetchAll(db, sql: """
                SELECT o.track_id, l.path, l.title, o.pinned, o.complete, o.size
                FROM offline o JOIN library l ON l.id = o.track_id
                ORDER BY coalesce(l.last_played, o.cached_at, 0), o.cached_at, o.track_id
                """).map { row in
                OfflineEntry(trackID: row[0], url: row[1], title: row[2], pinned: row[3], complete: row[4], size: row[5])
            }
        }
    }

    /// Marks tracks `keep_offline` (or not): a pinned track is downloaded by `cache add` and
    /// never evicted.
    public func setKeepOffline(_ ids: [Int64], _ pinned: Bool) throws(SongboxError) {
        try runner.write { db in
            for id in ids {
                try db.execute(sql: """
                    INSERT INTO offline (track_id, pinned) VALUES (?, ?)
                    ON CONFLICT(track_id) DO UPDATE SET pinned = excluded.pinned
                    """, arguments: [id, pinned])
            }
        }
    }

    /// Records a complete download of track `id` as `file` (in the cache folder). Its time keeps
    /// the fraction of a second: copies made in the same second are evicted in the order made.
    public func markCached(_ id: Int64, file: String, size: Int64, now: Date = Date()) throws(SongboxError) {
        try runner.write { db in
            try db.execute(sql: """
                INSERT INTO offline (track_id, complete, file, size, cached_at) VALUES (?, 1, ?, ?, ?)
                ON CONFLICT(track_id) DO UPDATE SET complete = 1, file = excluded.file, size = excluded.size,
                  cached_at = excluded.cached_at
                """, arguments: [id, file, size, now.timeIntervalSince1970])
        }
    }

    /// Forgets track `id`'s cache file (evicted, removed, or found gone); `unpin` also drops
    /// its `keep_offline` flag.
    public func forgetCached(_ id: Int64, unpin: Bool = false) throws(SongboxError) {
        try runner.write { db in
            if unpin {
                try db.execute(sql: "DELETE FROM offline WHERE track_id = ?", arguments: [id])
            } else {
                try db.execute(sql: "UPDATE offline SET complete = 0, file = NULL, size = 0 WHERE track_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM offline WHERE track_id = ? AND pinned = 0", arguments: [id])
            }
        }
    }
}
