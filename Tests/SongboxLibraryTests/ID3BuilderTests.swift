import Foundation
import SongboxTestSupport
import Testing

/// Tests of the fixture builder itself: byte layouts checked by hand, then read back by two
/// independent readers (mutagen and the mpg123 CLI).
@Suite("ID3Builder")
struct ID3BuilderTests {
    /// 199 "x" plus the encoding byte: a 200-byte body, whose size has bit 7 set (0xC8).
    let longTitle = String(repeating: "x", count: 199)

    // MARK: Headers and sizes

    @Test func v24TagAndFrameSizesAreSynchsafe() {
        let tag = ID3v2Tag(version: 4, frames: [.text("TIT2", longTitle)]).bytes()
        #expect(Array(tag[0..<6]) == [0x49, 0x44, 0x33, 4, 0, 0])  // "ID3", 2.4.0, no flags
        #expect(Array(tag[6..<10]) == [0, 0, 1, 0x52])  // 210 = 1 * 128 + 0x52
        #expect(Array(tag[10..<14]) == Array("TIT2".utf8))
        #expect(Array(tag[14..<18]) == [0, 0, 1, 0x48])  // 200 = 1 * 128 + 0x48
        #expect(Array(tag[18..<21]) == [0, 0, 3])  // flags, UTF-8
        #expect(tag.count == 220)
    }

    @Test func v23FrameSizesArePlainAndTagSizeSynchsafe() {
        let tag = ID3v2Tag(version: 3, frames: [.text("TIT2", longTitle, encoding: .latin1)]).bytes()
        #expect(tag[3] == 3)
        #expect(Array(tag[6..<10]) == [0, 0, 1, 0x52])
        #expect(Array(tag[14..<18]) == [0, 0, 0, 0xC8])
        #expect(tag[20] == 0)  // Latin-1
    }

    @Test func v24WithPlainFrameSizesWritesTheITunesBug() {
        let tag = ID3v2Tag(version: 4, frames: [.text("TIT2", longTitle)], plainFrameSizes: true).bytes()
        #expect(tag[3] == 4)
        #expect(Array(tag[14..<18]) == [0, 0, 0, 0xC8])
    }

    @Test func v22UsesThreeByteIDsAndSizes() {
        let tag = ID3v2Tag(version: 2, frames: [
            .text("TIT2", longTitle, encoding: .latin1),
            .picture([9, 9], mime: "image/jpeg", type: 3, description: "d"),
        ]).bytes()
        #expect(tag[3] == 2)
        #expect(Array(tag[10..<13]) == Array("TT2".utf8))
        #expect(Array(tag[13..<16]) == [0, 0, 0xC8])
        let picture = Array(tag[216...])
        // "PIC", size 9: encoding, "JPG", type, "d", terminator, 2 bytes of image.
        #expect(picture == Array("PIC".utf8) + [0, 0, 9, 0] + Array("JPG".utf8) + [3, 0x64, 0, 9, 9])
        #expect(Array(tag[6..<10]) == ID3Bytes.synchsafe32(tag.count - 10))
    }

    @Test func synchsafeAndPlainEncodings() {
        #expect(ID3Bytes.synchsafe32(0x0FFF_FFFF) == [0x7F, 0x7F, 0x7F, 0x7F])
        #expect(ID3Bytes.synchsafe32(128) == [0, 0, 1, 0])
        #expect(ID3Bytes.plain32(0x0102_0304) == [1, 2, 3, 4])
        #expect(ID3Bytes.plain24(0x01_0203) == [1, 2, 3])
    }

    @Test func headerFlagsExtendedHeaderAndFooter() {
        let v24 = ID3v2Tag(version: 4, frames: [.text("TIT2", "a")], extendedHeader: true, padding: 4, footer: true)
            .bytes()
        #expect(v24[5] == 0x50)  // extended header + footer
        #expect(Array(v24[10..<16]) == [0, 0, 0, 6, 1, 0])  // synchsafe size 6, one flag byte, no flags
        // 6 (extended header) + 12 (frame) + 4 (padding), then a 10-byte footer.
        #expect(Array(v24[6..<10]) == [0, 0, 0, 22])
        #expect(v24.count == 10 + 22 + 10)
        #expect(Array(v24.suffix(10)) == Array("3DI".utf8) + [4, 0, 0x50, 0, 0, 0, 22])

        let v23 = ID3v2Tag(version: 3, frames: [.text("TIT2", "a", encoding: .latin1)], extendedHeader: true,
                           padding: 300).bytes()
        #expect(v23[5] == 0x40)
        #expect(Array(v23[10..<20]) == [0, 0, 0, 6, 0, 0, 0, 0, 1, 0x2C])  // size 6, flags, padding 300
        #expect(v23.count == 10 + 10 + 12 + 300)
    }

