import Foundation
import GRDB
import Logging
import SongboxTestSupport
import Synchronization
import Testing

@testable import SongboxLibrary

/// The library database itself: schema, statistics from history, overrides, removal.
@Suite struct StoreTests {
    let folder: String
    let store: LibraryStore

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        store = try LibraryStore(path: folder + "/nested/dir/library.db")
    }

    func insertTrack(_ path: String, title: String) throws -> Int64 {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (path, size, mtime, duration, added, path_key, title, title_key)
                VALUES (?, 1, 1, 200, 0, ?, ?, ?)
                """, arguments: [path, path, title, SearchKey.fold(title)])
            return db.lastInsertedRowID
        }
    }

    func record(_ kind: String, _ id: Int64, at time: Int) throws {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO history (track_id, path, kind, reason, played, at) VALUES (?, 'p', ?, 'finished', 100, ?)
                """, arguments: [id, kind, time])
        }
    }

    /// A folder's entries by seeks in the path index (`lsinfo`), against the same entries
    /// worked out from every path: names that sort around the slash (`a.mp3`, `a0`, `a b`), a
    /// folder with nothing but a deeper folder, Hebrew, and a missing track that is not listed.
    @Test func aFoldersEntriesAreItsFoldersAndFilesOnce() throws {
        let paths = ["/m/a.mp3", "/m/a/x.mp3", "/m/a/b/c.mp3", "/m/a/b/d.mp3", "/m/a0.mp3", "/m/a0/y.mp3", "/m/a b/z.mp3",
                     "/m/deep/er/still/w.mp3", "/m/שירים/שיר.mp3", "/m/z.mp3", "/m2/other.mp3", "/m/gone/lost.mp3"]
        for path in paths { _ = try insertTrack(path, title: path) }
        try store.runner.write { db in try db.execute(sql: "UPDATE tracks SET missing_since = 1 WHERE path = '/m/gone/lost.mp3'") }
        let present = paths.filter { $0 != "/m/gone/lost.mp3" }
        for folder in ["/", "/m", "/m/a", "/m/a/b", "/m/deep", "/m/gone", "/m/none"] {
            let prefix = folder == "/" ? "/" : folder + "/"
            var expected: [TrackStore.FolderEntry] = []
            for path in present.sorted() where path.hasPrefix(prefix) {
                let rest = path.dropFirst(prefix.count)
                let entry: TrackStore.FolderEntry = rest.contains("/") ? .folder(prefix + rest.prefix { $0 != "/" }) : .file(path)
                if expected.last != entry { expected.append(entry) }
            }
            let found = Mutex<[TrackStore.FolderEntry]>([])
            let count = try store.tracks.forEachEntry(in: folder) { entry in found.withLock { $0.append(entry) } }
            #expect(found.withLock { $0 } == expected, "\(folder)")
            #expect(count == expected.count, "\(folder)")
        }
    }

    @Test func opensInWALModeAndCreatesItsFolder() throws {
        let mode = try store.runner.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(FileManager.default.fileExists(atPath: folder + "/nested/dir/library.db"))
        // Reopening an up-to-date database migrates nothing and keeps the data.
        let id = try insertTrack("/m/a.mp3", title: "A")
        let reopened = try LibraryStore(path: store.path, access: .shared)
        #expect(try reopened.tracks.track(id: id)?.title == "A")
    }

    @Test func everyCommitIsSyncedAlsoThroughTheDaemonsSharedPool() throws {
        // 2 is FULL: a committed play survives a power cut, not only a crash.
        for access in [LibraryStore.Access.single, .shared] {
            let opened = try LibraryStore(path: folder + "/synced-\(access).db", access: access)
            #expect(try opened.runner.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2, "\(access)")
        }
    }

    @Test func aNewLibraryHasSmallPagesAndAnOlderOneKeepsItsOwn() throws {
        #expect(try store.runner.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == StatementRunner.pageSize)
        // A library made with SQLite's default pages opens as it is, with its data.
        let older = folder + "/older.db"
        let queue = try DatabaseQueue(path: older)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try queue.close()
        let opened = try LibraryStore(path: older)
        #expect(try opened.runner.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 4096)
        #expect(try opened.tracks.matching("").isEmpty)
    }

    @Test func playsSkipsAndLastPlayedFollowFromHistory() throws {
        let id = try insertTrack("/m/a.mp3", title: "A")
        try record("play", id, at: 1000)
        try record("skip", id, at: 2000)
        try record("play", id, at: 1500)
        let track = try #require(try store.tracks.track(id: id))
        #expect(track.plays == 2)
        #expect(track.skips == 1)
        #expect(track.lastPlayed == 1500)
    }

    @Test func removingATrackDropsItFromPlaylistsKeepsHistoryAndExcludesItsFile() throws {
        let keep = try insertTrack("/m/keep.mp3", title: "Keep")
        let drop = try insertTrack("/m/drop.mp3", title: "Drop")
        try record("play", drop, at: 10)
        try store.runner.write { db in
            try db.execute(sql: "INSERT INTO playlists (id, name, created, modified) VALUES (1, 'Mix', 0, 0)")
            try db.execute(sql: "INSERT INTO playlist_items (playlist_id, position, track_id) VALUES (1, 0, ?), (1, 1, ?)",
                           arguments: [drop, keep])
        }
        #expect(try store.tracks.remove(ids: [drop]) == 1)
        let (items, history, excluded) = try store.runner.read { db in
            (try Int64.fetchAll(db, sql: "SELECT track_id FROM playlist_items"),
             try Row.fetchAll(db, sql: "SELECT track_id, path FROM history").map { ($0[0] as Int64?, $0[1] as String) },
             try String.fetchAll(db, sql: "SELECT path FROM excluded"))
        }
        #expect(items == [keep])
        #expect(history.count == 1 && history[0].0 == nil)  // the play stays, unlinked
        #expect(excluded == ["/m/drop.mp3"])
    }

    @Test func editsAreOverridesThatCanBeCleared() throws {
        let id = try insertTrack("/m/a.mp3", title: "Original")
        try store.tracks.apply([try TrackEdit(parsing: "title=שָׁלוֹם"), try TrackEdit(parsing: "year=1999"),
                         try TrackEdit(parsing: "liked=yes")], to: id)
        #expect(try store.tracks.matching("title:שלום").map(\.id) == [id])
        #expect(try store.tracks.track(id: id)?.year == 1999)
        try store.tracks.apply([try TrackEdit(parsing: "title="), try TrackEdit(parsing: "year="), try TrackEdit(parsing: "liked=")], to: id)
        #expect(try store.tracks.track(id: id)?.title == "Original")
        #expect(try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM overrides") } == 0)
    }

    @Test func everyEditableFieldOverridesTheTagAndIsSearchable() throws {
        let id = try insertTrack("/m/a.mp3", title: "Original")
        try store.tracks.apply(["artist=נעמי שמר", "album=Golden Hits", "genre=Folk", "rating=4", "year=1967"]
            .map { text throws(SongboxError) in try TrackEdit(parsing: text) }, to: id)
        let track = try #require(try store.tracks.track(id: id))
        #expect(track.artist == "נעמי שמר" && track.album == "Golden Hits" && track.genre == "Folk")
        #expect(track.rating == 4 && track.year == 1967)
        #expect(try store.tracks.matching("artist:שמר album:golden genre:=folk rating>=4 year:1967").map(\.id) == [id])
    }

    @Test(arguments: ["rating=6", "rating=x", "year=abc", "liked=maybe", "bitrate=1", "title"])
    func badEditsAreRejectedWithAReason(text: String) {
        #expect(throws: SongboxError.self) { try TrackEdit(parsing: text) }
    }

    @Test func editingAMissingTrackSaysSo() throws {
        #expect(throws: SongboxError.self) { try store.tracks.apply([try TrackEdit(parsing: "rating=3")], to: 999) }
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(defaultDatabasePath(environment: ["HOME": "/home/pi"]) == "/home/pi/.local/share/songbox/library.db")
        #expect(defaultDatabasePath(environment: ["HOME": "/home/pi", "XDG_DATA_HOME": "/data"]) == "/data/songbox/library.db")
        #expect(defaultDatabasePath(environment: ["HOME": "/home/pi", "SONGBOX_DB": "/tmp/x.db"]) == "/tmp/x.db")
    }

    @Test func searchKeysFoldCaseNiqqudAndAccents() {
        #expect(SearchKey.fold("אַהֲבָה") == "אהבה")
        #expect(SearchKey.fold("Café LOVE") == "cafe love")
        #expect(SearchKey.fold("בֵּית־הַשִּׁטָּה") == "בית השטה")
        #expect(SearchKey.fold("\u{200F}שלום") == "שלום")
    }

    /// The trigram index must answer exactly as a scan of the `library` view does.
    func expectIndexMatchesScan(_ words: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for word in words {
            let folded = SearchKey.fold(word)
            let viaIndex = try store.tracks.matching("title:\"\(word)\"").map(\.id).sorted()
            let viaScan = try store.runner.read { db in
                try Int64.fetchAll(db, sql: "SELECT id FROM library WHERE instr(title_key, ?) > 0 ORDER BY id", arguments: [folded])
            }
            #expect(viaIndex == viaScan, "\(word)", sourceLocation: sourceLocation)
        }
    }

    @Test func theSearchIndexFollowsScansEditsAndRemovals() throws {
        let a = try insertTrack("/m/a.mp3", title: "Love Song")
        let b = try insertTrack("/m/b.mp3", title: "אַהֲבָה רבה")
        try expectIndexMatchesScan(["love", "אהבה", "song", "רבה"])
        #expect(try store.tracks.matching("title:love").map(\.id) == [a])

        try store.runner.write { db in
            try db.execute(sql: "UPDATE tracks SET title = 'Hate Song', title_key = 'hate song' WHERE id = ?", arguments: [a])
        }
        try expectIndexMatchesScan(["love", "hate"])
        #expect(try store.tracks.matching("title:love").isEmpty)

        try store.tracks.apply([try TrackEdit(parsing: "title=Loving you")], to: b)
        try expectIndexMatchesScan(["love", "lov", "אהבה"])
        #expect(try store.tracks.matching("title:lov").map(\.id) == [b])
        try store.tracks.apply([try TrackEdit(parsing: "title=")], to: b)
        try expectIndexMatchesScan(["lov", "אהבה"])
        #expect(try store.tracks.matching("title:אהבה").map(\.id) == [b])

        try store.tracks.remove(ids: [b])
        try expectIndexMatchesScan(["אהבה", "song"])
        let indexed = try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM track_search") }
        #expect(indexed == 1)
    }
}

