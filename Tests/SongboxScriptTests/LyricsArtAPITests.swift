import Foundation
import Logging
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

/// `songbox.lyrics.get`, `songbox.library.art` and `art_bytes` from Lua (lua/lyrics_art.lua).
@Suite struct LyricsArtAPITests {
    @Test func lyricsAndPicturesFromLua() throws {
        let (folder, store) = try temporaryStore()
        let music = folder + "/music"
        try FileManager.default.createDirectory(atPath: music + "/with-cover", withIntermediateDirectories: true)
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        let png = ImageFixtures.png(width: 40, height: 30, filler: 4321)
        try Fixtures.writeMP3(to: music + "/synced.mp3", v2: ID3v2Tag(version: 4, frames: [
            .text("TIT2", "synced"), .syncedLyrics([(text: "first line", time: 1000), (text: "שורה שנייה", time: 62_340)], encoding: .utf16()),
            .picture(png, mime: "image/png", type: 3),
        ]), audio: audio)
        try Fixtures.writeMP3(to: music + "/with-cover/lrc.mp3", v2: ID3v2Tag(version: 3, frames: [.text("TIT2", "lrc", encoding: .latin1)]), audio: audio)
        try "[00:01.50]one\n[00:03.90]two\n".write(toFile: music + "/with-cover/lrc.lrc", atomically: true, encoding: .utf8)
        try Data(ImageFixtures.jpeg(width: 8, height: 8)).write(to: URL(fileURLWithPath: music + "/with-cover/cover.jpg"))
        try Fixtures.writeMP3(to: music + "/bare.mp3", v2: ID3v2Tag(version: 3, frames: [.text("TIT2", "bare", encoding: .latin1)]), audio: audio)
        _ = try LibraryScanner(store: store, logger: Logger(label: "test.scan")).scan([music])

        let test = try TestRuntime(library: store)
        try test.runtime.run(file: luaFolder + "/lyrics_art.lua", displayName: "lyrics_art.lua", arguments: [.bytes(png)])
        #expect(test.printed.all == ["lyrics and art ok\n"])
        #expect(test.runtime.stackImbalances == 0)
    }
}
