import Foundation
import SongboxTestSupport
import Testing

@testable import SongboxFiles
@testable import SongboxLibrary

/// Tags and audio facts read through libmpg123 from files the fixture builder writes.
@Suite struct TagReadingTests {
    let directory: String

    init() throws { directory = try Fixtures.temporaryDirectory() }

    /// Writes an MP3 with these tags and reads it back.
    func probe(_ v2: ID3v2Tag? = nil, v1: ID3v1Tag? = nil, audio: String = "tone-mono-44k.mp3") throws -> ProbedFile {
        let path = directory + "/\(UUID().uuidString).mp3"
        try Fixtures.writeMP3(to: path, v2: v2, v1: v1, audio: try Fixtures.audio(audio))
        return try MP3Reader().read(path: path)
    }

    @Test func readsEveryFieldOfAnID3v23TagInUTF16() throws {
        let tags = try probe(ID3v2Tag(version: 3, frames: [
            .text("TIT2", "Erev shel Shoshanim", encoding: .utf16()),
            .text("TPE1", "Yafa Yarkoni", encoding: .utf16(bigEndian: true)),
            .text("TALB", "Golden Hits", encoding: .utf16()),
            .text("TPE2", "Various Artists", encoding: .latin1),
            .text("TCON", "(80)", encoding: .latin1),
            .text("TRCK", "3/12", encoding: .latin1),
            .text("TPOS", "1/2", encoding: .latin1),
            .text("TYER", "1957", encoding: .latin1),
            .text("TSRC", "ILA123456789", encoding: .latin1),
            .comment("a fine song", encoding: .utf16()),
            .comment("0000 1111", description: "iTunNORM", encoding: .latin1),
            .lyrics("Erev shel shoshanim\nNetze na el habustan", encoding: .utf16()),
            .userText(description: "MusicBrainz Album Id", value: "9e6d0bd2-0a42-4a6c-a56e-12ee1b7a9a6b", encoding: .latin1),
            .userText(description: "MusicBrainz Artist Id", value: "1d2b6b5a-8d5a-4a52-9d9d-7f6a1f0c1a11", encoding: .latin1),
            .userText(description: "replaygain_track_gain", value: "-6.50 dB", encoding: .latin1),
            .userText(description: "replaygain_track_peak", value: "0.988", encoding: .latin1),
            .picture([0x89, 0x50, 0x4E, 0x47], mime: "image/png"),
        ])).tags
        #expect(tags.title == "Erev shel Shoshanim")
        #expect(tags.artist == "Yafa Yarkoni")
        #expect(tags.album == "Golden Hits")
        #expect(tags.albumArtist == "Various Artists")
        #expect(tags.genre == "Folk")
        #expect(tags.track == 3 && tags.trackTotal == 12)
        #expect(tags.disc == 1 && tags.discTotal == 2)
        #expect(tags.year == 1957)
        #expect(tags.isrc == "ILA123456789")
        #expect(tags.comment == "a fine song")
        #expect(tags.lyrics == "Erev shel shoshanim\nNetze na el habustan")
        #expect(tags.musicBrainzAlbumID == "9e6d0bd2-0a42-4a6c-a56e-12ee1b7a9a6b")
        #expect(tags.musicBrainzArtistID == "1d2b6b5a-8d5a-4a52-9d9d-7f6a1f0c1a11")
        #expect(tags.replayGainTrackGain == -6.5)
        #expect(tags.replayGainTrackPeak == 0.988)
        #expect(tags.hasPicture)
    }

    @Test func readsID3v24UTF8WithFullDateAndSeveralArtists() throws {
        let tags = try probe(ID3v2Tag(version: 4, frames: [
            .text("TIT2", "יְרוּשָׁלַיִם שֶׁל זָהָב", encoding: .utf8),
            .text("TPE1", values: ["נעמי שמר", "שולי נתן"], encoding: .utf8),
            .text("TDRC", "1967-05-15", encoding: .utf8),
            .text("TCON", "13", encoding: .utf8),
            .text("TALB", "Songs", encoding: .utf16BE),
        ])).tags
        #expect(tags.title == "יְרוּשָׁלַיִם שֶׁל זָהָב")
        #expect(tags.artist == "נעמי שמר; שולי נתן")
        #expect(tags.year == 1967)
        #expect(tags.date == "1967-05-15")
        #expect(tags.genre == "Pop")
        #expect(tags.album == "Songs")
        #expect(!tags.hasPicture)
    }

