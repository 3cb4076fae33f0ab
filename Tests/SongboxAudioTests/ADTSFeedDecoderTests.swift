import Foundation
import Testing
@testable import SongboxAudio
import SongboxTestSupport

/// ADTSFeedDecoder, an AAC station's frames as they arrive: fed in odd pieces, it gives what the
/// MP4 decoder gives for the same AAC frames in an `.m4a`, at the stream's rate or resampled;
/// garbage between frames is passed over; an MP3 stream is not taken for AAC.
@Suite struct ADTSFeedDecoderTests {
    let folder: String

    init() throws {
        folder = try Fixtures.temporaryDirectory()
    }

    static func decode(_ bytes: [UInt8], piece: Int, rate: Int) throws -> [Int16] {
        try feedInPieces(try ADTSFeedDecoder(source: "test", rate: rate), bytes, piece: piece).pcm
    }

    /// The sweep as ADTS (ffmpeg's AAC encoder), and the same frames in an MP4 (no edit list:
    /// both are the decoder's whole timeline).
    func stream(channels: Int = 2, rate: Int = 44_100) throws -> (adts: String, mp4: String) {
        let wav = try AudioFixtures.signal(folder + "/sweep-\(channels)-\(rate).wav", frames: 2 * rate, rate: rate, channels: channels)
        let adts = folder + "/sweep-\(channels)-\(rate).aac", mp4 = folder + "/sweep-\(channels)-\(rate).m4a"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k", "-f", "adts", adts])
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", adts, "-c", "copy", mp4])
        return (adts, mp4)
    }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test(arguments: [(2, 44_100), (1, 48_000)])
    func piecesDecodeAsTheMP4DecoderDecodesTheSameFrames(channels: Int, rate: Int) throws {
        let (adts, mp4) = try stream(channels: channels, rate: rate)
        let expected = try decodeAll(try AudioFile.decoder(path: mp4, rate: nil), chunk: 4096)
        #expect(expected.count > rate * 2)
        #expect(ADTSFeedDecoder.isADTS(try bytes(adts)))
        for piece in [700, 4096] {
            let pcm = try Self.decode(try bytes(adts), piece: piece, rate: rate)
            // The MP4's length may end where its table says; the stream's frames run on.
            #expect(pcm.count >= expected.count && Array(pcm.prefix(expected.count)) == expected,
                    "\(channels) channels at \(rate) in pieces of \(piece): \(pcm.count / 2) frames against \(expected.count / 2)")
        }
    }

    @Test func atAnotherRateItResamplesAsTheFileDecoderDoes() throws {
        let (adts, mp4) = try stream(rate: 48_000)
        let expected = try decodeAll(try AudioFile.decoder(path: mp4, rate: 44_100), chunk: 4096)
        let pcm = try Self.decode(try bytes(adts), piece: 1460, rate: 44_100)
        // The last few frames depend on what follows the end (the file's length, the stream's flush).
        let compared = expected.count - 2 * 64
        #expect(pcm.count >= compared && Array(pcm.prefix(compared)) == Array(expected.prefix(compared)))
    }

    /// A station joined mid-frame, and garbage between frames: the decoder finds the next header
    /// and goes on. An MP3 stream is not ADTS.
    @Test func aStreamJoinedMidFrameAndGarbageBetweenFramesPlayOn() throws {
        let (adts, _) = try stream()
        var damaged = Array(try bytes(adts).dropFirst(333))
        damaged.insert(contentsOf: [UInt8](repeating: 0x55, count: 3000), at: damaged.count / 2)
        let pcm = try Self.decode(damaged, piece: 4096, rate: 44_100)
        #expect(pcm.count > 2 * 44_100 * 2 * 9 / 10, "\(pcm.count / 2) frames")
        let mp3 = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        #expect(!ADTSFeedDecoder.isADTS(try bytes(mp3)))
    }
}
