import Foundation
import GRDB
import GRDBSQLite
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// A row of `tracks`, written with plain SQL; `*_key` columns are filled with `SearchKey.fold`.
struct QueryTrackRow {
    var id: Int64
    var path: String
    var title: String?
    var artist: String?
    var album: String?
    var albumartist: String?
    var genre: String?
    var comment: String?
    var lyrics: String?
    var year: Int?
    var date: String?
    var track: Int?
    var disc: Int?
    var duration: Double
    var bitrate: Int? = 256
    var added: Int64
    var plays = 0
    var skips = 0
    var lastPlayed: Int64?
    var hasPicture = false
    var isrc: String?

    func insert(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO tracks (id, path, size, mtime, title, artist, album, albumartist, genre, comment, lyrics,
              year, date, track, disc, has_picture, isrc, duration, bitrate, samplerate, channels, added,
              plays, skips, last_played, path_key, title_key, artist_key, album_key, albumartist_key,
              genre_key, comment_key, lyrics_key)
            VALUES (?, ?, 1000, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 44100, 2, ?, ?, ?, ?,
              ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                id, path, title, artist, album, albumartist, genre, comment, lyrics,
                year, date, track, disc, hasPicture, isrc, duration, bitrate, added,
                plays, skips, lastPlayed, SearchKey.fold(path), SearchKey.fold(title), SearchKey.fold(artist),
                SearchKey.fold(album), SearchKey.fold(albumartist), SearchKey.fold(genre),
                SearchKey.fold(comment), SearchKey.fold(lyrics),
            ])
    }
}

/// Queries run on a real SQLite library of seven tracks.
///
/// | id | title | artist | album | year | duration | added | plays | last played |
/// |---|---|---|---|---|---|---|---|---|
/// | 1 | ירושלים של זהב | נעמי שמר (album artist too) | ירושלים | 1967 | 215.4 | -10d | 12 | -2d |
/// | 2 | אַהֲבָה | נעמי שמר | ירושלים | 1967 | 185.0 | -40d | 3 | -60d |
/// | 3 | והאהבה | אריק איינשטיין | שבלול | 1970 | 300.5 | -400d | 0 | never |
/// | 4 | LOVE Me Do | The Beatles | Please Please Me | 1963 | 142.9 | -5h | 7 | -1d |
/// | 5 | Help! | The Beatles | Help! | 1965 | 138.0 | 2024-01-15 | 0 | never |
/// | 6 | Yesterday | The Beatles | Help! | 1965 | 125.5 | 2023-12-31 23:00 | 20 | -100d |
/// | 7 | (none) | (none) | (none) | (none) | 1:02:03 | -1d | 1 | -400d |
///
/// Overrides: 1 rated 2; 4 rated 5 and liked; 6's genre Rock is overridden to Pop.
/// Default order: The Beatles (Help!: 5, 6; Please Please Me: 4), אריק (3), נעמי (1, 2), no artist (7).
@Suite struct QueryDatabaseTests {
    static let defaultOrder: [Int64] = [5, 6, 4, 3, 1, 2, 7]
    let store: LibraryStore

