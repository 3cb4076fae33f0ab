import Foundation
import GRDB
import GRDBSQLite

/// The library database: tracks, user overrides, play history, playlists. What callers hold:
/// it opens the `StatementRunner` every query runs through.
public final class LibraryStore: Sendable {
    public typealias Access = StatementRunner.Access

    /// The connections, and the one way a statement runs and fails.
    public let runner: StatementRunner
    public var path: String { runner.path }

    /// The tracks: search, listing, edits, and what is kept of each.
    public var tracks: TrackStore { TrackStore(library: self) }

    /// Playlists saved and smart, their files (M3U8, JSON), and those a script function defines.
    public var playlists: PlaylistStore { PlaylistStore(library: self) }

    /// Plays and skips, and the statistics they make.
    public var history: HistoryStore { HistoryStore(runner: runner) }

    /// Values kept across runs under a name (the player's place, a script's state).
    public var state: SavedStateStore { SavedStateStore(runner: runner) }

    /// Remote tracks and their offline copies (`songbox add-url`, `songbox cache`).
    public var offline: RemoteTrackStore { RemoteTrackStore(runner: runner) }

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    /// `busyTimeout`: how long to wait for a lock another process holds.
    public init(path: String, access: Access = .single, busyTimeout: TimeInterval = 10) throws(SongboxError) {
        runner = try StatementRunner(path: path, access: access, busyTimeout: busyTimeout)
    }

    /// Throws unless this process may write the library: the file (a write transaction begins)
    /// and its folder (SQLite's journal files, the plugins' folders beside it). For a process
    /// that writes all the time, such as the daemon: refused at the start, in words, rather
    /// than a failure on every play and a plugin restarted in a loop.
    public func checkWritable() throws(SongboxError) {
        let hint: Message = "make the file and its folder writable by this user, or pass --db PATH"
        let folder = FilePaths.parent(path).isEmpty ? "." : FilePaths.parent(path)
        guard access(folder, W_OK) == 0 else {
            throw SongboxError(.databaseReadOnly, "the folder of the library database is read-only", at: folder, hint: hint)
        }
        // A file SQLite may not write is opened read-only, without a word: ask it.
        let readOnly = try runner.writeWithoutTransaction { db in sqlite3_db_readonly(db.sqliteConnection, "main") != 0 }
        if readOnly { throw SongboxError(.databaseReadOnly, "the library database is read-only", at: path, hint: hint) }
    }

    /// A consistent copy of the whole library at `path` (a file that must not exist yet): what
    /// a dry run of something that changes the library works on (`songbox alarm test`).
    public func copy(to path: String) throws(SongboxError) {
        try runner.writeWithoutTransaction(failingAt: path) { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
    }
}

/// The default database location: `$SONGBOX_DB`, else `$XDG_DATA_HOME/songbox/library.db`,
/// else `~/.local/share/songbox/library.db`.
public func defaultDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    xdgPath(override: "SONGBOX_DB", base: "XDG_DATA_HOME", fallback: ".local/share", file: "songbox/library.db",
            environment: environment)
}

/// `$override` when set, else `file` under `$base`, else under `~/fallback` (the XDG rules).
public func xdgPath(override: String, base: String, fallback: String, file: String,
                    environment: [String: String]) -> String {
    func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    if let explicit = value(override) { return explicit }
    return (value(base) ?? (environment["HOME"] ?? NSHomeDirectory()) + "/" + fallback) + "/" + file
}

extension LibraryStore {
    /// What SQLite's `PRAGMA integrity_check` finds wrong with the file (at most 20 lines):
    /// empty when it is sound. Reads every page: seconds for a large library on a Pi.
    public func integrityProblems() throws(SongboxError) -> [String] {
        let found = try runner.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(20)") }
        return found == ["ok"] ? [] : found
    }
}
