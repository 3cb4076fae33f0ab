import Foundation
import SongboxTestSupport
import Testing

/// Autoplay end to end: the bundled plugin's rules on a fast clock (`autoplay.lua preview`
/// through the real player and a null output), and its switch, its lane and its quiet during an
/// alarm in a running daemon driven by mpc.
@Suite(.serialized) struct AutoplayTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    static let plugin = Fixtures.packageRoot + "/plugins/autoplay.lua"

    /// One started track of a preview: its lane, file, artist and album (and the queue's length
    /// and user tracks then).
    struct Started: Equatable {
        var lane, file, artist, album: String
        var queue = "", users = ""

        /// The same track in the same lane (the queue's state aside).
        static func == (a: Started, b: Started) -> Bool {
            (a.lane, a.file, a.artist, a.album) == (b.lane, b.file, b.artist, b.album)
        }
    }

    /// `songbox run --fast --output null autoplay.lua preview QUERY COUNT` with this config.
    func preview(_ query: String, count: Int, config: String) throws -> (started: [Started], log: String) {
        let configPath = folder + "/config"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", "--fast", "--output", "null", Self.plugin, "preview", query, String(count)],
                                     environment: ["SONGBOX_CONFIG": configPath])
        #expect(output.status == 0, "\(output.stderr)")
        let started = output.lines.map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) + Array(repeating: "", count: 6)
            return Started(lane: fields[0], file: fields[1], artist: fields[2], album: fields[3], queue: fields[4], users: fields[5])
        }
        return (started, output.stderr)
    }

    /// Runs a Lua script of a test's own (a setup, a plugin that defines a rule).
    @discardableResult
    func script(_ name: String, _ source: String) throws -> String {
        let path = folder + "/" + name + ".lua"
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", path])
        #expect(output.status == 0, "\(output.stderr)")
        return path
    }

    /// Twenty tracks: five artists of two albums of two tracks each; t01 is rated 1 (disliked).
    func taggedLibrary() throws {
        try library.add((1...20).map { (String(format: "t%02d", $0), 1) })
        try script("tags", """
            local sb = require "songbox"
            for _, t in ipairs(sb.library.query("sort:path")) do
              local n = tonumber(t.path:match("t(%d+)%.mp3$")) - 1
              local artist = "Artist " .. string.char(65 + n // 4)
              assert(sb.library.set(t, { artist = artist, album = artist .. " album " .. (n % 4 < 2 and 1 or 2) }))
            end
            assert(sb.library.set(sb.library.query("path:t01.mp3")[1], { rating = 1 }))
            """)
    }

    @Test func noRepeatsWithinTheWindowNoArtistOrAlbumWithinItsCooldownAndNothingDisliked() throws {
        try taggedLibrary()
        let config = """
            plugin.autoplay.ahead = 2
            plugin.autoplay.window = 4
            plugin.autoplay.artist_cooldown = 2
            plugin.autoplay.album_cooldown = 3
            """
        let (started, log) = try preview("path:t02.mp3", count: 40, config: config)
        #expect(started.count == 40, "\(log)")
        #expect(started.first == Started(lane: "user", file: "t02.mp3", artist: "Artist A", album: "Artist A album 1"))
        #expect(started.dropFirst().allSatisfy { $0.lane == "autoplay" }, "\(started.map(\.lane))")
        for (j, track) in started.enumerated() {
            // The same track again only after more than the window of other plays.
            if let i = started[..<j].lastIndex(where: { $0.file == track.file }) {
                #expect(j - i > 4, "\(track.file) at \(i) and \(j)")
            }
            #expect(!started[max(0, j - 2)..<j].contains { $0.artist == track.artist }, "\(track.artist) at \(j): \(started.map(\.artist))")
            #expect(!started[max(0, j - 3)..<j].contains { $0.album == track.album }, "\(track.album) at \(j)")
        }
        #expect(!started.contains { $0.file == "t01.mp3" }, "t01 is rated 1: disliked, never chosen")
        // Every artist gets its turn: the rules spread the choice, they do not stop it.
        #expect(Set(started.map(\.artist)).count == 5)
        #expect(!log.contains("falling back"), "\(log)")
    }

    /// Liked tracks are favoured: with `liked_weight = 100`, the two liked tracks of ten come up
    /// most of the time (each pick about 93% or more; without the weight about 22%).
    /// Autoplay's tracks that played leave the queue once more than `keep_played` are behind the
    /// playing one, so a queue that plays for weeks stays short; the user's track stays.
    @Test func playedAutoplayTracksLeaveTheQueueAndTheUsersStay() throws {
        try taggedLibrary()
        let (started, log) = try preview("path:t02.mp3", count: 10, config: "plugin.autoplay.ahead = 1\nplugin.autoplay.keep_played = 2\n")
        #expect(started.count == 10, "\(log)")
        // t02 (the user's), two of autoplay's behind, the playing one and one ahead: 5 at most.
        #expect(started.map(\.queue) == ["2", "3", "4", "5", "5", "5", "5", "5", "5", "5"], "\(started)")
        #expect(started.allSatisfy { $0.users == "1" }, "\(started)")
    }

    @Test func likedTracksAreFavoured() throws {
        try library.add((1...10).map { (String(format: "t%02d", $0), 1) })
        try script("likes", """
            local sb = require "songbox"
            for _, name in ipairs { "t03", "t07" } do assert(sb.library.set(sb.library.query("path:" .. name .. ".mp3")[1], { liked = true })) end
            """)
        let config = """
            plugin.autoplay.ahead = 1
            plugin.autoplay.window = 0
            plugin.autoplay.artist_cooldown = 0
            plugin.autoplay.album_cooldown = 0
            plugin.autoplay.liked_weight = 100
            """
        let (started, log) = try preview("path:t01.mp3", count: 41, config: config)
        #expect(started.count == 41, "\(log)")
        let liked = started.dropFirst().filter { $0.file == "t03.mp3" || $0.file == "t07.mp3" }.count
        #expect(liked >= 25, "\(liked) of 40: \(started.map(\.file))")
    }

    /// A rule of the user's own (`songbox.autoplay.provide` in a plugin of theirs) is asked
    /// first; when it gives nothing, or a configured playlist fails, autoplay plays random tracks
    /// and says why.
    @Test func aProvidersTracksComeFirstAndAFailingOrEmptyProviderFallsBackToRandomAndSaysSo() throws {
        try library.add((1...8).map { (String(format: "t%02d", $0), 1) })
        try script("mine", """
            local sb = require "songbox"
            assert(sb.autoplay.provide(function(ctx)
              -- After t01: t05 (once: it is then in the queue or the recent plays, so the rules leave it out).
              if ctx.track and ctx.track.path:match("t01%.mp3$") then return sb.library.query("path:t05.mp3") end
              return {}
            end))
            """)
        try script("broken", """
            local sb = require "songbox"
            assert(sb.smart("Broken", function() error("no rule for today") end))
            """)
        let (started, log) = try preview("path:t01.mp3", count: 4, config: "plugin.autoplay.ahead = 1\nplugin.autoplay.playlist = \"Broken\"\n")
        #expect(started.map(\.lane) == ["user", "autoplay", "autoplay", "autoplay"], "\(log)")
        #expect(started.map(\.file).prefix(2) == ["t01.mp3", "t05.mp3"], "\(started)")
        #expect(log.contains("autoplay: playlist 'Broken' failed: ") && log.contains("no rule for today"), "\(log)")
        #expect(log.contains("autoplay: falling back to random tracks (provider 'mine' gave nothing to play; playlist 'Broken' failed: "),
                "\(log)")
        #expect(Set(started.map(\.file)).count == 4, "no repeats")
    }

    /// In a daemon: autoplay keeps two tracks ahead, a track the user adds goes before them,
    /// `sendmessage autoplay off` takes them back and stops it, it is quiet while an alarm
    /// sounds, and `songbox autoplay off` is kept across a restart.
    @Test func aDaemonKeepsTracksAheadUserFirstSwitchesByMessageAndIsQuietDuringAnAlarm() throws {
        try library.add((1...6).map { (String(format: "t%02d", $0), 60) })
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.plugin, toPath: plugins + "/autoplay.lua")
        // Announces alarm phases (as the alarm plugin does), says which track started, and switches
        // autoplay off and reads its status through songbox.autoplay.
        try """
            local sb = require "songbox"
            sb.on("message", function(e)
              if e.channel ~= "test" then return end
              if e.text == "lua-off" then sb.autoplay.set(false)
              elseif e.text == "lua-status" then print("status " .. sb.json.encode(sb.autoplay.status()))
              else sb.alarm.announce("wake", e.text) end
            end)
            sb.on("track_started", function(e) print("started " .. e.track.path:match("[^/]+$")) end)
            """.write(toFile: plugins + "/tester.lua", atomically: true, encoding: .utf8)
        try "plugin.autoplay.enabled = true\nplugin.autoplay.ahead = 2\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let port = try freePort()
        func start() throws -> DaemonProcess {
            try DaemonProcess(database: songbox.database, folder: folder, arguments: [
                "--plugins", plugins, "--output", "null", "--config", folder + "/config", "--bind", "127.0.0.1:\(port)",
            ])
        }
        var daemon = try start()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        func mpc(_ arguments: String...) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
        }
        func queue() throws -> [String] { try mpc("playlist").lines }
        /// Asks the plugin for its status (it answers in the log, after what it had to handle
        /// before) and checks the answer.
        var asked = 0
        func settled(_ expected: String) throws {
            asked += 1
            #expect(try mpc("sendmessage", "autoplay", "status").status == 0)
            try daemon.waitForLog(", 2 ahead", count: asked)
            let answer = daemon.errors.split(separator: "\n").last { $0.contains(", 2 ahead") }.map(String.init) ?? ""
            #expect(answer.contains(expected), "\(answer)")
        }
        /// The plugin listens once its file ran: what is sent before that reaches no plugin.
        func ready() throws {
            try waitFor(timeout: 30, "the autoplay plugin on its channel") { try mpc("channels").lines.contains("autoplay") }
        }
        try ready()

        #expect(try mpc("add", "t01.mp3").status == 0)
        #expect(try mpc("play").status == 0)
        try waitFor(timeout: 30, "two autoplay tracks after t01") { try queue().count == 3 }
        #expect(try queue().first == "t01.mp3")
        #expect(!(try queue()).dropFirst().contains("t01.mp3"), "the playing track is not queued again")

        // The user's addition goes before autoplay's, and nothing more is added (3 ahead now).
        #expect(try mpc("add", "t02.mp3").status == 0)
        try settled("autoplay: on")
        let added = try queue()
        #expect(added.count == 4 && added.dropFirst().first == "t02.mp3", "\(added)")

        // Off: what autoplay queued is taken back, and nothing is added when the queue runs low.
        #expect(try mpc("sendmessage", "autoplay", "off").status == 0)
        try daemon.waitForLog("autoplay: off (message), 2 queued tracks taken back")
        try waitFor(timeout: 30, "the user's tracks only") { try queue() == ["t01.mp3", "t02.mp3"] }
        #expect(try mpc("next").status == 0)
        try daemon.waitForOutput("[tester] started t02.mp3\n")
        try settled("autoplay: off")
        #expect(try queue() == ["t01.mp3", "t02.mp3"])

        // On again: two ahead of t02.
        #expect(try mpc("sendmessage", "autoplay", "on").status == 0)
        try waitFor(timeout: 30, "two autoplay tracks after t02") { try queue().count == 4 }

        // An alarm sounds: the queue runs low and autoplay stays out of the way until it is over.
        #expect(try mpc("sendmessage", "test", "sounding").status == 0)
        try daemon.waitForLog("autoplay: quiet while alarm wake sounds")
        let third = try #require(try queue().dropFirst(2).first)
        // (t01 may come again: heard for less than skip_after, it left no history.)
        let before = daemon.output.components(separatedBy: "[tester] started \(third)\n").count - 1
        #expect(try mpc("next").status == 0)
        try daemon.waitForOutput("[tester] started \(third)\n", count: before + 1)
        try settled("quiet: alarm wake is sounding")
        #expect(try queue().count == 4)
        #expect(try mpc("sendmessage", "test", "dismissed").status == 0)
        try daemon.waitForLog("autoplay: alarm wake is over")
        try waitFor(timeout: 30, "two ahead of the third track again") { try queue().count == 5 }

        // The CLI switch reaches the daemon and is kept: after a restart autoplay is still off,
        // whatever the config says.
        let off = try songbox.run(["autoplay", "off"], environment: daemon.clientEnvironment)
        #expect(off.stdout == "Autoplay is off.\nThe songbox daemon on \(daemon.socket) has the change.\n", "\(off.stderr)")
        try daemon.waitForLog("autoplay: off (message)", count: 2)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        daemon = try start()
        try ready()
        asked = 0
        try settled("autoplay: off")
        let kept = try songbox.run(["autoplay", "status"], environment: ["SONGBOX_CONFIG": folder + "/config"])
        #expect(kept.stdout.hasPrefix("Autoplay is off."), "\(kept.stdout)")
        let on = try songbox.run(["autoplay", "on"], environment: daemon.clientEnvironment)
        #expect(on.stdout.contains("The songbox daemon on \(daemon.socket) has the change."))
        try daemon.waitForLog("autoplay: on (message)")
        #expect(try songbox.run(["autoplay", "status"], environment: ["SONGBOX_CONFIG": folder + "/config"]).stdout.hasPrefix("Autoplay is on."))

        // From Lua in another plugin: songbox.autoplay.set and status.
        #expect(try mpc("sendmessage", "test", "lua-off").status == 0)
        try daemon.waitForLog("autoplay: off (message)")
        #expect(try mpc("sendmessage", "test", "lua-status").status == 0)
        try daemon.waitForOutput("[tester] status ")
        let status = daemon.output.split(separator: "\n").last { $0.hasPrefix("[tester] status ") }.map(String.init) ?? ""
        #expect(status.contains(#""enabled":false"#) && status.contains(#""ahead":2"#), "\(status)")

        // `autoplay.lua preview` on the daemon's own library prints as it does without a daemon
        // (a session of its own on a fast clock), and the daemon's queue is not touched (issue
        // 25: beside a daemon it printed nothing).
        let queued = try queue()
        let preview = try songbox.run(["run", "--fast", "--output", "null", Self.plugin, "preview", "path:t03.mp3", "3"],
                                      environment: daemon.clientEnvironment.merging(["SONGBOX_CONFIG": folder + "/config"]) { $1 })
        #expect(preview.status == 0 && preview.lines.count == 3, "\(preview.stdout)\(preview.stderr)")
        #expect(preview.lines.first?.hasPrefix("user\tt03.mp3\t") == true, "\(preview.stdout)")
        #expect(try queue() == queued)
    }

    /// A plugin file of the user's with a bundled plugin's name replaces the bundled one (the
    /// others still load from the binary); `songbox autoplay on` reaches it, and fails, saying
    /// why, when the daemon's autoplay plugin is disabled or missing (the switch is kept).
    @Test func aUsersAutoplayReplacesTheBundledOneAndTheSwitchSaysWhenNoneRuns() throws {
        let plugins = folder + "/my plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            local sb = require "songbox"
            sb.on("message", function(e)
              if e.channel == "autoplay" then print("mine: " .. e.text) end
            end)
            """.write(toFile: plugins + "/autoplay.lua", atomically: true, encoding: .utf8)
        try "plugins = \(plugins)\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        var daemon = try DaemonProcess(database: songbox.database, folder: folder,
                                       arguments: ["--output", "null", "--config", folder + "/config"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("plugin autoplay: loaded from \(plugins)/autoplay.lua")
        try daemon.waitForLog("plugin alarm: loaded from ")
        let listed = try songbox.run(["plugin", "ls"], environment: daemon.clientEnvironment)
        #expect(listed.lines.filter { $0.contains("autoplay") }.count == 1, "\(listed.stdout)")
        let loads = daemon.errors.split(separator: "\n").filter { $0.contains("plugin autoplay: loaded from") }
        #expect(loads.count == 1 && loads.first?.contains(plugins) == true, "the bundled autoplay.lua is not loaded beside it: \(loads)")

        let on = try songbox.run(["autoplay", "on"], environment: daemon.clientEnvironment)
        #expect(on.status == 0 && on.stdout.contains("has the change."), "\(on.stdout)\(on.stderr)")
        try daemon.waitForOutput("[autoplay] mine: on\n")

        #expect(try songbox.run(["plugin", "disable", "autoplay"], environment: daemon.clientEnvironment).status == 0)
        let disabled = try songbox.run(["autoplay", "off"], environment: daemon.clientEnvironment)
        #expect(disabled.status != 0 && disabled.stderr.contains("the songbox daemon's autoplay plugin is disabled: autoplay will not queue anything"),
                "\(disabled.stderr)")
        #expect(disabled.stderr.contains("songbox plugin enable autoplay"), "\(disabled.stderr)")
        #expect(disabled.stdout.contains("Autoplay is off."), "the switch is kept: \(disabled.stdout)")
        #expect(try songbox.run(["autoplay"]).stdout.hasPrefix("Autoplay is off."))
        daemon.signal(SIGTERM)
        _ = try daemon.waitForExit()

        let empty = folder + "/no plugins"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--plugins", empty, "--output", "null"])
        let missing = try songbox.run(["autoplay", "on"], environment: daemon.clientEnvironment)
        #expect(missing.status != 0 && missing.stderr.contains("the songbox daemon runs no autoplay plugin: autoplay will not queue anything"),
                "\(missing.stderr)")
        #expect(missing.stderr.contains("a file named autoplay.lua in your plugin folder replaces the bundled one"), "\(missing.stderr)")
    }
}
