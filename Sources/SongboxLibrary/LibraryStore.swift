import Foundation
import GRDB

/// The library database: tracks, user overrides, play history, playlists.
///
/// SQLite in WAL mode through a GRDB `DatabasePool`, which confines each connection to its own
/// serial queue. Every change is one transaction, so a kill -9 leaves every committed row.
public final class LibraryStore: Sendable {
    public let path: String
    let pool: DatabasePool

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    public init(path: String) throws(SongboxError) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                // A Pi loses power; FULL makes each commit durable, not only crash-safe.
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            try Schema.migrator.migrate(pool)
        } catch {
            throw SongboxError(.databaseUnavailable, "cannot open the library database", at: path,
                               hint: "check that the folder is writable, or pass --db PATH", cause: error)
        }
    }

    /// Runs `body` in a read transaction.
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try pool.read(body) } catch { throw SongboxError.database(error, at: path) }
    }

    /// Runs `body` in a write transaction: all of it is committed, or none.
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try pool.write(body) } catch { throw SongboxError.database(error, at: path) }
    }
}

/// The default database location: `$SONGBOX_DB`, else `$XDG_DATA_HOME/songbox/library.db`,
/// else `~/.local/share/songbox/library.db`.
public func defaultDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let explicit = environment["SONGBOX_DB"], !explicit.isEmpty { return explicit }
    let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return dataHome + "/songbox/library.db"
}
