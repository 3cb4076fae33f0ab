import Foundation
import GRDB
import GRDBSQLite

extension LibraryStore {
    /// `summaries(matching:)` over a read-only SQLite connection of its own, without opening the
    /// store: what the one-shot `songbox ls` uses, as GRDB's connection set-up and its statement
    /// authorizer (called for every column the `library` view reads) were a quarter of its time.
    /// Nil when it cannot answer alone — no database yet, a schema that needs migrating, a query
    /// that names playlists, any SQLite failure: then ask the store, which says what is wrong.
    public static func quickSummaries(path: String, matching text: String, now: Date = Date()) -> [TrackSummary]? {
        guard FileManager.default.fileExists(atPath: path),
              let query = try? LibraryQuery.parse(text, now: now), query.playlistNames.isEmpty else { return nil }
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let connection else { return nil }
        sqlite3_busy_timeout(connection, 10_000)
        guard Self.integer(connection, "PRAGMA user_version") == Int64(Schema.migrationCount) else { return nil }
        _ = Self.integer(connection, "PRAGMA mmap_size = 268435456")

        let (sql, values) = query.values(selecting: TrackSummary.columns)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value.storage {
            case .null: status = sqlite3_bind_null(statement, position)
            case .int64(let number): status = sqlite3_bind_int64(statement, position, number)
            case .double(let number): status = sqlite3_bind_double(statement, position, number)
            case .string(let text): status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .blob(let data):
                status = data.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient) }
            }
            guard status == SQLITE_OK else { return nil }
        }
        var found: [TrackSummary] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return found }
            guard step == SQLITE_ROW else { return nil }
            found.append(TrackSummary(
                id: sqlite3_column_int64(statement, 0), path: Self.text(statement, 1) ?? "",
                artist: Self.text(statement, 2), title: Self.text(statement, 3), album: Self.text(statement, 4),
                year: sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, 5)),
                duration: sqlite3_column_double(statement, 6)))
        }
    }

    /// SQLite copies a bound value at once (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }

    private static func integer(_ connection: OpaquePointer, _ sql: String) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
