import Foundation
import GRDB
import Logging
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// Lyrics from USLT and SYLT frames in every encoding the tag readers handle, and from `.lrc` files.
@Suite struct LyricsTests {
    let directory: String

    init() throws { directory = try Fixtures.temporaryDirectory() }

    /// Writes `name`.mp3 with this tag and reads it back.
    func probe(_ v2: ID3v2Tag, name: String = UUID().uuidString) throws -> ProbedFile {
        let path = directory + "/\(name).mp3"
        try Fixtures.writeMP3(to: path, v2: v2, audio: try Fixtures.audio("tone-mono-44k.mp3"))
        return try MP3Reader().read(path: path)
    }

    static let hebrew = "לילה טוב\nשורה שנייה"

    @Test(arguments: [TextEncoding.utf16(), .utf16(bigEndian: true), .utf16BE, .utf8])
    func usltInEveryUnicodeEncoding(encoding: TextEncoding) throws {
        let probed = try probe(ID3v2Tag(version: 4, frames: [.lyrics(Self.hebrew, description: "תיאור", language: "heb", encoding: encoding)]))
        #expect(probed.lyrics == Lyrics(source: .unsynced, text: Self.hebrew))
        #expect(probed.tags.lyrics == Self.hebrew)
    }

    @Test func usltInUTF16WithoutABOMAndInWindows1255() throws {
        let noBOM = Array(Self.hebrew.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let utf16 = try probe(ID3v2Tag(version: 3, frames: [.raw("USLT", body: [1] + Array("heb".utf8) + [0, 0] + noBOM)]))
        #expect(utf16.lyrics?.text == Self.hebrew)
        let legacy = try probe(ID3v2Tag(version: 3, frames: [
            .raw("USLT", body: [0] + Array("heb".utf8) + [0] + Fixtures.windows1255("לילה טוב") + [0x0D, 0x0A] + Fixtures.windows1255("שורה שנייה")),
        ]))
        #expect(legacy.lyrics?.text == Self.hebrew)
    }

    @Test func syltInUTF16AndWindows1255() throws {
        let utf16 = try probe(ID3v2Tag(version: 3, frames: [
            .syncedLyrics([("first line", 1000), ("שורה שנייה", 2500)], encoding: .utf16()),
        ]))
        #expect(utf16.lyrics == Lyrics(source: .synced, text: "first line\nשורה שנייה",
                                       lines: [LyricLine(milliseconds: 1000, text: "first line"), LyricLine(milliseconds: 2500, text: "שורה שנייה")]))
        let legacy = try probe(ID3v2Tag(version: 3, frames: [
            .rawSyncedLyrics([(text: Fixtures.windows1255("שלום עולם"), time: 4000), (text: Fixtures.windows1255("ערב טוב"), time: 750)],
                             encoding: 0),
        ]))
        // In time order, whatever order the frame had.
        #expect(legacy.lyrics?.lines == [LyricLine(milliseconds: 750, text: "ערב טוב"), LyricLine(milliseconds: 4000, text: "שלום עולם")])
    }

    @Test func syltSyllablesJoinIntoLinesAndTimedLyricsComeBeforeUnsynced() throws {
        let probed = try probe(ID3v2Tag(version: 4, frames: [
            .lyrics("plain words"),
            .syncedLyrics([("\nHel", 0), ("lo ", 400), ("there", 800), ("\nSecond", 2000)]),
        ]))
        #expect(probed.lyrics?.source == .synced)
        #expect(probed.lyrics?.lines == [LyricLine(milliseconds: 0, text: "Hello there"), LyricLine(milliseconds: 2000, text: "Second")])
        #expect(probed.tags.lyrics == "Hello there\nSecond")
    }

    @Test func syltTimesInMPEGFramesUseTheSampleRate() throws {
        let probed = try probe(ID3v2Tag(version: 3, frames: [.syncedLyrics([("one", 100)], timeFormat: 1)]))
        // 100 frames of 1152 samples at 44.1 kHz.
        #expect(probed.lyrics?.lines == [LyricLine(milliseconds: 100 * 1152 * 1000 / 44_100, text: "one")])
        let unknown = try probe(ID3v2Tag(version: 3, frames: [.syncedLyrics([("one", 100)], timeFormat: 7), .lyrics("kept")]))
        #expect(unknown.lyrics?.source == .unsynced)
        #expect(unknown.warnings.contains("SYLT frame: unknown time stamp format 7"))
    }

    @Test func lrcWithOffsetsSeveralTimesOnALineAndMetadataIgnored() {
        let parsed = LRCFile.parse("""
            [ar:Someone]
            [ti:A song]
            [offset:+500]
            [00:01.00]first
            [00:05.50][00:20.25]chorus
            [00:10.5]<00:10.50>word <00:11.00>times
            [01:02:30]colon fraction
            not a lyric line
            [00:99.00]bad seconds
            """)
        #expect(parsed.lyrics?.source == .lrc)
        #expect(parsed.lyrics?.lines == [
            LyricLine(milliseconds: 500, text: "first"), LyricLine(milliseconds: 5000, text: "chorus"),
            LyricLine(milliseconds: 10_000, text: "word times"), LyricLine(milliseconds: 19_750, text: "chorus"),
            LyricLine(milliseconds: 61_800, text: "colon fraction"),
        ])
        // A negative offset shows lines later; a line never starts before the track.
        #expect(LRCFile.parse("[offset:-250]\n[00:00.10]a\n[00:01]b").lyrics?.lines
                == [LyricLine(milliseconds: 350, text: "a"), LyricLine(milliseconds: 1250, text: "b")])
        #expect(LRCFile.parse("[offset:900]\n[00:00.10]a").lyrics?.lines == [LyricLine(milliseconds: 0, text: "a")])
        #expect(LRCFile.parse("[offset:soon]\n[00:01]a").warnings == ["line 1: offset \"soon\" is not a number of milliseconds"])
        #expect(LRCFile.parse("[ar:only tags]").lyrics == nil)
    }

    @Test func anLRCBesideTheTrackComesFirstInAnyCaseAndEncoding() throws {
        let name = "track-with-lrc"
        let text = Array("[00:01.00]".utf8) + Fixtures.windows1255("שיר ערש") + [0x0A] + Array("[00:03.00]".utf8) + Fixtures.windows1255("לילה")
        try Data(text).write(to: URL(fileURLWithPath: directory + "/\(name).LRC"))
        let probed = try probe(ID3v2Tag(version: 3, frames: [.lyrics("from the tag", encoding: .utf16())]), name: name)
        #expect(probed.lyrics?.source == .lrc)
        #expect(probed.lyrics?.lines == [LyricLine(milliseconds: 1000, text: "שיר ערש"), LyricLine(milliseconds: 3000, text: "לילה")])
        #expect(probed.lrcMtime != nil)
        // UTF-8 with a BOM and CRLF line ends.
        #expect(LRCFile.text([0xEF, 0xBB, 0xBF] + Array("[00:01]אב\r\n".utf8)) == "[00:01]אב\r\n")
        #expect(LRCFile.parse(LRCFile.text(Array("[00:01]אב\r\n[00:02]x".utf8))).lyrics?.lines.map(\.text) == ["אב", "x"])
    }

    @Test func aLyingFrameSizeIsReportedAndTheFramesBeforeItAreRead() throws {
        let probed = try probe(ID3v2Tag(version: 3, frames: [
            .lyrics("before the lie"),
            .raw("SYLT", body: [3] + Array("eng".utf8) + [2, 1, 0] + Array("x".utf8) + [0, 0, 0, 1, 0], sizeOverride: 900_000),
        ], padding: 32))
        #expect(probed.lyrics == Lyrics(source: .unsynced, text: "before the lie"))
        #expect(probed.warnings.contains { $0.contains("size past the end of the tag") }, "\(probed.warnings)")
    }
}

