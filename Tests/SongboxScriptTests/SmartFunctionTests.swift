import Foundation
import Logging
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

/// Smart playlists defined by a Lua function (`songbox.smart(name, function)`): evaluated when
/// read, in the script's own state while it runs and by running the script again afterwards.
@Suite struct SmartFunctionTests {
    let folder: String
    let store: LibraryStore
    /// What evaluates the function playlists the reads here reach: the script run again, as a
    /// one-shot command does (the library runs no Lua).
    let playlists = ScriptPlaylistHost(next: ScriptPlaylistRunner(logger: Logger(label: "test.smart")))

    init() throws {
        (folder, store) = try exampleStore()
        try record(["Paper Boats": 3, "Old Roads": 2, "שיר לילה": 1])
    }

    func playlist(_ name: String, by playlists: ScriptPlaylistHost? = nil) throws -> Playlist {
        try store.playlists.playlist(named: name, evaluated: (playlists ?? self.playlists).evaluated(reachedFrom: [name], in: store))
    }

    func allPlaylists(by playlists: ScriptPlaylistHost? = nil) throws -> [PlaylistSummary] {
        try store.playlists.all(evaluated: (playlists ?? self.playlists).evaluatedEach(in: store))
    }

    func tracks(_ text: String) throws -> [Track] {
        try store.tracks.matching(text, evaluated: playlists.evaluated(reachedBy: text, in: store))
    }

    /// A state on `store` whose reads evaluate function playlists as `playlists` does.
    func runtime(limits: LuaRuntime.Limits = LuaRuntime.Limits()) throws -> TestRuntime {
        try TestRuntime(limits: limits, library: store, functionPlaylists: playlists)
    }

    func record(_ plays: [String: Int]) throws {
        for (title, count) in plays {
            let track = try #require(try store.tracks.matching("title:=\"\(title)\"").first)
            for _ in 0..<count { try store.history.recordPlay(trackID: track.id, kind: .play, reason: "finished", played: 5) }
        }
    }

    func titles(_ playlist: String, by playlists: ScriptPlaylistHost? = nil) throws -> [String] {
        try self.playlist(playlist, by: playlists).tracks.compactMap(\.title)
    }

    /// A script file in the temporary folder.
    func script(_ name: String, _ source: String) throws -> String {
        let path = folder + "/" + name
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func everyCaseFromLua() throws {
        let test = try runtime()
        try test.run("smart_functions.lua")
        #expect(test.printed.all == ["smart functions ok\n"])
        #expect(test.runtime.stackImbalances == 0)
    }

    /// After the script has ended, reading the playlist runs the script again in a fresh state
    /// (read-only, its `print` to the debug log) and calls the function: the playlist stays live
    /// as plays are recorded.
    @Test func readAfterTheScriptEndedAndLiveAsPlaysAreRecorded() throws {
        let path = try script("most-played-per-artist.lua", """
            local sb = require "songbox"
            assert(sb.smart("Best of each", function()
              local seen, picked = {}, {}
              for _, t in ipairs(sb.library.query("plays>0 sort:-plays,title")) do
                if not seen[t.artist] then seen[t.artist] = true; picked[#picked + 1] = t end
              end
              return picked
            end))
            -- Read at the top level too: when run again to evaluate, this reads it from the new state.
            -- (Once the playlist is renamed, there is no "Best of each" to read.)
            local playlist = sb.playlist.get("Best of each")
            if playlist then print(#playlist.tracks .. " tracks") end
            """)
        do {
            let test = try runtime()
            try test.runtime.run(file: path)
            #expect(test.printed.all == ["3 tracks\n"])
        }
        #expect(try titles("Best of each") == ["Paper Boats", "Old Roads", "שיר לילה"])
        #expect(try allPlaylists().first { $0.name == "Best of each" }?.script == path)

        try record(["Love in Spring": 4, "ערב על הכנרת": 2])
        #expect(try titles("Best of each") == ["Love in Spring", "Old Roads", "ערב על הכנרת", "שיר לילה"])
        #expect(try tracks("playlist:\"Best of each\" sort:-title").compactMap(\.title)
                == ["שיר לילה", "ערב על הכנרת", "Old Roads", "Love in Spring"])
        // Through a smart query that names it.
        try store.playlists.saveSmartPlaylist(named: "Hebrew best", query: "playlist:\"Best of each\" -artist:lanterns -artist:mabel")
        #expect(try titles("Hebrew best") == ["ערב על הכנרת", "שיר לילה"])
        #expect(try allPlaylists().first { $0.name == "Hebrew best" }?.trackCount == 2)
        // Renamed, it still runs the function the script defined under the old name.
        try store.playlists.renamePlaylist("Best of each", to: "Best")
        #expect(try titles("Best") == ["Love in Spring", "Old Roads", "ערב על הכנרת", "שיר לילה"])
    }

