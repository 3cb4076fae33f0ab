import Foundation
import Logging
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

/// The library API (`songbox.library`, `history`, `playlist`, `smart`) from Lua, against a real
/// store filled by scanning examples/music.
@Suite struct LibraryAPITests {
    let folder: String
    let store: LibraryStore

    init() throws {
        (folder, store) = try exampleStore()
    }

    func runtime(dryRun: Bool = false) throws -> (LuaRuntime, Captured<String>) {
        let test = try TestRuntime(dryRun: dryRun, library: store)
        return (test.runtime, test.printed)
    }

    func track(titled title: String) throws -> Track {
        try #require(try store.tracks.matching("title:=\"\(title)\"").first)
    }

    @Test func everyFunctionFromLua() throws {
        let dayAgo = Date().addingTimeInterval(-86_400)
        let boats = try track(titled: "Paper Boats"), morning = try track(titled: "Morning Light")
        for _ in 0..<3 { try store.history.recordPlay(trackID: boats.id, kind: .play, reason: "finished", played: 5, at: dayAgo) }
        try store.history.recordPlay(trackID: morning.id, kind: .play, reason: "finished", played: 5, at: dayAgo)
        try store.history.recordPlay(trackID: morning.id, kind: .skip, reason: "skipped", played: 1, at: dayAgo.addingTimeInterval(60))

        let (runtime, printed) = try runtime()
        try runtime.run(file: luaFolder + "/library_api.lua", displayName: "library_api.lua", arguments: [.string(folder)])
        #expect(printed.all == ["library api ok\n"])
        #expect(runtime.stackImbalances == 0)
        // What Lua did is in the store.
        #expect(try store.tracks.track(id: boats.id)?.rating == 5)
        #expect(try store.playlists.playlist(named: "Lanterns JSON").tracks.count == 4)
    }

    /// Every library function in the committed globals list is called by library_api.lua.
    @Test func theLuaTestCallsEveryFunction() throws {
        let globals = try String(contentsOfFile: luaFolder + "/../sandbox-globals.txt", encoding: .utf8)
        // The lyrics and picture functions have a script of their own, on a library with lyrics and pictures.
        let script = try ["library_api.lua", "lyrics_art.lua"].map { try String(contentsOfFile: luaFolder + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
        let names = globals.split(separator: "\n").compactMap { line -> String? in
            guard line.hasSuffix(" (function)") else { return nil }
            let name = String(line.dropLast(" (function)".count))
            let isLibrary = ["songbox.library.", "songbox.history.", "songbox.playlist.", "songbox.lyrics."].contains { name.hasPrefix($0) }
            return isLibrary || name == "songbox.smart" ? name : nil
        }
        #expect(names.count == 22)
        for name in names {
            let call = "sb." + name.dropFirst("songbox.".count)
            #expect(script.contains(call + "(") || script.contains(call + " {"), "\(name) is not tested")
        }
    }

    @Test func dryRunRefusesEveryWrite() throws {
        let (runtime, printed) = try runtime(dryRun: true)
        try runtime.run(file: luaFolder + "/library_dry_run.lua", displayName: "library_dry_run.lua")
        #expect(printed.all == ["dry run ok\n"])
        #expect(try store.playlists.all().isEmpty)
    }

    @Test func argumentErrorsNameTheScriptLine() throws {
        let (runtime, _) = try runtime()
        do {
            try runtime.run(source: "local sb = require 'songbox'\nsb.library.get('x')\n", chunkName: "=errors.lua")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.hasPrefix("errors.lua:2: bad argument #1 to 'get' (number expected, got string)"), "\(error)")
        }
    }

    @Test func tracksCarryEveryShowField() throws {
        let (runtime, _) = try runtime()
        let id = try track(titled: "Paper Boats").id
        let results = try runtime.run(source: "return songbox.library.get(...)", arguments: [.integer(Int(id))])
        let fields = try #require(results.first?.tableValue)
        let expected: Set<String> = [
            "id", "path", "title", "artist", "album", "albumartist", "genre", "year", "track", "duration",
            "plays", "skips", "added", "liked", "tracktotal", "date", "comment", "has_picture",
            "isrc", "bitrate", "samplerate", "channels", "size",
        ]
        #expect(expected.isSubset(of: Set(fields.keys)), "\(expected.subtracting(fields.keys))")
        // Every key is a name `songbox show --json` uses (Track.CodingKeys).
        let known = Set(Track.CodingKeys.allCases.map(\.rawValue))
        #expect(Set(fields.keys).isSubset(of: known), "\(Set(fields.keys).subtracting(known))")
        #expect(fields["rating"] == nil && fields["last_played"] == nil)
    }

    @Test func findBuildsQuotedQueries() throws {
        let (runtime, _) = try runtime()
        let results = try runtime.run(source: """
            local t = songbox.library.find { artist = 'The "Lanterns"' }
            local u = songbox.library.find { artist = "להקת הגליל", year = { min = 1900 }, sort = { "-year", "title" } }
            return #t, #u
            """)
        #expect(results == [.integer(0), .integer(3)])
    }
}
