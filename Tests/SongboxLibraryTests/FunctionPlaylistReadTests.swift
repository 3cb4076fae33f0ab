import Foundation
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// The library runs no Lua and calls nothing above it: a read that reaches a smart playlist
/// defined by a script function takes that function's track ids from its caller (`evaluated:`).
/// Here no Lua state exists at all: the ids are the caller's, as a script host would give them.
@Suite struct FunctionPlaylistReadTests {
    let library: PlaylistLibrary
    var store: LibraryStore { library.store }
    let a: Int64, c: Int64
    let script: String

    init() throws {
        library = try PlaylistLibrary()
        a = try library.add("A/01.mp3", title: "ירושלים של זהב", artist: "נעמי שמר", duration: 215)
        try library.add("B/02.mp3", title: "Help!", artist: "The Beatles", duration: 138)
        c = try library.add("B/03.mp3", title: "Yesterday", artist: "The Beatles", duration: 125)
        script = library.folder + "/picks.lua"
        try store.playlists.saveScriptPlaylist(named: "Picks", script: script, function: "Picks")
    }

    @Test func aReadNobodyEvaluatedForIsAClearErrorThatNamesTheScript() throws {
        let expected = "smart playlist 'Picks' is defined by a Lua function, and nothing here can run it"
        let query = #expect(throws: SongboxError.self) { try store.tracks.matching("playlist:Picks") }
        #expect(query?.message == expected && query?.location == script)
        let read = #expect(throws: SongboxError.self) { try store.playlists.playlist(named: "Picks") }
        #expect(read?.message == expected && read?.location == script)
        // Through a smart query that names it, too.
        try store.playlists.saveSmartPlaylist(named: "Beatles picks", query: "playlist:Picks artist:beatles")
        let nested = #expect(throws: SongboxError.self) { try store.tracks.files(matching: "playlist:\"Beatles picks\"") }
        #expect(nested?.message == expected)
        // A listing goes on, and says why each has no tracks.
        let listed = try store.playlists.all()
        #expect(listed.map(\.name) == ["Beatles picks", "Picks"])
        #expect(listed.allSatisfy { $0.problem == expected && $0.trackCount == 0 })
    }

    @Test func theCallerSaysWhichToEvaluateAndPassesTheirIdsIn() throws {
        try store.playlists.saveSmartPlaylist(named: "Beatles picks", query: "playlist:Picks artist:beatles")
        try store.playlists.savePlaylist(named: "Saved", trackIDs: [a])
        // What a read reaches: directly, through a smart query, none through a saved playlist.
        #expect(try store.playlists.functionPlaylists(reachedFrom: ["Picks"]).map(\.name) == ["Picks"])
        #expect(try store.playlists.functionPlaylists(reachedFrom: ["Beatles picks"])
                == [ScriptPlaylist(name: "Picks", script: script, function: "Picks")])
        #expect(try store.playlists.functionPlaylists(reachedFrom: ["Saved", "nope"]).isEmpty)
        #expect(try store.playlists.functionPlaylists().map(\.name) == ["Picks"])

        let evaluated = ["Picks": try store.playlists.checked([c, a, c], of: ScriptPlaylist(name: "Picks", script: script, function: "Picks"))]
        // The playlist itself: in the function's order, a repeat kept.
        #expect(try store.playlists.playlist(named: "Picks", evaluated: evaluated).tracks.map(\.id) == [c, a, c])
        // In a query: each once, in the query's order.
        #expect(try store.tracks.matching("playlist:Picks sort:title", evaluated: evaluated).map(\.id) == [c, a])
        #expect(try store.tracks.files(matching: "playlist:\"Beatles picks\"", evaluated: evaluated).map(\.id) == [c])
        #expect(try store.tracks.totals(matching: "playlist:Picks", evaluated: evaluated).first?.songs == 2)
        let listed = try store.playlists.all(evaluated: ["Picks": .success([c, a, c])])
        #expect(listed.first { $0.name == "Picks" }?.trackCount == 3)
        #expect(listed.first { $0.name == "Beatles picks" }?.trackCount == 1)
    }

    @Test func aFunctionsIdThatIsNoTrackIsRefusedWithWhere() throws {
        let playlist = ScriptPlaylist(name: "Picks", script: script, function: "Picks")
        let error = #expect(throws: SongboxError.self) { try store.playlists.checked([a, 999], of: playlist) }
        #expect(error?.message == "the function of smart playlist 'Picks' gave track id 999, which is not in the library")
        #expect(error?.location == script)
        // A listing shows the failure the caller had, and goes on.
        let failed = try store.playlists.all(evaluated: ["Picks": .failure(try #require(error))])
        #expect(failed.first?.problem == error?.message)
    }
}
