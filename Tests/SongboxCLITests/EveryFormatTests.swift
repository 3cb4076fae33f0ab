import Foundation
import SongboxTestSupport
import Testing

/// What works for an MP3 works for every format, end to end through the binary: Hebrew tags
/// read, exact lengths seen by Lua, and a highlight that plays exactly its stretch of the track
/// (a seek to the sample in every decoder).
@Suite(.serialized) struct EveryFormatTests: TestLibrarySuite {
    let library: TestLibrary

    static let encodings: [AudioFixtures.Encoding] = [.flac, .oggFLAC, .vorbis, .opus, .wav16, .aiff, .alac, .aac]

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
    }

    /// A 3-second sweep at 48 kHz in every format and as an MP3, each file named by its format
    /// and tagged with a Hebrew title (Vorbis comments, MP4 atoms, ID3 in MP3, WAV and AIFF).
    func everyFormat() throws -> [String] {
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        let wav = try AudioFixtures.signal(sources + "/sweep.wav", frames: 3 * 48_000, rate: 48_000)
        var paths = [music + "/0-mp3.mp3"]
        try AudioFixtures.run("lame", ["--quiet", "-b", "320", wav, paths[0]])
        for (index, encoding) in Self.encodings.enumerated() {
            paths.append(try AudioFixtures.encode(wav, as: encoding, to: music + "/\(index + 1)-\(encoding).\(encoding.suffix)"))
        }
        for path in paths {
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.split(separator: "-")[1]
            try AudioFixtures.run("/usr/bin/python3", ["-c", """
                import sys, mutagen
                from mutagen.id3 import TIT2, TPE1
                path, title = sys.argv[1], sys.argv[2]
                f = mutagen.File(path)
                if isinstance(f, (mutagen.wave.WAVE, mutagen.aiff.AIFF, mutagen.mp3.MP3)):
                    if f.tags is None: f.add_tags()
                    f.tags.add(TIT2(encoding=3, text=title)); f.tags.add(TPE1(encoding=3, text="להקת הגליל"))
                else:
                    f = mutagen.File(path, easy=True)
                    f["title"] = title; f["artist"] = "להקת הגליל"
                f.save()
                """, path, "שיר \(name)"])
        }
        return paths
    }

    @Test func tagsLengthsAndHighlightsOfEveryFormat() throws {
        let paths = try everyFormat()
        try library.scan()
        // Lua reads every file's Hebrew title and exact length.
        let script = folder + "/list.lua"
        try """
            for _, t in ipairs(songbox.library.query("sort:path")) do
              print(t.path:match("([^/]+)$"), t.title, t.artist, string.format("%.3f", t.duration))
            end
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let listed = try songbox.run(["run", script])
        #expect(listed.status == 0, "\(listed.stderr)")
        let expected = paths.map { path in
            let file = URL(fileURLWithPath: path).lastPathComponent
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.split(separator: "-")[1]
            return "\(file)\tשיר \(name)\tלהקת הגליל\t3.000"
        }
        #expect(listed.lines == expected, "\(listed.stdout)")

        // A highlight of each, 1 s to 2 s: exactly that stretch of the track played whole.
        let ids = try songbox.run(["ls", "--json", "sort:path"])
        let tracks = try #require(try JSONSerialization.jsonObject(with: ids.stdoutBytes) as? [[String: Any]])
        #expect(tracks.count == paths.count)
        for track in tracks {
            let edit = try songbox.run(["edit", String(describing: track["id"]!), "highlight=1..2"])
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        let whole = folder + "/whole.wav", highlights = folder + "/highlights.wav"
        #expect(try songbox.run(["play", "sort:path", "--output", "wav:" + whole, "--fast"]).status == 0)
        let played = try songbox.run(["play", "--highlights", "sort:path", "--output", "wav:" + highlights, "--fast"])
        #expect(played.status == 0, "\(played.stderr)")
        let all = try AudioFixtures.pcm(ofWAV: whole), parts = try AudioFixtures.pcm(ofWAV: highlights)
        let track = 3 * 48_000 * 2, part = 48_000 * 2
        #expect(all.count == paths.count * track && parts.count == paths.count * part, "\(all.count) \(parts.count)")
        guard all.count == paths.count * track, parts.count == paths.count * part else { return }
        for (index, path) in paths.enumerated() {
            let start = index * track + 48_000 * 2
            let stretch = Array(all[start..<(start + part)])
            let heard = Array(parts[(index * part)..<((index + 1) * part)])
            let difference = largestDifference(heard, stretch) ?? .max
            // Lossy decoders that settle after a seek (Opus, AAC) come within a step of 16 bits.
            let tolerance = path.hasSuffix("opus") || path.hasSuffix("aac.m4a") ? 2 : 0
            #expect(difference <= tolerance, "\(URL(fileURLWithPath: path).lastPathComponent): \(difference) apart")
        }
    }
}
