import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// Saved and smart playlists on a real SQLite library.
@Suite struct PlaylistTests {
    let library: PlaylistLibrary
    var store: LibraryStore { library.store }
    let a: Int64, b: Int64, c: Int64, d: Int64

    init() throws {
        library = try PlaylistLibrary()
        a = try library.add("A/01.mp3", title: "ירושלים של זהב", artist: "נעמי שמר", album: "ירושלים", duration: 215)
        b = try library.add("B/02.mp3", title: "Help!", artist: "The Beatles", album: "Help!", duration: 138)
        c = try library.add("B/03.mp3", title: "Yesterday", artist: "The Beatles", album: "Help!", duration: 125)
        d = try library.add("C/04.mp3", title: "Paper Boats", artist: "Mabel Grey", duration: 180)
    }

    // MARK: Saved playlists

    @Test func aSavedPlaylistKeepsItsOrderAndRepeats() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [c, a, c])
        let mix = try store.playlists.playlist(named: "Mix")
        #expect(mix.kind == .saved)
        #expect(mix.tracks.map(\.id) == [c, a, c])
        #expect(mix.duration == 125 + 215 + 125)
        #expect(try library.positions("Mix") == [0, 1, 2])

        let listed = try #require(try store.playlists.all().first)
        #expect(listed.name == "Mix" && listed.kind == .saved && listed.trackCount == 3 && listed.duration == 465)
        #expect(listed.query == nil && listed.problem == nil)
        // playlist:NAME in a query: the tracks in it (each once), in the query's own order.
        #expect(try store.tracks.matching("playlist:Mix").map(\.id) == [c, a])
    }

    @Test func savingOverANameOnlyWhenAsked() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a], now: Date(timeIntervalSince1970: 1000))
        let error = songboxError { try store.playlists.savePlaylist(named: "Mix", trackIDs: [b]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "a saved playlist named 'Mix' already exists")
        #expect(error?.hint?.contains("--replace") == true)
        #expect(try library.ids("Mix") == [a])

        try store.playlists.savePlaylist(named: "Mix", trackIDs: [b, d], replace: true, now: Date(timeIntervalSince1970: 2000))
        let mix = try store.playlists.playlist(named: "Mix")
        #expect(mix.tracks.map(\.id) == [b, d])
        #expect(mix.created == 1000 && mix.modified == 2000)
        #expect(try store.playlists.all().count == 1)
    }

    @Test func namesAreExactAndNeedAVisibleCharacter() throws {
        try store.playlists.savePlaylist(named: "Road trip", trackIDs: [a])
        try store.playlists.savePlaylist(named: "road trip", trackIDs: [b])  // another playlist: names are exact
        #expect(try store.playlists.all().map(\.name) == ["Road trip", "road trip"])
        for bad in ["", "   ", "two\nlines", "tab\there"] {
            #expect(songboxError { try store.playlists.savePlaylist(named: bad, trackIDs: [a]) }?.code == .invalidArgument, "\(bad)")
        }
    }

    @Test func addInsertsAtAPositionOrAtTheEnd() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b])
        try store.playlists.addToPlaylist(named: "Mix", trackIDs: [c])
        try store.playlists.addToPlaylist(named: "Mix", trackIDs: [d, d], at: 0)
        try store.playlists.addToPlaylist(named: "Mix", trackIDs: [a], at: 3)
        try store.playlists.addToPlaylist(named: "Mix", trackIDs: [b], at: 6)  // the count: the end
        #expect(try library.ids("Mix") == [d, d, a, a, b, c, b])
        #expect(try library.positions("Mix") == Array(0..<7))
    }

    @Test func removeTakesPositionsAsTheyWereBefore() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b, c, d])
        try store.playlists.removeFromPlaylist(named: "Mix", positions: [3, 0, 0])
        #expect(try library.ids("Mix") == [b, c])
        #expect(try library.positions("Mix") == [0, 1])
        try store.playlists.removeFromPlaylist(named: "Mix", positions: [])
        #expect(try library.ids("Mix") == [b, c])
    }

    @Test func moveTakesAnItemToItsNewPlace() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b, c, d])
        try store.playlists.movePlaylistItem(named: "Mix", from: 0, to: 3)
        #expect(try library.ids("Mix") == [b, c, d, a])
        try store.playlists.movePlaylistItem(named: "Mix", from: 3, to: 1)
        #expect(try library.ids("Mix") == [b, a, c, d])
        try store.playlists.movePlaylistItem(named: "Mix", from: 2, to: 2)
        #expect(try library.ids("Mix") == [b, a, c, d])
        #expect(try library.positions("Mix") == [0, 1, 2, 3])
    }

    @Test func positionsOutsideThePlaylistChangeNothing() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b])
        let remove = songboxError { try store.playlists.removeFromPlaylist(named: "Mix", positions: [0, 2]) }
        #expect(remove?.code == .invalidArgument)
        #expect(remove?.message == "position 2 is outside playlist 'Mix'")
        #expect(remove?.hint == "positions start at 0; 'Mix' has 2 tracks, so use 0 to 1")
        #expect(songboxError { try store.playlists.movePlaylistItem(named: "Mix", from: -1, to: 0) }?.code == .invalidArgument)
        #expect(songboxError { try store.playlists.movePlaylistItem(named: "Mix", from: 0, to: 2) }?.code == .invalidArgument)
        #expect(songboxError { try store.playlists.addToPlaylist(named: "Mix", trackIDs: [c], at: 3) }?.code == .invalidArgument)
        try store.playlists.savePlaylist(named: "Empty", trackIDs: [])
        #expect(songboxError { try store.playlists.removeFromPlaylist(named: "Empty", positions: [0]) }?.hint == "'Empty' is empty")
        #expect(try library.ids("Mix") == [a, b])
    }

    @Test func unknownTracksAreRefused() throws {
        let error = songboxError { try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, 998, 999]) }
        #expect(error?.code == .notFound)
        #expect(error?.message == "no tracks with id 998, 999 in the library")
        #expect(try store.playlists.playlistExists(named: "Mix") == false)
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a])
        #expect(songboxError { try store.playlists.addToPlaylist(named: "Mix", trackIDs: [999]) }?.code == .notFound)
        #expect(try library.ids("Mix") == [a])
    }

    @Test func anUnknownPlaylistIsNotFoundWithAHint() throws {
        try store.playlists.savePlaylist(named: "Road Trip", trackIDs: [a])
        let calls: [() throws -> Void] = [
            { _ = try store.playlists.playlist(named: "Nothing") },
            { try store.playlists.addToPlaylist(named: "Nothing", trackIDs: [a]) },
            { try store.playlists.removeFromPlaylist(named: "Nothing", positions: [0]) },
            { try store.playlists.movePlaylistItem(named: "Nothing", from: 0, to: 0) },
            { try store.playlists.renamePlaylist("Nothing", to: "Other") },
            { try store.playlists.deletePlaylist(named: "Nothing") },
        ]
        for call in calls {
            let error = songboxError(call)
            #expect(error?.code == .notFound)
            #expect(error?.message == "no playlist named 'Nothing'")
            #expect(error?.hint == "list playlists with `songbox playlist ls`")
        }
        // A name that differs in case (or points) is suggested.
        #expect(songboxError { _ = try store.playlists.playlist(named: "road trip") }?.hint == "did you mean 'Road Trip'? Names are exact")
    }

    @Test func renameKeepsTheItemsAndRefusesATakenName() throws {
        try store.playlists.savePlaylist(named: "Old", trackIDs: [a, b])
        try store.playlists.savePlaylist(named: "Taken", trackIDs: [c])
        let taken = songboxError { try store.playlists.renamePlaylist("Old", to: "Taken") }
        #expect(taken?.code == .invalidArgument)
        #expect(taken?.message == "a saved playlist named 'Taken' already exists")
        #expect(songboxError { try store.playlists.renamePlaylist("Old", to: "") }?.code == .invalidArgument)
        #expect(try store.playlists.renamePlaylist("Old", to: "Old").isEmpty)  // nothing to do

        try store.playlists.renamePlaylist("Old", to: "New", now: Date(timeIntervalSince1970: 5000))
        #expect(try library.ids("New") == [a, b])
        #expect(try store.playlists.playlist(named: "New").modified == 5000)
        #expect(try store.playlists.playlistExists(named: "Old") == false)
        // Only the case changes: fine, names are exact.
        try store.playlists.renamePlaylist("New", to: "NEW")
        #expect(try library.ids("NEW") == [a, b])
    }

    @Test func renameReportsSmartPlaylistsThatStillNameTheOldName() throws {
        try store.playlists.savePlaylist(named: "Base", trackIDs: [a])
        try store.playlists.saveSmartPlaylist(named: "Uses base", query: "playlist:Base, title:yesterday")
        #expect(try store.playlists.renamePlaylist("Base", to: "Renamed") == ["Uses base"])
        // Not rewritten: playlist:Base now matches nothing.
        #expect(try library.ids("Uses base") == [c])
    }

    @Test func deleteKeepsTheTracks() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b])
        try store.playlists.deletePlaylist(named: "Mix")
        #expect(try store.playlists.all().isEmpty)
        #expect(try store.tracks.matching("").count == 4)
        #expect(try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist_items") } == 0)
        #expect(songboxError { _ = try store.tracks.matching("playlist:Mix") }?.code == .notFound)
    }

    @Test func removingATrackFromTheLibraryKeepsPositionsDense() throws {
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a, b, c, b, d])
        try store.playlists.savePlaylist(named: "Other", trackIDs: [d, a])
        try store.tracks.remove(ids: [b])
        #expect(try library.ids("Mix") == [a, c, d])
        #expect(try library.positions("Mix") == [0, 1, 2])
        #expect(try library.positions("Other") == [0, 1])
        try store.playlists.movePlaylistItem(named: "Mix", from: 2, to: 0)
        #expect(try library.ids("Mix") == [d, a, c])
    }

    // MARK: Smart playlists

    @Test func aSmartPlaylistIsItsQueryEvaluatedWhenRead() throws {
        try store.playlists.saveSmartPlaylist(named: "Beatles", query: "artist:beatles sort:-title")
        let beatles = try store.playlists.playlist(named: "Beatles")
        #expect(beatles.kind == .smart)
        #expect(beatles.query == "artist:beatles sort:-title")
        #expect(beatles.tracks.map(\.id) == [c, b])  // in the query's order
        #expect(try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist_items") } == 0)

        let listed = try #require(try store.playlists.all().first)
        #expect(listed.kind == .smart && listed.trackCount == 2 && listed.duration == 263)

        // It follows the library: a new track by the artist is in it at once.
        let e = try library.add("B/05.mp3", title: "Something", artist: "The Beatles")
        #expect(try library.ids("Beatles") == [c, e, b])
        #expect(try store.tracks.matching("playlist:Beatles").count == 3)
    }

    @Test func aSmartPlaylistStaysLiveAsPlaysAreRecorded() throws {
        try store.playlists.saveSmartPlaylist(named: "Top 2", query: "plays>0 sort:-plays limit:2")
        #expect(try library.ids("Top 2").isEmpty)

        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for (id, count) in [(a, 2), (b, 1)] {
            for n in 0..<count { try store.history.recordPlay(trackID: id, kind: .play, reason: "finished", played: 200, at: start + Double(n)) }
        }
        #expect(try library.ids("Top 2") == [a, b])

        for n in 0..<3 { try store.history.recordPlay(trackID: d, kind: .play, reason: "finished", played: 180, at: start + 100 + Double(n)) }
        try store.history.recordPlay(trackID: c, kind: .skip, reason: "skipped", played: 3, at: start + 200)
        #expect(try library.ids("Top 2") == [d, a])
        #expect(try Set(store.tracks.matching("playlist:\"Top 2\"").map(\.id)) == [a, d])
        #expect(try store.playlists.all().first?.trackCount == 2)
    }

    @Test func relativeDatesInASmartPlaylistAreReadWhenThePlaylistIs() throws {
        try store.playlists.saveSmartPlaylist(named: "Recent", query: "last_played:-7d..")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        try store.history.recordPlay(trackID: a, kind: .play, reason: "finished", played: 200, at: now - 86_400)
        #expect(try store.playlists.playlist(named: "Recent", now: now).tracks.map(\.id) == [a])
        #expect(try store.playlists.playlist(named: "Recent", now: now + 30 * 86_400).tracks.isEmpty)
    }

    @Test func aSmartPlaylistHasNoItemsToEdit() throws {
        try store.playlists.saveSmartPlaylist(named: "Beatles", query: "artist:beatles")
        let edits: [(String, () throws -> Void)] = [
            ("add tracks to", { try store.playlists.addToPlaylist(named: "Beatles", trackIDs: [a]) }),
            ("remove tracks from", { try store.playlists.removeFromPlaylist(named: "Beatles", positions: [0]) }),
            ("move tracks in", { try store.playlists.movePlaylistItem(named: "Beatles", from: 0, to: 1) }),
        ]
        for (action, edit) in edits {
            let error = songboxError(edit)
            #expect(error?.code == .invalidArgument)
            #expect(error?.message == "cannot \(action) 'Beatles': it is a smart playlist, its tracks come from its query")
            #expect(error?.hint?.contains("songbox playlist smart \"Beatles\" QUERY") == true)
        }
    }

    @Test func aSmartQueryMustParse() throws {
        let error = songboxError { try store.playlists.saveSmartPlaylist(named: "Bad", query: "(artist:beatles") }
        #expect(error?.code == .invalidQuery)
        #expect(try store.playlists.all().isEmpty)
    }

    @Test func definingASmartPlaylistAgainReplacesItsQueryButASavedOneNeedsReplace() throws {
        try store.playlists.saveSmartPlaylist(named: "Pick", query: "artist:beatles")
        try store.playlists.saveSmartPlaylist(named: "Pick", query: "artist:mabel")
        #expect(try library.ids("Pick") == [d])

        try store.playlists.savePlaylist(named: "Saved", trackIDs: [a])
        #expect(songboxError { try store.playlists.saveSmartPlaylist(named: "Saved", query: "artist:mabel") }?.code == .invalidArgument)
        try store.playlists.saveSmartPlaylist(named: "Saved", query: "artist:mabel", replace: true)
        #expect(try store.playlists.playlist(named: "Saved").kind == .smart)
        #expect(try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist_items") } == 0)

        // And back: a saved playlist over a smart one, when asked.
        #expect(songboxError { try store.playlists.savePlaylist(named: "Pick", trackIDs: [b]) }?.message
                == "a smart playlist named 'Pick' already exists")
        try store.playlists.savePlaylist(named: "Pick", trackIDs: [b], replace: true)
        let pick = try store.playlists.playlist(named: "Pick")
        #expect(pick.kind == .saved && pick.query == nil && pick.tracks.map(\.id) == [b])
    }

    @Test func smartPlaylistsNestThroughPlaylistTerms() throws {
        try store.playlists.savePlaylist(named: "Base", trackIDs: [a, b, c])
        try store.playlists.saveSmartPlaylist(named: "Base without Yesterday", query: "playlist:Base -title:yesterday")
        try store.playlists.saveSmartPlaylist(named: "Outer", query: "playlist:\"Base without Yesterday\", artist:mabel sort:title")
        #expect(try library.ids("Outer") == [b, d, a])
        #expect(try store.tracks.matching("playlist:Outer -artist:mabel").map(\.id) == [b, a])
        // A smart playlist with a limit inside another keeps its limit.
        try store.playlists.saveSmartPlaylist(named: "Longest", query: "sort:-duration limit:1")
        #expect(try store.tracks.matching("playlist:Longest, playlist:Longest").map(\.id) == [a])
        // A name no playlist has, typed in a query, is an error that offers the close names.
        #expect(songboxError { _ = try store.tracks.matching("playlist:Nothing") }?.message == "no playlist named 'Nothing'")
        #expect(songboxError { _ = try store.tracks.matching("playlist:Outr") }?.message
                == "no playlist named 'Outr' (did you mean 'Outer'?)")
    }

    @Test func aSmartPlaylistCannotBeMadeToIncludeItself() throws {
        let direct = songboxError { try store.playlists.saveSmartPlaylist(named: "Loop", query: "playlist:Loop") }
        #expect(direct?.code == .invalidQuery)
        #expect(direct?.message == "smart playlist 'Loop' would include itself: 'Loop' → 'Loop'")

        try store.playlists.saveSmartPlaylist(named: "A", query: "playlist:B")  // B does not exist yet: fine
        try store.playlists.saveSmartPlaylist(named: "B", query: "playlist:C")
        let indirect = songboxError { try store.playlists.saveSmartPlaylist(named: "C", query: "title:help, playlist:A") }
        #expect(indirect?.message == "smart playlist 'C' would include itself: 'C' → 'A' → 'B' → 'C'")
        #expect(try store.playlists.playlistExists(named: "C") == false)

        // Renaming can close a loop too.
        try store.playlists.saveSmartPlaylist(named: "D", query: "playlist:A")
        let renamed = songboxError { try store.playlists.renamePlaylist("D", to: "C") }
        #expect(renamed?.message == "smart playlist 'C' would include itself: 'C' → 'A' → 'B' → 'C'")
        #expect(try store.playlists.playlistExists(named: "D"))
    }

    @Test func theCompilerExpandsASmartPlaylistInPlaceWithItsArgumentsInOrder() throws {
        var compiler = QueryCompiler()
        compiler.smartPlaylists = ["Old": try QueryTesting.parse("year:..1970 limit:5")]
        let sql = compiler.select("id", from: try QueryTesting.parse("ab playlist:Old playlist:Saved"))
        #expect(compiler.arguments == Array(repeating: .text("ab"), count: 4) + [.integer(1970), .integer(5), .text("Saved")])
        #expect(sql.components(separatedBy: "?").count - 1 == compiler.arguments.count)
        #expect(sql.contains("id IN (SELECT id FROM library WHERE id IN (SELECT id FROM library WHERE year <= ? "))
        #expect(sql.contains("WHERE playlists.name = ?"))
    }

    @Test func theCompilerEndsACycleWithAFalseCondition() throws {
        var compiler = QueryCompiler()
        compiler.smartPlaylists = ["Loop": try QueryTesting.parse("playlist:Loop, artist:x")]
        let sql = compiler.select("id", from: try QueryTesting.parse("playlist:Loop"))
        #expect(sql.contains("id IN (SELECT id FROM library WHERE (0 OR instr(artist_key, ?) > 0)"))
        #expect(compiler.arguments == [.text("x")])
        #expect(compiler.expanding.isEmpty)
    }

    @Test func aCycleInTheDatabaseMatchesNothing() throws {
        // Only an older database or a hand edit can hold one: songbox refuses to store it.
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO playlists (name, query, created, modified) VALUES
                  ('Self', 'playlist:Self, title:help', 0, 0),
                  ('Ping', 'playlist:Pong', 0, 0), ('Pong', 'playlist:Ping, artist:mabel', 0, 0)
                """)
        }
        // The reference back to a playlist being expanded is false; the rest of the query stands.
        #expect(try library.ids("Self") == [b])
        #expect(try library.ids("Ping") == [d])
        #expect(try library.ids("Pong") == [d])
        #expect(try store.tracks.matching("playlist:Self").map(\.id) == [b])
        #expect(try store.tracks.matching("playlist:Ping, playlist:Self").map(\.id) == [d, b])
        let listed = try store.playlists.all()
        #expect(listed.map(\.trackCount) == [1, 1, 1])
        #expect(listed.allSatisfy { $0.problem == nil })
    }

    @Test func aStoredQueryThatNoLongerParsesIsReportedNotFatal() throws {
        try store.playlists.savePlaylist(named: "Fine", trackIDs: [a])
        try store.runner.write { db in
            try db.execute(sql: "INSERT INTO playlists (name, query, created, modified) VALUES ('Broken', '(title:a', 0, 0)")
        }
        let error = songboxError { _ = try store.playlists.playlist(named: "Broken") }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.hasPrefix("smart playlist 'Broken' has a query songbox cannot read") == true)
        #expect(songboxError { _ = try store.tracks.matching("playlist:Broken") }?.code == .invalidQuery)
        let listed = try store.playlists.all()
        #expect(listed.map(\.name) == ["Broken", "Fine"])
        #expect(listed[0].problem != nil && listed[1].problem == nil)
    }
}
