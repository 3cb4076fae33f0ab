import Foundation
import Testing

@testable import SongboxLibrary

/// A fixed clock and time zone for query tests.
enum QueryTesting {
    /// 2024-06-15 12:00:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_718_452_800)
    static let nowSeconds: Int64 = 1_718_452_800
    static let day: Int64 = 86_400

    static func calendar(_ zone: String = "UTC") -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    static func parse(_ text: String, zone: String = "UTC") throws(SongboxError) -> LibraryQuery {
        try LibraryQuery.parse(text, now: now, calendar: calendar(zone))
    }

    /// The error parsing `text` gives, or nil when it parses.
    static func error(_ text: String) -> SongboxError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    static func field(_ name: String) -> QueryField {
        QueryField.named(name)!
    }
}

/// How text becomes a query: the tree of conditions, the values read, and the directives.
@Suite struct QueryParserTests {
    func condition(_ text: String) throws -> QueryCondition? {
        try QueryTesting.parse(text).condition
    }

    func range(_ name: String, _ lower: QueryValue?, _ upper: QueryValue?,
               lowerInclusive: Bool = true, upperInclusive: Bool = true) -> QueryCondition {
        .range(QueryTesting.field(name), lower: lower.map { QueryBound(value: $0, inclusive: lowerInclusive) },
               upper: upper.map { QueryBound(value: $0, inclusive: upperInclusive) })
    }

    // MARK: Structure

