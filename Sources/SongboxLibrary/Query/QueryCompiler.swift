import GRDB

/// Turns a parsed query into SQL over the `library` view. Values never enter the SQL text: each
/// one becomes a `?`, and `arguments` holds them in the order the placeholders appear.
struct QueryCompiler {
    private(set) var arguments: [QueryValue] = []
    /// The smart playlists `playlist:NAME` may expand, by name, parsed (read from the database by
    /// `LibrarySQL.statement(for:selecting:in:)`). A name not in here is a saved playlist, or none.
    var smartPlaylists: [String: LibraryQuery] = [:]
    /// The smart playlists defined by a script function, by name: the track ids their function
    /// gave when it was evaluated for this query (by the caller, before the query: the library runs no Lua).
    var evaluatedPlaylists: [String: [Int64]] = [:]
    /// The smart playlists being expanded, outermost first: the cycle guard.
    var expanding: [String] = []

    /// The order every query ends with, so equal sort keys keep albums together and in track
    /// order, and `path` (unique) makes the order total.
    static let defaultOrder = [
        "coalesce(albumartist_key, artist_key)", "album_key", "disc", "track", "path",
    ].map { "\($0) ASC NULLS LAST" }

    /// The columns free words are searched in.
    static let wordColumns = ["title_key", "artist_key", "album_key", "albumartist_key"]

    /// A placeholder for `value`.
    private mutating func bind(_ value: QueryValue) -> String {
        arguments.append(value)
        return "?"
    }

    // MARK: Statement

    /// `SELECT columns FROM library` with the query's condition, order and limit.
    ///
    /// A limit picks row ids in a subquery and the outer SELECT shows those rows, so `columns` may
    /// be aggregates (`count(*), sum(duration)`) and still describe exactly the rows picked.
    mutating func select(_ columns: String, from query: LibraryQuery) -> String {
        let filter = query.condition.map { " WHERE " + sql(for: $0) } ?? ""
        let chosenOrder = Self.orderBy(query.sort)
        // With both random and sort:, random picks the rows and sort: orders them.
        let shownOrder = query.random && query.sort.isEmpty ? "random()" : chosenOrder
        let pickOrder = query.random ? "random()" : chosenOrder
        switch query.limit {
        case nil:
            return "SELECT \(columns) FROM library\(filter) ORDER BY \(shownOrder)"
        case .count(let count):
            let picked = "SELECT id FROM library\(filter) ORDER BY \(pickOrder) LIMIT \(bind(.integer(Int64(count))))"
            return "SELECT \(columns) FROM library WHERE id IN (\(picked)) ORDER BY \(shownOrder)"
        case .duration(let seconds):
            // Each row sees the total duration of the rows before it; a row is kept while that
            // total is under the limit, so the list fills up to about the length asked for.
            // A random order is drawn once per row in the innermost subquery, so the running
            // total follows one fixed shuffle.
            let (source, windowOrder) = query.random
                ? ("(SELECT id, duration, random() AS shuffle FROM library\(filter))", "shuffle")
                : ("library\(filter)", chosenOrder)
            let running = "SELECT id, sum(duration) OVER (ORDER BY \(windowOrder) "
                + "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_duration FROM \(source)"
            let picked = "SELECT id FROM (\(running)) WHERE coalesce(before_duration, 0) < \(bind(.integer(Int64(seconds))))"
            return "SELECT \(columns) FROM library WHERE id IN (\(picked)) ORDER BY \(shownOrder)"
        }
    }

    /// The sort keys, then the default order. NULLs come last in both directions.
    static func orderBy(_ keys: [QuerySortKey]) -> String {
        let chosen = keys.map { "\($0.field.sortExpression) \($0.descending ? "DESC" : "ASC") NULLS LAST" }
        return (chosen + defaultOrder).joined(separator: ", ")
    }

    // MARK: Conditions

