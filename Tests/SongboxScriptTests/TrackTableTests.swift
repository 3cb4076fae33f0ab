import Foundation
import GRDB
import Logging
import SongboxLibrary
import SongboxScript
import SongboxWiring
import SongboxTestSupport
import Testing

/// `songbox.library.query` and `find` build their tables straight from SQLite rows and keep them
/// encoded between calls (`TrackTableCache`): the tables must be exactly `LibraryAPI.table(track)`,
/// and no change to the database may leave a stale one.
@Suite struct TrackTableTests {
    let folder: String
    let store: LibraryStore

    init() throws {
        (folder, store) = try exampleStore()
    }

    func runtime(_ store: LibraryStore? = nil, cache: TrackTableCache = TrackTableCache(),
                 limits: LuaRuntime.Limits = LuaRuntime.Limits()) throws -> LuaRuntime {
        let logger = Logger(label: "test.script") { _ in CapturingLogHandler(records: Captured<LogRecord>()) }
        let runtime = try LuaRuntime(limits: limits, library: store ?? self.store, trackTables: cache, logger: logger) { _ in }
        try LibraryAPI.install(on: runtime)
        return runtime
    }

    /// `songbox.library.query(text)` from Lua, read back from the Lua stack.
    func query(_ runtime: LuaRuntime, _ text: String) throws -> [LuaValue] {
        let results = try runtime.run(source: "return songbox.library.query(...)", arguments: [.string(text)])
        return try #require(results.first?.arrayValue, "\(results)")
    }

    /// What the tables must be: `LibraryAPI.table` of each track the store gives.
    func expected(_ text: String) throws -> [LuaValue] {
        try store.tracks.matching(text).map(LibraryAPI.table)
    }

    func id(_ table: LuaValue) -> Int64? { table.tableValue?["id"]?.intValue.map(Int64.init) }