    // MARK: Unsynchronisation

    @Test func unsynchronisationInsertsZeroAfterFalseSync() {
        // FF E0 and FF 00 get a zero; FF 41 does not; a trailing FF does.
        let input: [UInt8] = [0xFF, 0xE0, 0xFF, 0x00, 0xFF, 0x41, 0xFF]
        #expect(ID3Bytes.unsynchronise(input) == [0xFF, 0x00, 0xE0, 0xFF, 0x00, 0x00, 0xFF, 0x41, 0xFF, 0x00])
        #expect(ID3Bytes.unsynchronise([1, 2, 3]) == [1, 2, 3])
    }

    @Test func v23UnsynchronisesTheWholeTagAfterTheHeader() {
        let tag = ID3v2Tag(version: 3, frames: [.raw("PRIV", body: [0xFF, 0xFB, 0x90])], unsynchronised: true).bytes()
        #expect(tag[5] == 0x80)
        // The frame size is the size before unsynchronisation; the tag size after.
        #expect(Array(tag[10..<24]) == Array("PRIV".utf8) + [0, 0, 0, 3, 0, 0, 0xFF, 0x00, 0xFB, 0x90])
        #expect(Array(tag[6..<10]) == [0, 0, 0, 14])
    }

    @Test func v24UnsynchronisesFramesWithTheirOwnFlag() {
        var frame = ID3Frame.raw("PRIV", body: [0xFF, 0xFB, 0x90])
        frame.unsynchronised = true
        frame.dataLengthIndicator = true
        let tag = ID3v2Tag(version: 4, frames: [frame]).bytes()
        #expect(tag[5] == 0)  // not every frame: no tag flag
        // size 8 = 4 (data length indicator of the original 3 bytes) + 4 unsynchronised bytes.
        #expect(Array(tag[10..<28])
            == Array("PRIV".utf8) + [0, 0, 0, 8, 0x00, 0x03, 0, 0, 0, 3, 0xFF, 0x00, 0xFB, 0x90])