    @Test func readsID3v22ThreeLetterFrames() throws {
        let tags = try probe(ID3v2Tag(version: 2, frames: [
            .text("TT2", "Old Style", encoding: .latin1),
            .text("TP1", "Tagger 2002", encoding: .utf16()),
            .text("TAL", "Legacy", encoding: .latin1),
            .text("TCO", "(17)", encoding: .latin1),
            .text("TRK", "7", encoding: .latin1),
        ])).tags
        #expect(tags.title == "Old Style")
        #expect(tags.artist == "Tagger 2002")
        #expect(tags.album == "Legacy")
        #expect(tags.genre == "Rock")
        #expect(tags.track == 7 && tags.trackTotal == nil)
    }

    @Test func decodesWindows1255HebrewInLatin1Frames() throws {
        let tags = try probe(ID3v2Tag(version: 3, frames: [
            .rawText("TIT2", encoding: 0, payload: Fixtures.windows1255("שיר הערש")),
            .rawText("TPE1", encoding: 0, payload: Fixtures.windows1255("אריק איינשטיין")),
            .text("TALB", "Café Déjà vu", encoding: .latin1),
        ])).tags
        #expect(tags.title == "שיר הערש")
        #expect(tags.artist == "אריק איינשטיין")
        #expect(tags.album == "Café Déjà vu")
    }

    @Test func readsID3v11WithLegacyHebrewWhenThereIsNoID3v2() throws {
        let tags = try probe(v1: ID3v1Tag(
            title: Fixtures.windows1255("אהבה ראשונה"), artist: Fixtures.windows1255("להקת הנחל"),
            album: Array("Nahal 1965".utf8), year: Array("1965".utf8), comment: Array("from tape".utf8),
            track: 4, genre: 80)).tags
        #expect(tags.title == "אהבה ראשונה")
        #expect(tags.artist == "להקת הנחל")
        #expect(tags.album == "Nahal 1965")
        #expect(tags.year == 1965)
        #expect(tags.comment == "from tape")
        #expect(tags.track == 4)
        #expect(tags.genre == "Folk")
    }

    @Test func prefersID3v2OverID3v1() throws {
        let tags = try probe(ID3v2Tag(version: 3, frames: [.text("TIT2", "From v2", encoding: .latin1)]),
                             v1: ID3v1Tag(title: Array("From v1".utf8), artist: Array("Only in v1".utf8))).tags
        #expect(tags.title == "From v2")
        #expect(tags.artist == "Only in v1")
    }

    @Test(arguments: [
        ("invalid UTF-8", ID3Frame.rawText("TIT2", encoding: 3, payload: BrokenText.invalidUTF8)),
        ("lone high surrogate", ID3Frame.rawText("TIT2", encoding: 1, payload: BrokenText.loneHighSurrogateUTF16)),
        ("lone low surrogate", ID3Frame.rawText("TIT2", encoding: 1, payload: BrokenText.loneLowSurrogateUTF16)),
        ("odd-length UTF-16", ID3Frame.rawText("TIT2", encoding: 1, payload: BrokenText.oddLengthUTF16)),
        ("UTF-16 without BOM", ID3Frame.rawText("TIT2", encoding: 1, payload: BrokenText.utf16WithoutBOM)),
        ("unknown encoding byte", ID3Frame.rawText("TIT2", encoding: 9, payload: Array("x".utf8))),
    ])
    func brokenTextNeverStopsAFile(name: String, frame: ID3Frame) throws {
        let probed = try probe(ID3v2Tag(version: 4, frames: [frame, .text("TPE1", "Still Read", encoding: .utf8)]))
        #expect(probed.tags.artist == "Still Read", "\(name)")
        #expect(probed.audio.duration == 1.0, "\(name)")
        // Whatever survives of the title is valid Unicode, with no NUL in it.
        #expect(!(probed.tags.title ?? "").contains("\0"), "\(name)")
    }

    @Test func exactDurationAndFormatFromTheLAMEHeader() throws {
        let mono = try probe(audio: "tone-mono-44k.mp3").audio
        #expect(mono.duration == 1.0)
        #expect(mono.sampleRate == 44100 && mono.channels == 1)
        #expect(mono.bitrate == 56)
        let stereo = try probe(audio: "tone-stereo-48k-vbr.mp3").audio
        #expect(stereo.duration == 2.0)
        #expect(stereo.sampleRate == 48000 && stereo.channels == 2)
        #expect((38...48).contains(stereo.bitrate))
    }

