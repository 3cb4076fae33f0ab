import Testing

@testable import SongboxLibrary

/// The SQL text a query compiles to: parameterized, with one argument per placeholder.
@Suite struct QueryCompilerTests {
    func compile(_ text: String, selecting columns: String = "*") throws -> (sql: String, arguments: [QueryValue]) {
        var compiler = QueryCompiler()
        let sql = compiler.select(columns, from: try QueryTesting.parse(text))
        return (sql, compiler.arguments)
    }

    @Test func emptyQuerySelectsEverythingInTheDefaultOrder() throws {
        let (sql, arguments) = try compile("")
        #expect(sql == "SELECT * FROM library ORDER BY coalesce(albumartist_key, artist_key) ASC NULLS LAST, "
                + "album_key ASC NULLS LAST, disc ASC NULLS LAST, track ASC NULLS LAST, path ASC NULLS LAST")
        #expect(arguments.isEmpty)
        #expect(try QueryTesting.parse("").statement().arguments.isEmpty)
    }

    @Test func aFreeWordSearchesFourKeysWithOneArgumentEach() throws {
        // Two letters: too short for the trigram index, a scan of the four keys.
        let (sql, arguments) = try compile("אַה")
        #expect(sql.hasPrefix("SELECT * FROM library WHERE (instr(title_key, ?) > 0 OR instr(artist_key, ?) > 0 "
                              + "OR instr(album_key, ?) > 0 OR instr(albumartist_key, ?) > 0) ORDER BY "))
        #expect(arguments == Array(repeating: .text("אה"), count: 4))
    }

    @Test func searchesOfThreeOrMoreLettersGoThroughTheTrigramIndexFirst() throws {
        let (sql, arguments) = try compile("אַהֲבָה")
        let lookups = ["title_key", "artist_key", "album_key", "albumartist_key"]
            .map { "SELECT rowid FROM track_search WHERE \($0) GLOB (? || '')" }.joined(separator: " UNION ")
        #expect(sql.hasPrefix("SELECT * FROM library WHERE (id IN (\(lookups)) AND "
                              + "(instr(title_key, ?) > 0 OR instr(artist_key, ?) > 0 "
                              + "OR instr(album_key, ?) > 0 OR instr(albumartist_key, ?) > 0)) ORDER BY "))
        #expect(arguments == Array(repeating: .text("*אהבה*"), count: 4) + Array(repeating: .text("אהבה"), count: 4))
        // GLOB's own wildcards in a value are matched literally.
        let (fieldSQL, fieldArguments) = try compile(#"title:"a*b?[c""#)
        #expect(fieldSQL.contains("(id IN (SELECT rowid FROM track_search WHERE title_key GLOB (? || '')) AND instr(title_key, ?) > 0)"))
        #expect(fieldArguments == [.text("*a[*]b[?][[]c*"), .text("a*b?[c")])
        // Keys outside the index are scanned.
        #expect(!(try compile("genre:folk").sql.contains("track_search")))
    }

    @Test func valuesNeverEnterTheSqlText() throws {
        let hostile = "'); DROP TABLE tracks; --"
        let text = "artist:\"\(hostile)\" title:=\"\(hostile)\" \"\(hostile)\" playlist:\"\(hostile)\" year:1999 limit:7"
        let (sql, arguments) = try compile(text)
        #expect(!sql.contains("DROP"))
        #expect(!sql.contains("1999"))
        #expect(!sql.contains("7"))
        #expect(arguments.contains(.text(hostile.lowercased())))
        #expect(arguments.contains(.text(hostile)))
        #expect(arguments.contains(.integer(1999)))
        #expect(arguments.last == .integer(7))
    }

    @Test(arguments: [
        "a b, -c (d OR e) artist:x title:=y genre:=\"\"",
        "year:1960..1970 plays>3 added:-30d.. last_played:..2024-01 duration:..3:30 liked:yes",
        "playlist:Mix -playlist:Other sort:-plays,title limit:10",
        "random limit:45m genre:rock",
        "sort:-added limit:1h30m -genre:rock",
    ])
    func everyPlaceholderHasItsArgument(text: String) throws {
        let (sql, arguments) = try compile(text)
        #expect(sql.filter { $0 == "?" }.count == arguments.count)
        #expect(!arguments.isEmpty)
    }

    @Test func negationCountsMissingValuesAsFalse() throws {
        let (sql, _) = try compile("-genre:rock")
        #expect(sql.contains("WHERE NOT coalesce(instr(genre_key, ?) > 0, 0) ORDER BY"))
    }

    @Test func rangesUseTheRightComparisons() throws {
        #expect(try compile("year:1970").sql.contains("WHERE year = ? ORDER BY"))
        #expect(try compile("year:1960..1970").sql.contains("WHERE (year >= ? AND year <= ?) ORDER BY"))
        #expect(try compile("plays>3").sql.contains("WHERE plays > ? ORDER BY"))
        #expect(try compile("duration:..3:30").sql.contains("WHERE duration < ? ORDER BY"))
        #expect(try compile("added:2024").sql.contains("WHERE (added >= ? AND added < ?) ORDER BY"))
    }

    @Test func sortKeysComeFirstWithNullsLastAndTextByItsKey() throws {
        let (sql, _) = try compile("sort:-plays,title")
        #expect(sql.hasSuffix("ORDER BY plays DESC NULLS LAST, title_key ASC NULLS LAST, "
                              + "coalesce(albumartist_key, artist_key) ASC NULLS LAST, album_key ASC NULLS LAST, "
                              + "disc ASC NULLS LAST, track ASC NULLS LAST, path ASC NULLS LAST"))
    }

    @Test func limitsPickIdsInASubquery() throws {
        let count = try compile("limit:10", selecting: "id")
        #expect(count.sql.hasPrefix("SELECT id FROM library WHERE id IN (SELECT id FROM library ORDER BY "))
        #expect(count.sql.contains(" LIMIT ?) ORDER BY "))
        #expect(count.arguments == [.integer(10)])
        let length = try compile("limit:45m")
        #expect(length.sql.contains("sum(duration) OVER (ORDER BY coalesce(albumartist_key, artist_key) ASC NULLS LAST"))
        #expect(length.sql.contains("ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_duration"))
        #expect(length.sql.contains("WHERE coalesce(before_duration, 0) < ?)"))
        #expect(length.arguments == [.integer(2700)])
        let shuffled = try compile("random limit:45m")
        #expect(shuffled.sql.contains("(SELECT id, duration, random() AS shuffle FROM library)"))
        #expect(shuffled.sql.contains("OVER (ORDER BY shuffle ROWS"))
        #expect(shuffled.sql.hasSuffix("ORDER BY random()"))
    }
}