    init() throws {
        let directory = try Fixtures.temporaryDirectory()
        store = try LibraryStore(path: directory + "/t.db")
        let now = QueryTesting.nowSeconds, day = QueryTesting.day
        let rows = [
            QueryTrackRow(id: 1, path: "/m/shemer/01.mp3", title: "ירושלים של זהב", artist: "נעמי שמר",
                          album: "ירושלים", albumartist: "נעמי שמר", genre: "Folk", year: 1967, date: "1967-05-15",
                          track: 1, disc: 1, duration: 215.4, bitrate: 320, added: now - 10 * day, plays: 12,
                          lastPlayed: now - 2 * day, hasPicture: true),
            QueryTrackRow(id: 2, path: "/m/shemer/02.mp3", title: "אַהֲבָה", artist: "נעמי שמר", album: "ירושלים",
                          year: 1967, track: 2, disc: 1, duration: 185.0, bitrate: 128, added: now - 40 * day,
                          plays: 3, lastPlayed: now - 60 * day),
            QueryTrackRow(id: 3, path: "/m/arik/03.mp3", title: "והאהבה", artist: "אריק איינשטיין", album: "שבלול",
                          genre: "Rock", year: 1970, date: "1970", track: 1, duration: 300.5, added: now - 400 * day),
            QueryTrackRow(id: 4, path: "/m/en/04.mp3", title: "LOVE Me Do", artist: "The Beatles",
                          album: "Please Please Me", genre: "Rock", year: 1963, track: 8, duration: 142.9,
                          added: now - 5 * 3600, plays: 7, lastPlayed: now - day, isrc: "GBAYE6200012"),
            QueryTrackRow(id: 5, path: "/m/en/05.mp3", title: "Help!", artist: "The Beatles", album: "Help!",
                          comment: "Live at Shea", lyrics: "Help me if you can", year: 1965, date: "1965-08-06",
                          track: 1, duration: 138.0, added: 1_705_320_000),
            QueryTrackRow(id: 6, path: "/m/en/06.mp3", title: "Yesterday", artist: "The Beatles", album: "Help!",
                          genre: "Rock", year: 1965, track: 13, duration: 125.5, added: 1_704_063_600, plays: 20,
                          skips: 2, lastPlayed: now - 100 * day),
            QueryTrackRow(id: 7, path: "/m/misc/07.mp3", duration: 3723, bitrate: nil, added: now - day, plays: 1,
                          lastPlayed: now - 400 * day),
        ]
        try store.runner.write { db in
            for row in rows { try row.insert(db) }
            try db.execute(sql: """
                INSERT INTO overrides (track_id, rating) VALUES (1, 2);
                INSERT INTO overrides (track_id, rating, liked) VALUES (4, 5, 1);
                INSERT INTO overrides (track_id, genre, genre_key) VALUES (6, 'Pop', 'pop');
                INSERT INTO playlists (id, name, created, modified) VALUES (1, 'Road trip', 0, 0);
                INSERT INTO playlists (id, name, created, modified) VALUES (2, 'שירי ארץ ישראל', 0, 0);
                INSERT INTO playlists (id, name, created, modified) VALUES (3, 'Empty', 0, 0);
                INSERT INTO playlist_items (playlist_id, position, track_id) VALUES (1, 0, 4), (1, 1, 1);
                INSERT INTO playlist_items (playlist_id, position, track_id) VALUES (2, 0, 2), (2, 1, 1);
                """)
        }
    }

    /// The ids `text` selects, in order.
    func ids(_ text: String, zone: String = "UTC") throws -> [Int64] {
        let (sql, arguments) = try QueryTesting.parse(text, zone: zone).statement(selecting: "id")
        return try store.runner.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
    }

    func durations(_ ids: [Int64]) throws -> [Int64: Double] {
        let pairs = try store.runner.read { db in
            try Row.fetchAll(db, sql: "SELECT id, duration FROM library").map { row -> (Int64, Double) in
                (row["id"], row["duration"])
            }
        }
        return Dictionary(uniqueKeysWithValues: pairs.filter { ids.contains($0.0) })
    }

    // MARK: Text

