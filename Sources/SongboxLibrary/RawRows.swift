import Foundation
import GRDB
import GRDBSQLite

/// The current row of a raw read (`StatementRunner.readRaw`, `readOnce`): typed access to its
/// columns by index, straight from SQLite, with nothing decoded that is not asked for. Valid only
/// inside the visit that received it.
public struct RawRow {
    let statement: OpaquePointer

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The value as an integer (SQLite's conversion; NULL is 0).
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    /// The value as a float (SQLite's conversion; NULL is 0).
    public func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    /// The value as text up to its first NUL (numbers converted), nil for NULL.
    public func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }

    /// The value as UTF-8 text (numbers converted; NULL is empty). The bytes are SQLite's: valid
    /// until the next call on this row.
    public func utf8(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let bytes = sqlite3_column_text(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }
}

/// A SELECT over the `library` view as SQL text and argument values. Equal statements read the
/// same rows from the same data, unless they draw random numbers (`isRepeatable`).
public struct RowStatement: Hashable, Sendable {
    public let sql: String
    let arguments: StatementArguments

    /// False when the rows depend on `random()` (the `random` directive, maybe inside a smart
    /// playlist): then its rows must be read again each time.
    public var isRepeatable: Bool { !sql.contains("random()") }
}

/// Raw reads inside one read transaction (`StatementRunner.readRaw`).
public struct RawReader {
    let db: Database
    let reuse: StatementReuse

    /// The SELECT of `columns` for `query`, with `playlist:NAME` expanded as
    /// `LibrarySQL.statement(for:selecting:in:evaluated:)` does (`evaluated`: the track ids of
    /// the function playlists the query reaches, evaluated by the caller).
    public func statement(for query: LibraryQuery, selecting columns: String,
                          evaluated: [String: [Int64]]) throws -> RowStatement {
        let (sql, arguments) = try LibrarySQL.statement(for: query, selecting: columns, in: db, evaluated: evaluated)
        return RowStatement(sql: sql, arguments: arguments)
    }

    /// Calls `visit` with each row of `statement`, in order.
    ///
    /// `reusing`: the statement is kept prepared for the next read of the same SQL (a client that
    /// repeats a search skips SQLite's compile and GRDB's authorizer). Only for a visit that
    /// reads nothing else with the same SQL: a kept statement is one per connection.
    public func forEachRow(of statement: RowStatement, reusing: Bool = false, _ visit: (RawRow) throws -> Void) throws {
        let prepared = reusing ? try reuse.statement(statement.sql, in: db) : try db.makeStatement(sql: statement.sql)
        try prepared.setArguments(statement.arguments)
        try step(prepared, visit)
    }

    /// The first column of each row of `statement`, as integers (the ids of `SELECT id ...`).
    public func integers(of statement: RowStatement) throws -> [Int64] {
        var found: [Int64] = []
        try forEachRow(of: statement) { found.append($0.int64(0)) }
        return found
    }

    /// Calls `visit` with the rows of `SELECT columns FROM library WHERE id IN (ids)`, in no
    /// particular order; ids not in the library are left out.
    public func forEachRow(ids: [Int64], selecting columns: String, _ visit: (RawRow) throws -> Void) throws {
        let prepared = try db.cachedStatement(sql: "SELECT \(columns) FROM library WHERE id IN (SELECT value FROM json_each(?))")
        try prepared.setArguments([LibrarySQL.jsonList(ids)])
        try step(prepared, visit)
    }

    private func step(_ prepared: Statement, _ visit: (RawRow) throws -> Void) throws {
        let statement = prepared.sqliteStatement
        defer { sqlite3_reset(statement) }
        let row = RawRow(statement: statement)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else {
                let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                throw DatabaseError(resultCode: ResultCode(rawValue: status), message: message, sql: prepared.sql)
            }
            try visit(row)
        }
    }
}

/// Prepared statements kept per connection for SQL read before, at most `limit` texts a
/// connection: past that its statements are let go and it starts again, so a daemon that sees
/// many different queries over weeks keeps a bounded number.
final class StatementReuse: @unchecked Sendable {
    static let limit = 64
    private let lock = NSLock()
    private var kept: [ObjectIdentifier: Set<String>] = [:]

    func statement(_ sql: String, in db: Database) throws -> Statement {
        let connection = ObjectIdentifier(db)
        let full = lock.withLock { () -> Bool in
            var texts = kept[connection, default: []]
            guard !texts.contains(sql) else { return false }
            let full = texts.count >= Self.limit
            if full { texts.removeAll() }
            texts.insert(sql)
            kept[connection] = texts
            return full
        }
        if full { db.releaseMemory() }
        return try db.cachedStatement(sql: sql)
    }
}