    /// Queries are bounded before any work: a 256 KiB query took seconds and most of a
    /// gigabyte, one of 100,000 words failed with only "database operation failed".
    @Test func hugeQueriesAreRefusedWithTheLimitThatWasPassed() throws {
        #expect(QueryTesting.error(String(repeating: "x", count: 1 << 20))?.message == "the query is too long (1048576 bytes; at most 16384)")
        let words = (1...501).map { "w\($0)" }.joined(separator: " ")
        #expect(QueryTesting.error(words)?.message == "the query has too many terms (501; at most 500)")
        #expect(QueryTesting.error("title:" + String(repeating: "y", count: 1_001))?.message
                == "a word or value of the query is too long (1001 characters; at most 1000)")
        // Just inside the limits: fine.
        #expect(throws: Never.self) { try QueryTesting.parse((1...500).map { "w\($0)" }.joined(separator: " ").prefix(16 << 10).description) }
    }

    @Test func emptyQueryHasNoConditionAndNoDirectives() throws {
        for text in ["", "   ", "\t\n"] {
            let query = try QueryTesting.parse(text)
            #expect(query.condition == nil)
            #expect(query.sort.isEmpty && query.limit == nil && !query.random)
        }
    }

    @Test func freeWordsAreFoldedAndAnded() throws {
        #expect(try condition("LOVE") == .words("love"))
        #expect(try condition("love me") == .all([.words("love"), .words("me")]))
        #expect(try condition("love AND me") == .all([.words("love"), .words("me")]))
        #expect(try condition("אַהֲבָה") == .words("אהבה"))
        #expect(try condition("\"Like This\"") == .words("like this"))
        #expect(try condition("\"say \\\"hi\\\" \\\\o/\"") == .words("say \"hi\" \\o/"))
    }

    @Test func wordsThatLookAlmostLikeFieldsStayWords() throws {
        #expect(try condition("12:30") == .words("12:30"))
        #expect(try condition("hip-hop") == .words("hip-hop"))
        #expect(try condition("\"Re:Zero\"") == .words("re:zero"))
        #expect(try condition("שלום:עולם") == .words("שלום:עולם"))
        #expect(try condition("12\"") == .words("12\""))
        #expect(try condition("or and not") == .all([.words("or"), .words("and"), .words("not")]))
    }

    @Test func orBindsLooserThanAndAndNotBindsTighter() throws {
        let a = QueryCondition.words("a"), b = QueryCondition.words("b"), c = QueryCondition.words("c")
        #expect(try condition("a b, c") == .any([.all([a, b]), c]))
        #expect(try condition("a b OR c") == .any([.all([a, b]), c]))
        #expect(try condition("a (b, c)") == .all([a, .any([b, c])]))
        #expect(try condition("a,b,c") == .any([a, b, c]))
        #expect(try condition("-a b") == .all([.not(a), b]))
        #expect(try condition("NOT a, b") == .any([.not(a), b]))
        #expect(try condition("-(a, b) c") == .all([.not(.any([a, b])), c]))
        #expect(try condition("--a") == .not(.not(a)))
        #expect(try condition("NOT -a") == .not(.not(a)))
        #expect(try condition("-\"a b\"") == .not(.words("a b")))
        #expect(try condition("((a))") == a)
    }

    // MARK: Fields

    @Test func textFieldsMatchSubstringsOrWholeValues() throws {
        let artist = QueryTesting.field("artist")
        #expect(try condition("artist:\"נעמי שמר\"") == .text(artist, .contains("נעמי שמר")))
        #expect(try condition("Artist:BEATLES") == .text(artist, .contains("beatles")))
        #expect(try condition("artist:=\"The Beatles\"") == .text(artist, .equals("the beatles")))
        #expect(try condition("artist=Beatles") == .text(artist, .equals("beatles")))
        #expect(try condition("artist:=\"\"") == .text(artist, .isEmpty))
        #expect(try condition("album_artist:x") == .text(QueryTesting.field("albumartist"), .contains("x")))
        #expect(try condition("length:90") == .range(QueryTesting.field("duration"),
                                                     lower: QueryBound(value: .integer(90), inclusive: true),
                                                     upper: QueryBound(value: .integer(91), inclusive: false)))
        #expect(try condition("title:a..b") == .text(QueryTesting.field("title"), .contains("a..b")))
        #expect(try condition("-genre:rock") == .not(.text(QueryTesting.field("genre"), .contains("rock"))))
        #expect(try condition("isrc:GBAYE") == .text(QueryTesting.field("isrc"), .contains("gbaye")))
    }

    @Test func numbersTakeValuesRangesAndComparisons() throws {
        #expect(try condition("year:1970") == range("year", .integer(1970), .integer(1970)))
        #expect(try condition("year:=1970") == range("year", .integer(1970), .integer(1970)))
        #expect(try condition("year:1960..1970") == range("year", .integer(1960), .integer(1970)))
        #expect(try condition("year:..1970") == range("year", nil, .integer(1970)))
        #expect(try condition("plays:3..") == range("plays", .integer(3), nil))
        #expect(try condition("plays>3") == range("plays", .integer(3), nil, lowerInclusive: false))
        #expect(try condition("plays:>3") == range("plays", .integer(3), nil, lowerInclusive: false))
        #expect(try condition("plays>=3") == range("plays", .integer(3), nil))
        #expect(try condition("plays<3") == range("plays", nil, .integer(3), upperInclusive: false))
        #expect(try condition("plays<=3") == range("plays", nil, .integer(3)))
        #expect(try condition("rating:2.5..") == range("rating", .real(2.5), nil))
    }

    @Test func durationsAreWholeSecondsInEveryNotation() throws {
        #expect(try condition("duration:90") == range("duration", .integer(90), .integer(91), upperInclusive: false))
        #expect(try condition("duration:1:02:03") == range("duration", .integer(3723), .integer(3724), upperInclusive: false))
        #expect(try condition("duration:..3:30") == range("duration", nil, .integer(211), upperInclusive: false))
        #expect(try condition("duration:>5:00") == range("duration", .integer(301), nil))
        #expect(try condition("duration>=5:00") == range("duration", .integer(300), nil))
        #expect(try condition("duration<1m") == range("duration", nil, .integer(60), upperInclusive: false))
        #expect(try condition("duration:2m..1h30m") == range("duration", .integer(120), .integer(5401), upperInclusive: false))
        #expect(QueryValueReader.seconds("1h5s") == 3605)
        #expect(QueryValueReader.seconds("5s1h") == nil)
        #expect(QueryValueReader.seconds("3:60") == nil)
        #expect(QueryValueReader.seconds("99999999999h") == nil)
    }

    @Test func relativeDatesCountBackFromNow() throws {
        let now = QueryTesting.nowSeconds, day = QueryTesting.day
        #expect(try condition("added:-30d..") == range("added", .integer(now - 30 * day), nil))
        #expect(try condition("added:-30d") == range("added", .integer(now - 30 * day), nil))
        #expect(try condition("added:..-2w") == range("added", nil, .integer(now - 14 * day)))
        #expect(try condition("last_played:-12h..") == range("last_played", .integer(now - 12 * 3600), nil))
        #expect(try condition("added<-1y") == range("added", nil, .integer(now - 366 * day), upperInclusive: false))
        // 2024-06-15 minus six calendar months is 2023-12-15: 183 days.
        #expect(try condition("added:-6m..-1d") == range("added", .integer(now - 183 * day), .integer(now - day)))
    }

    @Test func absoluteDatesAreSpansInTheCalendarsTimeZone() throws {
        let january2024: Int64 = 1_704_067_200, february2024: Int64 = 1_706_745_600
        #expect(try condition("added:2024-01")
                == range("added", .integer(january2024), .integer(february2024), upperInclusive: false))
        #expect(try condition("added:2024-01-31")
                == range("added", .integer(february2024 - 86_400), .integer(february2024), upperInclusive: false))
        #expect(try condition("added:2023..2023-12")
                == range("added", .integer(1_672_531_200), .integer(january2024), upperInclusive: false))
        #expect(try condition("added>2023") == range("added", .integer(january2024), nil))
        #expect(try condition("added<2024") == range("added", nil, .integer(january2024), upperInclusive: false))
        // Jerusalem is two hours ahead of UTC in winter.
        #expect(try QueryTesting.parse("added:2024", zone: "Asia/Jerusalem").condition
                == range("added", .integer(january2024 - 7200), .integer(1_735_689_600 - 7200), upperInclusive: false))
        #expect(try condition("added:2024-02-29") != nil)
    }

    @Test func tagDatesCompareAsIsoText() throws {
        #expect(try condition("date:1967") == range("date", .text("1967"), .text("1968"), upperInclusive: false))
        #expect(try condition("date:1967-12") == range("date", .text("1967-12"), .text("1968-01"), upperInclusive: false))
        #expect(try condition("date:1967-12-31") == range("date", .text("1967-12-31"), .text("1968-01-01"), upperInclusive: false))
        #expect(try condition("date:1960..1966") == range("date", .text("1960"), .text("1967"), upperInclusive: false))
    }

    @Test func booleansAcceptTheirSpellings() throws {
        for yes in ["true", "YES", "1"] {
            #expect(try condition("liked:\(yes)") == range("liked", .integer(1), .integer(1)))
        }
        for no in ["false", "no", "0"] {
            #expect(try condition("picture:\(no)") == range("has_picture", .integer(0), .integer(0)))
        }
    }

    @Test func playlistsAreNamedExactly() throws {
        #expect(try condition("playlist:\"Road trip\"") == .playlist("Road trip"))
        #expect(try condition("playlist:=Mix") == .playlist("Mix"))
    }

    // MARK: Directives

    @Test func sortLimitAndRandomApplyToTheWholeQuery() throws {
        let query = try QueryTesting.parse("a sort:-plays,title,+Year b, c limit:10 random")
        #expect(query.condition == .any([.all([.words("a"), .words("b")]), .words("c")]))
        #expect(query.sort == [QuerySortKey(field: QueryTesting.field("plays"), descending: true),
                               QuerySortKey(field: QueryTesting.field("title"), descending: false),
                               QuerySortKey(field: QueryTesting.field("year"), descending: false)])
        #expect(query.limit == .count(10))
        #expect(query.random)
        #expect(try QueryTesting.parse("limit:45m").limit == .duration(2700))
        #expect(try QueryTesting.parse("limit:1h30m").limit == .duration(5400))
        #expect(try QueryTesting.parse("limit:90s").limit == .duration(90))
        #expect(try QueryTesting.parse("limit:1:00:00").limit == .duration(3600))
        #expect(try QueryTesting.parse("\"random\"").condition == .words("random"))
        #expect(try QueryTesting.parse("\"random\"").random == false)
    }

    /// The examples of docs/query-language.md.
    @Test(arguments: [
        "artist:\"נעמי שמר\" year:1960..1970 -live sort:-plays limit:10",
        "beatles", "love me", "\"love me do\"", "אהבה", "\"12\\\" single\"",
        "artist:beatles", "title:=yesterday", "album:=\"\"", "genre:rock", "path:/music/live/", "Artist:x",
        "year:1967", "year:=1967", "year:1960..1970", "year:..1970", "plays:3..", "plays>3", "plays<3",
        "plays>=3", "plays<=3", "plays:>3", "rating:4..", "-rating:1..5",
        "added:-30d..", "added:-30d", "added:..-30d", "added:-90d..-30d", "added:2024-01", "added:2023..2024-03",
        "added>2023", "added<2023", "last_played:-7d..", "-last_played:-1y..", "last_played<-1y",
        "added:-12h..", "added:-2w..", "added:-6m..", "added:2024-01-31",
        "date:1967", "date:1967-05", "date:1960..1969", "date>1966",
        "duration:..3:30", "duration:>5:00", "duration:3:00..4:00", "duration:90", "duration:1:02:03",
        "duration>=1h", "liked:true", "liked:false", "has_picture:yes", "picture:yes",
        "playlist:\"Road trip\"", "playlist:\"שירי ארץ ישראל\"", "-playlist:Favourites",
        "a b", "a AND b", "a, b", "a OR b", "-a", "NOT a", "(a b)",
        "artist:beatles (help, yesterday)", "אהבה, love", "NOT (genre:rock, genre:pop)",
        "-artist:\"נעמי שמר\" year:1967", "-(added:-30d.. plays:0)", "-live",
        "sort:-plays,title", "sort:-last_played", "sort:-rating,-plays", "sort:-year,album",
        "limit:10", "limit:45m", "limit:1h30m", "limit:90s", "limit:1:30:00",
        "random", "random limit:20", "genre:jazz random limit:1h", "random limit:20 sort:album", "\"random\"",
        "liked:yes -last_played:-14d.. random limit:1h", "added:-30d.. sort:-added",
        "genre:rock, genre:metal duration:..4:00 random limit:45m", "אהבה -artist:beatles",
        "playlist:\"Road trip\" sort:duration", "\"Re:Zero\"", "12:30", "hip-hop",
    ])
    func documentedExamplesParse(text: String) throws {
        _ = try QueryTesting.parse(text)
    }

    // MARK: Errors

    /// Every malformed query: the message, the 1-based character position, and that a hint is given.
    @Test(arguments: [
        ("artist:\"נעמי", 8, "unclosed quote"),
        ("\"abc", 1, "unclosed quote"),
        ("(a b", 5, "expected ')' to close the group opened at 1"),
        ("a (b (c) d", 11, "expected ')' to close the group opened at 3"),
        ("(artist:beatles year:1965", 26, "expected ')' to close the group opened at 1"),
        ("a)", 2, "')' closes no group"),
        ("(a) b)", 6, "')' closes no group"),
        ("()", 1, "empty parentheses"),
        ("year:abc..", 6, "'abc' is not a number for year"),
        ("year:1960..abc", 12, "'abc' is not a number for year"),
        ("year:..", 6, "a range needs at least one end"),
        ("year:1970..1960", 6, "the range 1970..1960 is empty"),
        ("year>", 6, "expected a value after year>"),
        ("artist: x", 8, "expected a value after artist:"),
        ("duration:>", 11, "expected a value after duration:>"),
        ("limit:", 7, "expected a value after limit:"),
        ("limit:abc", 7, "'abc' is not a count or a length of time"),
        ("limit:-5", 7, "'-5' is not a count or a length of time"),
        ("limit:3 limit:4", 9, "limit: is given twice"),
        ("sort:plays sort:title", 12, "sort: is given twice (first at 1)"),
        ("sort:-", 6, "expected a field name to sort by"),
        ("sort:-plays,titel", 13, "cannot sort by 'titel'"),
        ("sort:playlist", 6, "cannot sort by 'playlist'"),
        ("sort>plays", 1, "write sort: followed by its value"),
        ("(a sort:title)", 4, "sort: applies to the whole query"),
        ("-random", 2, "random applies to the whole query"),
        ("NOT limit:3", 5, "limit: applies to the whole query"),
        ("random:yes", 1, "random takes no value"),
        ("atrist:x", 1, "unknown field 'atrist'"),
        ("love bogus:x", 6, "unknown field 'bogus'"),
        ("title>3", 1, "title does not take >"),
        ("liked:maybe", 7, "'maybe' is not true or false for liked"),
        ("liked>1", 1, "liked does not take >"),
        ("playlist<3", 1, "playlist does not take <"),
        ("added:2024-13", 7, "'2024-13' is not a date for added"),
        ("added:2023-02-29", 7, "'2023-02-29' is not a date for added"),
        ("added:-3x..", 7, "'-3x' is not a date for added"),
        ("added:-7d..-30d", 7, "the range -7d..-30d is empty"),
        ("added:2024-02..2024-01", 7, "the range 2024-02..2024-01 is empty"),
        ("duration:3:75", 10, "'3:75' is not a duration for duration"),
        ("date:67", 6, "'67' is not a date for date"),
        ("title:\"\"", 8, "nothing to search for in title:"),
        ("a \"\"", 3, "nothing to search for"),
        ("-", 1, "'-' must be followed by the term it excludes"),
        ("a - b", 3, "'-' must be followed by the term it excludes"),
        ("NOT", 4, "expected a term after NOT"),
        ("a NOT )", 7, "expected a term after NOT"),
        ("OR a", 1, "OR needs a search term before it"),
        ("a OR", 5, "expected a search term after OR"),
        ("a,", 3, "expected a search term after ','"),
        ("a, , b", 4, "expected a search term after ','"),
        ("a OR sort:title", 6, "expected a search term after OR"),
        ("AND a", 1, "AND needs a search term before it"),
        ("a AND", 6, "expected a search term after AND"),
        ("אַהֲבָה )", 6, "')' closes no group"),
    ])
    func malformedQueriesSayWhatAndWhere(text: String, position: Int, message: String) throws {
        let error = try #require(QueryTesting.error(text), "'\(text)' should not parse")
        #expect(error.code == .invalidQuery)
        #expect(error.location == "query:\(position)")
        #expect(error.message.contains(message), "message: \(error.message)")
        #expect(error.hint?.isEmpty == false)
        #expect(error.description.hasPrefix("query:\(position): "))
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        // Deeper than the length limit allows: refused before parsing.
        let huge = String(repeating: "(", count: 100_000) + "a" + String(repeating: ")", count: 100_000)
        #expect(QueryTesting.error(huge)?.message.hasPrefix("the query is too long") == true)
        let groups = String(repeating: "(", count: 5_000) + "a" + String(repeating: ")", count: 5_000)
        #expect(QueryTesting.error(groups)?.location == "query:65")
        let negations = String(repeating: "-", count: 5_000) + "a"
        #expect(QueryTesting.error(negations)?.location == "query:65")
        let mixed = String(repeating: "NOT (", count: 1_500) + "a" + String(repeating: ")", count: 1_500)
        #expect(QueryTesting.error(mixed)?.message.contains("nest more than 64 deep") == true)
        let allowed = String(repeating: "(", count: 63) + "a" + String(repeating: ")", count: 63)
        #expect(try QueryTesting.parse(allowed).condition == .words("a"))
    }

    @Test func unknownFieldsSuggestCloseNames() throws {
        let misspelt = try #require(QueryTesting.error("atrist:x"))
        #expect(misspelt.hint?.hasPrefix("did you mean artist?") == true)
        #expect(misspelt.hint == "did you mean artist? Or, to search for the text itself, quote it: \"atrist:x\"")
        let alias = try #require(QueryTesting.error("lenght>3"))
        #expect(alias.hint?.hasPrefix("did you mean length?") == true)
        let prefix = try #require(QueryTesting.error("play:3"))
        #expect(prefix.hint?.contains("plays") == true)
        #expect(prefix.hint?.contains("playlist") == true)
        let far = try #require(QueryTesting.error("zzz:1"))
        #expect(far.hint?.hasPrefix("fields are title, artist, album") == true)
        #expect(far.hint?.hasSuffix("playlist; to search for the text itself, quote it: \"zzz:1\"") == true)
        let sort = try #require(QueryTesting.error("sort:-plays,titel"))
        #expect(sort.hint == "did you mean title?")
    }
}
