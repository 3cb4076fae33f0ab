import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The one way the library's SQL runs: it owns the connections (GRDB's queue or pool), how long
/// a lock is waited for, and how a failure is said (`SongboxError.database`). Every store of the
/// library (`LibraryStore.tracks`, `playlists`, `history`, `state`) reads and writes through it;
/// so do the fast paths, the raw row reader (`readRaw`) and the one-shot listing (`readOnce`).
///
/// SQLite in WAL mode through GRDB, which confines each connection to its own serial queue.
/// Every change is one transaction, so a kill -9 leaves every committed row.
public final class StatementRunner: Sendable {
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
    /// Tells this runner's change stamps from another's (`changeStamp()`).
    let serial = StatementRunner.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)

    /// The page size of a new library. A play is a few rows in five pages (the history row, its
    /// two indexes, the track's counts, the saved place), committed and synced at once; each
    /// page goes to the write-ahead log whole. With 1 KiB pages a track change writes about
    /// half the blocks it does with SQLite's 4 KiB default (docs/benchmarks.md), and a Pi's SD
    /// card wears by the block; scans and searches measured the same, the file is a tenth larger.
    public static let pageSize = 1024

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    /// `busyTimeout`: how long to wait for a lock another process holds.
    init(path: String, access: Access, busyTimeout: TimeInterval) throws(SongboxError) {
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

    // MARK: Running statements

    /// Runs `body` in a read transaction.
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try Self.retryingWhileBusy { try database.read(body) } } catch { throw SongboxError.database(error, at: path) }
    }

    /// Runs `body` in a write transaction: all of it is committed, or none.
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try Self.retryingWhileBusy { try database.write(body) } } catch { throw SongboxError.database(error, at: path) }
    }

    /// Runs `body` on the writer connection outside a transaction (a pragma, `VACUUM INTO`). A
    /// failure is said of `failingAt` (the file the statement writes), else of the library.
    func writeWithoutTransaction<T: Sendable>(failingAt file: String? = nil,
                                              _ body: @Sendable (Database) throws -> T) throws(SongboxError) -> T {
        do { return try database.writeWithoutTransaction(body) } catch { throw SongboxError.database(error, at: file ?? path) }
    }

    /// Commits from here on are safe from a crash or a kill, not from a power cut (WAL with
    /// `synchronous = NORMAL`: no fsync per commit). For a run that only adds derived data, such
    /// as `songbox analyze`: what a power cut loses is measured again by the next run, and a
    /// sync per track cost more than analyzing a short one.
    public func skipSyncPerCommit() throws(SongboxError) {
        try writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    }

    /// Runs `body` in a read transaction, with raw row access (for readers that write rows
    /// straight into a format of their own, such as the Lua bridge's and MPD's search answer).
    public func readRaw<T: Sendable>(_ body: @Sendable (RawReader) throws -> T) throws(SongboxError) -> T {
        try read { db in try body(RawReader(db: db, reuse: statementReuse)) }
    }

    /// What changes whenever the library's data may have: compare two to know whether anything
    /// read in between may be stale. Only stamps of the same runner compare.
    public struct ChangeStamp: Hashable, Sendable {
        let runner: UInt64
        /// `PRAGMA data_version` of the writer connection: changes when another connection commits.
        let dataVersion: Int64
        /// `total_changes()` of the writer connection: its own writes, triggers included.
        let totalChanges: Int64
    }

    /// The stamp now, read on the writer connection (the one connection of both a queue and a
    /// pool that writes, so stamps of one runner compare across calls). Read it before reading
    /// what it guards: a change in between then shows in the next stamp.
    public func changeStamp() throws(SongboxError) -> ChangeStamp {
        let serial = self.serial
        return try writeWithoutTransaction { db in
            let statement = try db.cachedStatement(sql: "SELECT data_version, total_changes() FROM pragma_data_version")
            let row = try Row.fetchOne(statement)
            return ChangeStamp(runner: serial, dataVersion: row?[0] ?? 0, totalChanges: row?[1] ?? 0)
        }
    }

    // MARK: Locks

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

    // MARK: Connecting

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
            // `field:~"pattern"` in a query (MPD's `=~`).
            db.add(function: BoundedRegex.sqlFunction)
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

// MARK: The one-shot read

extension StatementRunner {
    /// `sql` with `values` over a read-only SQLite connection of its own, without opening a
    /// runner: what the one-shot `songbox ls` uses, as GRDB's connection set-up and its statement
    /// authorizer (called for every column the `library` view reads) were a quarter of its time.
    /// `row` makes a value of each row. Nil when it cannot answer alone — no database yet, a
    /// schema that needs migrating, any SQLite failure: then ask a store, which says what is wrong.
    static func readOnce<T>(path: String, sql: String, values: [DatabaseValue], _ row: (RawRow) -> T) -> [T]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let connection else { return nil }
        sqlite3_busy_timeout(connection, 10_000)
        guard Self.integer(connection, "PRAGMA user_version") == Int64(Schema.migrationCount) else { return nil }
        _ = Self.integer(connection, "PRAGMA mmap_size = 268435456")

        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        guard Self.bind(values, to: statement) == SQLITE_OK else { return nil }
        var found: [T] = []
        let current = RawRow(statement: statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return found }
            guard step == SQLITE_ROW else { return nil }
            found.append(row(current))
        }
    }

    /// Binds `values` to the parameters of `statement`, in order, through SQLite's own calls:
    /// SQLITE_OK, else the first failure's code.
    static func bind(_ values: [DatabaseValue], to statement: OpaquePointer) -> Int32 {
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
            guard status == SQLITE_OK else { return status }
        }
        return SQLITE_OK
    }

    /// SQLite copies a bound value at once (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func integer(_ connection: OpaquePointer, _ sql: String) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}

extension Statement {
    /// Runs this statement (one that returns no rows) once with `values`, bound through SQLite's
    /// own calls: a scan writes 47 values a track, and GRDB's `StatementArguments` checks and
    /// converts each through an existential. Fails as GRDB's `execute` does, with SQLite's code.
    func run(binding values: [DatabaseValue]) throws {
        let statement = sqliteStatement
        sqlite3_reset(statement)
        var code = StatementRunner.bind(values, to: statement)
        if code == SQLITE_OK { code = sqlite3_step(statement) }
        defer { sqlite3_reset(statement) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))), sql: sql)
        }
    }
}
