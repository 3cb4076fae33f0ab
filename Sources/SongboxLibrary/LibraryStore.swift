import Foundation
import GRDB
import Synchronization

/// The library database: tracks, user overrides, play history, playlists.
///
/// SQLite in WAL mode through GRDB, which confines each connection to its own serial queue.
/// Every change is one transaction, so a kill -9 leaves every committed row.
public final class LibraryStore: Sendable {
    /// How many connections to keep.
    public enum Access: Sendable {
        /// One connection: the quickest to open, for one-shot commands.
        case single
        /// A writer and concurrent readers, for a long-running process where reads must not
        /// wait for writes.
        case shared
    }

    public let path: String
    let database: any DatabaseWriter
    /// Statements kept prepared for repeated raw reads (`RawReader.forEachRow(of:reusing:)`).
    let statementReuse = StatementReuse()
    /// Tells this store's change stamps from another's (`changeStamp()`).
    let serial = LibraryStore.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)
    private let evaluatorSlot = Mutex<(any ScriptPlaylistEvaluator)?>(nil)

    /// What runs the functions of smart playlists defined in scripts (see `ScriptPlaylist`); the
    /// script layer sets it. Without one, reading such a playlist is an error.
    public var scriptEvaluator: (any ScriptPlaylistEvaluator)? {
        get { evaluatorSlot.withLock { $0 } }
        set { evaluatorSlot.withLock { $0 = newValue } }
    }

    /// Replaces the evaluator with what `change` makes of it, atomically.
    public func updateScriptEvaluator(_ change: ((any ScriptPlaylistEvaluator)?) -> (any ScriptPlaylistEvaluator)?) {
        evaluatorSlot.withLock { $0 = change($0) }
    }

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    /// `busyTimeout`: how long to wait for a lock another process holds.
    /// The page size of a new library. A play is a few rows in five pages (the history row, its
    /// two indexes, the track's counts, the saved place), committed and synced at once; each
    /// page goes to the write-ahead log whole. With 1 KiB pages a track change writes about
    /// half the blocks it does with SQLite's 4 KiB default (docs/benchmarks.md), and a Pi's SD
    /// card wears by the block; scans and searches measured the same, the file is a tenth larger.
    public static let pageSize = 1024

    public init(path: String, access: Access = .single, busyTimeout: TimeInterval = 10) throws(SongboxError) {
        self.path = path
        try Self.checkPath(path)
        let directory = FilePaths.parent(path)
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            // A new library is made by one process at a time: a second waits for the first, then
            // finds the schema made (SQLite alone let both run `CREATE TABLE`).
            var schemaLock = Self.isNew(path) ? LibraryLock.schema(database: path, within: busyTimeout) : nil
            database = try Self.connect(path, access: access, busyTimeout: busyTimeout)
            try Self.retryingWhileBusy(within: busyTimeout + 1) {
                try Schema.migrate(database) {
                    if schemaLock == nil { schemaLock = LibraryLock.schema(database: path, within: busyTimeout) }
                }
            }
            withExtendedLifetime(schemaLock) {}
        } catch let error as SongboxError {
            throw error.located(at: path)
        } catch let error as DatabaseError {
            throw SongboxError.database(error, at: path)
        } catch {
            throw SongboxError(.databaseUnavailable, "cannot create the folder of the library database", at: directory,
                               hint: "check that its parent folder exists and is writable, or pass --db PATH",
                               cause: error)
        }
    }

    /// Whether a library that failed to open for writing can be read: it is there, and it was
    /// the file, its folder or a full disk (no room for the write-ahead log) that refused.
    private static func opensReadOnly(after error: DatabaseError, path: String) -> Bool {
        guard Glibc.access(path, R_OK) == 0, !isNew(path) else { return false }
        switch error.resultCode.primaryResultCode {
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_FULL: return true
        case .SQLITE_IOERR: return DatabaseHolders.diskIsFull(path)
        default: return false
        }
    }

    private static func isNew(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) != 0 || info.st_size == 0
    }

    /// GRDB's connections to the file at `path`. A library SQLite cannot open for writing (a
    /// read-only file, folder or mount) is opened read-only: reading commands work and writing
    /// ones fail with SQLITE_READONLY, said as such (or as a full disk, when that was the cause). In a folder where SQLite cannot make the
    /// write-ahead log's index (`-shm`), the file is read as immutable: nothing can change it.
    private static func connect(_ path: String, access: Access, busyTimeout: TimeInterval) throws -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            // WAL is a property of the file: after the first open this changes nothing and,
            // unlike GRDB's `journalMode = .wal`, never writes, so a read-only command
            // costs no fsync.
            if !db.configuration.readonly, try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                // A new library's pages are small (a page size is fixed once tables exist).
                if try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 {
                    try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
                }
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            // A Pi loses power; FULL makes each commit durable, not only crash-safe.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Reads through a memory map: a search that scans the table copies no pages.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        do {
            switch access {
            case .single: return try DatabaseQueue(path: path, configuration: configuration)
            case .shared:
                let pool = try DatabasePool(path: path, configuration: configuration)
                // GRDB sets its writer to `synchronous = NORMAL` after `prepareDatabase` (its WAL
                // set-up): a commit would then survive a crash but not a power cut. The writer is
                // the one connection that commits: FULL again, as for every other connection.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                return pool
            }
        } catch let error as DatabaseError where Self.opensReadOnly(after: error, path: path) {
            configuration.readonly = true
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.read { db in _ = try Int.fetchOne(db, sql: "PRAGMA user_version") }
                return queue
            } catch {
                // Immutable reads the main file alone: only when no write-ahead log holds commits
                // it would miss (a library closed cleanly leaves none).
                var log = stat()
                if stat(path + "-wal", &log) == 0, log.st_size > 0 { throw error }
                // SQLite's URI file names (Debian builds it with SQLITE_USE_URI).
                let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
                    .replacingOccurrences(of: "#", with: "%23")
                return try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
            }
        }
    }

    /// Runs `body` in a read transaction.
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try Self.retryingWhileBusy { try database.read(body) } } catch { throw SongboxError.database(error, at: path) }
    }

    /// Runs `body` in a write transaction: all of it is committed, or none.
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try Self.retryingWhileBusy { try database.write(body) } } catch { throw SongboxError.database(error, at: path) }
    }

    /// Whether SQLite gave up on a lock another connection held.
    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// Runs `body` again when SQLite reports a lock it would not wait for (the busy timeout
    /// covers most waits, not all: a lock met while opening, or a snapshot that went stale),
    /// with growing pauses, for at most `bound` seconds in all: a lock the busy timeout already
    /// waited out is not waited for again and again. A transaction that failed was rolled back,
    /// so running it again is safe.
    static func retryingWhileBusy<T>(within bound: TimeInterval = 1, _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + .seconds(bound)
        var pause: UInt32 = 20_000
        while true {
            do { return try body() } catch let error as DatabaseError where isBusy(error) && ContinuousClock.now < deadline {
                usleep(pause + UInt32.random(in: 0..<pause))
                pause = min(pause * 2, 320_000)
            }
        }
    }

    /// An empty path, or a folder, is a mistake (GRDB would open a throw-away database for
    /// an empty one).
    private static func checkPath(_ path: String) throws(SongboxError) {
        guard !path.isEmpty else {
            throw SongboxError(.invalidArgument, "the database path is empty",
                               hint: "give a file with --db PATH (or SONGBOX_DB), or leave both out for the default")
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw SongboxError(.invalidArgument, "the database path is a folder", at: path,
                               hint: "give a file in it, for example --db \(path.hasSuffix("/") ? path : path + "/")library.db")
        }
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
