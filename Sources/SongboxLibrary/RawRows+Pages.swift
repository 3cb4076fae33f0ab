import Foundation
import GRDB
import GRDBSQLite

extension RawReader {
    /// Calls `visit` with the rows of `SELECT columns FROM library` for the tracks inside
    /// `folder` (at any depth) whose path sorts after `after` (nil: from the first), in path
    /// order, at most `limit` of them: one piece of a listing read in pieces, each in a read of
    /// its own, so no read stays open while a client takes its answer. `columns` must begin with
    /// `path`, which the next piece starts after.
    public func forEachRow(under folder: String, after: String?, limit: Int, selecting columns: String,
                           _ visit: (RawRow) throws -> Void) throws {
        try forEachRow(of: Self.piece(under: folder, after: after, limit: limit, selecting: columns), reusing: true, visit)
    }

    /// The folders and files directly in `folder`, in path order, each once: one seek in the
    /// index of present paths past each folder found (a loose scan), so a library's root costs
    /// as many reads as it has entries, not as many as it has tracks. How many entries.
    public func forEachEntry(in folder: String, _ body: (TrackStore.FolderEntry) throws -> Void) throws -> Int {
        let (lower, upper) = TrackStore.pathRange(under: folder)
        let from = try reuse.statement("SELECT path FROM tracks WHERE missing_since IS NULL AND path >= ? AND path < ? ORDER BY path LIMIT 1", in: db)
        let after = try reuse.statement("SELECT path FROM tracks WHERE missing_since IS NULL AND path > ? AND path < ? ORDER BY path LIMIT 1", in: db)
        let bound = upper.databaseValue
        // The first present path from `start` on (past it with `after`), or nil.
        func first(_ statement: Statement, _ start: String) throws -> String? {
            let prepared = statement.sqliteStatement
            defer { sqlite3_reset(prepared) }
            let status = StatementRunner.bind([start.databaseValue, bound], to: prepared)
            guard status == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: status), sql: statement.sql) }
            switch sqlite3_step(prepared) {
            case SQLITE_ROW: return RawRow(statement: prepared).text(0)
            case SQLITE_DONE: return nil
            case let failed: throw DatabaseError(resultCode: ResultCode(rawValue: failed), sql: statement.sql)
            }
        }
        var found = try first(from, lower)
        var count = 0
        while let path = found {
            count += 1
            if let slash = path.utf8.dropFirst(lower.utf8.count).firstIndex(of: UInt8(ascii: "/")) {
                let child = String(path[..<slash])
                try body(.folder(child))
                // Past every path under it: "0" is the byte after "/".
                found = try first(from, child + "0")
            } else {
                try body(.file(path))
                found = try first(after, path)
            }
        }
        return count
    }

    static func piece(under folder: String, after: String?, limit: Int, selecting columns: String) -> RowStatement {
        let (lower, upper) = TrackStore.pathRange(under: folder)
        // Paths alone are read from the index of present paths (`tracks_present_paths`), no row
        // of the table touched; more columns come from the library view.
        let source = columns == "path" ? "tracks WHERE missing_since IS NULL AND" : "library WHERE"
        // One bound on each side: of two lower bounds SQLite seeks by one and compares every row
        // with the other. (Byte order, as SQLite's BINARY compares.)
        let (bound, start) = if let after, !after.utf8.lexicographicallyPrecedes(lower.utf8) { (">", after) } else { (">=", lower) }
        return RowStatement(sql: "SELECT \(columns) FROM \(source) path \(bound) ? AND path < ? ORDER BY path LIMIT ?",
                            arguments: [start, upper, limit])
    }
}
