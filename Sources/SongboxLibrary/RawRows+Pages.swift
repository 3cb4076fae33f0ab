import Foundation
import GRDB

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