    @Test func aScriptThatIsGoneOrBrokenIsAClearError() throws {
        let path = try script("gone.lua", "require('songbox').smart('Gone', function() return {} end)")
        try runtime().runtime.run(file: path)
        #expect(try titles("Gone") == [])

        try "local x = nil\nx.y = 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = #expect(throws: SongboxError.self) { try playlist("Gone") }
        // (Lua shortens a long path at its start: "...songbox-test-.../gone.lua".)
        #expect(broken?.message.hasPrefix("smart playlist 'Gone': ") == true)
        #expect(broken?.message.hasSuffix("/gone.lua:2: attempt to index a nil value (local 'x')") == true)
        #expect(broken?.location == path)

        try "print('nothing here')\n".write(toFile: path, atomically: true, encoding: .utf8)
        let undefined = #expect(throws: SongboxError.self) { try playlist("Gone") }
        #expect(undefined?.message.contains("the script no longer defines it") == true)

        try FileManager.default.removeItem(atPath: path)
        let gone = #expect(throws: SongboxError.self) { try tracks("playlist:Gone") }
        #expect(gone?.message == "smart playlist 'Gone' is defined by a function in a script that is gone")
        #expect(gone?.hint?.contains("songbox playlist rm \"Gone\"") == true)
        // The listing shows the problem and goes on; nothing is lost.
        let listed = try #require(try allPlaylists().first { $0.name == "Gone" })
        #expect(listed.problem == gone?.message && listed.trackCount == 0)
        try store.playlists.deletePlaylist(named: "Gone")
    }

    /// Run again to evaluate, the script cannot read the playlist before it defines it (that would
    /// run the script again, forever): the read fails instead. Writes at its top level are refused.
    @Test func runningTheScriptAgainIsGuarded() throws {
        let early = try script("early.lua", """
            local sb = require "songbox"
            local before, message = sb.playlist.get("Early")
            if message and message:find("before the script defines it") then error(message) end
            sb.smart("Early", function() return {} end)
            """)
        try runtime().runtime.run(file: early)
        let error = #expect(throws: SongboxError.self) { try playlist("Early") }
        #expect(error?.message.hasSuffix("smart playlist 'Early' is read by its script before the script defines it") == true)

        let writer = try script("writer.lua", """
            local sb = require "songbox"
            sb.smart("Written", function() return {} end)
            sb.playlist.save("Side effect", {})
            """)
        try runtime().runtime.run(file: writer)
        try store.playlists.deletePlaylist(named: "Side effect")
        let refused = #expect(throws: SongboxError.self) { try playlist("Written") }
        #expect(refused?.message.contains("songbox.playlist.save refused: smart playlist 'Written' is being evaluated") == true)
        #expect(try !store.playlists.playlistExists(named: "Side effect"))

        // Run again to evaluate, `songbox.dry_run` is true: writes guarded by it are skipped.
        try """
            local sb = require "songbox"
            sb.smart("Written", function() return {} end)
            if not sb.dry_run then sb.playlist.save("Side effect", {}, { replace = true }) end
            """.write(toFile: writer, atomically: true, encoding: .utf8)
        try runtime().runtime.run(file: writer)
        try store.playlists.deletePlaylist(named: "Side effect")
        #expect(try titles("Written") == [])
        #expect(try !store.playlists.playlistExists(named: "Side effect"))
    }

