import Foundation
import GRDB

/// A parsed query in the library's one query language (see docs/query-language.md):
/// `artist:"נעמי שמר" year:1960..1970 -live sort:-plays limit:10`.
///
/// Parse it once, then compile it to a parameterized SELECT over the `library` view.
public struct LibraryQuery: Sendable {
    /// Which rows it keeps; nil keeps every row.
    let condition: QueryCondition?
    /// `sort:` keys, before the default order.
    let sort: [QuerySortKey]
    let limit: QueryLimit?
    /// `random`: rows in random order; with a limit, a random pick.
    let random: Bool

    /// Parses `text`. `now` anchors relative dates like `added:-30d..`.
    public static func parse(_ text: String, now: Date = Date()) throws(SongboxError) -> LibraryQuery {
        try parse(text, now: now, calendar: .current)
    }

    /// Parses `text`, reading absolute dates (`added:2024-01`) in `calendar`'s time zone.
    static func parse(_ text: String, now: Date, calendar: Calendar) throws(SongboxError) -> LibraryQuery {
        let tokens = try QueryLexer.tokens(of: text)
        var parser = QueryParser(tokens: tokens, values: QueryValueReader(now: now, calendar: calendar))
        let condition = try parser.parse()
        return LibraryQuery(condition: condition, sort: parser.sort, limit: parser.limit, random: parser.random)
    }

    /// A SELECT of `columns` from the `library` view, filtered, sorted and limited as the query says.
    ///
    /// With a limit, `columns` describe the rows the limit picked, so aggregates such as
    /// `count(*), sum(duration)` give the size and length of the resulting list.
    public func statement(selecting columns: String = "*") -> (sql: String, arguments: StatementArguments) {
        var compiler = QueryCompiler()
        let sql = compiler.select(columns, from: self)
        return (sql, StatementArguments(compiler.arguments.map(\.databaseValue)))
    }
}