    /// A boolean SQL expression for `condition`.
    mutating func sql(for condition: QueryCondition) -> String {
        switch condition {
        case .all(let terms):
            return "(" + terms.map { sql(for: $0) }.joined(separator: " AND ") + ")"
        case .any(let terms):
            return "(" + terms.map { sql(for: $0) }.joined(separator: " OR ") + ")"
        case .not(let term):
            // A test on a missing value is NULL, which NOT leaves NULL: count it as false first,
            // so -genre:rock keeps the tracks that have no genre.
            return "NOT coalesce(\(sql(for: term)), 0)"
        case .words(let folded):
            let prefilter = indexed(folded, in: Self.wordColumns)
            let scan = "(" + Self.wordColumns.map { "instr(\($0), \(bind(.text(folded)))) > 0" }.joined(separator: " OR ") + ")"
            return prefilter.isEmpty ? scan : "(" + prefilter + scan + ")"
        case .text(let field, let match):
            let key = field.key ?? field.column
            switch match {
            case .contains(let folded):
                let prefilter = indexed(folded, in: [key])
                let scan = "instr(\(key), \(bind(.text(folded)))) > 0"
                return prefilter.isEmpty ? scan : "(" + prefilter + scan + ")"
            case .equals(let folded): return "\(key) = \(bind(.text(folded)))"
            case .isEmpty: return "coalesce(\(key), '') = ''"
            case .matches(let pattern): return "songbox_regexp(\(field.column), \(bind(.text(pattern))))"
            }
        case .range(let field, let lower, let upper):
            return range(field.column, lower: lower, upper: upper)
        case .playlist(let name):
            return playlistCondition(named: name)
        }
    }

    /// A prefilter through the trigram index, `id IN (...) AND `, when it can serve the search;
    /// the exact `instr` test that follows keeps the meaning the same either way.
    private mutating func indexed(_ folded: String, in keys: [String]) -> String {
        guard SearchIndex.canServe(folded), keys.allSatisfy(SearchIndex.columns.contains) else { return "" }
        // One indexed GLOB per key, united: the index cannot answer an OR of columns.
        let pattern = SearchIndex.containsPattern(folded)
        // `(? || '')`, not a bare `?`: SQLite recompiles a statement whose GLOB pattern is a bound
        // parameter each time it runs (it might use it to plan a LIKE/GLOB prefix range), and
        // here that was the whole statement over the `library` view on every search. The index
        // is used the same way either way.
        let lookups = keys.map { "SELECT rowid FROM track_search WHERE \($0) GLOB (\(bind(.text(pattern))) || '')" }
        return "id IN (" + lookups.joined(separator: " UNION ") + ") AND "
    }

    private mutating func range(_ column: String, lower: QueryBound?, upper: QueryBound?) -> String {
        if let lower, lower == upper, lower.inclusive {
            return "\(column) = \(bind(lower.value))"
        }
        var parts: [String] = []
        if let lower { parts.append("\(column) \(lower.inclusive ? ">=" : ">") \(bind(lower.value))") }
        if let upper { parts.append("\(column) \(upper.inclusive ? "<=" : "<") \(bind(upper.value))") }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")"
    }

    /// The condition `playlist:NAME` stands for: the track is an item of the playlist of that name.
    ///
    /// This is the one place a playlist name becomes SQL. A saved playlist is its items. A smart
    /// playlist (one with a stored `query`, found in `smartPlaylists`) is expanded here: its parsed
    /// query is compiled with `select("id", from:)` by this same compiler, so its placeholders
    /// join `arguments` in place, and its own `playlist:` terms expand in turn.
    ///
    /// Cycle guard: a name already being expanded (a smart playlist that refers to itself,
    /// directly or through others) compiles to a condition that is false, so the inner reference
    /// matches nothing and the expansion ends. `LibraryStore.saveSmartPlaylist` and
    /// `renamePlaylist` refuse to create such a cycle, so one can only come from an older
    /// database or a hand edit; docs/playlists.md says so.
    ///
    /// A playlist defined by a script function was evaluated before the query was compiled: its
    /// ids are one JSON array argument, read back by `json_each`.
    private mutating func playlistCondition(named name: String) -> String {
        if let ids = evaluatedPlaylists[name] {
            return "id IN (SELECT value FROM json_each(\(bind(.text(LibrarySQL.jsonList(ids))))))"
        }
        if let smart = smartPlaylists[name] {
            guard !expanding.contains(name) else { return "0" }
            expanding.append(name)
            defer { expanding.removeLast() }
            return "id IN (" + select("id", from: smart) + ")"
        }
        return "id IN (SELECT playlist_items.track_id FROM playlist_items JOIN playlists"
            + " ON playlists.id = playlist_items.playlist_id WHERE playlists.name = \(bind(.text(name))))"
    }
}

extension QueryValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
