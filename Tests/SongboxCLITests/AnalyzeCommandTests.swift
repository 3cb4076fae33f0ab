import Foundation
import GRDB
import SongboxLibrary
import SongboxTestSupport
import Testing

/// `songbox analyze` end to end: real MP3s made with sox and lame, the real binary, real SQLite.
@Suite(.serialized) struct AnalyzeCommandTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
    }

    /// `songbox ls --json QUERY`, each track's object by file name (without `.mp3`).
    func listing(_ query: [String] = []) throws -> [String: [String: Any]] {
        let output = try library.songbox.run(["ls", "--json"] + query)
        let tracks = try #require(try JSONSerialization.jsonObject(with: output.stdoutBytes) as? [[String: Any]], "\(output.stderr)")
        var byName: [String: [String: Any]] = [:]
        for track in tracks {
            let path = try #require(track["path"] as? String)
            byName[URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent] = track
        }
        return byName
    }

    func analyzedCount() throws -> Int {
        try DatabaseQueue(path: library.songbox.database).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM audio_features") ?? 0
        }
    }

    @Test func measuresTempoAndLoudnessReportsABrokenFileAndFiltersOnTheFeatures() throws {
        try AudioFixtures.clicks(in: music, name: "slow", bpm: 90, beats: 40)
        try AudioFixtures.clicks(in: music, name: "fast", bpm: 140, beats: 60)
        try AudioFixtures.calibratedSine(in: music, name: "sine", dBFS: -23, seconds: 10)
        try AudioFixtures.calibratedSine(in: music, name: "silence", dBFS: -200, seconds: 10)
        let broken = try AudioFixtures.clicks(in: music, name: "broken", bpm: 120, beats: 40)
        try library.scan()
        // Broken after the scan read it: decoding stops half way.
        try AudioFixtures.brokenHalfWay(broken)

        let before = try listing()
        #expect(before.count == 5)
        for track in before.values {
            for field in ["tempo", "key", "loudness", "energy", "danceability", "valence"] { #expect(track[field] is NSNull) }
        }

        let run = try library.songbox.run(["analyze"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("undecodable: \(broken): "), "\(run.stdout)")
        #expect(run.stdout.contains("Analyzed 4 tracks"), "\(run.stdout)")
        #expect(run.stdout.contains("1 undecodable, 0 already analyzed"))

        let after = try listing()
        let slow = try #require(after["slow"]?["tempo"] as? Double)
        #expect(abs(slow - 90) / 90 < 0.02, "\(slow)")
        let fast = try #require(after["fast"]?["tempo"] as? Double)
        #expect(abs(fast - 140) / 140 < 0.02, "\(fast)")
        let loudness = try #require(after["sine"]?["loudness"] as? Double)
        #expect(abs(loudness - -23) <= 0.2, "\(loudness)")
        for field in ["tempo", "loudness", "energy"] {
            #expect(after["silence"]?[field] is NSNull)
            #expect(after["broken"]?[field] is NSNull)
        }
        for name in ["slow", "fast", "sine"] {
            let energy = try #require(after[name]?["energy"] as? Double)
            #expect((0...1).contains(energy))
            #expect(after[name]?["key"] is String)
        }

        #expect(try Set(listing(["tempo:85..95"]).keys) == ["slow"])
        #expect(try Set(listing(["tempo>100"]).keys) == ["fast"])
        #expect(try Set(listing(["bpm:80..150", "energy:0..1"]).keys) == ["slow", "fast"])
        let order = try library.songbox.run(["ls", "tempo:1..", "sort:-tempo"]).lines.joined(separator: "\n")
        let fastAt = try #require(order.range(of: "fast")), slowAt = try #require(order.range(of: "slow"))
        #expect(fastAt.lowerBound < slowAt.lowerBound)
        let negated = try listing(["-tempo:1.."])
        #expect(Set(negated.keys) == ["sine", "silence", "broken"])

        let show = try library.songbox.run(["show", "--json", music + "/sine.mp3"])
        let shown = try #require(try JSONSerialization.jsonObject(with: show.stdoutBytes) as? [String: Any])
        let analysis = try #require(shown["analysis"] as? [String: Any], "\(show.stdout)")
        // ReplayGain 2.0: what brings it to -18 LUFS; the sine's true peak is its -23 dBFS.
        #expect(abs(try #require(analysis["track_gain"] as? Double) - (-18 - loudness)) < 0.01)
        #expect(abs(try #require(analysis["true_peak"] as? Double) - -23) < 0.5)
        #expect(analysis["album_gain"] is NSNull)  // untagged: no album
        let unanalyzed = try library.songbox.run(["show", "--json", broken])
        #expect((try JSONSerialization.jsonObject(with: unanalyzed.stdoutBytes) as? [String: Any])?["analysis"] is NSNull)

        // Nothing left but the broken file, which is tried again (and reported again).
        let again = try library.songbox.run(["analyze"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("Analyzed 0 tracks"), "\(again.stdout)")
        #expect(again.stdout.contains("1 undecodable, 4 already analyzed"))
        #expect(try library.songbox.run(["analyze", "tempo:1.."]).stdout.contains("All 2 matching tracks are analyzed."))
        #expect(try library.songbox.run(["analyze", "artist:nobody"]).status == 1)
    }

    /// The same clicks and the same sine in every format songbox plays give the tempo and the
    /// loudness they give as MP3 (within what the codec changes).
    @Test func everyFormatGivesTheTempoAndLoudnessOfTheSameAudioInMP3() throws {
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        let clicks = sources + "/clicks.wav", sine = sources + "/sine.wav"
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "48000", "-c", "2", "-b", "16", clicks, "synth", "0.03", "pinknoise",
                                      "fade", "0", "0.03", "0.025", "pad", "0", String(format: "%.6f", 60 / 128.0 - 0.03),
                                      "repeat", "47", "gain", "-6"])
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "48000", "-c", "2", "-b", "16", sine, "synth", "10", "sine", "1000",
                                      "vol", "-23dB"])
        let encodings: [AudioFixtures.Encoding] = [.flac, .oggFLAC, .vorbis, .opus, .wav16, .aiff, .alac, .aac]
        for (name, source) in [("clicks", clicks), ("sine", sine)] {
            try AudioFixtures.run("lame", ["--quiet", "-b", "320", "--resample", "48", source, music + "/\(name)-mp3.mp3"])
            for encoding in encodings {
                try AudioFixtures.encode(source, as: encoding, to: music + "/\(name)-\(encoding).\(encoding.suffix)")
            }
        }
        try library.scan()
        let run = try library.songbox.run(["analyze"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Analyzed 18 tracks"), "\(run.stdout)")
        let tracks = try listing()
        let mp3Tempo = try #require(tracks["clicks-mp3"]?["tempo"] as? Double)
        let mp3Loudness = try #require(tracks["sine-mp3"]?["loudness"] as? Double)
        #expect(abs(mp3Tempo - 128) / 128 < 0.02, "\(mp3Tempo)")
        #expect(abs(mp3Loudness - -23) <= 0.2, "\(mp3Loudness)")
        for encoding in encodings {
            let tempo = try #require(tracks["clicks-\(encoding)"]?["tempo"] as? Double, "\(encoding)")
            let loudness = try #require(tracks["sine-\(encoding)"]?["loudness"] as? Double, "\(encoding)")
            #expect(abs(tempo - mp3Tempo) < 0.5, "\(encoding): tempo \(tempo) against \(mp3Tempo) in MP3")
            #expect(abs(loudness - mp3Loudness) < 0.1, "\(encoding): loudness \(loudness) against \(mp3Loudness) in MP3")
        }
    }

    @Test func aChangedFileIsAnalyzedAgain() throws {
        let path = try AudioFixtures.clicks(in: music, name: "song", bpm: 100, beats: 30)
        try library.scan()
        #expect(try library.songbox.run(["analyze"]).stdout.contains("Analyzed 1 track "))
        let first = try #require(try listing()["song"]?["tempo"] as? Double)
        #expect(abs(first - 100) / 100 < 0.02)

        // Another recording under the same name: the scan sees the change, the old features are
        // no longer shown, and the next run measures the new file.
        let replacement = try AudioFixtures.clicks(in: folder, name: "other", bpm: 150, beats: 45)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: replacement, toPath: path)
        try library.scan()
        #expect(try listing()["song"]?["tempo"] is NSNull)
        let rerun = try library.songbox.run(["analyze"])
        #expect(rerun.stdout.contains("Analyzed 1 track "), "\(rerun.stdout)")
        let second = try #require(try listing()["song"]?["tempo"] as? Double)
        #expect(abs(second - 150) / 150 < 0.02, "\(second)")
    }

    @Test func theAlbumGainWaitsForTheWholeAlbum() throws {
        try library.scanExamples()
        func analysis(_ title: String) throws -> [String: Any] {
            let id = try #require(try listing(["title:=\"\(title)\""]).values.first?["id"] as? Int)
            let show = try library.songbox.run(["show", "--json", String(id)])
            let object = try #require(try JSONSerialization.jsonObject(with: show.stdoutBytes) as? [String: Any])
            return try #require(object["analysis"] as? [String: Any], "\(title) not analyzed")
        }
        #expect(try library.songbox.run(["analyze", "album:\"Old Roads\"", "track:1"]).status == 0)
        #expect(try analysis("Old Roads")["album_gain"] is NSNull)

        #expect(try library.songbox.run(["analyze"]).stdout.contains("Analyzed 15 tracks"))
        let first = try analysis("Old Roads"), second = try analysis("The River's Lullaby")
        let album = try #require(first["album_gain"] as? Double)
        #expect(second["album_gain"] as? Double == album)
        let gains = try [first, second].map { try #require($0["track_gain"] as? Double) }
        // The album's loudness lies between its tracks' (within the histogram's 0.05 LU).
        #expect(album >= gains.min()! - 0.06 && album <= gains.max()! + 0.06, "\(album) \(gains)")
    }

    @Test func aFailingLibraryStopsTheRunAndKeepsWhatWasCommitted() throws {
        let source = try AudioFixtures.clicks(in: folder, name: "source", bpm: 120, beats: 12)
        for index in 0..<4 { try FileManager.default.copyItem(atPath: source, toPath: music + "/copy-\(index).mp3") }
        try library.scan()
        // A fault of the real SQLite: the third row refused, as a full disk would refuse it.
        try DatabaseQueue(path: library.songbox.database).write { db in
            try db.execute(sql: """
                CREATE TRIGGER full_disk BEFORE INSERT ON audio_features WHEN (SELECT count(*) FROM audio_features) >= 2
                BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END
                """)
        }
        let failed = try library.songbox.run(["analyze", "--jobs", "1"])
        #expect(failed.status != 0)
        // Said by its code, not in the trigger's (SQLite's) words: no SQLite text reaches the user.
        #expect(failed.stderr.contains("database operation failed (SQLite error 19)"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("(test)"), "\(failed.stderr)")
        #expect(failed.stdout.contains("Analyzed 2 tracks"), "\(failed.stdout)")
        #expect(try analyzedCount() == 2)

        try DatabaseQueue(path: library.songbox.database).write { db in try db.execute(sql: "DROP TRIGGER full_disk") }
        let rerun = try library.songbox.run(["analyze"])
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("Analyzed 2 tracks"), "\(rerun.stdout)")
        #expect(try analyzedCount() == 4)
    }

    @Test func aRunKilledWithSIGKILLGoesOnWhereItStopped() throws {
        let source = try AudioFixtures.clicks(in: folder, name: "source", bpm: 120, beats: 40)
        let count = 8
        for index in 0..<count { try FileManager.default.copyItem(atPath: source, toPath: music + "/copy-\(index).mp3") }
        try library.scan()

        let process = try library.songbox.start(["analyze", "--jobs", "1"])
        // Killed once the first track is committed, with the others still to do.
        let committed = SongboxRunner.killOnce(process, tries: 6000) { (try? analyzedCount()) ?? 0 }
        #expect(process.terminationReason == .uncaughtSignal)

        let integrity = try DatabaseQueue(path: library.songbox.database).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let survived = try analyzedCount()
        #expect(survived >= committed && survived > 0 && survived < count)

        let rerun = try library.songbox.run(["analyze"])
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("Analyzed \(count - survived) track"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("\(survived) already analyzed"))
        #expect(try analyzedCount() == count)
        #expect(try listing().values.allSatisfy { $0["tempo"] is Double })
    }
}