    /// Overrides, plays and a saved playlist on the example library.
    func edit() throws {
        let tracks = try store.tracks.matching("")
        #expect(tracks.count == 16)
        try store.tracks.apply([TrackEdit(parsing: "rating=4"), TrackEdit(parsing: "liked=yes")], to: tracks[0].id)
        try store.tracks.apply([TrackEdit(parsing: "title=Ein Titel \"quoted\" ü"), TrackEdit(parsing: "year=1901"),
                         TrackEdit(parsing: "genre=")], to: tracks[1].id)
        try store.tracks.apply([TrackEdit(parsing: "liked=no"), TrackEdit(parsing: "rating=1")], to: tracks[2].id)
        // Audio features for one album's tracks: present in theirs, absent in the others.
        try TrackAnalysis.analyzeAll(in: store, matching: "album:\"Morning Light\"")
        let played = Date(timeIntervalSince1970: 1_795_330_999)
        for (offset, track) in tracks.prefix(5).enumerated() {
            try store.history.recordPlay(trackID: track.id, kind: offset == 4 ? .skip : .play, reason: "finished", played: 3,
                                 at: played.addingTimeInterval(Double(offset) * 3_601))
        }
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [tracks[7].id, tracks[3].id, tracks[12].id])
    }

    static let queries = [
        "", "sort:-plays,title", "sort:year limit:5", "liked:yes", "rating:1..", "playlist:Mix", "limit:3",
        "title:zzz-nothing", "sort:-duration limit:30m",
    ]

    @Test func tablesAreTheTrackTables() throws {
        try edit()
        // A fresh cache per query (every query read cold, then warm), and one cache for all of
        // them in turn (each query partly from tables an earlier one kept).
        let shared = try runtime()
        for text in Self.queries {
            let expected = try expected(text)
            let fresh = try runtime()
            #expect(try query(fresh, text) == expected, "cold: \(text)")
            #expect(try query(fresh, text) == expected, "warm: \(text)")
            #expect(try query(shared, text) == expected, "shared: \(text)")
        }
        #expect(try query(shared, "") == expected(""))
        #expect(shared.stackImbalances == 0)
    }

    /// Every kind of field is present somewhere (so the comparison above covered it), and absent
    /// where the track has no value.
    @Test func fieldsHaveTheirLuaTypes() throws {
        try edit()
        let tables = try query(try runtime(), "").compactMap(\.tableValue)
        // The example tracks are steady tones: analyzed, they have a key and a loudness but no beat;
        // MP3s, they have no bits per sample.
        for field in TrackField.all where !["rating", "last_played", "lyrics", "isrc", "comment", "date", "tempo", "danceability", "bits"]
            .contains(field.name)
            && !field.name.hasPrefix("mb_") && !field.name.hasPrefix("rg_") {
            #expect(tables.contains { $0[field.name] != nil }, "\(field.name) never present")
        }
        #expect(tables.contains { $0["rating"] == .integer(4) } && tables.contains { $0["rating"] == nil })
        #expect(tables.contains { $0["last_played"] == "2026-11-22T07:03:19Z" })
        #expect(tables.allSatisfy { if case .number = $0["duration"] { true } else { false } })
        #expect(tables.allSatisfy { if case .boolean = $0["liked"] { true } else { false } })
        #expect(tables.allSatisfy { if case .integer = $0["size"] { true } else { false } })
        #expect(tables.contains { if case .string = $0["key"] { true } else { false } } && tables.contains { $0["key"] == nil })
        #expect(tables.contains { if case .number = $0["loudness"] { true } else { false } })
    }

    @Test func findAndRandomGiveTheTrackTables() throws {
        try edit()
        let runtime = try runtime()
        let byID = try Dictionary(uniqueKeysWithValues: store.tracks.matching("").map { ($0.id, LibraryAPI.table($0)) })
        for source in ["return songbox.library.query('random')", "return songbox.library.query('random limit:4')",
                       "return songbox.library.find { random = true, limit = 6 }",
                       "return songbox.library.find { liked = true }"] {
            for _ in 0..<2 {
                let tables = try #require(try runtime.run(source: source).first?.arrayValue)
                #expect(!tables.isEmpty)
                #expect(Set(tables.compactMap(id)).count == tables.count, "\(source): a track twice")
                for table in tables { #expect(table == byID[id(table) ?? -1], "\(source)") }
            }
        }
        let find = try #require(try runtime.run(source: "return songbox.library.find { liked = true }").first?.arrayValue)
        #expect(find == (try expected("liked:yes")))
    }

    /// A random query is drawn afresh each call, not remembered.
    @Test func randomIsDrawnEachCall() throws {
        let runtime = try runtime()
        var orders = Set<[Int64]>()
        for _ in 0..<8 { orders.insert(try query(runtime, "random").compactMap(id)) }
        #expect(orders.count > 1)
    }

    @Test func aWriteInTheSameScriptShows() throws {
        let runtime = try runtime()
        let results = try runtime.run(source: """
            local before = songbox.library.query("")
            local id = before[1].id
            assert(songbox.library.set(id, { title = "Renamed", rating = 3 }))
            local after = songbox.library.query("")
            local found
            for _, t in ipairs(after) do if t.id == id then found = t end end
            local liked = #songbox.library.query("liked:yes")
            songbox.library.set(id, { liked = true })
            return before[1].title, found.title, found.rating, liked, #songbox.library.query("liked:yes")
            """)
        #expect(results.count == 5)
        #expect(results[0] != "Renamed")
        #expect(Array(results[1...]) == ["Renamed", 3, 0, 1])
    }

    @Test(arguments: [LibraryStore.Access.single, .shared])
    func aWriteByAnotherConnectionShows(_ access: LibraryStore.Access) throws {
        let reader = try LibraryStore(path: folder + "/library.db", access: access)
        let other = try LibraryStore(path: folder + "/library.db")
        let runtime = try runtime(reader)
        let first = try query(runtime, "")
        #expect(first == (try expected("")))
        let track = try #require(try store.tracks.matching("").first)
        try other.tracks.apply([TrackEdit(parsing: "title=Changed elsewhere")], to: track.id)
        let second = try query(runtime, "")
        #expect(second != first)
        #expect(second == (try expected("")))
        #expect(second.contains { $0.tableValue?["title"] == "Changed elsewhere" })
        // Plays (a trigger updates the track), a removal, a playlist: each shows at once.
        try other.history.recordPlay(trackID: track.id, kind: .play, reason: "finished", played: 2)
        #expect(try query(runtime, "") == (try expected("")))
        try other.playlists.savePlaylist(named: "Other", trackIDs: [track.id])
        #expect(try query(runtime, "playlist:Other").compactMap(id) == [track.id])
        try other.tracks.remove(ids: [track.id])
        #expect(try query(runtime, "") == (try expected("")))
        #expect(try query(runtime, "playlist:Other").isEmpty)
    }

    /// One cache serves two runtimes (and two stores) on the same file.
    @Test func aSharedCacheStaysRight() throws {
        let cache = TrackTableCache()
        let otherStore = try LibraryStore(path: folder + "/library.db")
        let one = try runtime(cache: cache), two = try runtime(otherStore, cache: cache)
        #expect(try query(one, "") == (try expected("")))
        let track = try #require(try store.tracks.matching("").first)
        try otherStore.tracks.apply([TrackEdit(parsing: "rating=5")], to: track.id)
        #expect(try query(one, "") == (try expected("")))
        #expect(try query(two, "rating:5").compactMap(id) == [track.id])
        try store.tracks.apply([TrackEdit(parsing: "rating=")], to: track.id)
        #expect(try query(two, "rating:5").isEmpty)
        #expect(try query(one, "") == (try expected("")))
    }

    /// Too many tables for the memory cap: the memory-limit error, not a crash; the state stops.
    @Test func theMemoryCapStillHolds() throws {
        // 16 example tracks copied 250 times: 4,000 tracks, a few MB of Lua tables.
        try store.runner.write { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('tracks') WHERE name NOT IN ('id', 'path', 'path_key')")
                .joined(separator: ", ")
            for copy in 1...250 {
                try db.execute(sql: """
                    INSERT INTO tracks (path, path_key, \(columns))
                    SELECT path || '.\(copy)', path_key || '.\(copy)', \(columns) FROM tracks WHERE id <= 16
                    """)
            }
        }
        let capped = try runtime(limits: .init(memory: 3 << 20))
        do {
            _ = try query(capped, "")
            Issue.record("expected the memory limit")
        } catch let error as LuaScriptError {
            #expect(error.kind == .memoryLimit, "\(error)")
            #expect(error.message.hasSuffix("memory limit of 3 MB exceeded"), "\(error)")
        }
        #expect(capped.memoryUsed <= 3 << 20)
        #expect(capped.stackImbalances == 0)
        // Under a cap that fits, the same call works, and again from the kept tables.
        let roomy = try runtime()
        #expect(try query(roomy, "").count == 16 * 251)
        #expect(try query(roomy, "").count == 16 * 251)
    }

    @Test func recordsReadBackInSwift() throws {
        try edit()
        let value = try TrackTableCache().tables(matching: "sort:title", in: store)
        guard case .records(let records) = value else { Issue.record("not records: \(value)"); return }
        #expect(records.keys == TrackField.all.map(\.name))
        #expect(value.arrayValue == (try expected("sort:title")))
        #expect(value.typeName == "table")
    }
}