/// `summaries(matching:)` (what `ls` reads) lists the same tracks in the same order as
/// `tracks(matching:)`, whatever the query sorts, limits or expands by.
@Suite struct TrackSummaryTests {
    @Test(arguments: ["", "sort:-plays,title", "limit:20s", "year>1970 sort:-duration limit:5",
                      "title:אהבה", "-artist:Mabel sort:added,-title", "playlist:Loved", "random limit:3"])
    func aSummaryIsTheTrackItLists(query: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try LibraryStore(path: folder + "/library.db")
        _ = try LibraryScanner(store: store, logger: .init(label: "test")).scan([Fixtures.packageRoot + "/examples/music"])
        for (title, plays) in [("Paper Boats", 3), ("Old Roads", 1)] {
            let id = try #require(try store.tracks.matching("title:=\"\(title)\"").first?.id)
            for _ in 0..<plays { try store.history.recordPlay(trackID: id, kind: .play, reason: "finished", played: 60) }
        }
        try store.playlists.saveSmartPlaylist(named: "Loved", query: "plays>0 sort:-plays")
        let summaries = try store.tracks.summaries(matching: query)
        let tracks = try store.tracks.matching(query)
        #expect(summaries.count == tracks.count && !summaries.isEmpty)
        // The read that bypasses the store answers alike, except for playlists (the store's).
        let quick = LibraryStore.quickSummaries(path: store.path, matching: query)
        #expect(query.contains("playlist:") ? quick == nil : quick?.count == summaries.count)
        if query.hasPrefix("random") { return }  // a different draw each time
        if !query.contains("playlist:") { #expect(quick == summaries) }
        #expect(summaries.map(\.id) == tracks.map(\.id))
        #expect(summaries.map(\.title) == tracks.map(\.title) && summaries.map(\.artist) == tracks.map(\.artist))
        #expect(summaries.map(\.album) == tracks.map(\.album) && summaries.map(\.year) == tracks.map(\.year))
        #expect(summaries.map(\.duration) == tracks.map(\.duration) && summaries.map(\.path) == tracks.map(\.path))
    }
}

/// The library's stores and its fast paths run their statements through one runner, and fail alike.
@Suite struct StatementRunnerTests {
    @Test func everyStoreRunsThroughTheLibrarysOneRunner() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try LibraryStore(path: folder + "/library.db")
        #expect(store.tracks.runner === store.runner && store.playlists.runner === store.runner)
        #expect(store.history.runner === store.runner && store.state.runner === store.runner)
    }

