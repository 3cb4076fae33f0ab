import Foundation
import GRDB

/// One row of the play history: a play or a skip, why it ended, how much was heard.
public struct HistoryEntry: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case play, skip
    }

    public var id: Int64
    /// Nil once the track has left the library (the row stays, with its snapshot).
    public var trackID: Int64?
    /// Snapshots taken when the row was written, so a row reads the same after the track is gone.
    public var path: String
    public var artist: String?
    public var title: String?
    public var kind: Kind
    /// Why the track ended ("finished", "skipped", "stopped", ...).
    public var reason: String
    /// Seconds heard.
    public var played: Double
    /// Unix seconds.
    public var at: Int64
    /// The track as the library shows it now; nil once it has been removed.
    public var track: Track?

    init(row: Row) {
        id = row["id"]
        trackID = row["track_id"]
        path = row["path"]
        artist = row["artist"]
        title = row["title"]
        kind = Kind(rawValue: row["kind"]) ?? .play
        reason = row["reason"]
        played = row["played"]
        at = row["at"]
    }
}

/// A track and how often it was played in a window of time.
public struct TopTrack: Sendable, Equatable {
    public var track: Track
    /// Plays within the window.
    public var plays: Int
    /// Unix seconds of the last play within the window.
    public var lastPlayed: Int64
}

/// A play or a skip to record.
public struct PlayRecord: Sendable, Hashable {
    public var trackID: Int64
    public var kind: HistoryEntry.Kind
    /// Why the track ended ("finished", "skipped", "stopped", ...).
    public var reason: String
    /// Seconds heard.
    public var played: Double
    public var at: Date

    public init(trackID: Int64, kind: HistoryEntry.Kind, reason: String, played: Double, at: Date = Date()) {
        self.trackID = trackID
        self.kind = kind
        self.reason = reason
        self.played = played
        self.at = at
    }

    var trackGone: SongboxError {
        SongboxError(.notFound, "no track with id \(trackID)", hint: "find ids with `songbox ls`")
    }

    func validate() throws(SongboxError) {
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SongboxError(.invalidArgument, "a play needs a reason", hint: "for example \"finished\" or \"skipped\"")
        }
        guard played.isFinite, played >= 0 else {
            throw SongboxError(.invalidArgument, "seconds played must be a number of 0 or more, got \(played)")
        }
    }
}

/// The play history: the single place plays and skips are written, and what reads them.
/// A trigger keeps each track's `plays`, `skips` and `last_played` in step, in the same transaction.
/// Plays and skips (`history`), and the counts they make. `LibraryStore.history`.
public struct HistoryStore: Sendable {
    let runner: StatementRunner

    /// Records that a track was played or skipped. The row keeps a snapshot of the track's path,
    /// artist and title (as the library shows them).
    @discardableResult
    public func recordPlay(trackID: Int64, kind: HistoryEntry.Kind, reason: String, played: Double,
                           at time: Date = Date()) throws(SongboxError) -> HistoryEntry {
        let play = PlayRecord(trackID: trackID, kind: kind, reason: reason, played: played, at: time)
        try play.validate()
        return try runner.write { db in
            guard try Self.insert(play, db) else { throw play.trackGone }
            let row = try Row.fetchOne(db, sql: "SELECT * FROM history WHERE id = ?", arguments: [db.lastInsertedRowID])!
            var entry = HistoryEntry(row: row)
            entry.track = try Track.fetchOne(db, sql: "SELECT * FROM library WHERE id = ?", arguments: [trackID])
            return entry
        }
    }

    /// Records plays and skips and keeps state values, all in one transaction: the entry point
    /// the player uses. A track change is a play and a new place, and on a Pi's SD card each
    /// synced commit costs blocks, so they are one write. A play that cannot be kept (its track
    /// is gone, a bad number) is left out and its error returned in its place; the rest are kept.
    @discardableResult
    public func recordPlayback(_ plays: [PlayRecord], state: [(name: String, value: Data)] = []) throws(SongboxError) -> [SongboxError?] {
        try runner.write { db in
            var outcomes: [SongboxError?] = []
            for play in plays {
                do throws(SongboxError) { try play.validate() } catch {
                    outcomes.append(error)
                    continue
                }
                outcomes.append(try Self.insert(play, db) ? nil : play.trackGone)
            }
            for (name, value) in state { try SavedStateStore.keepState(value, as: name, db) }
            return outcomes
        }
    }

