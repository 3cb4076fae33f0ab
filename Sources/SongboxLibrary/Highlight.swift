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

extension TrackStore {
    /// Sets (or with nil clears) the highlight of a track.
    public func setHighlight(_ highlight: Highlight?, of trackID: Int64) throws(SongboxError) {
        if let highlight, !(highlight.start >= 0 && highlight.end > highlight.start) {
            throw SongboxError(.invalidArgument, "a highlight must end after it starts, got \(highlight.start)..\(highlight.end)",
                               hint: "for example highlight=1:05..1:35")
        }
        try runner.write { db in
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
        return try runner.read { db in
            var found: [Int64: Highlight] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT track_id, start, "end" FROM highlights WHERE track_id IN (SELECT value FROM json_each(?))
                """, arguments: [LibrarySQL.jsonList(ids)])
            for row in rows { found[row["track_id"]] = Highlight(start: row["start"], end: row["end"]) }
            return found
        }
    }
}
