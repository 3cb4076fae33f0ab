import Foundation
import SongboxTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `songbox play` end to end through the built binary: what it prints, what it writes to the
/// output, what it records, and how it stops (Ctrl-C, SIGTERM) and recovers (a missing output).
@Suite struct PlayCommandTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    @discardableResult
    func makeLibrary(_ tones: [(String, Double)]) throws -> [String] {
        try library.add(tones.map { (name: $0.0, seconds: $0.1) })
    }

    func history() throws -> [[String: Any]] {
        let output = try songbox.run(["history", "--json"])
        try #require(output.status == 0, "\(output.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
    }

    @Test func playsTheQueryInOrderIntoTheOutput() throws {
        let paths = try makeLibrary([("1-three", 3), ("2-two", 2), ("3-four", 4)])
        let wav = folder + "/out.wav"
        let output = try songbox.run(["play", "path:/music/", "sort:path", "--output", "wav:" + wav, "--fast"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines == ["1. 1-three.mp3 (0:03)", "2. 2-two.mp3 (0:02)", "3. 3-four.mp3 (0:04)"])
        #expect(output.stderr == "Played 3 tracks: 3 plays and 0 skips recorded.\n")
        // Every track's PCM, back to back, sample for sample as the mpg123 command decodes it.
        let expected = try paths.flatMap { try AudioFixtures.referencePCM(of: $0) }
        let written = try AudioFixtures.pcm(ofWAV: wav)
        #expect(written.count == (3 + 2 + 4) * 44_100 * 2)
        #expect(written == expected)
        // Each track played to its end is a play in the history, newest first.
        let rows = try history()
        #expect(rows.compactMap { $0["path"] as? String } == paths.reversed())
        #expect(rows.allSatisfy { $0["kind"] as? String == "play" && $0["reason"] as? String == "finished" })
    }

    /// A 3-track album cut at sample counts no codec's frame size divides, in ALAC and in AAC
    /// (`.m4a` by ffmpeg), scanned and played by the binary to a WAV file: the ALAC album is the
    /// uncut source sample for sample, the AAC album the `faad` reference's parts joined (±1),
    /// each track at its exact length, without a gap or an overlap.
    @Test func anMP4AlbumInALACAndAACIsScannedAndPlayedWithoutAGap() throws {
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        let parts = AudioFixtures.gaplessAlbumParts
        let source = try AudioFixtures.signal(sources + "/album.wav", frames: parts.reduce(0, +))
        var start = 0
        for (index, frames) in parts.enumerated() {
            let part = sources + "/\(index + 1).wav"
            try AudioFixtures.run("sox", [source, part, "trim", "\(start)s", "\(frames)s"])
            start += frames
            for encoding in [AudioFixtures.Encoding.alac, .aac] {
                try FileManager.default.createDirectory(atPath: music + "/\(encoding)", withIntermediateDirectories: true)
                try AudioFixtures.encode(part, as: encoding, to: music + "/\(encoding)/\(index + 1).m4a")
            }
        }
        let scan = try songbox.run(["scan", music])
        #expect(scan.status == 0 && scan.stdout.contains("6 added"), "\(scan.stdout) \(scan.stderr)")
        for encoding in [AudioFixtures.Encoding.alac, .aac] {
            let wav = folder + "/\(encoding).wav"
            let output = try songbox.run(["play", "path:/music/\(encoding)/", "sort:path", "--output", "wav:" + wav, "--fast"])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.lines.map { String($0.prefix(8)) } == ["1. 1.m4a", "2. 2.m4a", "3. 3.m4a"], "\(output.stdout)")
            let written = try AudioFixtures.pcm(ofWAV: wav)
            if encoding == .alac {
                #expect(written == (try AudioFixtures.pcm(ofWAV: source)), "the uncut source, sample for sample")
            } else {
                var reference: [Int16] = []
                for (index, frames) in parts.enumerated() {
                    reference += try AudioFixtures.reference(of: music + "/aac/\(index + 1).m4a", encoding: .aac, channels: 2,
                                                             frames: frames).stereo16
                }
                let largest = largestDifference(written, reference)
                #expect(largest != nil && largest! <= 1, "\(written.count / 2) frames against \(reference.count / 2): \(String(describing: largest))")
            }
        }
    }

    @Test func theConfigFileSetsTheOutputAndTheRulesForPlaysAndSkips() throws {
        try makeLibrary([("a-thirty", 30), ("b-thirty", 30)])
        let wav = folder + "/configured.wav", config = folder + "/config", script = folder + "/skip.lua"
        try """
            # songbox settings
            output = wav:\(wav)
            play_fraction = 0.1   # 3 s of a 30 s track is a play
            skip_after = 1        # moving on after 1 s is a skip
            fade = 0
            """.write(toFile: config, atomically: true, encoding: .utf8)
        try """
            local sb = require "songbox"
            sb.queue.add(sb.library.query("sort:path"))
            sb.player.play()
            sb.after(2, sb.player.next)   -- 2 s of the first: a skip with skip_after = 1
            sb.after(5, sb.player.stop)   -- 3 s of the second: a play with play_fraction = 0.1
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try songbox.run(["run", "--fast", script], environment: ["SONGBOX_CONFIG": config])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try history().compactMap { $0["kind"] as? String } == ["play", "skip"])
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 5 * 44_100 * 2, "the config's output, no fades")

        // Without the config: 2 s is neither, 3 s of 30 is not a play.
        let plain = try songbox.run(["run", "--fast", "--output", "null", script], environment: ["SONGBOX_CONFIG": "/dev/null"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try history().count == 2)

        try "play_seconds = 240\nloudness = 11\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try songbox.run(["play", "--fast"], environment: ["SONGBOX_CONFIG": config])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains(config + ":2") && bad.stderr.contains("unknown setting 'loudness'"), "\(bad.stderr)")
    }

    @Test func highlightsAreEditedInTheLibraryAndPlayedAlone() throws {
        let paths = try makeLibrary([("a-five", 5), ("b-four", 4), ("c-three", 3)])
        let ids = try songbox.run(["ls", "--json", "sort:path"])
        let tracks = try #require(try JSONSerialization.jsonObject(with: Data(ids.stdout.utf8)) as? [[String: Any]])
        let id = { (index: Int) in String(describing: tracks[index]["id"]!) }
        #expect(try songbox.run(["edit", id(0), "highlight=0:01..0:03"]).status == 0)
        #expect(try songbox.run(["edit", id(2), "highlight=2..3"]).status == 0)
        let bad = try songbox.run(["edit", id(1), "highlight=4..2"])
        #expect(bad.status != 0 && bad.stderr.contains("END after START"), "\(bad.stderr)")
        let wav = folder + "/highlights.wav"
        let run = try songbox.run(["play", "--highlights", "sort:path", "--output", "wav:" + wav, "--fast"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == ["1. a-five.mp3 (0:05)", "3. c-three.mp3 (0:03)"], "the track without a highlight is passed over")
        let first = try AudioFixtures.referencePCM(of: paths[0]), third = try AudioFixtures.referencePCM(of: paths[2])
        let expected = Array(first[(44_100 * 2)..<(3 * 44_100 * 2)]) + Array(third[(2 * 44_100 * 2)...])
        #expect(try AudioFixtures.pcm(ofWAV: wav) == expected)
        #expect(try history().isEmpty, "a highlight is not a play")
        // Cleared with an empty value: the whole track plays again.
        #expect(try songbox.run(["edit", id(0), "highlight="]).status == 0)
        let again = try songbox.run(["play", "--highlights", "sort:path", "--output", "null", "--fast"])
        #expect(again.lines == ["3. c-three.mp3 (0:03)"])
    }

    @Test func theVolumeIsSetAndKept() throws {
        let path = try #require(try makeLibrary([("two", 2)]).first)
        let half = folder + "/half.wav", again = folder + "/again.wav"
        let first = try songbox.run(["play", "path:/two.mp3", "--volume", "50", "--output", "wav:" + half, "--fast"])
        #expect(first.status == 0, "\(first.stderr)")
        let expected = try AudioFixtures.referencePCM(of: path).map { Int16((Double($0) * 0.5).rounded()) }
        #expect(try AudioFixtures.pcm(ofWAV: half) == expected)
        // The next run keeps it (saved with the queue).
        #expect(try songbox.run(["play", "path:/two.mp3", "--output", "wav:" + again, "--fast"]).status == 0)
        #expect(try AudioFixtures.pcm(ofWAV: again) == expected)
        let silent = try songbox.run(["play", "path:/two.mp3", "--volume", "0", "--output", "null", "--fast"])
        #expect(!silent.stderr.contains("volume is 0"), "asked for: no warning")
        let warned = try songbox.run(["play", "path:/two.mp3", "--output", "null", "--fast"])
        #expect(warned.stderr.contains("the volume is 0 (saved from before): set it with --volume 100"))
        #expect(try songbox.run(["play", "--volume", "101", "x"]).status != 0)
    }

    @Test func ctrlCStopsCleanlyAndPlayResumesThere() throws {
        let path = try #require(try makeLibrary([("thirty", 30), ("one", 1)]).first)
        let player = try Background(songbox, ["play", "path:/thirty.mp3", "--output", "null"], folder: folder)
        try #require(player.wait(until: { player.stdout.contains("1. thirty.mp3 (0:30)") }), "\(player.stderr)")
        Thread.sleep(forTimeInterval: 2)
        player.signal(SIGINT)
        let status = try #require(player.exitStatus(), "still running after SIGINT")
        #expect(status == 0)
        #expect(player.stdout == "1. thirty.mp3 (0:30)\n")
        // About 2 s of 30 is neither a play nor a skip: nothing is recorded.
        #expect(player.stderr == "Played 1 track: 0 plays and 0 skips recorded.\n")
        #expect(try history().isEmpty)

        // A script in between plays in a session of its own: it does not start from the saved
        // queue, and what it queues, plays and sets is not saved (issue 25).
        let script = folder + "/between.lua"
        try """
            local sb = require "songbox"
            print(#sb.queue.list())
            sb.player.volume(20)
            assert(sb.queue.add(sb.library.query("path:/one.mp3")))
            sb.player.play()
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let between = try songbox.run(["run", "--fast", "--output", "null", script])
        #expect(between.status == 0 && between.lines == ["0"], "\(between.stdout)\(between.stderr)")

        // Without a query, play picks up the saved queue where it stopped.
        let wav = folder + "/resumed.wav"
        let resumed = try songbox.run(["play", "--output", "wav:" + wav, "--fast"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.lines == ["1. thirty.mp3 (0:30)"])
        let rest = try AudioFixtures.pcm(ofWAV: wav)
        #expect(rest.count < 30 * 44_100 * 2 && rest.count > 25 * 44_100 * 2, "\(Double(rest.count) / 88_200) s")
        // The rest of the track exactly: the resume seeks to the sample.
        #expect(Array(try AudioFixtures.referencePCM(of: path).suffix(rest.count)) == rest)
    }

    @Test func shufflePlaysEveryTrackOnce() throws {
        let names = ["a", "b", "c", "d", "e"]
        try makeLibrary(names.map { ($0, 1) })
        let wav = folder + "/out.wav"
        let output = try songbox.run(["play", "path:/music/", "--shuffle", "--output", "wav:" + wav, "--fast"])
        #expect(output.status == 0, "\(output.stderr)")
        // "N. x.mp3 (0:01)", positions 1 to 5 in the shuffled queue.
        #expect(output.lines.count == 5)
        #expect(output.lines.enumerated().allSatisfy { $0.element.hasPrefix("\($0.offset + 1). ") })
        let played = output.lines.compactMap { $0.split(separator: " ").dropFirst().first.map { String($0.dropLast(4)) } }
        #expect(played.sorted() == names)
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 5 * 44_100 * 2)
        #expect(try history().count == 5)
    }

    @Test func aQueryThatFindsNothingIsAClearError() throws {
        try makeLibrary([("one", 1)])
        let wav = folder + "/out.wav"
        let unknown = try songbox.run(["play", "nosuchthing:zzz", "--output", "wav:" + wav, "--fast"])
        #expect(unknown.status != 0)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("unknown field 'nosuchthing'"), "\(unknown.stderr)")
        let none = try songbox.run(["play", "title:=zzzz", "--output", "wav:" + wav, "--fast"])
        #expect(none.status != 0)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr.contains("no track matches title:=zzzz"), "\(none.stderr)")
        // Nothing saved either: without a query there is nothing to resume.
        let empty = try songbox.run(["play", "--output", "wav:" + wav, "--fast"])
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("the queue is empty"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wav))
    }

    @Test func aCorruptFileIsReportedAndSkipped() throws {
        let paths = try makeLibrary([("1-first", 2), ("2-corrupt", 2), ("3-last", 2)])
        // The file goes bad after the scan.
        _ = try AudioFixtures.corrupt(in: music, name: "2-corrupt")
        let wav = folder + "/out.wav"
        let output = try songbox.run(["play", "path:/music/", "sort:path", "--output", "wav:" + wav, "--fast"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines == ["1. 1-first.mp3 (0:02)", "3. 3-last.mp3 (0:02)"])
        #expect(output.stderr == "songbox: cannot play \(paths[1]): no MPEG audio found; skipped\n"
                + "Played 2 tracks: 2 plays and 0 skips recorded.\n")
        let expected = try AudioFixtures.referencePCM(of: paths[0]) + AudioFixtures.referencePCM(of: paths[2])
        #expect(try AudioFixtures.pcm(ofWAV: wav) == expected)
    }

    /// Every track fails to open (issue 18: the wait for `stopped` never ended). Run under
    /// `timeout`, so a hang fails the test instead of holding up the suite.
    @Test func aQueueOfUnplayableTracksEndsAtOnceWithEachFailureAndStatusOne() throws {
        let paths = try makeLibrary([("1-gone", 1), ("2-corrupt", 1), ("3-corrupt", 1)])
        try FileManager.default.removeItem(atPath: paths[0])
        _ = try AudioFixtures.corrupt(in: music, name: "2-corrupt")
        _ = try AudioFixtures.corrupt(in: music, name: "3-corrupt")
        let output = try SongboxRunner.run(executable: "/usr/bin/timeout", [
            "60", SongboxRunner.executable, "--db", songbox.database, "play", "path:/music/", "sort:path", "--output", "null", "--fast",
        ])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "songbox: cannot play \(paths[0]): no such file; skipped\n"
                + "songbox: cannot play \(paths[1]): no MPEG audio found; skipped\n"
                + "songbox: cannot play \(paths[2]): no MPEG audio found; skipped\n"
                + "Played 0 tracks: 0 plays and 0 skips recorded.\n")
    }

    /// The summary says what the history holds: when SQLite refuses the rows (here a trigger
    /// aborts them, as a full disk would), nothing is claimed and the status is 1.
    @Test func playsThatCouldNotBeRecordedAreNotClaimed() throws {
        try makeLibrary([("one", 1), ("two", 1)])
        _ = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TRIGGER refuse BEFORE INSERT ON history BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
            db.commit()
            """, songbox.database])
        let output = try songbox.run(["play", "path:/music/", "sort:path", "--output", "null", "--fast"])
        #expect(output.status == 1)
        #expect(output.lines.count == 2)
        #expect(output.stderr.contains("could not record the play of \(music)/one.mp3"), "\(output.stderr)")
        #expect(output.stderr.hasSuffix("Played 2 tracks: 0 plays and 0 skips recorded; 2 could not be recorded (see above).\n"),
                "\(output.stderr)")
    }

    /// What the scanner indexes the player plays: tags that lie about their size (more than the
    /// file holds) or cannot be walked were indexed from where the audio really begins, and the
    /// player starts there too (it used to hand libmpg123 the raw file, which skipped the audio).
    @Test func filesWithLyingTagsPlayAsTheyWereIndexed() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        for (index, version) in [3, 4].enumerated() {
            var liar = ID3v2Tag(version: version, frames: [.text("TIT2", "Liar \(version)", encoding: .latin1)])
            liar.declaredSizeOverride = 100_000_000
            try Data(Fixtures.mp3(v2: liar, audio: audio)).write(to: URL(fileURLWithPath: music + "/\(index)-liar.mp3"))
        }
        var damaged = ID3v2Tag(version: 3, frames: [.text("TIT2", "Unreachable ÿ", encoding: .latin1)],
                               unsynchronised: true, extendedHeader: true).bytes()
        damaged.replaceSubrange(10..<14, with: [0x00, 0x10, 0x00, 0x00])
        try Data(damaged + audio).write(to: URL(fileURLWithPath: music + "/2-damaged.mp3"))
        let scan = try songbox.run(["scan", music])
        #expect(scan.stdout.contains("3 added") && scan.stdout.contains("0 unreadable"), "\(scan.stdout)")

        let wav = folder + "/out.wav"
        let output = try songbox.run(["play", "path:/music/", "sort:path", "--output", "wav:" + wav, "--fast"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr == "Played 3 tracks: 3 plays and 0 skips recorded.\n")
        let tone = try AudioFixtures.referencePCM(of: Fixtures.audioPath("tone-mono-44k.mp3"))
        #expect(try AudioFixtures.pcm(ofWAV: wav) == tone + tone + tone)
    }

    @Test func anOutputFileInAFolderThatIsNotThereIsRefusedBeforePlaying() throws {
        try makeLibrary([("one", 1)])
        let output = try songbox.run(["play", "--output", "wav:\(folder)/missing/dir/x.wav", "--fast", "path:/one.mp3"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("the folder \(folder)/missing/dir does not exist"), "\(output.stderr)")
        #expect(!output.stderr.contains("Usage:"), "an output that cannot be is no mistyped option: \(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(try history().isEmpty)
    }

    @Test func aMissingALSADeviceIsRetriedWithoutSpinning() throws {
        try makeLibrary([("two", 2)])
        let player = try Background(songbox, ["play", "path:/two.mp3", "--output", "alsa:songbox-missing"], folder: folder)
        let told = "songbox: output alsa:songbox-missing: cannot open ALSA device \"songbox-missing\""
        try #require(player.wait(until: { player.stderr.contains(told) }), "\(player.stderr)")
        #expect(player.stderr.contains("; retrying"))
        Thread.sleep(forTimeInterval: 3)
        #expect(player.isRunning, "gave up: \(player.stderr)")
        // Waiting between retries, not spinning: a bound on CPU time, not a timing check.
        let cpu = try #require(player.cpuSeconds)
        #expect(cpu < 0.5, "\(cpu) s of CPU")
        player.signal(SIGTERM)
        let status = try #require(player.exitStatus(), "still running after SIGTERM")
        #expect(status == 0)
        // Told once, not at every retry.
        #expect(player.stderr.components(separatedBy: told).count == 2, "\(player.stderr)")
        #expect(player.stderr.hasSuffix("Played 1 track: 0 plays and 0 skips recorded.\n"))
    }

    /// With no sound device, `play` says so and ends by itself once the player has waited for
    /// the device as long as it does (`Player.outputPatience`), with status 1: it showed the
    /// retry and then waited in silence for ever (issue 25).
    @Test func withNoSoundDevicePlaySaysSoAndEnds() throws {
        try makeLibrary([("two", 2)])
        let player = try Background(songbox, ["play", "path:/two.mp3", "--output", "alsa:songbox-missing"], folder: folder)
        let status = try #require(player.exitStatus(within: 120), "still waiting: \(player.stderr)")
        #expect(status == 1)
        #expect(player.stderr.contains("no sound: output alsa:songbox-missing: cannot open ALSA device \"songbox-missing\""),
                "\(player.stderr)")
        #expect(player.stderr.contains("nothing could be heard for 15 s, so playback stopped"), "\(player.stderr)")
        #expect(try history().isEmpty)
    }

    /// The device appears while songbox retries: here an ALSA PCM defined in the user's
    /// ~/.asoundrc, written after the first failure (a file plugin into a raw capture file).
    /// alsa-lib does not notice a new ~/.asoundrc by itself; ALSAOutput drops ALSA's parsed
    /// configuration before each retry, so it is read again.
    @Test func playbackResumesWhenTheDeviceComesBack() throws {
        let path = try #require(try makeLibrary([("two", 2)]).first)
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let config = home + "/.asoundrc", capture = home + "/capture.raw"
        let player = try Background(songbox, ["play", "path:/two.mp3", "--output", "alsa:songboxtest"], folder: folder,
                                    environment: ["HOME": home])
        try #require(player.wait(until: { player.stderr.contains("cannot open ALSA device \"songboxtest\"") }),
                     "\(player.stderr)")
        #expect(!FileManager.default.fileExists(atPath: capture))
        try """
            pcm.songboxtest { type file; slave.pcm null; file "\(capture)"; format raw }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let status = try #require(player.exitStatus(within: 60), "still retrying: \(player.stderr)")
        #expect(status == 0)
        #expect(player.stderr.hasSuffix("Played 1 track: 1 play and 0 skips recorded.\n"), "\(player.stderr)")
        // The whole track went to the device once it was there: 2 s of 16-bit stereo.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: capture))
        #expect(bytes.count == 2 * 44_100 * 4)
        let reference = try AudioFixtures.referencePCM(of: path)
        #expect(bytes == reference.withUnsafeBytes { Data($0) })
    }
}