    @Test func durationWithoutAnInfoHeaderComesFromAScanOfTheFrames() throws {
        let audio = try probe(audio: "tone-22k-nolame.mp3").audio
        #expect(audio.duration == 34560.0 / 22050.0)
        #expect(audio.sampleRate == 22050 && audio.channels == 1 && audio.bitrate == 32)
    }

    @Test(arguments: [(2, false), (3, false), (4, false), (3, true), (4, true)])
    func unsynchronisedTagsAreRead(version: Int, extendedHeader: Bool) throws {
        let tags = try probe(ID3v2Tag(version: version, frames: [
            .text("TIT2", "ÿÿ Unsynced ÿ", encoding: .latin1),
            .picture([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFB], mime: "image/jpeg"),
            .text("TPE1", "After the picture", encoding: .latin1),
        ], unsynchronised: true, extendedHeader: extendedHeader, padding: 64)).tags
        #expect(tags.title == "ÿÿ Unsynced ÿ")
        #expect(tags.artist == "After the picture")
        // libmpg123 does not read ID3v2.2 PIC frames; songbox locates them itself (ID3Frames).
        #expect(tags.hasPicture)
    }

    @Test func anUnsynchronisedTagOver16MiBIsReadAsAStream() throws {
        // A JPEG-like picture with bytes that need unsynchronising every 65531 bytes (at offsets
        // that drift against the reader's 64 KiB chunks; theTagStreamUndoesUnsynchronisation-
        // AcrossChunks pins the boundary case), ending in FF so that the last added zero comes
        // after the frame.
        var picture = [UInt8](repeating: 0x41, count: 17 << 20)
        for start in stride(from: 0, to: picture.count - 8, by: 65531) {
            picture.replaceSubrange(start..<start + 8, with: [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0x00, 0x10, 0xFF])
        }
        picture[picture.count - 1] = 0xFF
        let probed = try probe(ID3v2Tag(version: 3, frames: [
            .text("TPE1", "Before ÿ", encoding: .latin1),
            .picture(picture, mime: "image/jpeg"),
            .text("TIT2", "ÿ After the picture ÿ", encoding: .latin1),
        ], unsynchronised: true))
        #expect(probed.tags.artist == "Before ÿ")
        #expect(probed.tags.title == "ÿ After the picture ÿ")
        #expect(probed.tags.hasPicture)
        #expect(probed.audio.duration == 1.0)
        #expect(probed.warnings == ["dropped a \(picture.count + 14)-byte APIC frame (over 1 MiB)"])
    }

    @Test(arguments: [false, true])
    func anID3v24TagWithPlainFrameSizesIsRead(footer: Bool) throws {
        // Sizes of 128 and more differ between plain and synchsafe coding.
        let probed = try probe(ID3v2Tag(version: 4, frames: [
            .picture([UInt8](repeating: 0x11, count: 300), mime: "image/png"),
            .text("TIT2", "Plain Sizes " + String(repeating: "x", count: 200)),
            .text("TPE1", "Old iTunes"),
            .text("TALB", "Bug Compatible"),
        ], padding: 32, footer: footer, plainFrameSizes: true))
        #expect(probed.tags.title == "Plain Sizes " + String(repeating: "x", count: 200))
        #expect(probed.tags.artist == "Old iTunes")
        #expect(probed.tags.album == "Bug Compatible")
        #expect(probed.tags.hasPicture)
        #expect(probed.audio.duration == 1.0 && probed.audio.bitrate == 56)
        #expect(probed.warnings.isEmpty)
    }

    @Test(arguments: [3, 4])
    func aHugePictureIsDroppedAndTheFramesAfterItKept(version: Int) throws {
        let path = directory + "/huge-v2.\(version).mp3"
        try Fixtures.writeHugeFrameMP3(to: path, frameSize: 20 << 20, version: version, after: [
            .text("TIT2", "After the huge frame", encoding: .latin1),
            .text("TPE1", "Still Here", encoding: .latin1),
            .text("TALB", "Big Cover", encoding: .latin1),
        ], audio: try Fixtures.audio("tone-mono-44k.mp3"))
        let probed = try MP3Reader().read(path: path)
        #expect(probed.tags.title == "After the huge frame")
        #expect(probed.tags.artist == "Still Here")
        #expect(probed.tags.album == "Big Cover")
        #expect(probed.tags.hasPicture)
        #expect(probed.audio.duration == 1.0 && probed.audio.bitrate == 56)
        #expect(probed.warnings == ["dropped a \(20 << 20)-byte APIC frame (over 1 MiB)"])
    }

