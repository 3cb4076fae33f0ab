import Foundation
import Testing
@testable import SongboxAudio
import SongboxTestSupport

/// OggFeedDecoder, the decoder of Ogg Vorbis and Opus bytes that arrive a piece at a time (a
/// station, a remote file): fed in odd pieces with reads between, it gives what the file decoders
/// (libvorbisfile, libopusfile) give, at the stream's rate or resampled as the file decoder
/// resamples; a station's chained songs bring their titles; damage and what is not Vorbis or
/// Opus are said, and nothing grows without bound.
@Suite struct OggFeedDecoderTests {
    let folder: String

    init() throws {
        folder = try Fixtures.temporaryDirectory()
    }

    static func decode(_ bytes: [UInt8], piece: Int, rate: Int) throws -> (pcm: [Int16], titles: [String], starved: Int) {
        try feedInPieces(try OggFeedDecoder(source: "test", rate: rate), bytes, piece: piece)
    }

    /// A Vorbis or Opus file of the sweep, tagged.
    func file(_ encoding: AudioFixtures.Encoding, frames: Int = 3 * 44_100, channels: Int = 2, tags: [String] = []) throws -> String {
        let source = try AudioFixtures.signal(folder + "/\(encoding)-\(channels).wav", frames: frames, channels: channels)
        let path = folder + "/\(encoding)-\(channels)-\(tags.count).\(encoding.suffix)"
        try AudioFixtures.encode(source, as: encoding, to: path)
        if !tags.isEmpty {
            // Re-encoded with the comments: each encoder's own way to tag.
            let options = tags.flatMap { encoding == .opus ? ["--comment", $0] : ["-c", $0] }
            switch encoding {
            case .opus: try AudioFixtures.run("opusenc", ["--quiet", "--bitrate", "128"] + options + [source, path])
            default: try AudioFixtures.run("oggenc", ["-Q", "-q", "4"] + options + ["-o", path, source])
            }
        }
        return path
    }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test(arguments: [(AudioFixtures.Encoding.vorbis, 2), (.vorbis, 6), (.opus, 2), (.opus, 1), (.opus, 6)])
    func piecesDecodeAsTheFileDecoderDoes(encoding: AudioFixtures.Encoding, channels: Int) throws {
        let path = try file(encoding, channels: channels)
        let rate = encoding == .opus ? 48_000 : 44_100
        let expected = try decodeAll(try AudioFile.decoder(path: path, rate: nil), chunk: 4096)
        #expect(expected.count > 2 * rate * 2)
        for piece in [1460, 4096, 65_536] {
            let (pcm, _, starved) = try Self.decode(try bytes(path), piece: piece, rate: rate)
            #expect(pcm.count == expected.count, "\(encoding) \(channels) channels in pieces of \(piece)")
            #expect(pcm == expected, "\(encoding) \(channels) channels in pieces of \(piece): \(largestDifference(pcm, expected) ?? 0) apart")
            #expect(starved > 0, "it asked for more between pieces")
        }
    }

    /// Decoded at the output's rate (44.1 kHz for an Opus stream): what the file decoder gives
    /// when it resamples, sample for sample.
    @Test func atAnotherRateItResamplesAsTheFileDecoderDoes() throws {
        let path = try file(.opus)
        let expected = try decodeAll(try AudioFile.decoder(path: path, rate: 44_100), chunk: 4096)
        let (pcm, _, _) = try Self.decode(try bytes(path), piece: 1460, rate: 44_100)
        #expect(pcm.count == expected.count && pcm == expected, "\(pcm.count) against \(expected.count)")
    }

