import Foundation
import GRDB

/// A start and end second of a track: what the player's highlights mode plays.
public struct Highlight: Sendable, Hashable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// Parses `START..END` in seconds or minutes:seconds (`65..95`, `1:05..1:35`).
    public init(parsing text: String) throws(SongboxError) {
        let parts = text.components(separatedBy: "..")
        guard parts.count == 2, let start = QueryValueReader.seconds(parts[0]), let end = QueryValueReader.seconds(parts[1]), end > start else {
            throw SongboxError(.invalidArgument, "a highlight is START..END with END after START, got '\(text)'",
                               hint: "for example highlight=1:05..1:35 (or highlight= to clear it)")
        }
        self.init(start: Double(start), end: Double(end))
    }
}

extension LibraryStore {
    /// Sets (or with nil clears) the highlight of a track.
    public func setHighlight(_ highlight: Highlight?, of trackID: Int64) throws(SongboxError) {
        if let highlight, !(highlight.start >= 0 && highlight.end > highlight.start) {
            throw SongboxError(.invalidArgument, "a highlight must end after it starts, got \(highlight.start)..\(highlight.end)",
                               hint: "for example highlight=1:05..1:35")
        }
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM library WHERE id = ?", arguments: [trackID]) != nil else {
                throw SongboxError(.notFound, "no track with id \(trackID)", hint: "find ids with `songbox ls`")
            }
            if let highlight {
                try db.execute(sql: "INSERT OR REPLACE INTO highlights (track_id, start, \"end\") VALUES (?, ?, ?)",
                               arguments: [trackID, highlight.start, highlight.end])
            } else {
                try db.execute(sql: "DELETE FROM highlights WHERE track_id = ?", arguments: [trackID])
            }
        }
    }

    /// The highlights of the tracks `ids` that have one.
    public func highlights(of ids: [Int64]) throws(SongboxError) -> [Int64: Highlight] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var found: [Int64: Highlight] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT track_id, start, "end" FROM highlights WHERE track_id IN (SELECT value FROM json_each(?))
                """, arguments: [Self.jsonList(ids)])
            for row in rows { found[row["track_id"]] = Highlight(start: row["start"], end: row["end"]) }
            return found
        }
    }

    /// Keeps `value` under `name` (the player's queue and position, ...), replacing what was there.
    public func saveState(_ value: Data, as name: String) throws(SongboxError) {
        try write { db in try Self.keepState(value, as: name, db) }
    }

    /// Updated in place when the name is there (one page written, not a delete and an insert
    /// that touch the name's index too: a Pi's SD card counts the blocks).
    static func keepState(_ value: Data, as name: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO saved_state (name, value, updated) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated = excluded.updated
            """, arguments: [name, value, seconds(Date())])
    }

    public func savedState(_ name: String) throws(SongboxError) -> Data? {
        try read { db in try Data.fetchOne(db, sql: "SELECT value FROM saved_state WHERE name = ?", arguments: [name]) }
    }

    public func removeState(_ name: String) throws(SongboxError) {
        try write { db in try db.execute(sql: "DELETE FROM saved_state WHERE name = ?", arguments: [name]) }
    }

    /// The names kept that start with `prefix`, in order.
    public func savedStateNames(prefix: String) throws(SongboxError) -> [String] {
        try read { db in
            // substr, not LIKE: a prefix may hold % and _.
            try String.fetchAll(db, sql: "SELECT name FROM saved_state WHERE substr(name, 1, ?) = ? ORDER BY name",
                                arguments: [prefix.count, prefix])
        }
    }
}