    @Test func keptFramesOfARewrittenTagStayWithinTheBudget() throws {
        // Unsynchronisation makes the tag rewritten; 1 MiB frames fill the 4 MiB budget.
        let priv = ID3Frame.raw("PRIV", body: Array("songbox-test".utf8) + [0]
            + [UInt8](repeating: 0x55, count: (1 << 20) - 13))
        let probed = try probe(ID3v2Tag(version: 3, frames: Array(repeating: priv, count: 8)
            + [.text("TIT2", "After eight frames", encoding: .latin1)], unsynchronised: true))
        #expect(probed.tags.title == "After eight frames")
        #expect(probed.warnings.count == 4)
        #expect(probed.warnings.first == "dropped a 1048576-byte PRIV frame (the tag's kept frames reached 4 MiB)")
        #expect(probed.warnings.last == "dropped 2 more oversized ID3v2 frames")
    }

    @Test func ordinaryTagsAreHandedToLibmpg123AsTheyAre() throws {
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        let tags: [ID3v2Tag?] = [
            nil,
            ID3v2Tag(version: 3, frames: [.picture([UInt8](repeating: 0xFF, count: 500)), .text("TIT2", "v2.3")],
                     extendedHeader: true, padding: 100),
            ID3v2Tag(version: 4, frames: [.picture([UInt8](repeating: 7, count: 500)), .text("TIT2", "v2.4")],
                     unsynchronised: true, padding: 100, footer: true),
            ID3v2Tag(version: 2, frames: [.text("TT2", "v2.2", encoding: .latin1)]),
        ]
        for tag in tags {
            let path = directory + "/\(UUID().uuidString).mp3"
            try Fixtures.writeMP3(to: path, v2: tag, audio: audio)
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            let plan = ID3v2Normaliser.plan(fd: fd, fileSize: Int(lseek(fd, 0, SEEK_END)))
            #expect(plan.replacement == nil, "v2.\(tag?.version ?? 0)")
            #expect(plan.audioStart == tag?.bytes().count ?? 0)
            #expect(plan.warnings.isEmpty)
        }
    }

