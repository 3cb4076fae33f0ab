import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// `songbox lyrics`, `art`, `show` and `ls --json` on tracks with lyrics and pictures, through
/// the built binary.
@Suite struct LyricsArtCommandTests: TestLibrarySuite {
    let library: TestLibrary
    static let picture = ImageFixtures.png(width: 40, height: 30, filler: 5000)
    static let cover = ImageFixtures.jpeg(width: 600, height: 500, filler: 3000)

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music + "/covered", withIntermediateDirectories: true)
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        func write(_ name: String, _ frames: [ID3Frame], version: Int = 3) throws {
            try Fixtures.writeMP3(to: library.music + "/" + name, v2: ID3v2Tag(version: version, frames: [.text("TIT2", name, encoding: .utf16())] + frames),
                                  audio: audio)
        }
        try write("niqqud.mp3", [.lyrics("שָׁלוֹם עוֹלָם\nשורה", encoding: .utf16())])
        try write("synced.mp3", [.syncedLyrics([(text: "first line", time: 1000), (text: "second line", time: 62_340)], encoding: .utf16()),
                                 .picture(Self.picture, mime: "image/png", type: 3)])
        try write("lrc.mp3", [])
        try "[ar:x]\n[offset:+100]\n[00:02.00][00:04.00]לַיְלָה טוב\n".write(toFile: library.music + "/lrc.lrc", atomically: true, encoding: .utf8)
        try write("covered/plain.mp3", [])
        try Data(Self.cover).write(to: URL(fileURLWithPath: library.music + "/covered/Folder.JPG"))
        try library.scan()
    }

    func id(_ title: String) throws -> Int {
        let output = try songbox.run(["ls", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
        return try #require(list.first { $0["title"] as? String == title }?["id"] as? Int, "\(output.stdout) \(output.stderr)")
    }

    @Test func lyricsArePrintedPlainTimedAndAsJSON() throws {
        let synced = try id("synced.mp3")
        #expect(try songbox.run(["lyrics", String(synced)]).stdout == "first line\nsecond line\n")
        #expect(try songbox.run(["lyrics", "--synced", String(synced)]).stdout == "[00:01.00] first line\n[01:02.34] second line\n")
        let json = try songbox.run(["lyrics", "--json", String(synced)])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["source"] as? String == "synced")
        let lines = try #require(object["lines"] as? [[String: Any]])
        #expect(lines.map { $0["t"] as? Double } == [1.0, 62.34] && lines.map { $0["text"] as? String } == ["first line", "second line"])

        let lrc = try songbox.run(["lyrics", "--synced", String(try id("lrc.mp3"))])
        #expect(lrc.stdout == "[00:01.90] לַיְלָה טוב\n[00:03.90] לַיְלָה טוב\n")

        let plain = try songbox.run(["lyrics", "--synced", String(try id("niqqud.mp3"))])
        #expect(plain.status != 0 && plain.stderr.contains("has lyrics without times (unsynced)"), "\(plain.stderr)")
        let none = try songbox.run(["lyrics", String(try id("covered/plain.mp3"))])
        #expect(none.status != 0 && none.stderr.contains("has no lyrics"), "\(none.stderr)")
    }

    @Test func lyricsAreSearchedWithHebrewFolding() throws {
        func titles(_ query: String) throws -> [String] {
            let output = try songbox.run(["ls", "--json", query])
            let list = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
            return list.compactMap { $0["title"] as? String }.sorted()
        }
        // Without the points the lyrics have, and with points they do not have.
        #expect(try titles("lyrics:\"שלום עולם\"") == ["niqqud.mp3"])
        #expect(try titles("lyrics:לילה") == ["lrc.mp3"])
        #expect(try titles("lyrics:\"שׁוּרָה\"") == ["niqqud.mp3"])
        #expect(try titles("lyrics:\"SECOND line\"") == ["synced.mp3"])
    }

    /// The rescan that finds an `.lrc` new beside an unchanged track reads the track again: for
    /// a `.flac` too (the walker looked for `song.f.lrc` beside `song.flac`, and found none).
    @Test func anLRCFileAddedBesideAFLACTrackIsReadAtTheNextScan() throws {
        let source = try AudioFixtures.signal(folder + "/tone.wav", frames: 44_100)
        _ = try AudioFixtures.encode(source, as: .flac, to: library.music + "/later.flac")
        try library.scan()
        let listing = try JSONSerialization.jsonObject(with: Data(try songbox.run(["ls", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        let id = String(try #require(listing.first { ($0["path"] as? String)?.hasSuffix("/later.flac") == true }?["id"] as? Int))
        #expect(try songbox.run(["lyrics", id]).status != 0)
        try "[00:00.50]שיר מאוחר\n".write(toFile: library.music + "/later.lrc", atomically: true, encoding: .utf8)
        try library.scan()
        let lyrics = try songbox.run(["lyrics", "--synced", id])
        #expect(lyrics.stdout == "[00:00.50] שיר מאוחר\n", "\(lyrics.stdout) \(lyrics.stderr)")
    }

    @Test func showAndListSayWhatLyricsAndPictureATrackHas() throws {
        let show = try songbox.run(["show", String(try id("synced.mp3"))])
        #expect(show.lines.contains { $0.hasPrefix("lyrics_source") && $0.hasSuffix("synced (2 lines)") }, "\(show.stdout)")
        #expect(show.lines.contains { $0.hasPrefix("art") && $0.hasSuffix("embedded, image/png, 40x30, \(Self.picture.count) bytes, front cover") },
                "\(show.stdout)")
        let plain = try songbox.run(["show", "--json", String(try id("covered/plain.mp3"))])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(object["lyrics_source"] is NSNull)
        let art = try #require(object["art"] as? [String: Any])
        #expect(art["source"] as? String == "file" && art["width"] as? Int == 600 && art["height"] as? Int == 500)

        let list = try JSONSerialization.jsonObject(with: Data(try songbox.run(["ls", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        let art2 = Dictionary(uniqueKeysWithValues: list.map { ($0["title"] as? String ?? "", $0["art"] as? String ?? "none") })
        #expect(art2 == ["synced.mp3": "embedded", "covered/plain.mp3": "file", "niqqud.mp3": "none", "lrc.mp3": "none"])
    }

    @Test func artWritesThePictureToAFileOrAPipeButNotToATerminal() throws {
        let synced = String(try id("synced.mp3"))
        let out = folder + "/out.png"
        let written = try songbox.run(["art", synced, "-o", out])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))) == Self.picture)

        let piped = try songbox.run(["art", String(try id("covered/plain.mp3"))])
        #expect(piped.status == 0 && [UInt8](piped.stdoutBytes) == Self.cover)

        // On a terminal (script(1) gives it one): refused, with the way out.
        let terminal = try SongboxRunner.run(executable: "/usr/bin/script", [
            "-qec", "\(SongboxRunner.executable) --db \(songbox.database) art \(synced)", "/dev/null",
        ])
        #expect(terminal.status != 0 && terminal.stdout.contains("refusing to write a \(Self.picture.count)-byte image/png picture to the terminal"),
                "\(terminal.stdout)")
        #expect(terminal.stdout.contains("-o cover.png"))

        let none = try songbox.run(["art", String(try id("niqqud.mp3")), "-o", folder + "/none.png"])
        #expect(none.status != 0 && none.stderr.contains("has no picture"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/none.png"))
        let database = try songbox.run(["art", synced, "-o", songbox.database])
        #expect(database.status != 0 && database.stderr.contains("refusing to write over a file songbox manages"))
    }

    /// An MP4's `covr` picture (ALAC and AAC, as mutagen writes it for Picard): `songbox art`
    /// writes its bytes unchanged.
    @Test func artOfAnMP4IsItsCoverUnchanged() throws {
        let wav = folder + "/tone.wav", png = folder + "/cover.png"
        try AudioFixtures.signal(wav, frames: 22_050)
        try Data(Self.picture).write(to: URL(fileURLWithPath: png))
        for encoding in [AudioFixtures.Encoding.alac, .aac] {
            let path = try AudioFixtures.encode(wav, as: encoding, to: music + "/covered-\(encoding).m4a")
            let tagged = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
                import sys
                from mutagen.mp4 import MP4, MP4Cover
                audio = MP4(sys.argv[1])
                audio["\\xa9nam"] = [sys.argv[3]]
                audio["covr"] = [MP4Cover(open(sys.argv[2], "rb").read(), imageformat=MP4Cover.FORMAT_PNG)]
                audio.save()
                """, path, png, "covered-\(encoding)"])
            try #require(tagged.status == 0, "mutagen: \(tagged.stderr)")
        }
        try library.scan()
        for encoding in [AudioFixtures.Encoding.alac, .aac] {
            let out = folder + "/\(encoding).png"
            let written = try songbox.run(["art", String(try id("covered-\(encoding)")), "-o", out])
            #expect(written.status == 0, "\(encoding): \(written.stderr)")
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))) == Self.picture, "\(encoding)")
        }
    }

    /// A 50 MB picture in an unsynchronised tag is streamed: `songbox art` grows by far less
    /// than the picture, measured on the real process (its peak resident set).
    @Test func aFiftyMegabytePictureIsStreamedUnderAMemoryBound() throws {
        var big = ImageFixtures.jpeg(width: 4000, height: 3000, filler: 50 << 20)
        big[big.count - 1] = 0xFF
        let folder = library.folder + "/big"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Fixtures.writeMP3(to: folder + "/big.mp3",
                              v2: ID3v2Tag(version: 3, frames: [.text("TIT2", "big"), .picture(big, mime: "image/jpeg")], unsynchronised: true),
                              audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try library.scan(folder)
        let scanned = try songbox.run(["ls", "--json", "title:=big"])
        #expect(scanned.stdout.contains("\"art\": \"embedded\""), "\(scanned.stdout)")

        func peakKilobytes(_ title: String, to file: String) throws -> Int {
            let run = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
                import resource, subprocess, sys
                status = subprocess.call(sys.argv[1:])
                print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
                """, SongboxRunner.executable, "--db", songbox.database, "art", String(try id(title)), "-o", file])
            let fields = run.stdout.split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(fields.first == 0, "\(run.stdout) \(run.stderr)")
            return try #require(fields.last ?? nil)
        }
        let small = try peakKilobytes("synced.mp3", to: folder + "/small.png")
        let large = try peakKilobytes("big", to: folder + "/big.jpg")
        #expect(large - small < 16 << 10, "peak RSS \(small) KB for a small picture, \(large) KB for 50 MB")
        let copy = try #require(FileHandle(forReadingAtPath: folder + "/big.jpg"))
        defer { try? copy.close() }
        #expect(try copy.readToEnd().map([UInt8].init) == big)
    }
}