extension PlayCommandTests {
    /// Builds the test ALSA plugin (Tests/Fixtures/alsa/songboxfault.c) and writes an ALSA
    /// config defining `pcm.fault` with `options`; returns the ALSA_CONFIG_PATH to run with.
    func faultDevice(capture: String, options: String) throws -> String {
        let library = folder + "/libasound_module_pcm_songboxfault.so"
        let source = Fixtures.packageRoot + "/Tests/Fixtures/alsa/songboxfault.c"
        // -DPIC: a plugin built as a shared object takes alsa-lib's symbols at load time.
        try AudioFixtures.run("cc", ["-shared", "-fPIC", "-DPIC", "-Wall", "-Werror", "-o", library, source, "-lasound"])
        let config = folder + "/fault.conf"
        try """
            pcm_type.songboxfault { lib "\(library)" }
            pcm.fault { type songboxfault; file "\(capture)"; \(options) }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        return "/usr/share/alsa/alsa.conf:" + config
    }

    /// Underrun and suspend come from a real ALSA PCM (the test plugin, through alsa-lib), as
    /// a card gives them: recovered without skipping the track, losing or repeating a sample.
    @Test func anUnderrunAndASuspendAreRecoveredWithoutLosingASample() throws {
        let path = try #require(try makeLibrary([("four", 4)]).first)
        let capture = folder + "/capture.raw"
        let configPath = try faultDevice(capture: capture, options: "xrun_at 30000; suspend_at 90000")
        let run = try songbox.run(["play", "path:/four.mp3", "--output", "alsa:fault"],
                                  environment: ["ALSA_CONFIG_PATH": configPath])
        #expect(run.status == 0)
        #expect(run.stderr == "Played 1 track: 1 play and 0 skips recorded.\n", "no output error")
        let events = try String(contentsOfFile: capture + ".events", encoding: .utf8)
        #expect(events.hasPrefix("underrun at ") && events.contains("\nsuspend at ") && events.hasSuffix("\n"), "\(events)")
        #expect(events.split(separator: "\n").count == 2)
        let played = try Data(contentsOf: URL(fileURLWithPath: capture))
        let reference = try AudioFixtures.referencePCM(of: path)
        #expect(played == reference.withUnsafeBytes { Data($0) })
    }

    /// A device unplugged while playing: an output error, retries while it is gone, and the
    /// track goes on from where it was once it is back.
    @Test func anUnpluggedDeviceIsWaitedForAndPlaybackGoesOn() throws {
        let path = try #require(try makeLibrary([("four", 4)]).first)
        let capture = folder + "/capture.raw", unplugged = folder + "/unplugged"
        // The plugin creates `unplugged` when it vanishes, and opens again once it is deleted.
        let configPath = try faultDevice(capture: capture, options: "gone \"\(unplugged)\"; vanish_at 44100")
        let player = try Background(songbox, ["play", "path:/four.mp3", "--output", "alsa:fault"], folder: folder,
                                    environment: ["ALSA_CONFIG_PATH": configPath])
        try #require(player.wait(until: { player.stderr.contains("ALSA device \"fault\" went away") }), "\(player.stderr)")
        #expect(try String(contentsOfFile: capture + ".events", encoding: .utf8).hasPrefix("vanished at "))
        try FileManager.default.removeItem(atPath: unplugged)   // plugged back in
        let status = try #require(player.exitStatus(within: 60), "still waiting: \(player.stderr)")
        #expect(status == 0)
        #expect(player.stderr.hasSuffix("Played 1 track: 1 play and 0 skips recorded.\n"), "\(player.stderr)")
        // Everything was heard; the chunk being written when the device vanished plays again
        // from its start, so at most one chunk (4096 frames) is heard twice.
        let played = try Data(contentsOf: URL(fileURLWithPath: capture)).count / 4
        let frames = try AudioFixtures.referencePCM(of: path).count / 2
        #expect(played >= frames && played <= frames + 4096, "\(played) frames of \(frames)")
    }
}

/// `songbox` running in the background, its output going to files, for tests that signal it.
final class Background {
    let process = Process()
    private let outPath: String
    private let errPath: String

    init(_ songbox: SongboxRunner, _ arguments: [String], folder: String, environment: [String: String] = [:]) throws {
        let id = UUID().uuidString
        outPath = folder + "/\(id).out"
        errPath = folder + "/\(id).err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: SongboxRunner.executable)
        process.arguments = ["--db", songbox.database] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Polls `condition` until it holds (true) or the process ends or `seconds` pass (false).
    /// The limit only keeps a broken build from hanging the test run.
    func wait(upTo seconds: Double = 30, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            if !process.isRunning { return condition() }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// The exit status, once the process has ended; nil (and the process killed) when it is still
    /// running after `seconds`.
    func exitStatus(within seconds: Double = 30) -> Int32? {
        guard wait(upTo: seconds, until: { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// User and system CPU time so far, from /proc/PID/stat (fields 14 and 15, in clock ticks).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": field 3 (state) onwards.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
