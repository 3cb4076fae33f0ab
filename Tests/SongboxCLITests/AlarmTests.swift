import Foundation
import SongboxTestSupport
import Testing

/// Alarms end to end: kept by the CLI, sounded by the bundled plugin through the real player
/// (`songbox alarm test` on a fast clock, a WAV output for the fade's samples), and snoozed,
/// dismissed and fired by MPD messages to a running daemon.
@Suite(.serialized) struct AlarmTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        _ = try library.add([("steady", 4)])  // a 1 kHz sine at half scale
        try library.scan()
    }

    var songbox: SongboxRunner { library.songbox }

    struct Entry: Decodable {
        var t: Double
        var kind: String
        var volume: Double
        var phase: String?
        var track: String?
        var ok: Bool?
    }

    func timeline(_ name: String, _ options: [String] = []) throws -> [Entry] {
        let output = try songbox.run(["alarm", "test", name, "--json"] + options)
        #expect(output.status == 0, "\(output.stderr)")
        return try JSONDecoder().decode([Entry].self, from: Data(output.stdout.utf8))
    }

    @Test func alarmsAreKeptAndTestedAndAnEmptySourceFallsBackToTheTone() throws {
        let added = try songbox.run(["alarm", "add", "wake", "--at", "07:00", "--days", "mon-fri", "--zone", "Asia/Jerusalem",
                                     "--query", "path:steady", "--fade", "1m", "--volume", "80", "--timeout", "3m"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("mon-fri 07:00 Asia/Jerusalem, next "), "\(added.stdout)")
        let kept = try songbox.run(["alarm", "ls", "--json"])
        #expect(kept.stdout.contains(#""fade":60"#) && kept.stdout.contains(#""when":"mon-fri 07:00 Asia/Jerusalem""#), "\(kept.stdout)")

        // Mistakes are refused with the reason, and nothing is kept.
        for (arguments, message) in [(["--at", "25:00"], "'25:00' is not a time of day"), (["--at", "07:00", "--volume", "120"], "volume is from 0 to 100"),
                                     (["--at", "07:00", "--fade", "2h"], "fade is from 0 to 3600"), (["--at", "07:00", "--zone", "Nowhere/Town"], "unknown time zone")] {
            let refused = try songbox.run(["alarm", "add", "bad"] + arguments)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        #expect(try songbox.run(["alarm", "rm", "nope"]).stderr.contains("no alarm named 'nope'"))
        #expect(try songbox.run(["alarm", "ls"]).lines.count == 1)

        // The whole alarm on a fast clock: it sounds, the audio check passes, the volume rises
        // along the fade to its target, the source repeats, and it stops at its timeout.
        let wake = try timeline("wake")
        #expect(wake.first?.phase == "sounding")
        #expect(wake.contains { $0.kind == "check" && $0.ok == true && $0.t == 5 })
        #expect(wake.contains { $0.kind == "track" && $0.track == "steady.mp3" })
        let volumes = wake.filter { $0.kind == "volume" }
        #expect(volumes.count >= 9)
        #expect(zip(volumes, volumes.dropFirst()).allSatisfy { $0.volume <= $1.volume + 1e-9 }, "rises, never falls")
        #expect(volumes.first { $0.t >= 60 }.map { abs($0.volume - 80) < 1e-6 } == true)
        #expect(volumes.first { $0.t == 30 }.map { abs($0.volume - 40) < 0.5 } == true, "linear: half way at half time")
        #expect(wake.last?.phase == "timeout" && wake.last?.t == 180)
        // The test ran on a copy: the library's history has no plays from it.
        #expect(try songbox.run(["history"]).stdout.isEmpty)

        // A source that finds nothing: the check fails, the bundled tone sounds, audio flows.
        #expect(try songbox.run(["alarm", "add", "empty", "--at", "06:00", "--query", "zzzz", "--timeout", "30s"]).status == 0)
        let empty = try timeline("empty")
        #expect(empty.map { $0.phase ?? $0.kind }.prefix(5) == ["sounding", "check", "fallback", "track", "check"], "\(empty.map(\.kind))")
        #expect(empty.contains { $0.kind == "track" && $0.track == "alarm-tone.mp3" })
        #expect(empty.last { $0.kind == "check" }?.ok == true)
        #expect(empty.last?.phase == "timeout")

        #expect(try songbox.run(["alarm", "disable", "empty"]).stdout.contains("is off"))
        #expect(try songbox.run(["alarm", "ls"]).stdout.contains("disabled"))
        #expect(try songbox.run(["alarm", "rm", "empty"]).status == 0)
        // Snooze and dismiss need the daemon, and say so when none runs.
        let alone = try SongboxRunner.run(executable: SongboxRunner.executable, ["alarm", "snooze"],
                                          environment: ["SONGBOX_SOCKET": folder + "/none.sock", "MPD_HOST": folder + "/none.sock"])
        #expect(alone.status != 0 && alone.stderr.contains("no songbox daemon is running"), "\(alone.stderr)")
    }

    /// A one-off alarm sounds on its date (on a fast clock started the minute before) and not
    /// on the next day; an alarm whose files cannot be decoded falls back to the tone.
    @Test func aOneOffAlarmSoundsOnItsDateOnlyAndUnreadableFilesFallBackToTheTone() throws {
        #expect(try songbox.run(["alarm", "add", "once", "--at", "07:00", "--date", "2030-01-02", "--zone", "UTC",
                                 "--query", "path:steady", "--timeout", "1m"]).status == 0)
        let plugin = Fixtures.packageRoot + "/plugins/alarm.lua"
        func day(_ start: String) throws -> String {
            let output = try songbox.run(["run", "--fast", "--output", "null", "--start-time", start, "--for", "5m", plugin])
            #expect(output.status == 0, "\(output.stderr)")
            return output.stderr
        }
        let onTheDay = try day("2030-01-02 06:59 UTC")
        #expect(onTheDay.contains("alarm once: sounding") && onTheDay.contains("alarm once: timeout"), "\(onTheDay)")
        #expect(!(try day("2030-01-03 06:59 UTC")).contains("sounding"))
        #expect(try songbox.run(["alarm", "rm", "once"]).status == 0)

        // Indexed, then damaged beyond decoding (a file that went bad after the scan).
        _ = try library.add([("garbled", 2)])
        try library.scan()
        #expect(try songbox.run(["ls", "path:garbled"]).lines.count == 2, "a heading and the track")
        try Data(repeating: 0x55, count: 20_000).write(to: URL(fileURLWithPath: music + "/garbled.mp3"))
        #expect(try songbox.run(["alarm", "add", "garbled", "--at", "07:00", "--query", "path:garbled", "--timeout", "20s"]).status == 0)
        let garbled = try timeline("garbled")
        #expect(garbled.compactMap(\.phase) == ["sounding", "fallback", "timeout"], "\(garbled)")
        #expect(garbled.contains { $0.track == "alarm-tone.mp3" } && garbled.last { $0.kind == "check" }?.ok == true)
    }

    /// A radio station kept in the library whose server is down when the alarm sounds: the
    /// refusal comes at once and the tone takes over (no minute of silence waiting for it).
    @Test func anAlarmWhoseStationIsDownSoundsTheTone() throws {
        let serverFolder = folder + "/nginx", root = serverFolder + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "[playlist]\nFile1=http://127.0.0.1:\(try freePort())/live.mp3\nTitle1=Morning FM\n"
            .write(toFile: root + "/station.pls", atomically: true, encoding: .utf8)
        let station = try NginxServer(root: root, folder: serverFolder)
        let url = station.url("/files/station.pls")
        let kept = try songbox.run(["add-url", url, "--title", "Morning FM"])
        #expect(kept.status == 0, "\(kept.stderr)")
        station.stop()
        #expect(try songbox.run(["alarm", "add", "radio", "--at", "07:00", "--query", "remote:yes", "--timeout", "20s"]).status == 0)
        let radio = try timeline("radio")
        #expect(radio.compactMap(\.phase) == ["sounding", "fallback", "timeout"], "\(radio)")
        #expect(radio.contains { $0.track == "alarm-tone.mp3" } && radio.last { $0.kind == "check" }?.ok == true, "\(radio)")
        let fallback = try #require(radio.first { $0.phase == "fallback" })
        #expect(fallback.t < 10, "the tone at once, not after the station's wait: \(fallback.t) s")
    }

    /// Snooze pauses the alarm for its length; then it sounds again from the start volume with
    /// its fade, and its timeout counts from then.
    @Test func aSnoozedAlarmSoundsAgainAfterTheSnoozeWithItsFade() throws {
        #expect(try songbox.run(["alarm", "add", "nap", "--at", "07:00", "--query", "path:steady", "--fade", "20s", "--start-volume", "10",
                                 "--volume", "90", "--snooze", "1m", "--timeout", "2m"]).status == 0)
        let nap = try timeline("nap", ["--snooze-at", "10s"])
        let phases = nap.filter { $0.kind == "alarm" }.map { "\($0.phase ?? "") \($0.t)" }
        #expect(phases == ["sounding 0.0", "snoozed 10.0", "sounding 70.0", "timeout 190.0"], "\(phases)")
        let again = try #require(nap.first { $0.phase == "sounding" && $0.t == 70 })
        #expect(abs(again.volume - 10) < 1e-6, "back at the start volume: \(again.volume)")
        #expect(nap.contains { $0.kind == "check" && $0.ok == true && $0.t == 75 }, "the audio is checked again")
        let bad = try songbox.run(["alarm", "test", "nap", "--snooze-at", "soon"])
        #expect(bad.status != 0 && bad.stderr.contains("--snooze-at takes a duration"), "\(bad.stderr)")
    }

    /// The fade is in the audio: a steady sine's peaks, second by second, follow the volume.
    @Test func theFadeIsInTheRenderedSamples() throws {
        #expect(try songbox.run(["alarm", "add", "ramp", "--at", "07:00", "--fade", "20s", "--start-volume", "0", "--volume", "100",
                                 "--timeout", "30s"]).status == 0)
        let wav = folder + "/alarm.wav"
        let plugin = Fixtures.packageRoot + "/plugins/alarm.lua"
        let output = try songbox.run(["run", "--output", "wav:" + wav, "--fast", plugin, "test", "ramp"])
        #expect(output.status == 0, "\(output.stderr)")
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        func peak(at second: Double) -> Double {
            let center = Int(second * 44_100) * 2, half = 2_205 * 2
            guard center + half <= samples.count else { return -1 }
            return Double(samples[(center - half)..<(center + half)].map { abs(Int($0)) }.max() ?? 0)
        }
        let full = peak(at: 25)
        #expect(full > 15_000, "the sine at full volume: \(full)")
        for second in stride(from: 2.0, through: 18, by: 2) {
            let expected = full * second / 20
            #expect(abs(peak(at: second) - expected) < 0.03 * full, "at \(second) s: \(peak(at: second)), expected \(expected)")
        }
    }

    /// An alarm that speaks the time (`--say`), on the fast clock with the real espeak-ng: at
    /// 07:00 in its zone (05:00 UTC) its music fades in over 10 s, then "It is 07:00" is said
    /// over it. The rendered samples are those of the same alarm without `--say` until then;
    /// after, less the ducked music, espeak-ng's own waveform of the text.
    @Test func anAlarmSpeaksTheTimeOverItsMusic() throws {
        let plugin = Fixtures.packageRoot + "/plugins/alarm.lua"
        // Each alarm of its own name (an occurrence sounded is remembered by name), alone.
        func sound(_ name: String, saying: [String]) throws -> (output: SongboxRunner.Output, samples: [Int16]) {
            #expect(try songbox.run(["alarm", "add", name, "--at", "07:00", "--zone", "Asia/Jerusalem", "--query", "path:steady",
                                     "--fade", "10s", "--start-volume", "0", "--volume", "100", "--timeout", "20s"] + saying).status == 0)
            defer { _ = try? songbox.run(["alarm", "rm", name]) }
            let wav = folder + "/" + name + ".wav"
            let output = try songbox.run(["run", "--fast", "--output", "wav:" + wav, "--start-time", "2030-01-02 04:59:50 UTC", "--for", "1m", plugin])
            #expect(output.status == 0, "\(output.stderr)")
            return (output, try AudioFixtures.pcm(ofWAV: wav))
        }
        let listed = try songbox.run(["alarm", "add", "tea", "--at", "07:00", "--say", "It is %H:%M"])
        #expect(listed.stdout.contains("says 'It is %H:%M'"), "\(listed.stdout)")
        #expect(try songbox.run(["alarm", "ls", "--json"]).stdout.contains(#""say":"It is %H:%M""#))
        #expect(try songbox.run(["alarm", "rm", "tea"]).status == 0)
        let bad = try songbox.run(["alarm", "add", "tea2", "--at", "07:00", "--say", "two\nlines"])
        #expect(bad.status != 0 && bad.stderr.contains("one line, without control characters"), "\(bad.stderr)")

        let plain = try sound("plain", saying: [])
        let (said, samples) = try sound("tea", saying: ["--say", "It is %H:%M"])
        #expect(said.stderr.contains("alarm tea: said 'It is 07:00'"), "\(said.stderr)")
        // Until the fade is up (10 s, the timer's turn between two chunks) the same samples.
        let up = Int(9.5 * 44_100)
        #expect(difference(Array(samples[..<(up * 2)]), Array(plain.samples[..<(up * 2)])) == nil, "nothing else changed")
        // Then the music is taken down over 0.3 s and held there under the speech.
        let duck = pow(10, -15.0 / 20), from = 10 * 44_100
        let heard = (from..<min(samples.count / 2, plain.samples.count / 2)).map { Double(samples[$0 * 2]) - duck * Double(plain.samples[$0 * 2]) }
        let (likeness, frame) = SpeechFixtures.likeness(of: try SpeechFixtures.said("It is 07:00", voice: "en"), in: heard, near: 13_230, search: 6_000)
        #expect(likeness > 0.9, "the speech's waveform at frame \(from + frame): \(likeness)")
    }

    /// What comes back after an alarm keeps its lanes: autoplay's additions stay autoplay's,
    /// after the user's, and the place is the same item's.
    @Test func theQueueComesBackLaneByLane() throws {
        _ = try library.add([("second", 2), ("third", 2)])
        try library.scan()
        #expect(try songbox.run(["alarm", "add", "short", "--at", "07:00", "--timeout", "10s"]).status == 0)
        let setUp = folder + "/set-up.lua", show = folder + "/show.lua"
        try """
            local sb = require "songbox"
            sb.queue.add(sb.library.query("path:second"))
            sb.queue.add(sb.library.query("path:steady"), { lane = "autoplay" })
            sb.queue.add(sb.library.query("path:third"), { lane = "autoplay" })
            local items = sb.queue.list()
            sb.player.cue(items[2].queue_id, 1.5)
            """.write(toFile: setUp, atomically: true, encoding: .utf8)
        try """
            local sb = require "songbox"
            for _, item in ipairs(sb.queue.list()) do print(item.path:match("[^/]*$"), item.lane) end
            local status = sb.player.status()
            print(status.position, status.elapsed, status.state)
            """.write(toFile: show, atomically: true, encoding: .utf8)
        // --resume: the saved queue is the one a script takes and keeps only when asked.
        let prepared = try songbox.run(["run", "--output", "null", "--fast", "--resume", setUp])
        #expect(prepared.status == 0, "\(prepared.stderr)")
        let before = try songbox.run(["run", "--resume", show])
        let plugin = Fixtures.packageRoot + "/plugins/alarm.lua"
        let alarm = try songbox.run(["run", "--output", "null", "--fast", "--resume", plugin, "test", "short"])
        #expect(alarm.status == 0 && alarm.stdout.contains("timeout"), "\(alarm.stdout)\(alarm.stderr)")
        let after = try songbox.run(["run", "--resume", show])
        #expect(before.lines == ["second.mp3\tuser", "steady.mp3\tautoplay", "third.mp3\tautoplay", "2\t1.5\tstopped"], "\(before.stdout)")
        #expect(after.lines == before.lines, "\(after.stdout)")
    }

    /// Each kind of source: a saved playlist (its order), a smart playlist (evaluated when the
    /// alarm sounds), a mood (after analysis, the moods plugin's presets); a playlist that does
    /// not exist yet is said at `add` and sounds the tone.
    @Test func alarmsPlayASavedPlaylistASmartPlaylistAndAMood() throws {
        _ = try library.add([("alpha", 2), ("beta", 2)])
        // Sparse clicks at 80 BPM: close to what the calm preset asks for (50-100 BPM, -40 to -14
        // LUFS, low energy); the sines have no tempo and are not calm at all.
        try AudioFixtures.clicks(in: music, name: "soft", bpm: 80, beats: 12)
        try library.scan()
        #expect(try songbox.run(["playlist", "save", "wake", "path:alpha, path:beta", "sort:-path"]).status == 0)
        #expect(try songbox.run(["playlist", "smart", "only-alpha", "path:alpha"]).status == 0)
        for (name, source) in [("saved", ["--playlist", "wake"]), ("smart", ["--playlist", "only-alpha"]),
                               ("calm", ["--mood", "calm"])] {
            #expect(try songbox.run(["alarm", "add", name, "--at", "07:00", "--timeout", "7s"] + source).status == 0)
        }
        func tracks(_ entries: [Entry]) -> [String] { entries.compactMap(\.track) }
        func phases(_ entries: [Entry]) -> [String] { entries.compactMap(\.phase) }

        let saved = try timeline("saved")
        #expect(Array(tracks(saved).prefix(3)) == ["beta.mp3", "alpha.mp3", "beta.mp3"], "in the playlist's order, repeated: \(saved)")
        #expect(phases(saved) == ["sounding", "timeout"])
        let smart = try timeline("smart")
        #expect(Set(tracks(smart)) == ["alpha.mp3"] && phases(smart) == ["sounding", "timeout"], "\(smart)")

        // Before analysis a mood finds nothing: the tone. After it, the mood's tracks.
        let unanalyzed = try timeline("calm")
        #expect(phases(unanalyzed) == ["sounding", "fallback", "timeout"], "\(unanalyzed)")
        #expect(try songbox.run(["analyze"]).status == 0)
        let calm = try timeline("calm")
        #expect(phases(calm) == ["sounding", "timeout"], "\(calm)")
        #expect(tracks(calm).contains("soft.mp3"), "\(calm)")

        let missing = try songbox.run(["alarm", "add", "later", "--at", "07:00", "--playlist", "wak"])
        #expect(missing.status == 0 && missing.stderr.contains("no playlist 'wak' yet (did you mean 'wake'?)"), "\(missing.stderr)")
    }

    /// An output that cannot play (no such ALSA device): the check finds no audio, the tone
    /// cannot play either, and the alarm says it failed (log, event, status 1), never silent.
    @Test func anAlarmOnAnOutputThatFailsSaysSo() throws {
        #expect(try songbox.run(["alarm", "add", "deaf", "--at", "07:00", "--timeout", "5m"]).status == 0)
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let plugin = Fixtures.packageRoot + "/plugins/alarm.lua"
        let output = try songbox.run(["run", "--output", "alsa:songboxnosuchdevice", plugin, "test", "deaf"],
                                     environment: ["HOME": home, "SONGBOX_CONFIG": "/dev/null"])
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains("alarm deaf: fallback to the alarm tone: the output failed"), "\(output.stderr)")
        #expect(output.stderr.contains("alarm deaf: failed: the output failed"), "\(output.stderr)")
        #expect(output.stdout.contains("fallback") && output.stdout.contains("failed"), "\(output.stdout)")
    }

    /// With another output configured, an alarm whose output fails moves there with its music
    /// (the next configured output), and the music is heard there: samples in the file.
    @Test func anAlarmWhoseOutputFailsMovesToTheNextConfiguredOutput() throws {
        #expect(try songbox.run(["alarm", "add", "kitchen", "--at", "07:00", "--query", "path:steady", "--timeout", "3s"]).status == 0)
        let home = folder + "/home", config = folder + "/config", wav = folder + "/kitchen.wav"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try """
            output = alsa:songboxnosuchdevice
            output = wav:\(wav)
            plugin.alarm.check_after = 1
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", Fixtures.packageRoot + "/plugins/alarm.lua", "test", "kitchen"],
                                     environment: ["HOME": home, "SONGBOX_CONFIG": config])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains("alarm kitchen: fallback to wav:\(wav): the output failed: alsa:songboxnosuchdevice"),
                "\(output.stderr)")
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        let kinds = timeline.map { [$0["kind"] as? String, $0["phase"] as? String].compactMap { $0 }.joined(separator: " ") }
        #expect(kinds.filter { $0.hasPrefix("alarm") } == ["alarm sounding", "alarm fallback", "alarm timeout"], "\(kinds)")
        #expect(timeline.contains { $0["kind"] as? String == "check" && $0["ok"] as? Bool == true }, "audio flows after the move")
        #expect(!output.stdout.contains("the alarm tone"), "the music moved, not the tone")
        // About two seconds of the alarm's music in the kitchen (the check after 1 s, the timeout at 3 s).
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        #expect(samples.count / 2 > 44_100 && samples.count / 2 < 3 * 44_100, "\(samples.count / 2) frames")
        #expect((samples.map { abs(Int($0)) }.max() ?? 0) > 1_000, "the music is heard there")
    }

    /// MPD clients (Home Assistant, a door sensor, a phone) fire, snooze and dismiss alarms with
    /// `sendmessage alarm ...`; what played before comes back.
    @Test func aDaemonSoundsSnoozesAndDismissesOnMessagesAndRestoresWhatPlayed() throws {
        #expect(try songbox.run(["alarm", "add", "door", "--at", "07:00", "--query", "path:steady", "--fade", "10m",
                                 "--start-volume", "5", "--volume", "90", "--snooze", "1m"]).status == 0)
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/alarm.lua", toPath: plugins + "/alarm.lua")
        // "Play the wake-up alarm when the bedroom sensor says I'm up", in three lines.
        try """
            songbox.on("message", function(ev)
              if ev.channel == "sensors" and ev.text == "bedroom:up" then songbox.alarm.fire("door") end
            end)
            """.write(toFile: plugins + "/sensor.lua", atomically: true, encoding: .utf8)
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", plugins, "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        func mpc(_ arguments: String...) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
        }
        func status() throws -> String { try mpc("status").stdout }
        try daemon.waitForLog("alarm door: scheduled")
        #expect(try mpc("channels").lines.contains("alarm"))
        // Before: a paused queue at volume 37 with repeat off.
        #expect(try mpc("add", "steady.mp3").status == 0)
        _ = try mpc("volume", "37")
        _ = try mpc("play")
        _ = try mpc("pause")

        #expect(try mpc("sendmessage", "alarm", "fire:door").status == 0)
        try daemon.waitForLog("alarm door: sounding")
        try waitFor(timeout: 10, "the alarm plays, fading in from 5") {
            let now = try status()
            return now.contains("[playing]") && now.contains("repeat: on") && !now.contains("volume: 37%")
        }
        #expect(try mpc("sendmessage", "alarm", "snooze").status == 0)
        try daemon.waitForLog("alarm door: snoozed")
        try waitFor(timeout: 10, "paused") { try status().contains("[paused]") }
        #expect(try mpc("sendmessage", "alarm", "dismiss").status == 0)
        try daemon.waitForLog("alarm door: dismissed")
        try waitFor(timeout: 10, "what played before is back (paused: stopped at its place)") {
            let now = try status()
            return now.contains("volume: 37%") && now.contains("repeat: off") && !now.contains("[playing]")
        }
        let place = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import socket
            s = socket.create_connection(("127.0.0.1", \(port))); f = s.makefile("rwb"); f.readline()
            f.write(b"status\\n"); f.flush()
            for line in iter(f.readline, b"OK\\n"): print(line.decode().strip())
            """])
        #expect(place.lines.contains("song: 0") && place.lines.contains("state: stop"), "\(place.stdout)")
        #expect(try mpc("playlist").lines == ["steady.mp3"])
        // The CLI reaches the same alarm through the daemon: fire, snooze, dismiss.
        let cli = ["SONGBOX_SOCKET": daemon.socket]
        #expect(try songbox.run(["alarm", "fire", "door"], environment: cli).status == 0)
        try daemon.waitForLog("alarm door: sounding", count: 2)
        #expect(try songbox.run(["alarm", "snooze"], environment: cli).status == 0)
        try daemon.waitForLog("alarm door: snoozed", count: 2)
        #expect(try songbox.run(["alarm", "dismiss"], environment: cli).status == 0)
        try daemon.waitForLog("alarm door: dismissed", count: 2)
        // Another plugin fires it (a sensor's message), and a dismiss ends it again.
        #expect(try mpc("sendmessage", "sensors", "bedroom:up").status == 0)
        try daemon.waitForLog("alarm door: sounding", count: 3)
        _ = try mpc("sendmessage", "alarm", "dismiss")
        try daemon.waitForLog("alarm door: dismissed", count: 3)
        // A message it does not know is said, not ignored.
        _ = try mpc("sendmessage", "alarm", "explode")
        try daemon.waitForLog("unknown message 'explode'")
    }

    /// `alarm test` runs on a copy of the library, which no daemon serves: a daemon running on
    /// the library itself changes nothing (it crashed with a Lua traceback: issue 25).
    @Test func anAlarmIsTestedWhileADaemonRuns() throws {
        #expect(try songbox.run(["alarm", "add", "wake", "--at", "07:00", "--query", "path:steady", "--timeout", "30s"]).status == 0)
        let empty = folder + "/no-plugins"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--plugins", empty, "--output", "null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        for environment in [daemon.clientEnvironment, ["SONGBOX_SOCKET": ""]] {
            let output = try songbox.run(["alarm", "test", "wake", "--json"], environment: environment)
            #expect(output.status == 0, "\(output.stderr)")
            let entries = try JSONDecoder().decode([Entry].self, from: Data(output.stdout.utf8))
            #expect(entries.compactMap(\.phase) == ["sounding", "timeout"], "\(output.stdout)")
            #expect(entries.contains { $0.kind == "track" && $0.track == "steady.mp3" })
        }
    }

    /// A daemon whose alarm plugin is missing or disabled would sound nothing: every alarm
    /// command that needs it fails and says why (it printed "Alarm ... sounds" and nothing did).
    @Test func alarmCommandsSayWhenTheDaemonsAlarmPluginDoesNotRun() throws {
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let without = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--plugins", plugins, "--output", "null"])
        let added = try songbox.run(["alarm", "add", "wake", "--at", "07:00", "--query", "path:steady"], environment: without.clientEnvironment)
        #expect(added.status != 0 && added.stderr.contains("the songbox daemon runs no alarm plugin: alarms will not sound"), "\(added.stderr)")
        #expect(added.stdout.contains("Alarm wake: "), "kept all the same: \(added.stdout)")
        let fired = try songbox.run(["alarm", "fire", "wake"], environment: without.clientEnvironment)
        #expect(fired.status != 0 && !fired.stdout.contains("sounds"), "\(fired.stdout)")
        #expect(fired.stderr.contains("runs no alarm plugin"), "\(fired.stderr)")
        without.signal(SIGTERM)
        _ = try without.waitForExit()

        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/alarm.lua", toPath: plugins + "/alarm.lua")
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--plugins", plugins, "--output", "null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("alarm wake: scheduled")
        #expect(try songbox.run(["plugin", "disable", "alarm"], environment: daemon.clientEnvironment).status == 0)
        let disabled = try songbox.run(["alarm", "fire", "wake"], environment: daemon.clientEnvironment)
        #expect(disabled.status != 0 && disabled.stderr.contains("the songbox daemon's alarm plugin is disabled: alarms will not sound"),
                "\(disabled.stderr)")
        #expect(disabled.stderr.contains("songbox plugin enable alarm"))
        #expect(try songbox.run(["plugin", "enable", "alarm"], environment: daemon.clientEnvironment).status == 0)
        let fire = try songbox.run(["alarm", "fire", "wake"], environment: daemon.clientEnvironment)
        #expect(fire.status == 0 && fire.stdout.contains("Alarm wake sounds."), "\(fire.stdout)\(fire.stderr)")
        try daemon.waitForLog("alarm wake: sounding")
    }
}
