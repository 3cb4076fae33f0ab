import Foundation

extension LibraryStore {
    /// `summaries(matching:)` without opening the store, through the runner's one-shot read
    /// (`StatementRunner.readOnce`): what the one-shot `songbox ls` uses. Nil when it cannot
    /// answer alone — no database yet, a schema that needs migrating, a query that names
    /// playlists, any SQLite failure: then ask the store, which says what is wrong.
    public static func quickSummaries(path: String, matching text: String, now: Date = Date()) -> [TrackSummary]? {
        guard FileManager.default.fileExists(atPath: path),
              let query = try? LibraryQuery.parse(text, now: now), query.playlistNames.isEmpty else { return nil }
        let (sql, values) = query.values(selecting: TrackSummary.columns)
        return StatementRunner.readOnce(path: path, sql: sql, values: values) { row in
            TrackSummary(
                id: row.int64(0), path: row.text(1) ?? "", artist: row.text(2), title: row.text(3), album: row.text(4),
                year: row.isNull(5) ? nil : Int(row.int64(5)), duration: row.double(6))
        }
    }
}