        let whole = ID3v2Tag(version: 4, frames: [.raw("PRIV", body: [0xFF, 0xE0])], unsynchronised: true).bytes()
        #expect(whole[5] == 0x80)
        #expect(Array(whole[14..<23]) == [0, 0, 0, 3, 0x00, 0x02, 0xFF, 0x00, 0xE0])
    }

    // MARK: Text

    @Test func utf16WritesAByteOrderMark() {
        #expect(ID3Frame.text("TIT2", "Aש", encoding: .utf16())
            == .raw("TIT2", body: [1, 0xFF, 0xFE, 0x41, 0, 0xE9, 0x05]))
        #expect(ID3Frame.text("TIT2", "Aש", encoding: .utf16(bigEndian: true))
            == .raw("TIT2", body: [1, 0xFE, 0xFF, 0, 0x41, 0x05, 0xE9]))
        #expect(ID3Frame.text("TIT2", "Aש", encoding: .utf16BE) == .raw("TIT2", body: [2, 0, 0x41, 0x05, 0xE9]))
        #expect(ID3Frame.text("TIT2", "Aש", encoding: .utf8) == .raw("TIT2", body: [3, 0x41, 0xD7, 0xA9]))
    }

    @Test func describedFramesTerminateTheDescriptionInTheirEncoding() {
        #expect(ID3Frame.comment("t", description: "d", language: "heb", encoding: .utf16())
            == .raw("COMM", body: [1] + Array("heb".utf8) + [0xFF, 0xFE, 0x64, 0, 0, 0, 0xFF, 0xFE, 0x74, 0]))
        #expect(ID3Frame.userText(description: "replaygain_track_gain", value: "-6.50 dB", encoding: .latin1)
            == .raw("TXXX", body: [0] + Array("replaygain_track_gain".utf8) + [0] + Array("-6.50 dB".utf8)))
        #expect(ID3Frame.text("TPE1", values: ["A", "B"], encoding: .utf16())
            == .raw("TPE1", body: [1, 0xFF, 0xFE, 0x41, 0, 0, 0, 0xFF, 0xFE, 0x42, 0]))
        #expect(ID3Frame.ufid(owner: "o", identifier: [7]) == .raw("UFID", body: [0x6F, 0, 7]))
    }

    @Test func pictureLayoutInV23() {
        let tag = ID3v2Tag(version: 3, frames: [.picture([1, 2], mime: "image/png", type: 3, description: "c")]).bytes()
        // size 16: encoding, "image/png", terminator, type, "c", terminator, 2 bytes of image.
        #expect(Array(tag[10...]) == Array("APIC".utf8) + [0, 0, 0, 16, 0, 0, 0] + Array("image/png".utf8)
            + [0, 3, 0x63, 0, 1, 2])
    }

    @Test func windows1255MapsHebrewLettersAndASCII() {
        #expect(Fixtures.windows1255("שלום 1") == [0xF9, 0xEC, 0xE5, 0xED, 0x20, 0x31])
        #expect(Fixtures.windows1255("את") == [0xE0, 0xFA])
    }

    // MARK: Lying sizes

    @Test func lyingSizesAreWrittenAsDeclared() {
        let tag = ID3v2Tag(version: 3, frames: [
            .raw("TIT2", body: [0, 0x41], sizeOverride: 5000),
            .raw("TPE1", body: []),
        ], declaredSizeOverride: 1_000_000).bytes()
        #expect(Array(tag[6..<10]) == ID3Bytes.synchsafe32(1_000_000))
        #expect(Array(tag[14..<18]) == ID3Bytes.plain32(5000))
        #expect(Array(tag[22...]) == Array("TPE1".utf8) + [0, 0, 0, 0, 0, 0])  // a zero-size frame
        #expect(tag.count == 10 + 12 + 10)
    }

    // MARK: ID3v1

    @Test func id3v1IsExactly128Bytes() {
        let v1 = ID3v1Tag(title: Array("Title".utf8), artist: Fixtures.windows1255("שלום"),
                          album: Array("Album".utf8), year: Array("1967".utf8), comment: Array("Comment".utf8),
                          genre: 13).bytes()
        #expect(v1.count == 128)
        #expect(Array(v1[0..<3]) == Array("TAG".utf8))
        #expect(Array(v1[3..<8]) == Array("Title".utf8) && v1[8..<33].allSatisfy { $0 == 0 })
        #expect(Array(v1[33..<37]) == [0xF9, 0xEC, 0xE5, 0xED])
        #expect(Array(v1[63..<68]) == Array("Album".utf8))
        #expect(Array(v1[93..<97]) == Array("1967".utf8))
        #expect(Array(v1[97..<104]) == Array("Comment".utf8))
        #expect(v1[127] == 13)

        let v11 = ID3v1Tag(comment: Array(repeating: 0x63, count: 28), track: 7).bytes()
        #expect(v11.count == 128)
        #expect(v11[125] == 0 && v11[126] == 7 && v11[127] == 255)
        #expect(v11[124] == 0x63)
    }

    @Test func mp3PutsTagsAroundTheAudio() throws {
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        let v2 = ID3v2Tag(version: 3, frames: [.text("TIT2", "t", encoding: .latin1)])
        let file = Fixtures.mp3(v2: v2, v1: ID3v1Tag(), audio: audio)
        #expect(file.count == v2.bytes().count + audio.count + 128)
        #expect(Array(file[v2.bytes().count...].prefix(2)) == [0xFF, 0xFB])
        #expect(Array(file.suffix(128).prefix(3)) == Array("TAG".utf8))
    }

    // MARK: Files

    @Test func hugeFrameFileHasTheExpectedSizeAndLayout() async throws {
        try await Fixtures.withTemporaryDirectory { dir in
            let audio = try Fixtures.audio("tone-22k-nolame.mp3")
            let path = dir + "/huge.mp3"
            let frameSize = 70_000_000  // more than the scanner's 64 MB budget
            try Fixtures.writeHugeFrameMP3(to: path, frameID: "PRIV", frameSize: frameSize, audio: audio)

            let after = ID3v2Tag(version: 3, frames: [.text("TIT2", "After the huge frame", encoding: .latin1)])
            let afterFrame = after.bytes().count - 10
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(size == 10 + 10 + frameSize + afterFrame + audio.count)

            let handle = try #require(FileHandle(forReadingAtPath: path))
            defer { try? handle.close() }
            let head = try [UInt8](#require(try handle.read(upToCount: 20)))
            #expect(head == Array("ID3".utf8) + [3, 0, 0] + ID3Bytes.synchsafe32(10 + frameSize + afterFrame)
                + Array("PRIV".utf8) + ID3Bytes.plain32(frameSize) + [0, 0])
            try handle.seek(toOffset: UInt64(20 + frameSize))
            let tail = try [UInt8](#require(try handle.readToEnd()))
            #expect(tail == Array(after.bytes()[10...]) + audio)

            let tags = try Oracle.mutagen(path)
            #expect(tags["TIT2"] == "After the huge frame")
            #expect(tags["PRIV:songbox-test"] == "\(frameSize - 13) bytes")
        }
    }

    @Test func audioFixturesAreTaglessAndDecodeToTheDocumentedLengths() throws {
        // name: (gapless samples per channel, channels)
        let expected: [String: (samples: Int, channels: Int)] = [
            "tone-mono-44k.mp3": (44100, 1),
            "tone-stereo-48k-vbr.mp3": (96000, 2),
            "tone-22k-nolame.mp3": (34560, 1),
        ]
        for (name, facts) in expected {
            let bytes = try Fixtures.audio(name)
            #expect(bytes.count < 12 * 1024, "\(name)")
            #expect(bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0, "\(name) starts with a frame sync")
            #expect(Array(bytes.suffix(128).prefix(3)) != Array("TAG".utf8), "\(name)")
            // mpg123 -s: raw 16-bit PCM on stdout, gapless by default.
            let pcm = try Oracle.run("mpg123", ["-q", "-s", Fixtures.audioPath(name)])
            #expect(pcm.status == 0)
            #expect(pcm.output.count == facts.samples * 2 * facts.channels, "\(name)")
        }
    }

    // MARK: Read back by other readers

    @Test func mutagenReadsBackWhatWasWritten() throws {
        try Self.withFile(ID3v2Tag(version: 3, frames: [
            .text("TIT2", "Héllo שלום", encoding: .utf16()),
            .text("TPE1", "Big Endian", encoding: .utf16(bigEndian: true)),
            .text("TRCK", "3/12", encoding: .latin1),
            .comment("a comment", description: "c", encoding: .utf16()),
            .userText(description: "MusicBrainz Album Id", value: "a1b2", encoding: .latin1),
            .picture([1, 2, 3, 0xFF, 0xE0], mime: "image/png", type: 3, description: "cover"),
            .ufid(owner: "http://musicbrainz.org", identifier: Array("abc-123".utf8)),
        ], unsynchronised: true)) { path in
            let tags = try Oracle.mutagen(path)
            #expect(tags["version"] == "2.3")
            #expect(tags["TIT2"] == "Héllo שלום")
            #expect(tags["TPE1"] == "Big Endian")
            #expect(tags["TRCK"] == "3/12")
            #expect(tags["COMM:c:eng"] == "a comment")
            #expect(tags["TXXX:MusicBrainz Album Id"] == "a1b2")
            #expect(tags["APIC:cover"] == "image/png 3 [1, 2, 3, 255, 224]")
            #expect(tags["UFID:http://musicbrainz.org"] == "abc-123")
        }
        try Self.withFile(ID3v2Tag(version: 4, frames: [
            .text("TIT2", "Héllo שלום"),
            .text("TPE1", values: ["A", "B"]),
            .text("TALB", "Album", encoding: .utf16BE),
            .text("TDRC", "1967-05-01"),
            .lyrics("la la", description: "d", language: "heb"),
        ], extendedHeader: true, footer: true)) { path in
            let tags = try Oracle.mutagen(path)
            #expect(tags["version"] == "2.4")
            #expect(tags["TIT2"] == "Héllo שלום")
            #expect(tags["TPE1"] == "A / B")
            #expect(tags["TALB"] == "Album")
            #expect(tags["TDRC"] == "1967-05-01")
            #expect(tags["USLT:d:heb"] == "la la")
        }
        try Self.withFile(ID3v2Tag(version: 2, frames: [
            .text("TIT2", "Old title", encoding: .latin1),
            .text("TPE1", "Old artist", encoding: .utf16()),
            .picture([1, 2, 3], mime: "image/jpeg"),
        ])) { path in
            let tags = try Oracle.mutagen(path)
            #expect(tags["version"] == "2.2")
            #expect(tags["TIT2"] == "Old title")
            #expect(tags["TPE1"] == "Old artist")
            #expect(tags["APIC:"] == "image/jpeg 3 [1, 2, 3]")
        }
        try Self.withFile(nil, v1: ID3v1Tag(title: Array("v1 title".utf8), artist: Array("v1 artist".utf8),
                                            year: Array("1999".utf8), track: 7, genre: 13)) { path in
            let tags = try Oracle.mutagen(path)
            #expect(tags["TIT2"] == "v1 title")
            #expect(tags["TPE1"] == "v1 artist")
            #expect(tags["TDRC"] == "1999")
            #expect(tags["TRCK"] == "7")
            #expect(tags["TCON"] == "Pop")
        }
    }

    @Test func mpg123ReadsBackTitles() throws {
        let cases: [(ID3v2Tag?, ID3v1Tag?, String)] = [
            (ID3v2Tag(version: 3, frames: [.text("TIT2", "UTF-16 שלום", encoding: .utf16())]), nil,
             "UTF-16 שלום"),
            (ID3v2Tag(version: 4, frames: [.text("TIT2", "UTF-8 שלום")]), nil, "UTF-8 שלום"),
            (ID3v2Tag(version: 2, frames: [.text("TIT2", "v2.2 title", encoding: .latin1)]), nil, "v2.2 title"),
            (nil, ID3v1Tag(title: Array("v1 title".utf8)), "v1 title"),
        ]
        for (v2, v1, title) in cases {
            try Self.withFile(v2, v1: v1) { path in
                let tags = try Oracle.mpg123Tags(path)
                #expect(tags["Title"] == title)
            }
        }
    }

    /// Writes the tags around `tone-mono-44k.mp3` to a temporary file for `body`.
    static func withFile(_ v2: ID3v2Tag?, v1: ID3v1Tag? = nil, _ body: (String) throws -> Void) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tagged.mp3"
        try Fixtures.writeMP3(to: path, v2: v2, v1: v1, audio: Fixtures.audio("tone-mono-44k.mp3"))
        try body(path)
    }
}