    /// A search's statement, kept prepared, runs again without SQLite compiling it again: a
    /// bound GLOB pattern used to make SQLite re-prepare the whole statement on every run.
    @Test func aKeptSearchStatementIsNotCompiledAgainForNewValues() throws {
        let (sql, _) = try QueryTesting.parse("love").statement(selecting: "id")
        let (reprepared, found) = try store.runner.read { db -> (Int32, [[Int64]]) in
            let statement = try db.cachedStatement(sql: sql)
            var found: [[Int64]] = []
            for word in ["love", "help", "אהבה"] {
                let (_, arguments) = try QueryTesting.parse(word).statement(selecting: "id")
                try statement.setArguments(arguments)
                found.append(try Int64.fetchAll(statement))
            }
            return (sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0), found)
        }
        #expect(found == [[4], [5, 6], [3, 2]])
        #expect(reprepared == 0)
    }

    @Test func emptyQueryReturnsEverythingInAlbumOrder() throws {
        #expect(try ids("") == Self.defaultOrder)
    }

    @Test func hebrewSearchIgnoresPointsAndFindsWordsWithPrefixes() throws {
        // אַהֲבָה (pointed) and והאהבה (with the prefixes ו and ה) are both found by אהבה.
        #expect(try ids("אהבה") == [3, 2])
        #expect(try ids("אַהֲבָה") == [3, 2])
        #expect(try ids("title:=אהבה") == [2])
        #expect(try ids("artist:\"נעמי שמר\"") == [1, 2])
        #expect(try ids("album_artist:שמר") == [1])
        #expect(try ids("זהב") == [1])
        #expect(try ids("\"של זהב\"") == [1])
        #expect(try ids("\"זהב של\"") == [])
    }

    @Test func searchIgnoresCase() throws {
        #expect(try ids("love") == [4])
        #expect(try ids("LoVe") == [4])
        #expect(try ids("artist:BEATLES") == [5, 6, 4])
        #expect(try ids("title:=\"love me do\"") == [4])
        #expect(try ids("title:=love") == [])
    }

    @Test func freeWordsSearchTitleArtistAlbumAndAlbumArtistOnly() throws {
        #expect(try ids("beatles") == [5, 6, 4])
        #expect(try ids("please") == [4])
        #expect(try ids("help") == [5, 6])
        #expect(try ids("help beatles yesterday") == [6])
        #expect(try ids("shea") == [])
        #expect(try ids("folk") == [])
        #expect(try ids("/m/en") == [])
    }

    @Test func textFieldsSearchTheirOwnKey() throws {
        #expect(try ids("comment:shea") == [5])
        #expect(try ids("lyrics:\"IF YOU\"") == [5])
        #expect(try ids("path:/m/en/") == [5, 6, 4])
        #expect(try ids("path:=/m/en/04.mp3") == [4])
        #expect(try ids("isrc:gbaye62") == [4])
        #expect(try ids("isrc:=GBAYE6200012") == [4])
        #expect(try ids("title:=\"\"") == [7])
        #expect(try ids("genre:=\"\"") == [5, 2, 7])
    }

    /// `field:~"pattern"`: a regular expression on the value as tagged (overrides applied),
    /// without case; points count (MPD's `=~`, which clients send).
    @Test func regularExpressionsMatchTheTaggedValueWithoutCase() throws {
        #expect(try ids("title:~\"^love\"") == [4])
        #expect(try ids("title:~\"^(help|yesterday)\"") == [5, 6])
        #expect(try ids("artist:~\"^the b[a-z]+s$\"") == [5, 6, 4])
        #expect(try ids("-title:~o") == [5, 6, 3, 1, 2, 7])
        #expect(try ids("title:~\"אהבה\"") == [3])
        #expect(throws: SongboxError.self) { try ids("title:~\"(\"") }
        #expect(throws: SongboxError.self) { try ids("year:~1967") }
    }

    /// The matcher has no backtracking: a pattern that stalls a backtracking engine on a long
    /// text is answered in time bounded by the text and the pattern.
    @Test func boundedRegexMatchesAsPCREDoesWithoutBacktracking() throws {
        for (pattern, text, wanted) in [("a{2,3}", "caab", true), ("a{2,3}", "cab", false), ("^a|b$", "cb", true), ("^a|b$", "ca", false),
                                        ("[^0-9]+$", "12x", true), ("^\\d+$", "12x", false), ("ABC", "xabcx", true), ("[A-Z]", "x", true),
                                        ("colou?r", "COLOR", true), ("(?:ab)+c", "ababc", true), ("a.c", "a\nc", false), ("", "", true)] {
            #expect(try BoundedRegex(pattern).matches(text) == wanted, "\(pattern) on \(text)")
        }
        for refused in ["(", "[a", "a)", "*a", "(?=a)", "\\1", "a{2000}", String(repeating: "a", count: 2000)] {
            #expect(throws: BoundedRegex.Failure.self, "\(refused)") { try BoundedRegex(refused) }
        }
        let started = ContinuousClock.now
        #expect(try !BoundedRegex("(a*)*(a*)*b").matches(String(repeating: "a", count: 50_000)))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func overridesAreWhatQueriesSee() throws {
        #expect(try ids("genre:rock") == [4, 3])
        #expect(try ids("genre:pop") == [6])
        #expect(try ids("rating:5") == [4])
    }

    // MARK: Logic

    @Test func negationKeepsTracksWithoutTheValue() throws {
        #expect(try ids("-genre:rock") == [5, 6, 1, 2, 7])
        #expect(try ids("NOT beatles") == [3, 1, 2, 7])
        #expect(try ids("-year:1960..1969") == [3, 7])
        #expect(try ids("-rating:2..") == [5, 6, 3, 2, 7])
        #expect(try ids("-last_played:-7d..") == [5, 6, 3, 2, 7])
        #expect(try ids("--genre:rock") == [4, 3])
    }

    @Test func alternativesAndGroups() throws {
        #expect(try ids("אהבה OR love") == [4, 3, 2])
        #expect(try ids("אהבה, love") == [4, 3, 2])
        #expect(try ids("(artist:beatles year:1963), genre:folk") == [4, 1])
        #expect(try ids("NOT (artist:beatles, artist:שמר)") == [3, 7])
        #expect(try ids("artist:beatles (help, love) -yesterday") == [5, 4])
        #expect(try ids("beatles AND -help") == [4])
    }

    // MARK: Numbers, dates, durations, booleans

    @Test func numberRangesAndComparisons() throws {
        #expect(try ids("year:1965") == [5, 6])
        #expect(try ids("year:1960..1965") == [5, 6, 4])
        #expect(try ids("year:..1964") == [4])
        #expect(try ids("year:1967..") == [3, 1, 2])
        #expect(try ids("year>1965") == [3, 1, 2])
        #expect(try ids("year>=1965") == [5, 6, 3, 1, 2])
        #expect(try ids("year<1965") == [4])
        #expect(try ids("year<=1965") == [5, 6, 4])
        #expect(try ids("plays:3..") == [6, 4, 1, 2])
        #expect(try ids("plays:0") == [5, 3])
        #expect(try ids("track:1..2") == [5, 3, 1, 2])
        #expect(try ids("bitrate<200") == [2])
        #expect(try ids("skips>0") == [6])
        #expect(try ids("id:3") == [3])
        #expect(try ids("rating:1.5..2.5") == [1])
    }

    @Test func relativeDates() throws {
        #expect(try ids("added:-30d..") == [4, 1, 7])
        #expect(try ids("added:-30d") == [4, 1, 7])
        #expect(try ids("added:..-30d") == [5, 6, 3, 2])
        #expect(try ids("added:-12h..") == [4])
        #expect(try ids("added:-2w..") == [4, 1, 7])
        #expect(try ids("added:-6m..") == [5, 6, 4, 1, 2, 7])
        #expect(try ids("added:-1y..") == [5, 6, 4, 1, 2, 7])
        #expect(try ids("added:-50d..-5d") == [1, 2])
        #expect(try ids("last_played:-7d..") == [4, 1])
        #expect(try ids("last_played:..-30d") == [6, 2, 7])
        #expect(try ids("last_played<-1y") == [7])
    }

    @Test func absoluteDatesCoverTheirWholeDayMonthOrYear() throws {
        #expect(try ids("added:2024-01") == [5])
        #expect(try ids("added:2024-01-15") == [5])
        #expect(try ids("added:2024-01-16") == [])
        #expect(try ids("added:2023") == [6, 3])
        #expect(try ids("added:2024") == [5, 4, 1, 2, 7])
        #expect(try ids("added<2024") == [6, 3])
        #expect(try ids("added:2023-12..2024-01") == [5, 6])
        // 2023-12-31 23:00 UTC is already 2024 in Jerusalem.
        #expect(try ids("added:2024", zone: "Asia/Jerusalem") == [5, 6, 4, 1, 2, 7])
    }

    @Test func playsRecordedInHistoryAreQueryable() throws {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO history (track_id, path, kind, reason, played, at) VALUES (3, '/m/arik/03.mp3', 'play', 'finished', 300, ?)
                """, arguments: [QueryTesting.nowSeconds - 3 * 3600])
        }
        #expect(try ids("last_played:-12h..") == [3])
        #expect(try ids("last_played:-1d..") == [4, 3])
        #expect(try ids("plays:1 -path:misc") == [3])
    }

    @Test func tagDates() throws {
        #expect(try ids("date:1967") == [1])
        #expect(try ids("date:1967-05") == [1])
        #expect(try ids("date:1967-06") == [])
        #expect(try ids("date:1960..1966") == [5])
        #expect(try ids("date>1966") == [3, 1])
        #expect(try ids("date<=1965") == [5])
    }

    @Test func durationsCompareWholeSeconds() throws {
        #expect(try ids("duration:..3:30") == [5, 6, 4, 2])
        #expect(try ids("duration:>5:00") == [7])
        #expect(try ids("duration>=5:00") == [3, 7])
        #expect(try ids("duration:5:00") == [3])
        #expect(try ids("duration:300") == [3])
        #expect(try ids("duration:1:02:03") == [7])
        #expect(try ids("duration:138") == [5])
        #expect(try ids("duration:3:35..3:36") == [1])
        #expect(try ids("duration:1h..") == [7])
    }

    @Test func booleans() throws {
        #expect(try ids("liked:true") == [4])
        #expect(try ids("liked:no") == [5, 6, 3, 1, 2, 7])
        #expect(try ids("has_picture:yes") == [1])
        #expect(try ids("picture:0") == [5, 6, 4, 3, 2, 7])
    }

    @Test func playlistMembership() throws {
        #expect(try ids("playlist:\"Road trip\"") == [4, 1])
        #expect(try ids("playlist:=\"שירי ארץ ישראל\"") == [1, 2])
        #expect(try ids("-playlist:\"Road trip\"") == [5, 6, 3, 2, 7])
        #expect(try ids("playlist:\"Road trip\" playlist:\"שירי ארץ ישראל\"") == [1])
        #expect(try ids("playlist:Empty") == [])
        #expect(try ids("playlist:Nope") == [])
        #expect(try ids("playlist:road") == [])
    }

    // MARK: Order and limits

    @Test func sortKeysThenTheDefaultOrderWithNullsLast() throws {
        #expect(try ids("sort:-plays") == [6, 1, 4, 2, 7, 5, 3])
        #expect(try ids("sort:plays") == [5, 3, 7, 2, 4, 1, 6])
        #expect(try ids("sort:rating") == [1, 4, 5, 6, 3, 2, 7])
        #expect(try ids("sort:-rating") == [4, 1, 5, 6, 3, 2, 7])
        #expect(try ids("sort:-last_played") == [4, 1, 2, 6, 7, 5, 3])
        #expect(try ids("sort:last_played") == [7, 6, 2, 1, 4, 5, 3])
        #expect(try ids("sort:title") == [5, 4, 6, 2, 3, 1, 7])
        #expect(try ids("sort:-title") == [1, 3, 2, 6, 4, 5, 7])
        #expect(try ids("sort:-year,title") == [3, 2, 1, 5, 6, 4, 7])
        #expect(try ids("beatles sort:-duration") == [4, 5, 6])
    }

    @Test func limitByCount() throws {
        #expect(try ids("limit:3") == [5, 6, 4])
        #expect(try ids("sort:-plays limit:2") == [6, 1])
        #expect(try ids("limit:2 genre:rock") == [4, 3])
        #expect(try ids("limit:0") == [])
        #expect(try ids("limit:100") == Self.defaultOrder)
    }

    @Test func limitByDurationFillsUpToTheLength() throws {
        // Default order durations: 5: 138, 6: 125.5, 4: 142.9, 3: 300.5, ...
        #expect(try ids("limit:5m") == [5, 6, 4])
        #expect(try ids("limit:4m") == [5, 6])
        #expect(try ids("limit:90s") == [5])
        // Track 6 would start exactly at 2:18: the list is full by then.
        #expect(try ids("limit:138s") == [5])
        #expect(try ids("limit:0:02:19") == [5, 6])
        #expect(try ids("limit:10m") == [5, 6, 4, 3])
        #expect(try ids("limit:1h30m") == Self.defaultOrder)
        #expect(try ids("sort:-duration limit:1h") == [7])
        #expect(try ids("sort:-plays limit:5m") == [6, 1])
        #expect(try ids("sort:-plays limit:6m") == [6, 1, 4])
        #expect(try ids("genre:rock limit:1s") == [4])
    }

    @Test func aggregatesDescribeThePickedRows() throws {
        let (sql, arguments) = try QueryTesting.parse("beatles limit:2").statement(selecting: "count(*), sum(plays)")
        let (count, plays) = try store.runner.read { db in
            let row = try Row.fetchOne(db, sql: sql, arguments: arguments)
            return (row?[0] as Int?, row?[1] as Int?)
        }
        #expect(count == 2)
        #expect(plays == 20)
    }

    @Test(arguments: ["", "limit:3", "limit:5m", "random limit:5m", "random", "sort:title limit:2"])
    func selectStarGivesTheViewsColumnsAndDecodesTracks(text: String) throws {
        let (sql, arguments) = try QueryTesting.parse(text).statement()
        let (columns, viewColumns, tracks) = try store.runner.read { db in
            let row = try Row.fetchOne(db, sql: sql, arguments: arguments)
            let view = try Row.fetchOne(db, sql: "SELECT * FROM library")
            return (row.map { Array($0.columnNames) } ?? [], view.map { Array($0.columnNames) } ?? [],
                    try Track.fetchAll(db, sql: sql, arguments: arguments))
        }
        #expect(columns == viewColumns)
        #expect(!tracks.isEmpty)
    }

    @Test func randomKeepsTheFilterAndTheCount() throws {
        #expect(try Set(ids("random")) == Set(Self.defaultOrder))
        #expect(try ids("random").count == 7)
        #expect(try Set(ids("random genre:rock")) == [3, 4])
        var picks = Set<[Int64]>()
        for _ in 0..<40 {
            let picked = try ids("random limit:3")
            #expect(picked.count == 3)
            #expect(Set(picked).count == 3)
            #expect(Set(picked).isSubset(of: Self.defaultOrder))
            picks.insert(picked)
        }
        // 210 ordered picks are possible; 40 draws that all agree would mean no randomness.
        #expect(picks.count > 1)
    }

    @Test func randomWithSortPicksRandomlyThenSorts() throws {
        var picks = Set<[Int64]>()
        for _ in 0..<40 {
            let picked = try ids("random sort:title limit:3")
            let titleOrder = try ids("sort:title").filter { picked.contains($0) }
            #expect(picked.count == 3)
            #expect(picked == titleOrder)
            picks.insert(picked)
        }
        #expect(picks.count > 1)
    }

    @Test func randomWithADurationLimitTakesAShuffledPrefix() throws {
        let all = try durations(Self.defaultOrder)
        var picks = Set<Set<Int64>>()
        for _ in 0..<40 {
            let picked = try ids("random limit:5m")
            let lengths = picked.compactMap { all[$0] }
            let total = lengths.reduce(0, +)
            #expect(!picked.isEmpty)
            #expect(Set(picked).count == picked.count)
            // Some track of the pick started before the 5 minutes were full...
            #expect(total - (lengths.max() ?? 0) < 300)
            // ...and the pick stopped only because they were.
            #expect(total >= 300 || picked.count == 7)
            picks.insert(Set(picked))
        }
        #expect(picks.count > 1)
    }
}