    @Test func aFailureReadsTheSameThroughGRDBAndTheRawReader() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try LibraryStore(path: folder + "/library.db")
        let sql = "SELECT no_such_column FROM library"
        let viaGRDB = #expect(throws: SongboxError.self) { try store.runner.read { db in _ = try Row.fetchAll(db, sql: sql) } }
        let viaRaw = #expect(throws: SongboxError.self) {
            try store.runner.readRaw { reader in try reader.forEachRow(of: RowStatement(sql: sql, arguments: [])) { _ in } }
        }
        #expect(viaGRDB?.code == viaRaw?.code && viaGRDB?.description == viaRaw?.description)
        #expect(viaGRDB?.description.contains("no_such_column") == false, "no SQL reaches the reader")
    }
}

@Suite struct QuickSummaryTests {
    @Test func withoutADatabaseOrWithAnOldSchemaTheStoreAnswers() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(LibraryStore.quickSummaries(path: folder + "/none.db", matching: "") == nil)
        let path = folder + "/library.db"
        _ = try LibraryStore(path: path)
        #expect(LibraryStore.quickSummaries(path: path, matching: "") == [])
        #expect(LibraryStore.quickSummaries(path: path, matching: "title:(") == nil, "the store reports the error")
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 1") }
        #expect(LibraryStore.quickSummaries(path: path, matching: "") == nil, "a schema to migrate first")
    }
}