/// Independent readers of the files the builder writes.
enum Oracle {
    struct Result {
        var status: Int32
        var output: Data
    }

    /// Runs a program found on PATH; stderr goes to the same pipe as stdout when `mergeErrors`.
    static func run(_ program: String, _ arguments: [String], mergeErrors: Bool = false) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = mergeErrors ? pipe : FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: output)
    }

    /// mutagen (Debian python3-mutagen) under the system Python: frame key -> text.
    /// Text frames join their values with " / "; APIC is "mime type [bytes]", UFID and PRIV (keyed
    /// "PRIV:owner") their data as Latin-1; data over 64 bytes is "N bytes". ID3v1 comes back as
    /// v2.4 frames.
    static func mutagen(_ path: String) throws -> [String: String] {
        let script = """
            import json, sys
            from mutagen.id3 import ID3
            def data(d, text):
                return ("%d bytes" % len(d)) if len(d) > 64 else text
            tag = ID3(sys.argv[1])
            out = {"version": "%d.%d" % tag.version[:2]}
            for key, frame in tag.items():
                if frame.FrameID == "APIC":
                    out[key] = data(frame.data, "%s %d %s" % (frame.mime, frame.type, list(frame.data)))
                elif frame.FrameID == "UFID":
                    out[key] = data(frame.data, frame.data.decode("latin-1"))
                elif frame.FrameID == "PRIV":  # mutagen's own key holds the data
                    out["PRIV:" + frame.owner] = data(frame.data, frame.data.decode("latin-1"))
                elif isinstance(getattr(frame, "text", None), str):  # COMM, USLT
                    out[key] = frame.text
                elif hasattr(frame, "text"):
                    out[key] = " / ".join(str(t) for t in frame.text)
            print(json.dumps(out))
            """
        let result = try run("/usr/bin/python3", ["-c", script, path], mergeErrors: true)
        let text = String(decoding: result.output, as: UTF8.self)
        try #require(result.status == 0, "mutagen failed (apt-get install python3-mutagen): \(text)")
        return try JSONDecoder().decode([String: String].self, from: result.output)
    }

    /// The tag summary the mpg123 CLI prints (`Title:`, `Artist:`, …) with `-t --long-tag`.
    static func mpg123Tags(_ path: String) throws -> [String: String] {
        let result = try run("mpg123", ["-t", "-n", "1", "--long-tag", path], mergeErrors: true)
        try #require(result.status == 0, "mpg123 failed (apt-get install mpg123)")
        var tags: [String: String] = [:]
        for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") {
            let trimmed = line.drop { $0 == "\t" }
            guard trimmed.count < line.count, let colon = trimmed.firstIndex(of: ":") else { continue }
            tags[String(trimmed[..<colon])] = String(trimmed[trimmed.index(after: colon)...].drop { $0 == " " })
        }
        return tags
    }
}
