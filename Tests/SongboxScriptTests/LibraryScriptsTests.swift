import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// The bundled plugins and the examples/lua scripts, through the built `songbox` binary, against
/// the example library.
@Suite struct LibraryScriptsTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    func path(_ relative: String) -> String { Fixtures.packageRoot + "/" + relative }

    /// Plays recorded the way the player will: through the store.
    func recordPlays(_ counts: [String: Int]) throws {
        let store = try LibraryStore(path: songbox.database)
        for (title, count) in counts {
            let track = try #require(try store.tracks.matching("title:=\"\(title)\"").first)
            for _ in 0..<count { try store.history.recordPlay(trackID: track.id, kind: .play, reason: "finished", played: 5) }
        }
    }

    func titles(_ arguments: [String]) throws -> [String] {
        let output = try songbox.run(arguments + ["--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
        return list.compactMap { $0["title"] as? String }
    }

    @Test func top10PluginMakesALiveSmartPlaylist() throws {
        let run = try songbox.run(["run", path("plugins/top10.lua")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try titles(["ls", "playlist:\"Top 10\""]).isEmpty)
        try recordPlays(["Paper Boats": 3, "Morning Light": 1])
        let top = try titles(["ls", "playlist:\"Top 10\""])
        // (`playlist:` is membership; `ls` orders by its own sort.)
        #expect(Set(top) == ["Paper Boats", "Morning Light"])
        #expect(try titles(["ls", "playlist:\"Top 10\"", "sort:-plays"]) == ["Paper Boats", "Morning Light"])
    }

    /// The function rule of examples/lua/smart-rules.lua through the CLI: each `songbox` command
    /// that reads it runs the script again; it follows the plays recorded in between.
    @Test func aSmartPlaylistFunctionStaysLiveThroughTheCommandLine() throws {
        let rules = path("examples/lua/smart-rules.lua")
        let run = try songbox.run(["run", rules])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.last == "Best of each artist  (a function)")
        #expect(try titles(["ls", "playlist:\"Best of each artist\""]).isEmpty)

        try recordPlays(["Paper Boats": 3, "Love in Spring": 1, "Old Roads": 2])
        let show = try songbox.run(["playlist", "show", "Best of each artist"])
        #expect(show.status == 0, "\(show.stderr)")
        // Most played first: the function's order.
        #expect(show.lines.count == 3, "\(show.stdout)")
        #expect(show.lines.dropFirst().map { $0.contains("Paper Boats") } == [true, false], "\(show.stdout)")
        #expect(show.lines.last?.contains("Old Roads") == true, "\(show.stdout)")
        #expect(try titles(["ls", "playlist:\"Best of each artist\"", "sort:title"]) == ["Old Roads", "Paper Boats"])

        let listed = try songbox.run(["playlist", "ls", "--json"])
        let playlists = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let best = try #require(playlists.first { $0["name"] as? String == "Best of each artist" })
        #expect(best["kind"] as? String == "smart" && best["script"] as? String == rules && best["tracks"] as? Int == 2)
        #expect(best["query"] is NSNull)
        // Played like any query: the player records the plays, and the function sees them.
        let play = try songbox.run(["play", "--output", "null", "--fast", "playlist:\"Best of each artist\"", "sort:title"])
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.lines.count == 2 && play.lines[0].contains("Old Roads") && play.lines[1].contains("Paper Boats"),
                "\(play.stdout)")
        #expect(try titles(["ls", "playlist:\"Best of each artist\"", "sort:-plays"]) == ["Paper Boats", "Old Roads"])
        try recordPlays(["Old Roads": 3])  // now 6 against Paper Boats' 4
        #expect(try titles(["ls", "playlist:\"Best of each artist\"", "sort:-plays"]) == ["Old Roads", "Paper Boats"])
        let table = try songbox.run(["playlist", "ls"])
        #expect(table.lines.contains { $0.hasPrefix("Best of each artist") && $0.contains("  function in /") },
                "\(table.stdout)")
    }

    @Test func everyBundledPluginRuns() throws {
        let store = try LibraryStore(path: songbox.database)
        let boats = try #require(try store.tracks.matching("title:=\"Paper Boats\"").first)
        try store.tracks.apply([TrackEdit(parsing: "liked=yes")], to: boats.id)
        for plugin in ["top10", "liked", "recently-added", "forgotten"] {
            let run = try songbox.run(["run", path("plugins/\(plugin).lua")])
            #expect(run.status == 0, "\(plugin): \(run.stderr)")
        }
        #expect(try titles(["ls", "playlist:Liked"]) == ["Paper Boats"])
        #expect(try titles(["ls", "playlist:\"Recently added\""]).count == 16)
        #expect(try titles(["ls", "playlist:Forgotten"]) == ["Paper Boats"])
        try recordPlays(["Paper Boats": 1])
        #expect(try titles(["ls", "playlist:Forgotten"]).isEmpty)
        #expect(try store.playlists.all().map(\.name) == ["Forgotten", "Liked", "Recently added", "Top 10"])
    }

    @Test func everyExampleScriptRuns() throws {
        try recordPlays(["Paper Boats": 2])
        let examples: [(String, [String])] = [
            ("smart-rules.lua", []), ("top-artists.lua", ["5"]), ("export-liked.lua", [folder + "/liked.json"]),
            ("library-tour.lua", []), ("playlists.lua", [folder]),
        ]
        let present = try FileManager.default.contentsOfDirectory(atPath: path("examples/lua")).filter { $0.hasSuffix(".lua") }
        #expect(Set(present) == Set(examples.map(\.0) + ["player-tour.lua"]), "every example is run here")
        for (script, arguments) in examples {
            let run = try songbox.run(["run", path("examples/lua/" + script)] + arguments)
            #expect(run.status == 0, "\(script): \(run.stderr)")
            #expect(!run.stdout.isEmpty, "\(script)")
            #expect(!run.stderr.contains("warning"), "\(script): \(run.stderr)")
        }
        let top = try songbox.run(["run", path("examples/lua/top-artists.lua")])
        #expect(top.stdout.hasPrefix(" 1. The Lanterns"), "\(top.stdout)")
        #expect(FileManager.default.fileExists(atPath: folder + "/liked.json"))
        // Under --dry-run a script that writes stops with a clear error.
        let dry = try songbox.run(["run", "--dry-run", path("examples/lua/export-liked.lua"), folder + "/x.m3u8"])
        #expect(dry.status == 1)
        #expect(dry.stderr.contains("dry run: playlist.save refused"), "\(dry.stderr)")
        let tour = try songbox.run(["run", "--dry-run", path("examples/lua/library-tour.lua")])
        #expect(tour.status == 0, "\(tour.stderr)")
        // Last, as it records plays. No sound card needed this way, and the times are exact:
        // what the README shows.
        let playerTour = try songbox.run(["run", "--output", "null", "--fast", path("examples/lua/player-tour.lua")])
        #expect(playerTour.status == 0, "\(playerTour.stderr)")
        #expect(playerTour.lines.first == "  0.0 s  started  להקת הגליל - אַהֲבָה בַּגָּלִיל (user)")
        #expect(playerTour.lines.last == " 15.1 s  ended    Mabel Grey - Northern Skies: stopped after 3.2 s, counted as nothing")
        // The demo leaves things as it found them: the saved volume is not the fade's 0.
        let probe = folder + "/volume.lua"
        try "print(songbox.player.volume())\n".write(toFile: probe, atomically: true, encoding: .utf8)
        let volume = try songbox.run(["run", probe])
        #expect(volume.stdout == "100.0\n", "\(volume.stdout) \(volume.stderr)")
        // Without a file, export-liked says how to use it and writes nothing.
        let usage = try songbox.run(["run", path("examples/lua/export-liked.lua")])
        #expect(usage.status == 2 && usage.stdout.hasPrefix("usage: "))
    }

    @Test func aLuaTrackIsTheShowJSONWithoutNulls() throws {
        let show = try songbox.run(["show", "--json", "1"])
        #expect(show.status == 0, "\(show.stderr)")
        let script = folder + "/get.lua"
        try "print(songbox.json.encode(songbox.library.get(1)))".write(toFile: script, atomically: true, encoding: .utf8)
        let lua = try songbox.run(["run", script])
        #expect(lua.status == 0, "\(lua.stderr)")
        // `language` is what show works out (the user's, or a guess from the letters), not a
        // field of the track.
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
            .filter { !($0.value is NSNull) && !["language", "language_guessed"].contains($0.key) }
        let actual = try #require(try JSONSerialization.jsonObject(with: Data(lua.stdout.utf8)) as? [String: Any])
        func text(_ fields: [String: Any]) -> [String: String] {
            fields.mapValues { value in (value as? Bool).map { $0 ? "true" : "false" } ?? "\(value)" }
        }
        #expect(text(actual) == text(expected))
    }
}
