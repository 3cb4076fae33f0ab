import Foundation
import Testing
@testable import SongboxAudio
import SongboxTestSupport

/// FLACFeedDecoder, a FLAC file's bytes as they come from the network: fed in odd pieces it
/// gives what the file decoder (and so `flac -d`) gives, at the file's rate or resampled, with
/// its metadata (tags, a large picture) passed over; a seek starts from the seek point's byte
/// and lands on the sample.
@Suite struct FLACFeedDecoderTests {
    let folder: String

    init() throws {
        folder = try Fixtures.temporaryDirectory()
    }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The sweep as FLAC, `seconds` long, with a picture of `pictureBytes` in its metadata.
    func file(rate: Int = 44_100, channels: Int = 2, bits: Int = 16, seconds: Int = 3, pictureBytes: Int = 0) throws -> String {
        let name = "sweep-\(rate)-\(channels)-\(bits)-\(pictureBytes)"
        let wav = try AudioFixtures.signal(folder + "/\(name).wav", frames: seconds * rate, rate: rate, channels: channels, bits: bits)
        let flac = try AudioFixtures.encode(wav, as: .flac, to: folder + "/\(name).flac")
        if pictureBytes > 0 {
            let picture = folder + "/\(name).png"
            try Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0xAB, count: pictureBytes)).write(to: URL(fileURLWithPath: picture))
            try AudioFixtures.run("metaflac", ["--set-tag=TITLE=שיר", "--import-picture-from=3|image/png||100x100x24|" + picture, flac])
        }
        return flac
    }

    @Test(arguments: [(44_100, 2, 16), (48_000, 1, 24), (44_100, 6, 16)])
    func piecesDecodeAsTheFileDecoderDoes(rate: Int, channels: Int, bits: Int) throws {
        let flac = try file(rate: rate, channels: channels, bits: bits)
        let expected = try decodeAll(try FLACDecoder(path: flac), chunk: 4096)
        #expect(expected.count == 3 * rate * 2)
        for piece in [1, 1000, 65_536] {
            let decoder = try FLACFeedDecoder(source: "test", rate: rate)
            let pcm = try feedInPieces(decoder, try bytes(flac), piece: piece).pcm
            #expect(decoder.length == 3 * rate)
            #expect(difference(pcm, expected) == nil, "\(channels) channels, \(bits) bits at \(rate) in pieces of \(piece)")
        }
    }

    @Test func atAnotherRateItResamplesAsTheFileDecoderDoes() throws {
        let flac = try file(rate: 48_000)
        let expected = try decodeAll(try FLACDecoder(path: flac, rate: 44_100), chunk: 4096)
        let decoder = try FLACFeedDecoder(source: "test", rate: 44_100)
        let pcm = try feedInPieces(decoder, try bytes(flac), piece: 4000).pcm
        #expect(decoder.length == 3 * 44_100)
        #expect(difference(pcm, expected) == nil)
    }

    /// A 3 MB cover in the metadata is passed over, not held: what the decoder keeps stays far
    /// below it.
    @Test func tagsAndALargePictureArePassedOver() throws {
        let flac = try file(pictureBytes: 3 << 20)
        let expected = try decodeAll(try FLACDecoder(path: flac), chunk: 4096)
        let pcm = try feedInPieces(try FLACFeedDecoder(source: "test", rate: 44_100), try bytes(flac), piece: 16_384).pcm
        #expect(difference(pcm, expected) == nil)
    }

    /// A seek gives the byte to fetch from (a seek point's frame); fed from there, the decoder
    /// plays on from the very sample, as the file decoder does after the same seek.
    @Test(arguments: [0, 1, 100_000, 3 * 44_100 * 7 - 1])
    func aSeekNamesTheByteToFetchFromAndLandsOnTheSample(target: Int) throws {
        let flac = try file(seconds: 25)  // `flac` writes a seek point every 10 s
        let all = try bytes(flac)
        let expected = try decodeAll(try FLACDecoder(path: flac), chunk: 4096)
        let decoder = try FLACFeedDecoder(source: "test", rate: 44_100)
        _ = try feedInPieces(decoder, Array(all.prefix(200_000)), piece: 8192, finishing: false)
        #expect(decoder.seeks)
        let byte = try decoder.seek(toFrame: target)
        #expect(byte > 0 && byte < all.count)
        #expect(decoder.position == target)
        let pcm = try feedInPieces(decoder, Array(all[byte...]), piece: 8192).pcm
        #expect(difference(pcm, Array(expected[(target * 2)...])) == nil, "seek to \(target) from byte \(byte)")
    }

    @Test func notFLACAndALyingStreamInfoAreSaid() throws {
        let flac = try file()
        var damaged = try bytes(flac)
        damaged[4 + 3] = 40  // STREAMINFO's length
        #expect(throws: DecodeError.self) { _ = try feedInPieces(try FLACFeedDecoder(source: "test", rate: 44_100), damaged, piece: 100) }
        #expect(throws: DecodeError.self) {
            _ = try feedInPieces(try FLACFeedDecoder(source: "test", rate: 44_100), Array("ID3 not flac at all".utf8), piece: 100)
        }
        // Cut short: what came plays, and then it ends.
        let cut = Array(try bytes(flac).prefix(60_000))
        let pcm = try feedInPieces(try FLACFeedDecoder(source: "test", rate: 44_100), cut, piece: 4096).pcm
        #expect(pcm.count > 0 && pcm.count < 3 * 44_100 * 2)
    }
}