    /// False when the track is not in the library.
    private static func insert(_ play: PlayRecord, _ db: Database) throws -> Bool {
        // From `tracks`, not the `library` view: a track whose file went missing while it
        // played keeps the play (its history is what a missing track keeps).
        guard let snapshot = try Row.fetchOne(db, sql: """
            SELECT t.path, coalesce(o.artist, t.artist) AS artist, coalesce(o.title, t.title) AS title
            FROM tracks t LEFT JOIN overrides o ON o.track_id = t.id WHERE t.id = ?
            """, arguments: [play.trackID]) else { return false }
        try db.execute(sql: """
            INSERT INTO history (track_id, path, artist, title, kind, reason, played, at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [play.trackID, snapshot["path"] as DatabaseValue, snapshot["artist"] as DatabaseValue,
                             snapshot["title"] as DatabaseValue, play.kind.rawValue,
                             play.reason, play.played, LibrarySQL.seconds(play.at)])
        return true
    }

    /// The last `limit` plays and skips, newest first.
    public func recent(limit: Int = 50) throws(SongboxError) -> [HistoryEntry] {
        try runner.read { db in
            try Self.withTracks(HistoryEntry.fetch(db, sql: "SELECT * FROM history ORDER BY at DESC, id DESC LIMIT ?",
                                                   arguments: [max(0, limit)]), in: db)
        }
    }

    /// The plays of one track, newest first; with `includingSkips`, its skips too.
    public func plays(of trackID: Int64, includingSkips: Bool = false) throws(SongboxError) -> [HistoryEntry] {
        try runner.read { db in
            try Self.withTracks(HistoryEntry.fetch(db, sql: """
                SELECT * FROM history WHERE track_id = ? \(includingSkips ? "" : "AND kind = 'play'")
                ORDER BY at DESC, id DESC
                """, arguments: [trackID]), in: db)
        }
    }

    /// The most played tracks since `since` (all time when nil): most plays first, ties broken by
    /// the latest play in the window (most recent first), then by id. Removed tracks are left out.
    public func topTracks(since: Date? = nil, limit: Int = 10) throws(SongboxError) -> [TopTrack] {
        try runner.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT track_id, count(*) AS plays, max(at) AS last FROM history
                WHERE kind = 'play' AND track_id IS NOT NULL AND at >= ?
                GROUP BY track_id ORDER BY plays DESC, last DESC, track_id LIMIT ?
                """, arguments: [since.map(LibrarySQL.seconds) ?? Int64.min, max(0, limit)])
            let tracks = try TrackStore.byID(rows.map { $0["track_id"] }, in: db)
            return rows.compactMap { row -> TopTrack? in
                guard let track = tracks[row["track_id"]] else { return nil }
                return TopTrack(track: track, plays: row["plays"], lastPlayed: row["last"])
            }
        }
    }

    /// Plays a day (skips not counted) since `since`, by the local date (`YYYY-MM-DD`), oldest
    /// first; a day without a play is not listed.
    public func playsPerDay(since: Date) throws(SongboxError) -> [(day: String, plays: Int)] {
        try runner.read { db in
            try Row.fetchAll(db, sql: """
                SELECT date(at, 'unixepoch', 'localtime') AS day, count(*) AS plays FROM history
                WHERE kind = 'play' AND at >= ? GROUP BY day ORDER BY day
                """, arguments: [LibrarySQL.seconds(since)]).map { (day: $0["day"], plays: $0["plays"]) }
        }
    }

    private static func withTracks(_ entries: [HistoryEntry], in db: Database) throws -> [HistoryEntry] {
        let tracks = try TrackStore.byID(entries.compactMap(\.trackID), in: db)
        return entries.map { entry in
            var entry = entry
            entry.track = entry.trackID.flatMap { tracks[$0] }
            return entry
        }
    }
}

extension HistoryStore {
    /// What the library holds and what was played: `songbox stats`.
    public func statistics() throws(SongboxError) -> LibraryStatistics {
        var stats = try runner.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), count(DISTINCT artist_key), count(DISTINCT coalesce(albumartist_key, artist_key) || '\u{1}' || album_key),
                       count(DISTINCT genre_key), coalesce(sum(duration), 0), coalesce(sum(size), 0)
                FROM library
                """)!
            return LibraryStatistics(
                tracks: row[0], artists: row[1], albums: row[2], genres: row[3], duration: row[4], size: row[5],
                plays: try Int.fetchOne(db, sql: "SELECT count(*) FROM history WHERE kind = 'play'") ?? 0,
                skips: try Int.fetchOne(db, sql: "SELECT count(*) FROM history WHERE kind = 'skip'") ?? 0,
                playlists: try Int.fetchOne(db, sql: "SELECT count(*) FROM playlists") ?? 0,
                unreadable: try Int.fetchOne(db, sql: "SELECT count(*) FROM unreadable") ?? 0,
                missing: try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks WHERE missing_since IS NOT NULL") ?? 0,
                excluded: try Int.fetchOne(db, sql: "SELECT count(*) FROM excluded") ?? 0,
                folders: try String.fetchAll(db, sql: "SELECT path FROM folders ORDER BY path"),
                databaseSize: 0)
        }
        stats.databaseSize = [runner.path, runner.path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return total + (stat(file, &info) == 0 ? Int64(info.st_size) : 0)
        }
        return stats
    }
}

extension HistoryEntry {
    static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> [HistoryEntry] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map(HistoryEntry.init)
    }
}
