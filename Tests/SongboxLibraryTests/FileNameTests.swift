import Foundation
import SongboxFiles
import Testing

@testable import SongboxAudio

/// Paths as bytes: any name turns into text and back into exactly its bytes.
@Suite struct FileNameTests {
    @Test func validUTF8IsItself() {
        for name in ["/music/שיר הערש.mp3", "/music/Café Déjà vu.mp3", "/a/b", ""] {
            #expect(FileName.string(fromBytes: Array(name.utf8)) == name)
            #expect(FileName.bytes(name) == Array(name.utf8))
        }
    }

    @Test func aLatin1NameRoundTripsAndShowsAReplacementCharacter() {
        let bytes = Array("/music/caf".utf8) + [0xE9] + Array(".mp3".utf8)
        let text = FileName.string(fromBytes: bytes)
        #expect(FileName.bytes(text) == bytes)
        #expect(FileName.display(text) == "/music/caf\u{FFFD}.mp3")
        #expect(FileName.withSystemPath(text) { strlen($0) } == bytes.count)
    }

    @Test func aNameHoldingTheEscapeCharactersThemselvesRoundTrips() {
        let name = "/x/\u{10FF80}\u{10FFFF}.mp3"
        let text = FileName.string(fromBytes: Array(name.utf8))
        #expect(FileName.bytes(text) == Array(name.utf8))
    }

    @Test func randomBytesRoundTrip() {
        var generator = SeededRandom(seed: 20_261_125)  // the player's SplitMix64: a failure reproduces
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                // Mostly the bytes UTF-8 is made of, so that broken sequences are common.
                UInt8.random(in: [0x20...0x7E, 0x80...0xBF, 0xC0...0xFF].randomElement(using: &generator)!, using: &generator)
            }.filter { $0 != 0 }
            let text = FileName.string(fromBytes: bytes)
            #expect(FileName.bytes(text) == bytes, "\(bytes)")
        }
    }
}