    /// A function called back from inside a host function is part of that entry call: it uses the
    /// same instruction budget, so reading its own playlist cannot renew the budget.
    @Test func aFunctionReadBackSharesTheCallersInstructionBudget() throws {
        let path = try script("busy.lua", """
            local sb = require "songbox"
            sb.smart("Busy", function()
              local n = 0
              for i = 1, 300000 do n = n + i end
              return {}
            end)
            for _ = 1, 20 do sb.playlist.get("Busy") end
            """)
        let test = try runtime(limits: .init(instructions: 2_000_000))
        let error = test.failure { try $0.run(file: path) }
        #expect(error?.kind == .instructionLimit)
    }

    /// Run again to evaluate, a script is under the runner's limits: a function that never ends
    /// or eats memory is stopped with the limit's message; the store and the other playlists go on.
    @Test func aRunawayFunctionIsStoppedByTheLimits() throws {
        let path = try script("runaway.lua", """
            local sb = require "songbox"
            sb.smart("Forever", function() while true do end end)
            sb.smart("Hungry", function() local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end end)
            sb.smart("Fine", function() return sb.library.query("limit:2") end)
            """)
        try runtime().runtime.run(file: path)
        let limited = ScriptPlaylistHost(next: ScriptPlaylistRunner(limits: .init(instructions: 1_000_000, memory: 8 << 20),
                                                                    logger: Logger(label: "test.smart")))
        let forever = #expect(throws: SongboxError.self) { try playlist("Forever", by: limited) }
        #expect(forever?.message.contains("instruction limit of 1000000 exceeded") == true, "\(String(describing: forever))")
        let hungry = #expect(throws: SongboxError.self) { try playlist("Hungry", by: limited) }
        #expect(hungry?.message.contains("memory limit of 8 MB exceeded") == true, "\(String(describing: hungry))")
        #expect(try titles("Fine", by: limited).count == 2)
        let problems = Dictionary(uniqueKeysWithValues: try allPlaylists(by: limited).map { ($0.name, $0.problem) })
        #expect(problems["Forever"]??.contains("instruction limit") == true && problems["Fine"]! == nil)
    }

    /// A state answers for the playlists its own script defines; another script's it reads
    /// through the host it was given (the library asks nobody): with none, the clear error;
    /// with one that runs the script again, the function's tracks.
    @Test func aStateReadsAnotherScriptsPlaylistThroughTheHostItIsGiven() throws {
        let definer = try script("definer.lua", """
            local sb = require "songbox"
            sb.smart("Defined", function() return sb.library.query('title:="Old Roads"') end)
            """)
        try runtime().runtime.run(file: definer)
        let reader = "local p, message = require('songbox').playlist.get('Defined'); return p and #p.tracks, message"
        let alone = try TestRuntime(library: store).runtime.run(source: reader)
        #expect(alone.first == .nil)
        #expect(alone.dropFirst().first?.stringValue?.hasSuffix("smart playlist 'Defined' is defined by a Lua function, and nothing here can run it") == true,
                "\(alone)")
        #expect(try runtime().runtime.run(source: reader).first == .integer(1))
    }

    @Test func aFunctionNeedsAScriptFile() throws {
        let test = try runtime()
        let results = try test.runtime.run(source: "return require('songbox').smart('X', function() return {} end)")
        #expect(results.first == .nil)
        #expect(results.dropFirst().first?.stringValue?.contains("must be defined in a script file") == true)
    }
}
