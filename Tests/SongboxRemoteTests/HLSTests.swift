import Foundation
import SongboxAudio
import SongboxTestSupport
import Testing
@testable import SongboxRemote

/// HLS stations over the tests' nginx: a recording in MPEG-TS pieces (made by ffmpeg's HLS
/// muxer) behind a master playlist, and a live station whose playlist grows while it plays, in
/// packed-audio pieces each starting with an ID3 tag. Either plays sample for sample what the
/// same AAC frames sent whole play as.
@Suite(.serialized) struct HLSTests {
    let folder: String
    let root: String

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        root = folder + "/www"
        try FileManager.default.createDirectory(atPath: root + "/ts", withIntermediateDirectories: true)
    }

    /// Six seconds of the sweep as ADTS (`all.aac`), and its frames.
    func stream() throws -> [[UInt8]] {
        let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 6 * 44_100)
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k", "-f", "adts", root + "/all.aac"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/all.aac")))
        var frames: [[UInt8]] = [], offset = 0
        while offset + 7 <= bytes.count {
            let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5]) >> 5
            frames.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        return frames
    }

    /// What the whole ADTS file plays as, fetched from the same server.
    func whole(_ server: NginxServer) throws -> [Int16] {
        let played = try RemoteTrackTests.play([server.url("/files/all.aac")], through: NetworkTracks(), in: folder)
        #expect(played.errors == [])
        #expect(played.samples.count > 5 * 44_100 * 2)
        return played.samples
    }

    /// A master playlist offers a video variant (which is not there: choosing it would fail)
    /// and an audio-only one of MPEG-TS pieces; the audio one plays, every piece in order.
    @Test func aRecordingInMPEGTSPiecesBehindAMasterPlaylistPlaysAsItsFramesDo() throws {
        _ = try stream()
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", root + "/all.aac", "-c", "copy", "-f", "hls", "-hls_time", "1",
                                         "-hls_playlist_type", "vod", "-hls_segment_filename", root + "/ts/piece%03d.ts", root + "/ts/index.m3u8"])
        try """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=4000000,CODECS="avc1.4d401f,mp4a.40.2"
            video/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=140000,CODECS="mp4a.40.2"
            ts/index.m3u8

            """.write(toFile: root + "/master.m3u8", atomically: true, encoding: .utf8)
        let server = try NginxServer(root: root, folder: folder)
        let expected = try whole(server)
        let played = try RemoteTrackTests.play([server.url("/files/master.m3u8")], through: NetworkTracks(), in: folder)
        #expect(played.errors == [])
        #expect(difference(played.samples, expected) == nil)
        let pieces = try FileManager.default.contentsOfDirectory(atPath: root + "/ts").filter { $0.hasSuffix(".ts") }.count
        #expect(pieces >= 5)
        #expect(server.accessLog.components(separatedBy: "/files/ts/piece").count - 1 == pieces, "\(server.accessLog)")
        #expect(!server.accessLog.contains("video"))
    }

    /// A live station: its playlist lists the last few pieces and grows as the test writes new
    /// ones (the oldest leaving it), then ends. Joined three pieces from the end, every piece
    /// plays once, in order; the titles its `#EXTINF` lines give are announced as they change.
    @Test func aLiveStationWhosePlaylistGrowsPlaysEachPieceOnceWithItsTitles() throws {
        let frames = try stream()
        // About half a second a piece, each with the ID3 tag packed audio starts with.
        let perPiece = 22
        let pieces = stride(from: 0, to: frames.count, by: perPiece).map { Array(frames[$0..<min($0 + perPiece, frames.count)].joined()) }
        for (index, piece) in pieces.enumerated() {
            try Data(Self.timestampTag(UInt64(index) * 45_000) + piece).write(to: URL(fileURLWithPath: root + "/live\(index).aac"))
        }
        let server = try NginxServer(root: root, folder: folder)
        let expected = try whole(server)
        // Eight pieces (3 s) stay listed: room for a loaded machine to reload late.
        let window = 8, root = root, count = pieces.count
        @Sendable func publish(upTo last: Int, ended: Bool) throws {
            let first = max(0, last - window + 1)
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            for index in first...last {
                let title = index < count / 2 ? "title=\"שיר ראשון\",artist=\"Songbox\"" : "title=\"Second Song\",artist=\"Songbox\""
                text += "#EXTINF:0.5,\(title)\nlive\(index).aac\n"
            }
            if ended { text += "#EXT-X-ENDLIST\n" }
            try text.write(toFile: root + "/live.m3u8", atomically: true, encoding: .utf8)
        }
        try publish(upTo: 2, ended: false)
        let writer = Thread {
            for last in 3..<count {
                Thread.sleep(forTimeInterval: 0.4)
                try? publish(upTo: last, ended: last == count - 1)
            }
        }
        writer.start()
        let played = try RemoteTrackTests.play([server.url("/files/live.m3u8")], through: NetworkTracks(), in: folder, seconds: 60)
        #expect(played.errors == [])
        #expect(difference(played.samples, expected) == nil)
        #expect(played.titles.map(\.title) == ["Songbox - שיר ראשון", "Songbox - Second Song"])
        for index in pieces.indices {
            #expect(server.accessLog.components(separatedBy: "/files/live\(index).aac ").count - 1 == 1, "piece \(index)")
        }
    }

    /// An ID3v2.4 tag with the PRIV frame that says a packed-audio piece's time (90 kHz).
    static func timestampTag(_ time: UInt64) -> [UInt8] {
        let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]
        let body = owner + (0..<8).reversed().map { UInt8(truncatingIfNeeded: time >> (8 * UInt64($0))) }
        let frame = Array("PRIV".utf8) + Self.synchsafe(body.count) + [0, 0] + body
        return Array("ID3".utf8) + [4, 0, 0] + Self.synchsafe(frame.count) + frame
    }

    static func synchsafe(_ value: Int) -> [UInt8] {
        [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) }
    }

    @Test func aMasterPlaylistLeadsToSoundOnlyAndAttributesAndTitlesAreRead() throws {
        let master = try HLSPlaylist.parse("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, main",DEFAULT=YES,URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=96000,CODECS="mp4a.40.5"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=320000,CODECS="mp4a.40.2"
            https://cdn.example/high.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
            video.m3u8
            """, at: "http://radio.example/live/master.m3u8")
        guard case .master(let variants) = master else { Issue.record("not a master playlist: \(master)"); return }
        #expect(HLSPlaylist.choose(variants)?.url == "https://cdn.example/high.m3u8")
        // Only video variants and an audio rendition: the rendition.
        #expect(HLSPlaylist.choose(variants.filter { !$0.audioOnly || $0.audioRendition })?.url == "http://radio.example/live/audio/en.m3u8")
        // Variants that do not say their codecs: the smallest.
        let unsaid = [HLSPlaylist.Variant(url: "a", bandwidth: 900, codecs: []), HLSPlaylist.Variant(url: "b", bandwidth: 100, codecs: [])]
        #expect(HLSPlaylist.choose(unsaid)?.url == "b")

        let attributes = HLSPlaylist.attributeList(#"NAME="a, b",BANDWIDTH=5,URI="x.m3u8""#)
        #expect(attributes == ["NAME": "a, b", "BANDWIDTH": "5", "URI": "x.m3u8"])
        #expect(HLSPlaylist.extinfTitle("10.0,Morning Show") == "Morning Show")
        #expect(HLSPlaylist.extinfTitle(#"10,title="Song",artist="Band""#) == "Band - Song")
        #expect(HLSPlaylist.extinfTitle("10,") == nil)
    }

    @Test func encryptedFragmentedAndEmptyPlaylistsAreSaid() throws {
        let base = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n"
        let encrypted = try HLSPlaylist.parse(base + "#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:6,\na.ts\n", at: "http://x.example/p.m3u8")
        #expect(encrypted == .media(.init(targetDuration: 6, firstSequence: 0, segments: [.init(url: "http://x.example/a.ts")],
                                          ended: false, unplayable: "an HLS stream whose pieces are encrypted (AES-128)")))
        let fragmented = try HLSPlaylist.parse(base + "#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:6,\na.m4s\n#EXT-X-ENDLIST\n", at: "http://x.example/p.m3u8")
        guard case .media(let media) = fragmented else { Issue.record("not media"); return }
        #expect(media.unplayable == "an HLS stream in fragmented MP4 pieces, which songbox does not play")
        #expect(media.ended)
        #expect(throws: HTTPAudioSource.Stop.self) { try HLSPlaylist.parse("#EXTM3U\n#EXT-X-VERSION:3\n", at: "http://x.example/p.m3u8") }
        // A hostile target duration cannot make songbox wait for ever or spin.
        guard case .media(let slow) = try HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:99999999\n#EXTINF:1,\na.ts\n", at: "http://x.example/p"),
              case .media(let fast) = try HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:0.0001\n#EXTINF:1,\na.ts\n", at: "http://x.example/p")
        else { Issue.record("not media"); return }
        #expect(slow.targetDuration == 120 && fast.targetDuration == 0.5)
    }

    /// The transport stream's audio comes out the same whatever the pieces' sizes, and a stream
    /// with garbage cut into it finds its step again.
    @Test func theDemuxerGivesTheSameAudioInAnyPiecesAndFindsItsStepAgain() throws {
        let frames = try stream()
        let ts = folder + "/all.ts"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", root + "/all.aac", "-c", "copy", "-f", "mpegts", ts])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ts)))
        func demux(_ bytes: [UInt8], piece: Int) throws -> [UInt8] {
            var demuxer = MPEGTSDemuxer(), out: [UInt8] = []
            for start in stride(from: 0, to: bytes.count, by: piece) { out += try demuxer.take(Array(bytes[start..<min(start + piece, bytes.count)])) }
            #expect(demuxer.audio == .adts)
            return out
        }
        let whole = try demux(bytes, piece: bytes.count)
        #expect(ADTSFeedDecoder.isADTS(whole))
        // As many ADTS frames as were muxed, each as long.
        #expect(Self.frameLengths(whole) == frames.map(\.count))
        for piece in [1, 187, 189, 5000] { #expect(try demux(bytes, piece: piece) == whole, "pieces of \(piece)") }
        var damaged = bytes
        damaged.insert(contentsOf: [UInt8](repeating: 0x47, count: 77), at: 188 * 40 + 5)
        let recovered = try demux(damaged, piece: 4096)
        #expect(recovered.count > whole.count * 9 / 10)
    }

    static func frameLengths(_ bytes: [UInt8]) -> [Int] {
        var lengths: [Int] = [], offset = 0
        while offset + 7 <= bytes.count {
            let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5]) >> 5
            guard length > 0 else { break }
            lengths.append(length)
            offset += length
        }
        return lengths
    }
}
