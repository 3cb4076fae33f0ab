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
        let (lower, upper) = TrackStore.pathRange(under: folder)
        let statement = RowStatement(sql: "SELECT \(columns) FROM library WHERE path >= ? AND path > ? AND path < ? ORDER BY path LIMIT ?",
                                     arguments: [lower, after ?? "", upper, limit])
        try forEachRow(of: statement, reusing: true, visit)
    }
}
