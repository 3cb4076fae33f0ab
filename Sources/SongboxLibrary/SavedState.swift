import Foundation
import GRDB

/// Values kept across runs under a name (`saved_state`): the player's place and queue, a
/// script's `songbox.state`, the alarms. `LibraryStore.state`.
public struct SavedStateStore: Sendable {
    let runner: StatementRunner

    /// Keeps `value` under `name` (the player's queue and position, ...), replacing what was there.
    public func save(_ value: Data, as name: String) throws(SongboxError) {
        try runner.write { db in try Self.keepState(value, as: name, db) }
    }

    /// Updated in place when the name is there (one page written, not a delete and an insert
    /// that touch the name's index too: a Pi's SD card counts the blocks).
    static func keepState(_ value: Data, as name: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO saved_state (name, value, updated) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated = excluded.updated
            """, arguments: [name, value, LibrarySQL.seconds(Date())])
    }

    /// Keeps `value` under `name` unless the names that start with `prefix` (`name` among them)
    /// would then hold more than `limit` bytes, names and values counted (a script's
    /// `songbox.state`). Refused, nothing is written and the answer is the bytes they would hold;
    /// nil when kept. The sum is taken in the write's own transaction.
    public func save(_ value: Data, as name: String, under prefix: String, limit: Int) throws(SongboxError) -> Int? {
        try runner.write { db in
            let others = try Int.fetchOne(db, sql: """
                SELECT COALESCE(SUM(length(CAST(name AS BLOB)) + length(value)), 0) FROM saved_state
                WHERE substr(name, 1, ?) = ? AND name <> ?
                """, arguments: [prefix.unicodeScalars.count, prefix, name]) ?? 0
            let total = others + name.utf8.count + value.count
            guard total <= limit else { return total }
            try Self.keepState(value, as: name, db)
            return nil
        }
    }

    /// The value kept under `name`, nil when there is none.
    public func saved(_ name: String) throws(SongboxError) -> Data? {
        try runner.read { db in try Data.fetchOne(db, sql: "SELECT value FROM saved_state WHERE name = ?", arguments: [name]) }
    }

    public func remove(_ name: String) throws(SongboxError) {
        try runner.write { db in try db.execute(sql: "DELETE FROM saved_state WHERE name = ?", arguments: [name]) }
    }

    /// The names kept that start with `prefix`, in order.
    public func names(prefix: String) throws(SongboxError) -> [String] {
        try runner.read { db in
            // substr, not LIKE: a prefix may hold % and _. SQLite counts characters as code points.
            try String.fetchAll(db, sql: "SELECT name FROM saved_state WHERE substr(name, 1, ?) = ? ORDER BY name",
                                arguments: [prefix.unicodeScalars.count, prefix])
        }
    }
}