    @Test func oneReaderReadsRewrittenAndOrdinaryFilesInTurn() throws {
        let audio = try Fixtures.audio("tone-stereo-48k-vbr.mp3")
        let rewritten = directory + "/rewritten.mp3", ordinary = directory + "/ordinary.mp3"
        try Fixtures.writeMP3(to: rewritten, v2: ID3v2Tag(version: 3, frames: [
            .text("TIT2", "Rewritten ÿ", encoding: .latin1)], unsynchronised: true), audio: audio)
        try Fixtures.writeMP3(to: ordinary, v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "Ordinary")]),
                              v1: ID3v1Tag(artist: Array("From v1".utf8)), audio: audio)
        let reader = try MP3Reader()
        for path in [rewritten, ordinary, rewritten, ordinary] {
            let probed = try reader.read(path: path)
            #expect(probed.tags.title == (path == rewritten ? "Rewritten ÿ" : "Ordinary"))
            #expect(probed.tags.artist == (path == rewritten ? nil : "From v1"))
            #expect(probed.audio.duration == 2.0)
            #expect((38...48).contains(probed.audio.bitrate))
        }
    }

    @Test func theTagStreamUndoesUnsynchronisationAcrossChunks() throws {
        // FF at the last byte of the first chunk, its zero at the first byte of the next.
        let chunk = TagStream.chunkSize
        let original = [UInt8](repeating: 0x41, count: chunk - 1) + [0xFF, 0x00, 0x41, 0xFF, 0xE0]
            + [UInt8](repeating: 0xFF, count: 3 * chunk)
        let unsynchronised = ID3Bytes.unsynchronise(original)
        #expect(unsynchronised[chunk - 1] == 0xFF && unsynchronised[chunk] == 0x00)
        let path = directory + "/unsync.bin"
        try Data(unsynchronised).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        func stream() -> TagStream { TagStream(fd: fd, start: 0, end: unsynchronised.count, unsynchronised: true) }

        var whole = stream()
        let all = whole.take(original.count)
        #expect(all == original)
        let more = whole.take(1)
        #expect(whole.remaining == 0 && more == nil)
        for skipped in [chunk - 2, chunk - 1, chunk, chunk + 1, chunk + 3, 2 * chunk + 7] {
            var part = stream()
            let skippedAll = part.skip(skipped)
            #expect(skippedAll)
            let next = part.take(5)
            #expect(next == Array(original[skipped..<skipped + 5]), "after \(skipped)")
        }
        var tooFar = stream()
        let skippedPastTheEnd = tooFar.skip(original.count + 1)
        #expect(!skippedPastTheEnd)
    }

    @Test(arguments: [(3, 0), (4, 0), (3, 3000)])
    func aTagThatClaimsMoreThanTheFileHoldsIsReadFromWhatIsThere(version: Int, padding: Int) throws {
        var tag = ID3v2Tag(version: version, frames: [.text("TIT2", "Liar", encoding: .latin1)], padding: padding)
        tag.declaredSizeOverride = 100_000_000
        let probed = try probe(tag)
        #expect(probed.tags.title == "Liar")
        #expect(probed.audio.duration == 1.0 && probed.audio.bitrate == 56)
        #expect(probed.warnings.count == 1)
        #expect(probed.warnings.first?.contains("100000000") == true)
    }

    @Test func aTagThatCannotBeWalkedIsSkippedWithAWarning() throws {
        // Unsynchronisation makes the tag rewritten; its extended header claims 1 MiB.
        var tag = ID3v2Tag(version: 3, frames: [.text("TIT2", "Unreachable ÿ", encoding: .latin1)],
                           unsynchronised: true, extendedHeader: true).bytes()
        tag.replaceSubrange(10..<14, with: [0x00, 0x10, 0x00, 0x00])
        let path = directory + "/damaged.mp3"
        try Data(tag + (try Fixtures.audio("tone-mono-44k.mp3"))).write(to: URL(fileURLWithPath: path))
        let probed = try MP3Reader().read(path: path)
        #expect(probed.tags.title == nil)
        #expect(probed.audio.duration == 1.0 && probed.audio.bitrate == 56)
        #expect(probed.warnings.count == 1)
        #expect(probed.warnings.first?.contains("its frames were skipped") == true)
    }

    @Test(arguments: [(3, false), (3, true), (4, false), (2, true)])
    func aFrameLargerThanItsTagAndAnEmptyFrameAreSurvived(version: Int, unsynchronised: Bool) throws {
        let probed = try probe(ID3v2Tag(version: version, frames: [
            .text("TPE1", "Kept", encoding: .latin1),
            .raw(version == 2 ? "TAL" : "TALB", body: [], sizeOverride: 0),
            .raw(version == 2 ? "TT2" : "TIT2", body: [0] + Array("Too long".utf8), sizeOverride: 5000),
        ], unsynchronised: unsynchronised))
        #expect(probed.tags.artist == "Kept")
        #expect(probed.tags.title == nil)
        #expect(probed.audio.duration == 1.0)
    }

    @Test func aFrameLargerThanAHugeTagIsSurvived() throws {
        let path = directory + "/huge-liar.mp3"
        try Fixtures.writeHugeFrameMP3(to: path, frameID: "PRIV", frameSize: 17 << 20, after: [
            .text("TPE1", "Kept", encoding: .latin1),
            .raw("TIT2", body: [0] + Array("Too long".utf8), sizeOverride: 200_000_000),
        ], audio: try Fixtures.audio("tone-mono-44k.mp3"))
        let probed = try MP3Reader().read(path: path)
        #expect(probed.tags.artist == "Kept")
        #expect(probed.tags.title == nil)
        #expect(!probed.tags.hasPicture)
        #expect(probed.audio.duration == 1.0)
        #expect(probed.warnings == ["dropped a \(17 << 20)-byte PRIV frame (over 1 MiB)"])
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("text", Array("these are not the droids you are looking for\n".utf8)),
        ("random", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }),
    ])
    func filesWithoutAudioAreUnreadableWithAReason(name: String, bytes: [UInt8]) throws {
        let path = directory + "/\(name).mp3"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: SongboxError.self, "\(name)") { try MP3Reader().read(path: path) }
        do { _ = try MP3Reader().read(path: path) } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.location == path)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func aTruncatedFileIsIndexedWithTheAudioThatIsThere() throws {
        let audio = try Fixtures.audio("tone-22k-nolame.mp3")
        let path = directory + "/truncated.mp3"
        try Data(audio.prefix(audio.count / 2)).write(to: URL(fileURLWithPath: path))
        let probed = try MP3Reader().read(path: path)
        #expect(probed.audio.duration > 0.5 && probed.audio.duration < 1.0)
    }
}