    /// A station's stream: one song after another, each its own logical stream with its own
    /// headers (Vorbis at 44.1 kHz, then Opus at 48), each song's title from its comments.
    @Test func chainedSongsBringTheirTitlesAndTheirOwnFormats() throws {
        let first = try file(.vorbis, tags: ["ARTIST=להקת הגליל", "TITLE=שיר העמק"])
        let second = try file(.opus, frames: 44_100, tags: ["TITLE=Evening News"])
        let chained = try bytes(first) + bytes(second)
        let (pcm, titles, _) = try Self.decode(chained, piece: 4096, rate: 44_100)
        #expect(titles == ["להקת הגליל - שיר העמק", "Evening News"])
        let expected = try decodeAll(try AudioFile.decoder(path: first, rate: nil), chunk: 4096)
        #expect(Array(pcm.prefix(expected.count)) == expected, "the first song as it is")
        let secondFrames = (pcm.count - expected.count) / 2
        #expect(abs(secondFrames - 44_100) <= 2, "the second, resampled to 44.1 kHz: \(secondFrames) frames")
    }

    /// Garbage in the middle (a dropped connection's bytes) is skipped and the stream goes on;
    /// an Ogg stream of another codec is said; a packet that never ends is refused at 16 MB.
    @Test func damageIsSkippedAndWhatIsNotVorbisOrOpusIsSaid() throws {
        var damaged = try bytes(try file(.vorbis))
        damaged.replaceSubrange((damaged.count / 2)..<(damaged.count / 2), with: (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let (pcm, _, _) = try Self.decode(damaged, piece: 4096, rate: 44_100)
        let damagedFile = folder + "/damaged.ogg"
        try Data(damaged).write(to: URL(fileURLWithPath: damagedFile))
        let fromFile = try decodeAll(try AudioFile.decoder(path: damagedFile, rate: nil), chunk: 4096)
        // As libvorbisfile reads the same bytes: the page the garbage cut is lost, the rest plays.
        #expect(pcm == fromFile, "\(pcm.count / 2) frames against libvorbisfile's \(fromFile.count / 2)")
        #expect(pcm.count > 44_100 * 2, "the stream went on after the garbage: \(pcm.count / 2) frames")

        let source = try AudioFixtures.signal(folder + "/flac.wav", frames: 44_100)
        let oggFLAC = try AudioFixtures.encode(source, as: .oggFLAC, to: folder + "/flac.oga")
        #expect(throws: DecodeError(path: "test", message: "an Ogg stream of a codec songbox does not play (not Vorbis or Opus)")) {
            _ = try Self.decode(try bytes(oggFLAC), piece: 4096, rate: 44_100)
        }

        // Pages whose one packet goes on and on (each page's lacing says "continued").
        let decoder = try OggFeedDecoder(source: "test", rate: 44_100)
        let head = Array(try bytes(try file(.opus)).prefix(4096))
        try head.withUnsafeBytes { try decoder.feed($0) }
        let serial = head[14..<18].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var thrown: DecodeError?
        for sequence in 0..<400 {
            let page = Self.page(serial: serial, sequence: UInt32(1000 + sequence), continued: sequence > 0,
                                 body: [UInt8](repeating: 7, count: 255 * 255))
            do { try page.withUnsafeBytes { try decoder.feed($0) } } catch { thrown = error as? DecodeError; break }
        }
        #expect(thrown?.message == "a packet of more than 16 MB in the Ogg stream: not audio", "\(String(describing: thrown))")
    }

    /// An Ogg page whose body is all one unfinished packet, with a right CRC.
    static func page(serial: UInt32, sequence: UInt32, continued: Bool, body: [UInt8]) -> [UInt8] {
        let segments = body.count / 255
        var page: [UInt8] = Array("OggS".utf8) + [0, continued ? 1 : 0]
        page += [UInt8](repeating: 0xFF, count: 8)  // granule -1: no packet ends here
        for value in [serial, sequence, 0] { page += withUnsafeBytes(of: value.littleEndian, Array.init) }
        page += [UInt8(segments)] + [UInt8](repeating: 255, count: segments) + body
        var crc: UInt32 = 0
        for byte in page {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        page.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        return page
    }
}
