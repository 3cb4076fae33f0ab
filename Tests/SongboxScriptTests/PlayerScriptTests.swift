import Foundation
import SongboxTestSupport
import Testing

/// The Lua player API (`songbox.queue`, `songbox.player`, `songbox.on`, `songbox.after`,
/// `songbox.every`) end to end: the lua/player-*.lua scripts, run by the built binary on a library
/// of generated tones. With `--fast` and a WAV output the script's clock is the audio rendered,
/// so the scripts assert exact times. Each script asserts with `assert` (a failure exits with
/// status 1) and prints an "ok ..." line per part, which is checked here, so that a part that
/// never ran fails too.
@Suite struct PlayerScriptTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// Untagged tones named after their length, scanned into the library. With `broken`, also
    /// `broken.mp3` (6 s) with 64 KiB of zeros two thirds in, so decoding fails there, and
    /// `corrupt.mp3`, not MPEG audio at all; both are damaged after the scan, as files that went
    /// bad later would be.
    func makeLibrary(_ tones: [String: Double] = ["three": 3, "twenty": 20, "thirty": 30],
                     broken: Bool = false) throws {
        var all = tones.sorted { $0.key < $1.key }.map { (name: $0.key, seconds: $0.value) }
        if broken { all += [("broken", 6), ("corrupt", 1)] }
        try library.add(all)
        if broken {
            let path = music + "/broken.mp3"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let cut = bytes.count * 2 / 3
            try (bytes.prefix(cut) + Data(count: 65_536) + bytes.dropFirst(cut)).write(to: URL(fileURLWithPath: path))
            _ = try AudioFixtures.corrupt(in: music)
        }
    }

    var wav: String { folder + "/out.wav" }

    /// `songbox run [--fast] --output OUTPUT lua/SCRIPT`.
    func run(_ script: String, fast: Bool = true, output: String? = nil, options: [String] = []) throws -> SongboxRunner.Output {
        try songbox.run(["run"] + (fast ? ["--fast"] : []) + ["--output", output ?? "wav:" + wav] + options
                        + [luaFolder + "/" + script])
    }

    /// The "ok ..." lines a script printed.
    func oks(_ output: SongboxRunner.Output) -> [String] {
        output.lines.filter { $0.hasPrefix("ok ") }.map { String($0.dropFirst(3)) }
    }

    /// The number printed on the line "NAME <number>".
    func printed(_ name: String, _ output: SongboxRunner.Output) throws -> Double {
        let line = try #require(output.lines.first { $0.hasPrefix(name + " ") }, "no '\(name)' line")
        return try #require(Double(line.dropFirst(name.count + 1)))
    }

    /// The largest sample from `seconds` to `end` (default: 5 ms either side of `seconds`) of
    /// 44.1 kHz stereo PCM: the tone's level there. 0 outside the samples.
    func peak(_ samples: [Int16], at seconds: Double, to end: Double? = nil) -> Double {
        let from = Int((seconds * 44_100).rounded()) - (end == nil ? 220 : 0)
        let to = end.map { Int(($0 * 44_100).rounded()) } ?? from + 440
        let range = max(0, from * 2) ..< min(samples.count, max(0, to * 2))
        return range.isEmpty ? 0 : Double(samples[range].map { abs(Int($0)) }.max() ?? 0)
    }

    /// The script ran to its end: status 0, nothing on stderr, these parts passed.
    func expectPassed(_ output: SongboxRunner.Output, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status == 0, "\(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr == "", sourceLocation: sourceLocation)
        #expect(oks(output) == parts, "\(output.stdout)", sourceLocation: sourceLocation)
    }

    @Test func queueFunctionsAndArgumentErrors() throws {
        try makeLibrary()
        let output = try run("player-queue.lua")
        expectPassed(output, ["empty status", "add", "add at and lane", "move", "remove", "shuffle", "clear",
                              "soft failures", "set", "urls", "argument errors", "queue_changed events"])
        // Nothing was played: no audio was written.
        #expect(!FileManager.default.fileExists(atPath: wav))
    }

    @Test func hostileNumbersAreErrorsNotCrashes() throws {
        try makeLibrary()
        let output = try run("player-hostile-numbers.lua", output: "null")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(oks(output) == ["playlists", "queue and player"], "\(output.stdout)")
        #expect(output.lines.last == "survived")
    }

    @Test func handlersAndTimersOnTheAudioClock() throws {
        try makeLibrary()
        let output = try run("player-events.lua")
        expectPassed(output, ["argument errors", "timers", "handler order and off", "event order", "emitted_at"])
        #expect(!output.stdout.contains("tick"), "a periodic timer kept a stopped run going")
        // The WAV holds what was rendered: 12.1 s.
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == Int((12.1 * 44_100).rounded()) * 2)
    }

    @Test func lyricEventsComeAtTheSampleEachLineStarts() throws {
        try makeLibrary(["three": 3, "thirty": 30])
        // An offset and a line with two timestamps; a Hebrew line; the tags before the scan reads them.
        try "[ti:Thirty]\n[offset:+250]\n[00:01.25]First line\n[00:05.00][00:20.00]Chorus\n[00:10.123]שורה בעברית\n[00:25.5]Last\n"
            .write(toFile: music + "/thirty.lrc", atomically: true, encoding: .utf8)
        try "[00:00.00]Start\n[00:02.50]End of three\n".write(toFile: music + "/three.lrc", atomically: true, encoding: .utf8)
        try library.scan()
        let output = try run("player-lyrics.lua", output: "null")
        expectPassed(output, ["lrc read", "each line once, with its words", "at their samples"])
    }

    @Test func lyricEventsFollowARestoredPlace() throws {
        try makeLibrary(["thirty": 30])
        try "[00:01.00]First line\n[00:04.75]Chorus\n[00:09.873]Third\n".write(toFile: music + "/thirty.lrc", atomically: true, encoding: .utf8)
        try library.scan()
        let script = luaFolder + "/player-lyrics-restore.lua"
        // --resume: a script's own session saves nothing otherwise (docs/player.md).
        let first = try songbox.run(["run", "--fast", "--output", "null", "--resume", script, "first"])
        #expect(first.status == 0 && first.stderr == "", "\(first.stderr)")
        expectPassed(try songbox.run(["run", "--fast", "--output", "null", "--resume", script]), ["restored"])
    }

    @Test func everyEndReasonAndWhatItCounts() throws {
        try makeLibrary(broken: true)
        let output = try run("player-reasons.lua")
        expectPassed(output, ["track_started", "track_ended finished play", "track_ended skipped skip",
                              "track_ended skipped nil", "track_ended stopped nil", "track_ended error nil",
                              "track_ended replaced skip", "track_ended replaced play", "track_ended replaced nil",
                              "decode_error"])
        // The clock is the audio rendered: every frame of it is in the WAV file.
        let clock = try printed("clock", output)
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == Int((clock * 44_100).rounded()) * 2)

        // A second run sees the plays and skips in the library and the history.
        let history = try run("player-history.lua")
        expectPassed(history, ["plays and skips", "history", "saved state"])
        let cli = try songbox.run(["history", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [[String: Any]])
        #expect(rows.compactMap { $0["kind"] as? String } == ["play", "skip", "skip", "play"])
    }

    @Test func twoHundredFortySecondsIsAPlay() throws {
        // Over 8 minutes, kept small: mono, 22.05 kHz, 32 kbit/s.
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        _ = try AudioFixtures.tone(in: music, name: "long", seconds: 485, rate: 22_050, channels: 1,
                                   lameOptions: ["-b", "32"])
        try FileManager.default.removeItem(atPath: music + "/long.wav")
        try library.scan()
        expectPassed(try run("player-long.lua"), ["240 s is a play"])
    }

    @Test func playbackControlsAndALogFade() throws {
        try makeLibrary()
        let output = try run("player-controls.lua")
        expectPassed(output, ["play and volume", "pause and resume", "seek", "previous and next", "play(id)", "events"])
        // The fade from 50 to 10 over 2 s on the log curve is in the audio: 1 s in, the gain is
        // 50 * sqrt(10 / 50) = 22.4 (a linear fade would be at 30); after it, 10.
        let start = try printed("fade", output)
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        let before = peak(samples, at: start - 0.05)
        #expect(before > 7_000 && before < 9_000, "volume 50 of a half-scale tone: \(before)")
        let middle = peak(samples, at: start + 1) / before
        #expect(abs(middle - 22.36 / 50) < 0.02, "1 s into the log fade: \(middle)")
        let after = peak(samples, at: start + 2.3) / before
        #expect(abs(after - 10.0 / 50) < 0.01, "after the fade: \(after)")
    }

    /// A configured second output: playback moves there at the same place, so the first file
    /// holds the first second of the track and the second the rest.
    @Test func playbackMovesToAnotherConfiguredOutput() throws {
        try makeLibrary()
        let first = folder + "/first.wav", second = folder + "/second.wav", config = folder + "/config"
        // `--output` names the first again: it is listed once.
        try "output = wav:\(first)\noutput = wav:\(second)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", "--fast", "--output", "wav:" + first, luaFolder + "/player-outputs.lua"],
                                     environment: ["SONGBOX_CONFIG": config])
        expectPassed(output, ["outputs", "use_output", "refusals"])
        let before = try AudioFixtures.pcm(ofWAV: first), after = try AudioFixtures.pcm(ofWAV: second)
        // Frames of 44.1 kHz stereo: 1 s before the move, the other 2 s after it.
        #expect(abs(before.count / 2 - 44_100) <= 4_096, "first: \(before.count / 2) frames")
        #expect(abs(after.count / 2 - 88_200) <= 4_096, "second: \(after.count / 2) frames")
        #expect(peak(after, at: 0.5) > 10_000, "the tone goes on in the second file")
    }

    @Test func modesAndSleepTimer() throws {
        try makeLibrary()
        let output = try run("player-modes.lua")
        expectPassed(output, ["repeat", "single oneshot", "single", "consume", "consume oneshot", "random",
                              "sleep minutes", "sleep false", "sleep track", "sleep queue"])
        // The sleep timer fades out over the last 10 s: set 3 s before its deadline, it starts at
        // 3/10 of the volume, is at 0.15 halfway, and nothing is heard after the deadline.
        let line = try #require(output.lines.first { $0.hasPrefix("sleep ") }).split(separator: " ")
        try #require(line.count == 3)
        let set = try #require(Double(line[1])), stopped = try #require(Double(line[2]))
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        let full = peak(samples, at: set - 0.5)
        #expect(full > 14_000, "\(full)")
        #expect(abs(peak(samples, at: set + 0.05) / full - 0.295) < 0.01)
        #expect(abs(peak(samples, at: set + 1.5) / full - 0.15) < 0.01)
        #expect(stopped >= set + 3 - 1e-6 && Int(stopped * 44_100) * 2 <= samples.count)
        let after = peak(samples, at: set + 3, to: stopped)
        #expect(after < full * 0.005, "after the deadline: \(after)")
    }

    @Test func aFailingHandlerIsReportedAndTheOthersRun() throws {
        try makeLibrary()
        let output = try run("player-handler-error.lua")
        #expect(output.status == 1)
        #expect(output.lines == ["first handler", "third handler", "timer after the failing one", "ended finished"])
        let errors = output.stderr.split(separator: "\n").map(String.init)
        #expect(errors.count == 2, "\(output.stderr)")
        #expect(errors.first?.hasSuffix("/player-handler-error.lua:5: boom in a handler") == true, "\(output.stderr)")
        #expect(errors.last?.hasSuffix("/player-handler-error.lua:7: attempt to index a nil value (local 't')") == true,
                "\(output.stderr)")
        // Playback went on to the end of the track.
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 3 * 44_100 * 2)
    }

    /// `songbox.player.on_transition`: asked ahead for each next track (its end and a skip to
    /// it), with both tracks' features; its answers are the crossfades heard (lua/player-transition.lua).
    @Test func aTransitionHookChoosesEachChangeAhead() throws {
        try makeLibrary()
        let analyzed = try songbox.run(["analyze"])
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        let output = try run("player-transition.lua")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(oks(output) == ["transitions"])
        #expect(output.lines.contains("asked twenty>thirty natural 0.0, twenty>thirty skip 0.0, thirty>twenty natural 0.0, "
                                      + "thirty>twenty skip 0.0, twenty>three natural 0.0, twenty>three skip 0.0"), "\(output.stdout)")
        let timeline = ["track_started twenty 0.00 user", "track_started thirty 16.00 next", "track_ended twenty 20.00 finished",
                        "track_started twenty 21.00 user", "track_ended thirty 23.00 skipped", "track_ended twenty 41.00 finished",
                        "track_started three 41.00 next", "track_ended three 44.00 finished"]
        #expect(output.lines.filter { $0.hasPrefix("track_") } == timeline, "\(output.stdout)")
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 44 * 44_100 * 2, "20 + 30 + 20 + 3 s less the 4 s and 2 s fades and the 25 s skipped")
    }

    /// A hook that fails or answers wrongly is reported with its file and line, and the default
    /// stands: the three tracks join gapless.
    @Test func aFailingTransitionHookLeavesTheDefault() throws {
        try makeLibrary()
        let output = try run("player-transition-errors.lua")
        #expect(output.status == 1, "a callback failed")
        #expect(output.lines == ["asked 4"])
        let errors = output.stderr.split(separator: "\n").map(String.init)
        #expect(errors.count == 4, "\(output.stderr)")
        #expect(errors.first?.hasSuffix("/player-transition-errors.lua:8: boom in a hook") == true, "\(output.stderr)")
        #expect(errors.dropFirst().first?.hasSuffix("/player-transition-errors.lua:6: the transition's crossfade must be seconds from 0 to 30") == true,
                "\(output.stderr)")
        #expect(errors.last?.hasSuffix("/player-transition-errors.lua:6: unknown key 'fade' in the transition (crossfade, curve)") == true,
                "\(output.stderr)")
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 9 * 44_100 * 2)
    }

    /// The bundled `plugins/smart-fades.lua`, turned on: between two metronomes of about the
    /// same tempo a fade that its energy rule gives (8 s calm to 2 s energetic), none into one
    /// much faster (gapless). Its key rule is left out (`key_jump = 6`): clicks have no key.
    @Test func smartFadesFadesByEnergyAndNotAcrossATempoJump() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try AudioFixtures.clicks(in: music, name: "a120", bpm: 120, beats: 40)
        try AudioFixtures.clicks(in: music, name: "b122", bpm: 122, beats: 41)
        try AudioFixtures.clicks(in: music, name: "c180", bpm: 180, beats: 60)
        try library.scan()
        #expect(try songbox.run(["analyze"]).status == 0)
        let work = try Fixtures.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/smart-fades.lua", toPath: work + "/smart-fades.lua")
        try """
            local sb = require "songbox"
            require "smart-fades"
            local function track(name) return assert(sb.library.query('path:"/' .. name .. '.mp3"'))[1] end
            local a, b, c = track("a120"), track("b122"), track("c180")
            local starts = {}
            sb.on("track_started", function(e) starts[#starts + 1] = ("%.4f"):format(sb.player.status().clock) end)
            sb.queue.add({ a, b, c })
            sb.player.play()
            sb.on("stopped", function()
              print("starts " .. table.concat(starts, " "))
              print(("tracks %.6f %.6f %.6f %.6f"):format(a.duration, b.duration, a.energy, b.energy))
            end)
            """.write(toFile: work + "/drive.lua", atomically: true, encoding: .utf8)
        try "plugin.drive.enabled = true\nplugin.drive.key_jump = 6\n".write(toFile: work + "/config", atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", "--fast", "--output", "null", work + "/drive.lua"], environment: ["SONGBOX_CONFIG": work + "/config"])
        #expect(output.status == 0, "\(output.stderr)")
        let starts = try #require(output.lines.first { $0.hasPrefix("starts ") }).split(separator: " ").dropFirst().compactMap { Double($0) }
        let tracks = try #require(output.lines.first { $0.hasPrefix("tracks ") }).split(separator: " ").dropFirst().compactMap { Double($0) }
        try #require(starts.count == 3 && tracks.count == 4, "\(output.stdout)")
        let fade = 8 + (2 - 8) * (tracks[2] + tracks[3]) / 2
        #expect(abs(starts[1] - (tracks[0] - fade)) < 0.001, "a120 fades into b122 over \(fade) s: \(starts)")
        #expect(abs(starts[2] - (starts[1] + tracks[1])) < 0.001, "b122 joins c180 gapless: \(starts)")
    }

    /// `songbox.player.announce` from Lua (lua/player-announce.lua): the chime, then the file,
    /// over the music ducked by 20 dB; a missing file is passed over with `announcement_failed`;
    /// nothing counts.
    @Test func aScriptAnnouncesOverTheMusic() throws {
        try makeLibrary()
        let bell = folder + "/bell.wav"
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "22050", "-c", "1", "-b", "16", bell, "synth", "1", "sine", "1000", "vol", "0.1"])
        let output = try songbox.run(["run", "--fast", "--output", "wav:" + wav, luaFolder + "/player-announce.lua", bell])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(oks(output) == ["announce"])
        #expect(output.lines.contains("track_started, announcement_failed /nowhere/gone.wav"), "\(output.stdout)")
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        #expect(samples.count == 81 * 4_410 * 2, "the music played on: 8 s and the stop's 0.1 s fade")
        // Under the bell (after the 1 s chime, 3.34 s to 4.34 s) the music 20 dB down and the
        // quiet bell on top; back as it was after.
        let music = peak(samples, at: 1, to: 1.9)
        #expect(music > 3 * peak(samples, at: 3.5, to: 4.2), "ducked by 20 dB under the bell")
        #expect(abs(peak(samples, at: 5.5, to: 7.5) - music) < music / 100, "back after")
    }

    /// `songbox.player.announce{say = TEXT}` (lua/player-say.lua), with the real espeak-ng: the
    /// music 20 dB down and the speech on top (the samples less the ducked music are espeak-ng's
    /// own waveform); nothing counts.
    @Test func aScriptSaysATextOverTheMusic() throws {
        try makeLibrary()
        let text = "Dinner is ready"
        let output = try songbox.run(["run", "--fast", "--output", "wav:" + wav, luaFolder + "/player-say.lua", text])
        expectPassed(output, ["say"])
        let samples = try AudioFixtures.pcm(ofWAV: wav)
        let tone = try AudioFixtures.referencePCM(of: music + "/twenty.mp3")
        let from = Int(2.3 * 44_100)
        let heard = (from..<(8 * 44_100)).map { Double(samples[$0 * 2]) - 0.1 * Double(tone[$0 * 2]) }
        let (likeness, frame) = SpeechFixtures.likeness(of: try SpeechFixtures.said(text, voice: "en"), in: heard, near: 2_000, search: 6_000)
        #expect(likeness > 0.9, "the speech's waveform at frame \(from + frame): \(likeness)")
        #expect(difference(Array(samples[..<(88_200 * 2)]), Array(tone[..<(88_200 * 2)])) == nil, "the music as it is before")
    }

    /// Without espeak-ng (a PATH that has none) a text is refused with what to install, and
    /// nothing else changes: no chime, the music never ducked.
    @Test func withoutEspeakATextIsRefusedAndTheMusicPlaysOn() throws {
        try makeLibrary()
        let script = folder + "/no-speech.lua"
        try """
            local sb = require "songbox"
            sb.queue.add(sb.library.query('path:"/three.mp3"'))
            sb.player.play()
            sb.after(1, function()
              print(select(2, sb.player.announce { say = "Dinner is ready", chime = true }))
              print(select(2, sb.player.announce { say = "השעה שבע" }))
            end)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", "--fast", "--output", "wav:" + wav, script], environment: ["PATH": "/nonexistent"])
        #expect(output.status == 0, "\(output.stderr)")
        let refusal = "songbox.player.announce: text to speech needs espeak-ng, which is not installed (Debian: apt install espeak-ng)"
        #expect(output.lines == [refusal, refusal], "\(output.stdout)")
        #expect(difference(try AudioFixtures.pcm(ofWAV: wav), try AudioFixtures.referencePCM(of: music + "/three.mp3")) == nil)
    }

    /// The reasons of `on_transition` and `track_started` (lua/player-transition-reasons.lua):
    /// `alarm` within an alarm's music, `autoplay` into autoplay's track, `skip` for a skip.
    @Test func transitionsSayAlarmAndAutoplay() throws {
        try makeLibrary()
        let output = try run("player-transition-reasons.lua", output: "null")
        expectPassed(output, ["reasons"])
        let ids = try #require(output.lines.first { $0.hasPrefix("ids ") }).split(separator: " ").dropFirst()
        try #require(ids.count == 4, "\(output.stdout)")
        let (a1, a2, b, c) = (ids[1], ids[2], ids[3], ids[4])
        #expect(output.lines.contains("asked \(a1)>\(a2) alarm, \(a1)>\(a2) skip, \(b)>\(c) autoplay, \(b)>\(c) skip"), "\(output.stdout)")
        #expect(output.lines.contains("started alarm, next, user, autoplay"), "\(output.stdout)")
    }

    @Test func dryRunRefusesQueueAndPlayerCommands() throws {
        try makeLibrary()
        let output = try run("player-dry-run.lua", options: ["--dry-run"])
        expectPassed(output, ["writes refused", "reads work", "timers run"])
        #expect(!FileManager.default.fileExists(atPath: wav))
    }

    @Test func realTimeWithATimer() throws {
        try makeLibrary(["two": 2])
        let output = try run("player-realtime.lua", fast: false, output: "null")
        expectPassed(output, ["after", "ended", "stopped"])
    }
}
