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
    /// What relative dates were read against; a smart playlist this query names is read against
    /// the same instant, so one query sees one `now`.
    let now: Date
    let calendar: Calendar

    /// Parses `text`. `now` anchors relative dates like `added:-30d..`.
    public static func parse(_ text: String, now: Date = Date()) throws(SongboxError) -> LibraryQuery {
        try parse(text, now: now, calendar: .current)
    }

    /// Parses `text`, reading absolute dates (`added:2024-01`) in `calendar`'s time zone.
    /// The longest query, in bytes; longer ones are refused before any work (a 256 KiB query
    /// took seconds and most of a gigabyte in SQLite's trigram search).
    public static let maximumLength = 16 << 10
    /// The most terms (words, phrases, fields) a query may have: SQLite's expression
    /// depth (1000: a chain of n ORs is n deep) and variable count are reached long after, so
    /// the error is songbox's, in one line.
    public static let maximumTerms = 500
    /// The longest single word, phrase or value, in characters.
    public static let maximumValueLength = 1_000

    static func parse(_ text: String, now: Date, calendar: Calendar) throws(SongboxError) -> LibraryQuery {
        guard text.utf8.count <= maximumLength else {
            throw SongboxError(.invalidQuery, "the query is too long (\(text.utf8.count) bytes; at most \(maximumLength))",
                               hint: "split it, or keep the track list in a playlist and query playlist:NAME")
        }
        let tokens = try QueryLexer.tokens(of: text)
        let values: [String] = tokens.compactMap { token in
            switch token.kind {
            case .word(let text), .phrase(let text): text
            case .field(let term): term.value
            default: nil
            }
        }
        guard values.count <= maximumTerms else {
            throw SongboxError(.invalidQuery, "the query has too many terms (\(values.count); at most \(maximumTerms))",
                               hint: "keep the track list in a playlist and query playlist:NAME")
        }
        if let long = values.first(where: { $0.count > maximumValueLength }) {
            throw SongboxError(.invalidQuery, "a word or value of the query is too long (\(long.count) characters; at most \(maximumValueLength))")
        }
        var parser = QueryParser(tokens: tokens, values: QueryValueReader(now: now, calendar: calendar))
        let condition = try parser.parse()
        return LibraryQuery(condition: condition, sort: parser.sort, limit: parser.limit, random: parser.random,
                            now: now, calendar: calendar)
    }

    /// A SELECT of `columns` from the `library` view, filtered, sorted and limited as the query says.
    ///
    /// With a limit, `columns` describe the rows the limit picked, so aggregates such as
    /// `count(*), sum(duration)` give the size and length of the resulting list.
    ///
    /// `smartPlaylists` are the smart playlists `playlist:NAME` expands (see
    /// `LibrarySQL.statement(for:selecting:in:)`, which finds them) and `evaluatedPlaylists` the
    /// track ids of those defined by a script function; any other name is read as a saved playlist.
    public func statement(selecting columns: String = "*", smartPlaylists: [String: LibraryQuery] = [:],
                          evaluatedPlaylists: [String: [Int64]] = [:]) -> (sql: String, arguments: StatementArguments) {
        statement(selecting: columns, smartPlaylists: smartPlaylists, evaluatedPlaylists: evaluatedPlaylists, expanding: [])
    }

    /// `expanding`: the smart playlists this query is the expansion of, so that a reference back
    /// to one of them is a cycle (it matches nothing).
    func statement(selecting columns: String, smartPlaylists: [String: LibraryQuery], evaluatedPlaylists: [String: [Int64]],
                   expanding: [String]) -> (sql: String, arguments: StatementArguments) {
        let (sql, values) = values(selecting: columns, smartPlaylists: smartPlaylists, evaluatedPlaylists: evaluatedPlaylists,
                                   expanding: expanding)
        return (sql, StatementArguments(values))
    }

    /// The statement with its arguments as plain values, for binding without GRDB.
    func values(selecting columns: String, smartPlaylists: [String: LibraryQuery] = [:],
                evaluatedPlaylists: [String: [Int64]] = [:], expanding: [String] = []) -> (sql: String, values: [DatabaseValue]) {
        var compiler = QueryCompiler()
        compiler.smartPlaylists = smartPlaylists
        compiler.evaluatedPlaylists = evaluatedPlaylists
        compiler.expanding = expanding
        let sql = compiler.select(columns, from: self)
        return (sql, compiler.arguments.map(\.databaseValue))
    }
}

extension LibraryQuery {
    /// The playlist names the query's condition mentions (`playlist:NAME`), in order, once each.
    public var playlistNames: [String] {
        var names: [String] = []
        func visit(_ condition: QueryCondition) {
            switch condition {
            case .all(let terms), .any(let terms): terms.forEach(visit)
            case .not(let term): visit(term)
            case .playlist(let name): if !names.contains(name) { names.append(name) }
            case .words, .text, .range: break
            }
        }
        condition.map(visit)
        return names
    }

    /// Those of the query `text`; none when it does not parse (the read of it says why).
    public static func playlistNames(in text: String) -> [String] {
        (try? parse(text))?.playlistNames ?? []
    }

    /// Parses a smart playlist's stored query against the same `now` as this query.
    func parseNested(_ text: String) throws(SongboxError) -> LibraryQuery {
        try Self.parse(text, now: now, calendar: calendar)
    }
}
