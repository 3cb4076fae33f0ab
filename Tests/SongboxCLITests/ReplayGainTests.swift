import Foundation
import SongboxTestSupport
import Testing

/// ReplayGain in the rendered samples: each track of a real render (the built `songbox`,
/// libmpg123 decoding, the WAV output) is compared sample by sample with the `mpg123`
/// command's decode of the same file times the gain expected.
@Suite struct ReplayGainTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
    }

    /// No config file of the developer's: only what a test sets.
    var noConfig: [String: String] { ["SONGBOX_CONFIG": "/dev/null"] }

    /// A 2 s sine (amplitude 0.5) as `music/<name>.mp3`, in `album` by `artist`, with the
    /// `replaygain_*` TXXX frames of `gains` (`["track_gain": "-6 dB", ...]`).
    @discardableResult
    func tagged(_ name: String, album: String = "Levels", gains: [String: String] = [:], frequency: Double = 440,
                dBFS: Double? = nil) throws -> String {
        let source: String
        if let dBFS {
            source = try AudioFixtures.calibratedSine(in: folder, name: name, dBFS: dBFS, seconds: 2)
        } else {
            source = try AudioFixtures.tone(in: folder, name: name, seconds: 2, frequency: frequency)
        }
        let path = music + "/" + name + ".mp3"
        let frames: [ID3Frame] = [.text("TIT2", name), .text("TPE1", "The Meters"), .text("TALB", album)]
            + gains.sorted { $0.key < $1.key }.map { .userText(description: "replaygain_" + $0.key, value: $0.value) }
        try Fixtures.writeMP3(to: path, v2: ID3v2Tag(version: 3, frames: frames), audio: [UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        return path
    }

    /// `songbox play` of `query` into a WAV file, as fast as possible; its samples.
    func play(_ arguments: [String], environment: [String: String]? = nil) throws -> [Int16] {
        let wav = folder + "/play-\(UUID().uuidString).wav"
        let output = try songbox.run(["play", "--output", "wav:" + wav, "--fast"] + arguments, environment: environment ?? noConfig)
        try #require(output.status == 0, "\(output.stderr)")
        return try AudioFixtures.pcm(ofWAV: wav)
    }

    /// Checks that `rendered` is the files' decodes back to back, each times its factor (to
    /// within the rounding to 16 bits), and that no sample was clipped.
    func expectGains(_ rendered: [Int16], _ expected: [(path: String, scale: Double)],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        var offset = 0
        for (path, scale) in expected {
            let reference = try AudioFixtures.referencePCM(of: path)
            guard offset + reference.count <= rendered.count else {
                Issue.record("the render ends before \(path)", sourceLocation: sourceLocation)
                return
            }
            var worst = 0.0
            for index in reference.indices {
                worst = max(worst, abs(Double(rendered[offset + index]) - Double(reference[index]) * scale))
            }
            let heard = rms(rendered[offset..<(offset + reference.count)]) / rms(reference)
            #expect(worst <= 1, "\(path): \(worst) from the reference × \(scale) (heard × \(heard))", sourceLocation: sourceLocation)
            offset += reference.count
        }
        #expect(offset == rendered.count, "gapless: \(rendered.count / 2) frames rendered, \(offset / 2) expected",
                sourceLocation: sourceLocation)
        #expect(!rendered.contains(.max) && !rendered.contains(.min), "clipped", sourceLocation: sourceLocation)
    }

    func rms(_ samples: some Collection<Int16>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    static func scale(_ decibels: Double) -> Double { pow(10, decibels / 20) }

    /// Two tracks of one album with their own track gains and the album's gain.
    func album() throws -> (quiet: String, loud: String) {
        let quiet = try tagged("1-quiet", gains: ["track_gain": "-6.00 dB", "track_peak": "0.5", "album_gain": "-8.5 dB",
                                                  "album_peak": "0.55"], frequency: 440)
        let loud = try tagged("2-loud", gains: ["track_gain": "+3.00 dB", "track_peak": "0.55", "album_gain": "-8.5 dB",
                                                "album_peak": "0.55"], frequency: 660)
        try library.scan()
        return (quiet, loud)
    }

    @Test func trackModeAppliesEachTracksTaggedGainFromItsFirstSample() throws {
        let (quiet, loud) = try album()
        let rendered = try play(["--replay-gain", "track", "path:/music/", "sort:path"])
        // The second track's gain from its first sample: the join is checked sample by sample.
        try expectGains(rendered, [(quiet, Self.scale(-6)), (loud, Self.scale(3))])
    }

    /// A FLAC's REPLAYGAIN_TRACK_GAIN and an Opus file's R128_TRACK_GAIN (−11 dB towards
    /// −23 LUFS: −6 dB as ReplayGain) are applied from the first sample, against the reference
    /// decoders' output times the gain.
    @Test func flacAndOpusFilesAreLevelledByTheirOwnTags() throws {
        let source = try AudioFixtures.signal(folder + "/source.wav", frames: 96_000, rate: 48_000)
        let flac = music + "/levelled.flac", opus = music + "/levelled.opus"
        try AudioFixtures.run("flac", ["--silent", "-f", "-T", "REPLAYGAIN_TRACK_GAIN=-6.00 dB", "-o", flac, source])
        try AudioFixtures.run("opusenc", ["--quiet", "--comment", "R128_TRACK_GAIN=-2816", source, opus])
        try library.scan()
        for (path, encoding, tolerance) in [(flac, AudioFixtures.Encoding.flac, 1.0), (opus, .opus, 2.0)] {
            let rendered = try play(["--replay-gain", "track", "path:" + path])
            let reference = try AudioFixtures.reference(of: path, encoding: encoding, channels: 2).samples
            try #require(rendered.count == reference.count, "\(encoding): \(rendered.count) samples, \(reference.count) expected")
            let worst = zip(rendered, reference).map { abs(Double($0) - $1 * Self.scale(-6)) }.max() ?? 0
            #expect(worst <= tolerance, "\(encoding): \(worst) from the reference × −6 dB")
        }
    }

    /// An MP4's `----:com.apple.iTunes:replaygain_track_gain` (as Picard writes it, through
    /// mutagen), in ALAC and AAC, applied from the first sample against the reference decoders'
    /// output (ffmpeg, `faad`) times the gain.
    @Test func mp4FilesAreLevelledByTheirITunesFreeformTags() throws {
        let source = try AudioFixtures.signal(folder + "/source.wav", frames: 96_000, rate: 48_000)
        var paths: [(String, AudioFixtures.Encoding)] = []
        for encoding in [AudioFixtures.Encoding.alac, .aac] {
            let path = try AudioFixtures.encode(source, as: encoding, to: music + "/levelled-\(encoding).m4a")
            let tagged = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
                import sys
                from mutagen.mp4 import MP4, MP4FreeForm
                audio = MP4(sys.argv[1])
                audio["----:com.apple.iTunes:replaygain_track_gain"] = [MP4FreeForm(b"-6.00 dB")]
                audio.save()
                """, path])
            try #require(tagged.status == 0, "mutagen: \(tagged.stderr)")
            paths.append((path, encoding))
        }
        try library.scan()
        for (path, encoding) in paths {
            let rendered = try play(["--replay-gain", "track", "path:" + path])
            let reference = try AudioFixtures.reference(of: path, encoding: encoding, channels: 2, frames: 96_000).samples
            try #require(rendered.count == reference.count, "\(encoding): \(rendered.count) samples, \(reference.count) expected")
            let worst = zip(rendered, reference).map { abs(Double($0) - $1 * Self.scale(-6)) }.max() ?? 0
            #expect(worst <= 1, "\(encoding): \(worst) from the reference × −6 dB")
        }
    }

    @Test func albumModeAppliesTheAlbumsGainToEveryTrack() throws {
        let (quiet, loud) = try album()
        let rendered = try play(["--replay-gain", "album", "path:/music/", "sort:path"])
        try expectGains(rendered, [(quiet, Self.scale(-8.5)), (loud, Self.scale(-8.5))])
    }

    @Test func offAndNoSettingLeaveTheSamplesUntouched() throws {
        let (quiet, loud) = try album()
        let expected = try AudioFixtures.referencePCM(of: quiet) + AudioFixtures.referencePCM(of: loud)
        #expect(try play(["--replay-gain", "off", "path:/music/", "sort:path"]) == expected)
        #expect(try play(["path:/music/", "sort:path"]) == expected, "off by default")
    }

    /// `auto`: the album's gain while the queue plays in order, each track's own on random.
    /// Set by `songbox run --replay-gain`, and by the script itself (`songbox.player.replay_gain`).
    @Test func autoFollowsTheRandomMode() throws {
        let (quiet, loud) = try album()
        let script = folder + "/auto.lua"
        try """
            local sb = require "songbox"
            local random = songbox.args[1] == "random"
            if random then assert(sb.player.replay_gain("auto") == "auto") end
            print("mode", sb.player.replay_gain())
            sb.on("options_changed", function(ev) print("options", ev.replay_gain, tostring(ev.random)) end)
            sb.player.set{ random = random }
            sb.queue.add(sb.library.query("path:/music/ sort:path"))
            sb.on("track_started", function(ev)
              local gain = sb.player.status().replay_gain
              print("started", ev.track.path, gain.applied, gain.source, string.format("%.2f", gain.db))
            end)
            sb.player.play()
            """.write(toFile: script, atomically: true, encoding: .utf8)
        func run(_ arguments: [String]) throws -> (lines: [String], samples: [Int16]) {
            let wav = folder + "/\(UUID().uuidString).wav"
            let output = try songbox.run(["run", "--output", "wav:" + wav, "--fast"] + arguments, environment: noConfig)
            try #require(output.status == 0, "\(output.stderr)")
            return (output.lines, try AudioFixtures.pcm(ofWAV: wav))
        }
        let inOrder = try run(["--replay-gain", "auto", script, "in-order"])
        #expect(inOrder.lines == ["mode\tauto", "started\t\(quiet)\talbum\ttags\t-8.50", "started\t\(loud)\talbum\ttags\t-8.50"])
        try expectGains(inOrder.samples, [(quiet, Self.scale(-8.5)), (loud, Self.scale(-8.5))])

        let shuffled = try run([script, "random"])
        let order = shuffled.lines.filter { $0.hasPrefix("started") }.map { $0.split(separator: "\t")[1] }.map(String.init)
        try #require(Set(order) == [quiet, loud], "\(shuffled.lines)")
        #expect(shuffled.lines.first == "mode\tauto")
        #expect(shuffled.lines.contains("options\tauto\ttrue"), "options_changed carries the mode: \(shuffled.lines)")
        let trackGains = [quiet: -6.0, loud: 3.0]
        try expectGains(shuffled.samples, order.map { ($0, Self.scale(trackGains[$0]!)) })
    }

    /// A mode set while a track plays applies from the next sample rendered: on a stepped
    /// `--fast` run, the timer's own sample.
    @Test func aModeChangedWhilePlayingAppliesFromTheNextSample() throws {
        let (quiet, _) = try album()
        let script = folder + "/switch.lua"
        try """
            local sb = require "songbox"
            sb.queue.add(sb.library.query("path:1-quiet"))
            sb.player.play()
            sb.after(1, function() assert(sb.player.replay_gain("track") == "track") end)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let wav = folder + "/switch.wav"
        let output = try songbox.run(["run", "--output", "wav:" + wav, "--fast", script], environment: noConfig)
        try #require(output.status == 0, "\(output.stderr)")
        let rendered = try AudioFixtures.pcm(ofWAV: wav), reference = try AudioFixtures.referencePCM(of: quiet)
        try #require(rendered.count == reference.count)
        let switched = 44_100 * 2
        #expect(Array(rendered[..<switched]) == Array(reference[..<switched]), "off for the first second")
        let worst = (switched..<reference.count).map { abs(Double(rendered[$0]) - Double(reference[$0]) * Self.scale(-6)) }.max() ?? 0
        #expect(worst <= 1, "track gain from 1 s on: \(worst)")
    }

    /// A +10 dB gain on a file whose peak is 0.9 would clip: the gain is capped so that gain ×
    /// peak is 1 (MPD's replay_gain_limit).
    @Test func thePeakLimitsTheGain() throws {
        let boosted = try tagged("boosted", gains: ["track_gain": "10 dB", "track_peak": "0.9"])
        try library.scan()
        let rendered = try play(["--replay-gain", "track", "path:boosted"])
        try expectGains(rendered, [(boosted, 1 / 0.9)])
        #expect(1 / 0.9 < Self.scale(10))
    }

    /// Numbers no file could sensibly hold are ignored, with the reason, and never trap.
    @Test func garbageGainsAreIgnored() throws {
        let nan = try tagged("1-nan", gains: ["track_gain": "nan dB", "track_peak": "1e300"])
        let huge = try tagged("2-huge", gains: ["track_gain": "1e300 dB", "album_gain": "-inf dB", "album_peak": "nan"])
        try library.scan()
        for mode in ["track", "album", "auto"] {
            let rendered = try play(["--replay-gain", mode, "path:/music/", "sort:path"])
            try expectGains(rendered, [(nan, 1), (huge, 1)])
        }
        let script = folder + "/why.lua"
        try """
            local sb = require "songbox"
            sb.queue.add(sb.library.query("path:/music/ sort:path"))
            sb.on("track_started", function(ev)
              for _, why in ipairs(sb.player.status().replay_gain.ignored or {}) do print(why) end
            end)
            sb.player.play()
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let output = try songbox.run(["run", "--output", "null", "--fast", "--replay-gain", "track", script], environment: noConfig)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.contains("replaygain_track_peak 1e+300 ignored: a peak is from 0 to 10"), "\(output.lines)")
        #expect(output.lines.contains("replaygain_track_gain 1e+300 dB ignored: beyond ±60 dB"), "\(output.lines)")
        #expect(output.lines.contains("replaygain_album_gain -inf ignored: not a finite number"), "\(output.lines)")
    }

    /// Without tags, the analysis's gains: the track's own, and the album's once every track of
    /// the album is analyzed (docs/moods.md); before that, album mode takes the track's.
    @Test func theAnalysisGivesTheGainWhenTheTagsDoNot() throws {
        let loud = try tagged("1-loud", dBFS: -10)
        let soft = try tagged("2-soft", dBFS: -16)
        try library.scan()
        func analysis(_ path: String) throws -> [String: Any] {
            let show = try songbox.run(["show", "--json", path])
            let object = try #require(try JSONSerialization.jsonObject(with: show.stdoutBytes) as? [String: Any])
            return try #require(object["analysis"] as? [String: Any], "\(path) not analyzed: \(show.stdout)")
        }
        func gain(_ path: String, _ key: String) throws -> Double { try #require(try analysis(path)[key] as? Double) }

        // Half the album analyzed: the loud track has its track gain, in album mode too; the soft one none.
        #expect(try songbox.run(["analyze", "path:1-loud"]).status == 0)
        let loudTrack = try gain(loud, "track_gain")
        #expect(abs(loudTrack - -8) < 0.5, "a -10 dBFS sine is about -10 LUFS: \(loudTrack)")
        try expectGains(try play(["--replay-gain", "album", "path:/music/", "sort:path"]), [(loud, Self.scale(loudTrack)), (soft, 1)])

        #expect(try songbox.run(["analyze"]).status == 0)
        let softTrack = try gain(soft, "track_gain"), album = try gain(soft, "album_gain")
        #expect(try gain(loud, "album_gain") == album)
        #expect(album < softTrack && album > loudTrack, "the album's gain lies between its tracks': \(album)")
        let softPeak = try gain(soft, "track_peak")
        // About +2 dB on a sine peaking at 0.16: far from the limit.
        #expect(Self.scale(softTrack) * softPeak < 1)
        try expectGains(try play(["--replay-gain", "track", "path:/music/", "sort:path"]),
                        [(loud, Self.scale(loudTrack)), (soft, Self.scale(softTrack))])
        try expectGains(try play(["--replay-gain", "album", "path:/music/", "sort:path"]),
                        [(loud, Self.scale(album)), (soft, Self.scale(album))])
    }

    /// The file's tags win over the analysis.
    @Test func theTagsWinOverTheAnalysis() throws {
        let path = try tagged("tagged", gains: ["track_gain": "-2 dB"])
        try library.scan()
        #expect(try songbox.run(["analyze"]).status == 0)
        try expectGains(try play(["--replay-gain", "track", "path:tagged"]), [(path, Self.scale(-2))])
    }

    /// The config file's keys: the mode, the preamp on tracks with ReplayGain and the one on
    /// tracks without; `--replay-gain` comes first. A saved queue gets its gains again.
    @Test func theConfigSetsTheModeAndThePreamps() throws {
        let tagged = try self.tagged("1-tagged", gains: ["track_gain": "-6 dB", "album_gain": "-4 dB"])
        let bare = try self.tagged("2-bare")
        try library.scan()
        let config = folder + "/config"
        try """
            replay_gain = album
            replay_gain_preamp = 1.5
            replay_gain_missing_preamp = -3
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["SONGBOX_CONFIG": config]
        try expectGains(try play(["path:/music/", "sort:path"], environment: environment),
                        [(tagged, Self.scale(-4 + 1.5)), (bare, Self.scale(-3))])
        // The queue as saved, restored without the gains it held: read again from the library.
        try expectGains(try play(["--replay-gain", "track"], environment: environment),
                        [(tagged, Self.scale(-6 + 1.5)), (bare, Self.scale(-3))])

        try "replay_gain = loud\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try songbox.run(["play", "--output", "null", "--fast"], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("replay_gain is off, track, album or auto, got 'loud'"), "\(refused.stderr)")
        try "replay_gain_preamp = 40\n".write(toFile: config, atomically: true, encoding: .utf8)
        let tooMuch = try songbox.run(["play", "--output", "null", "--fast"], environment: environment)
        #expect(tooMuch.status != 0 && tooMuch.stderr.contains("replay_gain_preamp is dB from -15 to 15"), "\(tooMuch.stderr)")
        let badFlag = try songbox.run(["play", "--replay-gain", "loud", "--output", "null", "--fast"], environment: noConfig)
        #expect(badFlag.status != 0 && badFlag.stderr.contains("loud"), "\(badFlag.stderr)")
    }
}

/// The daemon's mode: `--replay-gain`, then MPD's `replay_gain_mode` (mpc's `replaygain`).
@Suite struct ReplayGainDaemonTests {
    @Test func mpdClientsReadAndSetTheMode() throws {
        let own = try TestLibrary()
        try own.scanExamples()
        let port = try freePort()
        let daemon = try DaemonProcess(database: own.songbox.database, folder: own.folder, arguments: [
            "--plugins", own.folder, "--output", "null", "--bind", "127.0.0.1:\(port)", "--replay-gain", "track",
        ], environment: ["SONGBOX_CONFIG": "/dev/null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        func mpc(_ arguments: [String]) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
        }
        #expect(try mpc(["replaygain"]).stdout == "replay_gain_mode: track\n")
        #expect(try mpc(["replaygain", "auto"]).status == 0)
        #expect(try mpc(["replaygain"]).stdout == "replay_gain_mode: auto\n")
        let refused = try mpc(["replaygain", "loud"])
        #expect(refused.status != 0 && refused.stderr.contains("Unrecognized replay gain mode"), "\(refused.stderr)")
        #expect(try mpc(["replaygain", "off"]).status == 0)
        #expect(try mpc(["replaygain"]).stdout == "replay_gain_mode: off\n")
        // `songbox play --replay-gain` through the daemon sets the daemon's mode.
        let played = try own.songbox.run(["play", "--replay-gain", "album", "artist:\"Mabel Grey\""],
                                         environment: daemon.clientEnvironment.merging(["SONGBOX_CONFIG": "/dev/null"]) { $1 })
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try mpc(["replaygain"]).stdout == "replay_gain_mode: album\n")
    }
}
