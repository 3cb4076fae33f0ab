import Foundation
import SongboxServer
import SongboxTestSupport
import Testing

/// `examples/mood-playlist.lua` end to end: generated MP3s, the real binary, real analysis.
@Suite(.serialized) struct MoodPlaylistCommandTests: TestLibrarySuite {
    let library: TestLibrary
    static let example = Fixtures.packageRoot + "/examples/mood-playlist.lua"

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
        try AudioFixtures.calibratedSine(in: music, name: "quiet", dBFS: -35, seconds: 8)
        try AudioFixtures.clicks(in: music, name: "slow", bpm: 80, beats: 16, dB: -20)
        try AudioFixtures.clicks(in: music, name: "fast", bpm: 150, beats: 40)
        try library.scan()
    }

    func mood(_ arguments: [String]) throws -> SongboxRunner.Output {
        try songbox.run(["run", "--output", "null", "--fast", Self.example] + arguments)
    }

    @Test func printsSavesAndPlaysACalmPlaylistOnceAnalyzed() throws {
        let before = try mood(["calm", "1"])
        #expect(before.stdout.contains("0 of 3 tracks are analyzed: run `songbox analyze`"), "\(before.stdout)")
        #expect(before.stdout.contains("No track fits 'calm'"), "\(before.stdout)")

        #expect(try songbox.run(["analyze"]).status == 0)
        let run = try mood(["calm", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("are analyzed"), "\(run.stdout)")
        #expect(run.stdout.contains("calm, 1:00:"), "\(run.stdout)")
        #expect(run.stdout.contains("quiet"), "\(run.stdout)")
        #expect(run.stdout.contains("score 1: calm energy"), "\(run.stdout)")
        #expect(run.stdout.contains("Saved as playlist 'Mood: calm'; playing."), "\(run.stdout)")
        #expect(run.stdout.contains("playing: quiet"), "\(run.stdout)")
        let saved = try songbox.run(["playlist", "show", "Mood: calm"])
        #expect(saved.stdout.contains("quiet"), "\(saved.stdout)")
        // The quiet sine (energy about 0.1, no beat) is no energetic track.
        let energetic = try mood(["energetic", "1"])
        #expect(energetic.status == 0, "\(energetic.stderr)")
        #expect(!energetic.stdout.contains("quiet"), "\(energetic.stdout)")
    }

    /// While a daemon runs it owns the player: the example saves the playlist and the daemon
    /// plays it, in the playlist's order (through `songbox.daemon.command`).
    @Test func withADaemonRunningThePlaylistPlaysThere() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", folder + "/no-plugins", "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let run = try songbox.run(["run", Self.example, "calm", "1"], environment: ["SONGBOX_SOCKET": daemon.socket])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Saved as playlist 'Mood: calm'; playing on the songbox daemon."), "\(run.stdout)")
        func mpc(_ arguments: String...) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
        }
        let playlist = try songbox.run(["playlist", "show", "Mood: calm", "--json"])
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(playlist.stdout.utf8)) as? [String: Any])
        let files = try #require(shown["tracks"] as? [[String: Any]])
            .compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(!files.isEmpty)
        #expect(try mpc("-f", "%file%", "playlist").lines == files, "the daemon's queue is the playlist, in order")
        #expect(try mpc("status").stdout.contains("[playing]"))
        // A command the daemon refuses comes back as nil and its message; an argument that would
        // smuggle in a second command is refused before anything is sent.
        let script = folder + "/refused.lua"
        try """
            local sb = require "songbox"
            assert(sb.daemon.running())
            local ok, message = sb.daemon.command("play", "99")
            print(ok, message)
            print(pcall(sb.daemon.command, "add", "x\\nclear"))
            local status = assert(sb.daemon.command("status"))
            for _, field in ipairs(status) do if field.key == "state" then print("state", field.value) end end
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let refused = try songbox.run(["run", script], environment: ["SONGBOX_SOCKET": daemon.socket])
        #expect(refused.lines.first == "nil\tsongbox.daemon.command: Bad song index", "\(refused.stdout)\(refused.stderr)")
        #expect(refused.lines.dropFirst().first?.contains("an argument is one line") == true, "\(refused.stdout)")
        #expect(refused.lines.last == "state\tplay", "\(refused.stdout)")
        // An answer longer than a script may get is not read on: the client stops at the bound.
        let client = try ControlClient(path: daemon.socket)
        #expect(throws: AnswerTooLong.self) { try client.send("commands", most: 5) }
        #expect(try ControlClient(path: daemon.socket).send("commands").count > 5)
        // Without a daemon, it is said, not thrown.
        let alone = try songbox.run(["run", script], environment: ["SONGBOX_SOCKET": folder + "/none.sock"])
        #expect(alone.status != 0 && alone.stderr.contains("assertion failed"), "\(alone.stderr)")
    }

    @Test func aLanguageOverrideFiltersThePlaylist() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        // The files have no tags: their titles are their names, Latin letters.
        let latin = try mood(["calm", "1", "", "he"])
        #expect(latin.stdout.contains("No track fits 'calm'"), "\(latin.stdout)")
        let listed = try JSONSerialization.jsonObject(with: songbox.run(["ls", "--json"]).stdoutBytes) as? [[String: Any]]
        let quiet = try #require(listed?.first { ($0["path"] as? String)?.hasSuffix("/quiet.mp3") == true }?["id"] as? Int)
        let edit = try songbox.run(["edit", String(quiet), "language=he"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let hebrew = try mood(["calm", "1", "", "he"])
        #expect(hebrew.stdout.contains("playing: quiet"), "\(hebrew.stdout)")
        #expect(try songbox.run(["edit", String(quiet), "language=h3"]).status != 0)
    }

    /// A track of a playing mood skipped before it counted as a play counts against it there.
    @Test func anEarlySkipWhileAMoodPlaysIsKeptAsFeedback() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let script = folder + "/skip.lua"
        try """
            local sb = require "songbox"
            local tracks = sb.mood.play { mood = "calm", count = 2, min_score = 0 }
            print("current " .. sb.mood.current())
            sb.after(1, function() sb.player.next() end)
            sb.after(2, function()
              local feedback = sb.mood.feedback("calm")
              print("feedback " .. #feedback .. " " .. tostring(feedback[1].track_id == tracks[1].id) .. " " .. feedback[1].skips)
              print("happy " .. #sb.mood.feedback("happy"))
              sb.player.stop()
            end)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try songbox.run(["run", "--output", "null", "--fast", script])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("current calm\nfeedback 1 true 1\nhappy 0"), "\(run.stdout)")
    }

    @Test func aFailingMoodFunctionIsReportedWithItsFileAndLine() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let script = folder + "/broken-mood.lua"
        try """
            local sb = require "songbox"
            sb.mood.define("odd", function(track)
              return track.no_such_field.x
            end)
            sb.mood.playlist { mood = "odd" }
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try songbox.run(["run", script])
        #expect(run.status == 1)
        #expect(run.stderr.contains("broken-mood.lua:3: attempt to index a nil value (field 'no_such_field') (in mood 'odd')"),
                "\(run.stderr)")
    }
}
