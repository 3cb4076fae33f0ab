import Foundation
import Testing
@testable import SongboxAudio
import SongboxTestSupport

/// FeedDecoder, the decoder of bytes that arrive a piece at a time (remote streams): fed in odd
/// pieces with reads between, it gives sample for sample what the file decoder gives; with no
/// bytes yet it asks for more instead of waiting; what is not MP3 is said.
@Suite struct FeedDecoderTests {
    /// Feeds `bytes` in pieces of `piece`, reading what each makes, then finishes.
    static func decode(_ bytes: [UInt8], piece: Int, rate: Int? = nil) throws -> (pcm: [Int16], decoder: FeedDecoder, starved: Int) {
        let decoder = try FeedDecoder(source: "test", rate: rate)
        let (pcm, _, starved) = try feedInPieces(decoder, bytes, piece: piece)
        return (pcm, decoder, starved)
    }

    @Test(arguments: ["tone-mono-44k.mp3", "tone-22k-nolame.mp3"])
    func piecesDecodeAsTheWholeFileDoes(name: String) throws {
        let bytes = try Fixtures.audio(name)
        let expected = try decodeAll(try MP3Decoder(path: Fixtures.audioPath(name)))
        #expect(expected.count > 44_100, "\(name): a second of audio or more")
        for piece in [997, 4096, bytes.count] {
            let (pcm, decoder, starved) = try Self.decode(bytes, piece: piece)
            #expect(pcm == expected, "\(name) in pieces of \(piece): \(pcm.count) samples, expected \(expected.count)")
            #expect(decoder.position * 2 == pcm.count && decoder.format != nil)
            if piece < bytes.count { #expect(starved > 0, "it asked for more between pieces") }
        }
    }

    /// A longer file lame made here (gapless header, 10 s): the same samples, in network-sized pieces.
    @Test func aLongerFileInNetworkSizedPieces() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try AudioFixtures.tone(in: folder, name: "long", seconds: 10, rate: 44_100)
        let expected = try decodeAll(try MP3Decoder(path: path))
        let (pcm, _, starved) = try Self.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))), piece: 1460)
        #expect(pcm.count == expected.count && pcm == expected)
        #expect(starved > 100)
    }

    @Test func atAnotherRateItResamplesAsTheFileDecoderDoes() throws {
        let name = "tone-22k-nolame.mp3"
        let (pcm, decoder, _) = try Self.decode(try Fixtures.audio(name), piece: 1500, rate: 48_000)
        #expect(decoder.format?.sampleRate == 48_000)
        #expect(pcm == (try decodeAll(try MP3Decoder(path: Fixtures.audioPath(name), rate: 48_000))))
    }

    @Test func withNothingYetItAsksForMoreAndWhatIsNotMP3IsSaid() throws {
        let decoder = try FeedDecoder(source: "http://example/radio")
        var buffer = [Int16](repeating: 0, count: 2048)
        #expect(try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) } == .needsMore)
        let page = Array("<html><body>Not found</body></html>".utf8)
        try page.withUnsafeBytes { try decoder.feed($0) }
        #expect(try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) } == .needsMore)
        decoder.finish()
        #expect(throws: DecodeError(path: "http://example/radio", message: "no MPEG audio found")) {
            _ = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        }
        #expect(throws: DecodeError.self) { try page.withUnsafeBytes { try decoder.feed($0) } }
    }
}
