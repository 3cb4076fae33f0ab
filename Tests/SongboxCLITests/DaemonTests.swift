import Foundation
import GRDB
import SongboxServer
import SongboxWiring
import SongboxLibrary
import SongboxTestSupport
import Testing

/// Real `songbox daemon` processes: plugins that get events and timers, contained failures,
/// signals, restarts, and one player per output.
@Suite(.serialized) struct DaemonTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// Prints every event it gets, keeps a count of its shutdowns in `songbox.state`.
    static let watcher = """
        local sb = require "songbox"
        local function name(e) return e.track.path:match("[^/]+$") end
        sb.on("startup", function() print("startup") end)
        sb.on("track_started", function(e) print("started " .. name(e)) end)
        sb.on("track_ended", function(e) print("ended " .. name(e) .. " " .. e.reason .. " " .. tostring(e.counted)) end)
        sb.on("stopped", function() print("stopped") end)
        sb.on("shutdown", function()
          print("shutdown")
          sb.state.set("shutdowns", (sb.state.get("shutdowns") or 0) + 1)
        end)
        sb.after(0.05, function() print("timer") end)
        """

    /// A plugin that defines the smart playlist "Live" by a function giving the tracks `query`
    /// finds, and prints `evaluated N` at each evaluation (its state's own counter).
    static func livePlaylist(of query: String) -> String {
        """
        local sb = require "songbox"
        local evaluations = 0
        sb.smart("Live", function()
          evaluations = evaluations + 1
          print("evaluated " .. evaluations)
          return sb.library.query([[\(query)]])
        end)
        """
    }

    /// A folder of plugins with these names and sources.
    func pluginFolder(_ files: [String: String]) throws -> String {
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        for (name, source) in files { try source.write(toFile: plugins + "/" + name + ".lua", atomically: true, encoding: .utf8) }
        return plugins
    }

    func startDaemon(plugins: String, output: String, fast: Bool = true, config: String = "") throws -> DaemonProcess {
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        return try DaemonProcess(database: songbox.database, folder: folder,
                                 arguments: ["--plugins", plugins, "--output", output, "--config", folder + "/config"]
                                     + (fast ? ["--fast"] : []))
    }

    func fields(_ daemon: DaemonProcess, _ command: String, _ arguments: [String] = []) throws -> [String: String] {
        Dictionary(try ControlClient(path: daemon.socket).send(command, arguments)) { first, _ in first }
    }

    /// The plugins as `songbox plugin ls` gets them: one dictionary each.
    func plugins(_ daemon: DaemonProcess) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var current: String?
        for (key, value) in try ControlClient(path: daemon.socket).send("plugins") {
            if key == "plugin" { current = value }
            if let current { result[current, default: [:]][key] = value }
        }
        return result
    }

    func plays() throws -> Int {
        try DatabaseQueue(path: songbox.database).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM history WHERE kind = 'play'") ?? 0
        }
    }

    /// The samples of a WAV file (everything after its 44-byte header).
    func samples(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(44) }

    /// A plugin that names the library's own database as a playlist file to import is refused
    /// before the file is opened: opening and closing it in the daemon would drop SQLite's locks,
    /// and the next command beside the daemon would delete the write-ahead log it writes to.
    @Test func aPluginCannotOpenTheLibrarysOwnFiles() throws {
        let reader = """
            local sb = require "songbox"
            sb.on("startup", function()
              for _, suffix in ipairs({"", "-wal", "-shm", "-lock"}) do
                -- Soft failures return nil and the message; others raise it.
                local ok, result, message = pcall(sb.playlist.import, sb.options.db .. suffix)
                local said = tostring(ok and message or result)
                print(((ok and result) and "imported" or "refused") .. " library.db" .. suffix .. ": "
                  .. (said:match("refusing to read a file songbox manages") or said))
              end
            end)
            """
        let daemon = try startDaemon(plugins: try pluginFolder(["reader": reader]), output: "null",
                                     config: "plugin.reader.db = \(songbox.database)\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        for suffix in ["", "-wal", "-shm", "-lock"] {
            try daemon.waitForOutput("refused library.db\(suffix): refusing to read a file songbox manages")
        }
        #expect(!daemon.output.contains("imported"))
        #expect(try songbox.run(["stats"]).status == 0)
        let descriptors = "/proc/\(daemon.pid)/fd"
        let open = try FileManager.default.contentsOfDirectory(atPath: descriptors).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)
        }
        #expect(open.contains(songbox.database + "-wal") && !open.contains { $0.hasSuffix("(deleted)") }, "\(open)")
    }

    /// The event bus hands a plugin only the events it has handlers for, from the moment it
    /// has one until it lets it go; a plugin without handlers gets none (and is not woken).
    @Test func aPluginGetsOnlyTheEventsItHasHandlersFor() throws {
        let listener = """
            local sb = require "songbox"
            sb.subscribe("bus")
            local volume
            sb.on("message", function(e)
              if e.text == "listen" then volume = sb.on("volume_changed", function() end)
              elseif e.text == "off" then volume:off() end
            end)
            """
        let daemon = try startDaemon(plugins: try pluginFolder(["listener": listener, "deaf": "-- no handlers at all\n"]),
                                     output: "null")
        let events = { (name: String) throws -> Int in Int(try plugins(daemon)[name]?["events"] ?? "") ?? -1 }
        let client = try ControlClient(path: daemon.socket)
        func setVolumes(_ values: ClosedRange<Int>) throws { for value in values { _ = try client.send("setvol", [String(value)]) } }
        func send(_ text: String, expecting count: Int) throws {
            _ = try client.send("sendmessage", ["bus", text])
            try waitFor(timeout: 10, "the listener has had \(count) events") { try events("listener") == count }
        }
        try waitFor(timeout: 10, "the plugins are running") { try plugins(daemon).values.allSatisfy { $0["status"] == "running" } }

        try setVolumes(10...14)                 // nobody listens to the volume
        try send("listen", expecting: 1)        // the message itself
        try setVolumes(20...24)
        try waitFor(timeout: 10, "five volume changes reach the listener") { try events("listener") == 6 }
        try send("off", expecting: 7)
        try setVolumes(30...34)                 // let go: none of these reach it
        try send("listen", expecting: 8)
        try setVolumes(40...40)
        try waitFor(timeout: 10, "the one volume change after listening again") { try events("listener") == 9 }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try events("listener") == 9, "the volume changes while it did not listen were not handed to it")
        #expect(try events("deaf") == 0, "a plugin without handlers gets no event")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func pluginsGetEventsAndTimersAndACleanStopRecordsEverything() throws {
        try library.add([("a", 1), ("b", 1), ("c", 1)])
        let daemon = try startDaemon(plugins: try pluginFolder(["watch": Self.watcher]), output: "wav:\(folder)/out.wav")
        try daemon.waitForOutput("timer")
        let play = try songbox.run(["play", "sort:path"], environment: daemon.clientEnvironment)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stdout == "Playing 3 tracks through the songbox daemon.\n")
        try daemon.waitForOutput("stopped")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let lines = daemon.output.split(separator: "\n").map(String.init)
        #expect(lines == ["[watch] startup", "[watch] timer",
                          "[watch] started a.mp3", "[watch] ended a.mp3 finished play",
                          "[watch] started b.mp3", "[watch] ended b.mp3 finished play",
                          "[watch] started c.mp3", "[watch] ended c.mp3 finished play",
                          "[watch] stopped", "[watch] shutdown"], "\(daemon.errors)")
        #expect(try plays() == 3)
        let shutdowns = try DatabaseQueue(path: songbox.database).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM saved_state WHERE name LIKE '%watch%'")
        }
        #expect(shutdowns == "{\"shutdowns\":1}" || shutdowns?.contains("1") == true, "\(shutdowns ?? "none")")
        // Three gapless seconds: nothing lost, nothing added.
        #expect(try samples(folder + "/out.wav").count == 3 * 44_100 * 4)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    }

    @Test func aFailingPluginIsContainedRestartedThenDisabledAndTheOthersGoOn() throws {
        try library.add([("a", 1), ("b", 1)])
        let plugins = try pluginFolder([
            "watch": Self.watcher,
            "runaway": "while true do end\n",
            "grumpy": "local sb = require \"songbox\"\nsb.on(\"track_started\", function() error(\"boom\") end)\n",
        ])
        let daemon = try startDaemon(plugins: plugins, output: "null",
                                     config: "plugin_restart_pause = 0.01\nplugin_failures = 3\n")
        try waitFor(timeout: 30, "the runaway plugin to be disabled") { try self.plugins(daemon)["runaway"]?["status"] == "disabled" }
        let runaway = try #require(try self.plugins(daemon)["runaway"])
        #expect(runaway["errors"] == "3" && runaway["restarts"] == "2")
        #expect(runaway["error"]?.contains("runaway.lua:1: instruction limit") == true, "\(runaway)")

        #expect(try songbox.run(["play", "sort:path"], environment: daemon.clientEnvironment).status == 0)
        try daemon.waitForOutput("stopped")
        #expect(daemon.output.contains("[watch] ended b.mp3 finished play"))
        let grumpy = try #require(try self.plugins(daemon)["grumpy"])
        #expect(grumpy["status"] == "running" && grumpy["errors"] == "2")
        #expect(grumpy["error"]?.contains("grumpy.lua:2: boom") == true, "\(grumpy)")

        let listing = try songbox.run(["plugin", "ls"], environment: daemon.clientEnvironment)
        #expect(listing.status == 0)
        #expect(listing.lines.first?.hasPrefix("NAME") == true)
        #expect(listing.stdout.contains("runaway.lua:1: instruction limit"))
        #expect(try songbox.run(["plugin", "disable", "watch"], environment: daemon.clientEnvironment).status == 0)
        try daemon.waitForOutput("[watch] shutdown")
        #expect(try self.plugins(daemon)["watch"]?["status"] == "disabled")
        #expect(try songbox.run(["plugin", "enable", "watch"], environment: daemon.clientEnvironment).status == 0)
        try daemon.waitForOutput("[watch] startup", count: 2)
        let unknown = try songbox.run(["plugin", "reload", "nope"], environment: daemon.clientEnvironment)
        #expect(unknown.status != 0 && unknown.stderr.contains("no plugin 'nope' (loaded: grumpy, runaway, watch)"), "\(unknown.stderr)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// `songbox ls playlist:NAME` of a playlist a plugin's function defines answers what the
    /// live plugin answers while the daemon runs (as MPD clients see it), and without one the
    /// script run again; neither prints the script's log lines at every read (issue 25).
    @Test func aFunctionPlaylistIsReadAsTheLivePluginAnswersIt() throws {
        try library.add([("a", 1), ("b", 1)])
        let plugins = try pluginFolder(["live": """
            local sb = require "songbox"
            local picked = "a.mp3"
            sb.log.info("defining Live")
            assert(sb.smart("Live", function() return sb.library.query("path:" .. picked) end))
            sb.on("message", function(e) if e.channel == "pick" then picked = e.text; print("picked " .. picked) end end)
            """])
        let defined = try songbox.run(["run", plugins + "/live.lua"])
        #expect(defined.status == 0 && defined.stderr.contains("defining Live"), "\(defined.stderr)")
        func listed() throws -> (files: [String], stderr: String) {
            let output = try songbox.run(["ls", "--json", "playlist:Live"], environment: ["SONGBOX_SOCKET": ""])
            let tracks = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
            return (tracks.compactMap { ($0["path"] as? String)?.components(separatedBy: "/").last }, output.stderr)
        }
        let alone = try listed()
        #expect(alone.files == ["a.mp3"] && alone.stderr.isEmpty, "\(alone)")
        let daemon = try startDaemon(plugins: plugins, output: "null")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("defining Live")
        _ = try ControlClient(path: daemon.socket).send("sendmessage", ["pick", "b.mp3"])
        try daemon.waitForOutput("[live] picked b.mp3")
        let live = try listed()
        #expect(live.files == ["b.mp3"] && live.stderr.isEmpty, "\(live)")
    }

    /// A module plugins `require` lives in `lib/` and is not run as a plugin; one left beside
    /// the plugins is not found as a module, and the error names where it was looked for (a
    /// `helpers.lua` there was run as a plugin, then again as a module: issue 25).
    @Test func aModuleInLibIsRequiredAndNotRunAsAPlugin() throws {
        let plugins = try pluginFolder([
            "uses": "local h = require 'helpers'\nprint('uses ' .. h.greet())\n",
            "stray": "require 'beside'\n",
            "beside": "print('beside runs as a plugin')\nreturn {}\n",
        ])
        try FileManager.default.createDirectory(atPath: plugins + "/lib", withIntermediateDirectories: true)
        try "print('helpers loaded')\nreturn { greet = function() return 'hi' end }\n"
            .write(toFile: plugins + "/lib/helpers.lua", atomically: true, encoding: .utf8)
        let daemon = try startDaemon(plugins: plugins, output: "null")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("[uses] uses hi")
        #expect(daemon.output.components(separatedBy: "helpers loaded").count == 2, "once, as uses' module: \(daemon.output)")
        let loaded = try self.plugins(daemon)
        #expect(loaded["helpers"] == nil, "\(loaded.keys.sorted())")
        let stray = try #require(loaded["stray"])
        #expect(stray["error"]?.contains("module 'beside' not found") == true && stray["error"]?.contains(plugins + "/lib/beside.lua") == true,
                "\(stray)")
    }

    @Test func sighupReloadsThePluginsWithoutAGapInTheAudio() throws {
        try library.add([("long", 3)])
        // What the track sounds like, rendered alone.
        #expect(try songbox.run(["play", "--output", "wav:\(folder)/reference.wav", "--fast", "path:long"]).status == 0)
        let daemon = try startDaemon(plugins: try pluginFolder(["watch": Self.watcher]), output: "wav:\(folder)/out.wav",
                                     fast: false)
        #expect(try songbox.run(["play", "path:long"], environment: daemon.clientEnvironment).status == 0)
        try daemon.waitForOutput("started long.mp3")
        daemon.signal(SIGHUP)
        try daemon.waitForOutput("startup", count: 2)
        #expect(try fields(daemon, "status")["state"] == "play")
        try daemon.waitForOutput("stopped")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        #expect(daemon.output.contains("[watch] shutdown\n[watch] startup\n"))
        let heard = try samples(folder + "/out.wav")
        #expect(heard.count == 3 * 44_100 * 4)
        #expect(heard == (try samples(folder + "/reference.wav")))
    }

    @Test func aPluginUsesFilesOnlyInItsOwnFolderAndWhatIsGranted() throws {
        try library.add([("a", 1)])
        let granted = folder + "/granted"
        try FileManager.default.createDirectory(atPath: granted, withIntermediateDirectories: true)
        let plugin = """
            local sb = require "songbox"
            sb.playlist.save("Mix", sb.library.query("path:a.mp3"))
            local function try(f, ...)
              local ok, result, message = pcall(f, ...)
              print(ok and (result and "ok" or message) or result)
            end
            try(sb.playlist.export, "Mix", "mine.m3u8")
            try(sb.playlist.export, "Mix", "\(folder)/elsewhere.m3u8")
            try(sb.playlist.import, "/etc/passwd")
            try(sb.playlist.export, "Mix", "\(granted)/shared.m3u8")
            try(sb.playlist.import, "\(granted)/shared.m3u8", { name = "Back" })
            print("done")
            """
        let daemon = try startDaemon(plugins: try pluginFolder(["files": plugin]), output: "null",
                                     config: "grant.files = \(granted)\n")
        try daemon.waitForOutput("[files] done")
        let lines = daemon.output.split(separator: "\n").map { String($0.dropFirst("[files] ".count)) }
        #expect(lines.count == 6, "\(daemon.output)")
        #expect(lines[0] == "ok")
        #expect(lines[1].contains("a plugin may use files only in its own folder"), "\(lines[1])")
        #expect(lines[2].contains("a plugin may use files only in its own folder"), "\(lines[2])")
        #expect(lines[3] == "ok" && lines[4] == "ok", "\(lines)")
        #expect(FileManager.default.fileExists(atPath: folder + "/plugins/files/mine.m3u8"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/elsewhere.m3u8"))
        #expect(FileManager.default.fileExists(atPath: granted + "/shared.m3u8"))
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A smart playlist a plugin defines by a function is answered by the plugin's live state
    /// (its local counter goes on), not by running the script again in a fresh state.
    @Test func aPluginsFunctionPlaylistIsAnsweredByItsLiveState() throws {
        try library.add([("a", 1), ("b", 1)])
        let definer = Self.livePlaylist(of: "path:a.mp3")
        let reader = """
            local sb = require "songbox"
            sb.after(0.2, function()
              for _ = 1, 2 do print("read " .. #sb.playlist.get("Live").tracks) end
            end)
            """
        let daemon = try startDaemon(plugins: try pluginFolder(["definer": definer, "reader": reader]), output: "null")
        try daemon.waitForOutput("[reader] read 1", count: 2)
        #expect(daemon.output.contains("[definer] evaluated 1\n") && daemon.output.contains("[definer] evaluated 2\n"),
                "\(daemon.output)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// With no --plugins: the bundled plugins (here the source tree's plugins/, the binary being
    /// under .build) and the user's folder under $XDG_CONFIG_HOME.
    @Test func theBundledAndTheUsersPluginsAreLoadedByDefault() throws {
        try library.add([("a", 1)])
        let config = folder + "/xdg"
        try FileManager.default.createDirectory(atPath: config + "/songbox/plugins", withIntermediateDirectories: true)
        try Self.watcher.write(toFile: config + "/songbox/plugins/mine.lua", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--output", "null"],
                                       environment: ["XDG_CONFIG_HOME": config])
        try daemon.waitForOutput("[mine] startup")
        // Each plugin starts on its own thread: wait for them all, not only the one that printed.
        var loaded: [String: [String: String]] = [:]
        try waitFor(timeout: 30, "every plugin to run") {
            loaded = try plugins(daemon)
            return loaded.count == 10 && loaded.values.allSatisfy { $0["status"] == "running" }
        }
        #expect(loaded.keys.sorted() == ["alarm", "autoplay", "forgotten", "liked", "mine", "moods", "recently-added", "scrobble", "smart-fades", "top10"],
                "\(loaded)")
        #expect(loaded.values.allSatisfy { $0["status"] == "running" }, "\(loaded)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func aStoppedDaemonResumesWhereItWas() throws {
        try library.add([("long", 8)])
        var daemon = try startDaemon(plugins: try pluginFolder([:]), output: "null", fast: false)
        #expect(try songbox.run(["play", "path:long"], environment: daemon.clientEnvironment).status == 0)
        try waitFor(timeout: 20, "two seconds of playing") { Double(try fields(daemon, "status")["elapsed"] ?? "0") ?? 0 >= 2 }
        let playing = try fields(daemon, "status")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        daemon = try startDaemon(plugins: try pluginFolder([:]), output: "null", fast: false)
        let restored = try fields(daemon, "status")
        #expect(restored["songid"] == playing["songid"] && restored["playlistlength"] == "1")
        #expect(try songbox.run(["play"], environment: daemon.clientEnvironment).status == 0)
        let resumed = Double(try fields(daemon, "status")["elapsed"] ?? "0") ?? 0
        #expect(resumed >= 2, "resumed at \(resumed) s")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func killMinus9WhilePlayingLosesNoCommittedPlay() throws {
        try library.add((0..<30).map { (String(format: "t%02d", $0), 0.5) })
        let daemon = try startDaemon(plugins: try pluginFolder(["watch": Self.watcher]), output: "null")
        #expect(try songbox.run(["play", "sort:path"], environment: daemon.clientEnvironment).status == 0)
        try daemon.waitForOutput("finished play", count: 5)
        daemon.signal(SIGKILL)
        #expect(try daemon.waitForExit() == -SIGKILL)
        // The plugin hears of a play only once it is committed.
        let announced = daemon.output.components(separatedBy: "finished play").count - 1
        let store = try LibraryStore(path: songbox.database)
        let check = try store.runner.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
        #expect(try plays() >= announced, "announced \(announced)")
    }

    @Test func playWhileADaemonRunsUsesItsOutputAndNoOther() throws {
        try library.add([("a", 1)])
        let daemon = try startDaemon(plugins: try pluginFolder([:]), output: "null")
        let elsewhere = try songbox.run(["play", "--output", "wav:\(folder)/second.wav", "path:a.mp3"], environment: daemon.clientEnvironment)
        #expect(elsewhere.status != 0)
        #expect(elsewhere.stderr.contains("a songbox daemon runs and owns the output"), "\(elsewhere.stderr)")
        // A refusal is no mistyped command line: no usage follows it (issue 25).
        #expect(!elsewhere.stderr.contains("Usage:"), "\(elsewhere.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/second.wav"))
        let nothing = try songbox.run(["play", "zzz-no-such-track"], environment: daemon.clientEnvironment)
        #expect(nothing.status != 0 && nothing.stderr.contains("no track matches"), "\(nothing.stderr)")
        #expect(try songbox.run(["play", "path:a.mp3"], environment: daemon.clientEnvironment).stdout
                    == "Playing 1 track through the songbox daemon.\n")
        // A script reads the library as always; its first player call is refused, not a second
        // output: it raises, as a failure to play does without a daemon (it was a quiet
        // `nil, message` after which the script went on and ended well: issue 25).
        let script = folder + "/script.lua"
        try """
            local sb = require "songbox"
            print(#sb.library.query("path:a.mp3"))
            print(sb.queue.add(sb.library.query("path:a.mp3")))
            print("went on")
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try songbox.run(["run", "--output", "wav:\(folder)/third.wav", script], environment: daemon.clientEnvironment)
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.lines == ["1"], "\(run.stdout)")
        #expect(run.stderr.contains("script.lua:3: songbox.queue.add: a songbox daemon runs"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/third.wav"))
        // A stepped run (--fast, not ALSA) plays in a session of its own beside the daemon: its
        // events print, and the daemon's queue is not touched.
        let before = try songbox.run(["queue"], environment: daemon.clientEnvironment).stdout
        try """
            local sb = require "songbox"
            sb.on("track_started", function(ev) print("started " .. ev.track.path:match("[^/]+$")) end)
            assert(sb.queue.add(sb.library.query("path:a.mp3")))
            sb.player.play()
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let practice = try songbox.run(["run", "--fast", "--output", "null", script], environment: daemon.clientEnvironment)
        #expect(practice.status == 0 && practice.lines == ["started a.mp3"], "\(practice.stdout)\(practice.stderr)")
        #expect(try songbox.run(["queue"], environment: daemon.clientEnvironment).stdout == before)
        // A second daemon on the same socket is refused.
        #expect(throws: FixtureError.self) {
            _ = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--output", "null"])
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}