/// The scanner and the store: lyrics stored for search and for `LibraryStore.tracks.lyrics(id:)`, an
/// `.lrc` that comes, changes or goes after a scan, and the migration of older libraries.
@Suite struct StoredLyricsTests {
    let music: String
    let store: LibraryStore

    init() throws {
        let root = try Fixtures.temporaryDirectory()
        music = root + "/Music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        store = try LibraryStore(path: root + "/library.db")
    }

    func scan() throws -> ScanReport { try LibraryScanner(store: store, logger: Logger(label: "test")).scan([music]) }

    @Test func anLRCThatComesChangesOrGoesIsNoticedByTheNextScan() throws {
        let song = music + "/song.mp3", lrc = music + "/song.lrc"
        try Fixtures.writeMP3(to: song, v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "song"), .lyrics("from the tag")]),
                              audio: try Fixtures.audio("tone-mono-44k.mp3"))
        _ = try scan()
        let id = try #require(try store.tracks.matching("").first?.id)
        #expect(try store.tracks.lyrics(id: id) == Lyrics(source: .unsynced, text: "from the tag"))
        #expect(try scan().unchanged == 1)

        try "[00:01]from the file\n".write(toFile: lrc, atomically: true, encoding: .utf8)
        #expect(try scan().updated == 1)
        #expect(try store.tracks.lyrics(id: id) == Lyrics(source: .lrc, text: "from the file", lines: [LyricLine(milliseconds: 1000, text: "from the file")]))
        #expect(try store.tracks.matching("lyrics:\"FROM THE FILE\"").map(\.id) == [id])
        #expect(try scan().unchanged == 1)

        try "[00:02]changed\n".write(toFile: lrc, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: lrc)
        #expect(try scan().updated == 1)
        #expect(try store.tracks.lyrics(id: id)?.lines == [LyricLine(milliseconds: 2000, text: "changed")])

        try FileManager.default.removeItem(atPath: lrc)
        #expect(try scan().updated == 1)
        #expect(try store.tracks.lyrics(id: id)?.source == .unsynced)
        #expect(try store.tracks.matching("lyrics:changed").isEmpty)
    }

    @Test func theMigrationKeepsTheLyricsOfAnOlderLibrary() throws {
        #expect(Schema.migrator.migrations.contains("v8: lyrics and art"))
        let folder = try Fixtures.temporaryDirectory()
        let queue = try DatabaseQueue(path: folder + "/old.db")
        // The schema as it was before v8: every earlier migration, run for real.
        try Schema.migrator.migrate(queue, upTo: "v6: stickers")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (path, size, mtime, duration, added, path_key, lyrics, lyrics_key)
                VALUES ('/a.mp3', 1, 1, 1, 1, '/a.mp3', 'words', 'words'), ('/b.mp3', 1, 1, 1, 1, '/b.mp3', NULL, NULL)
                """)
        }
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 6") }
        try queue.close()
        let migrated = try LibraryStore(path: folder + "/old.db")
        #expect(try migrated.tracks.lyrics(id: 1) == Lyrics(source: .unsynced, text: "words"))
        #expect(try migrated.tracks.lyrics(id: 2) == nil)
    }
}
