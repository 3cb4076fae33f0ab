internal import COggCodecs
import Foundation

/// Decodes an Ogg Vorbis or Ogg Opus stream pushed in as it arrives (an Icecast station, a
/// remote file) to 16-bit stereo at a fixed rate, as `FeedDecoder` does for MP3: libogg finds
/// the pages and packets in whatever bytes came, libvorbis or libopus decodes each packet, and
/// `read` says `needsMore` instead of waiting. A station chains one logical stream after
/// another (each song its own headers): each new stream's comments are its title
/// (`takeTitle`), and a change of codec, rate or channels between them is followed.
///
/// Owns its libogg, libvorbis and libopus states: use it from one thread at a time.
public final class OggFeedDecoder: FedDecoder {
    public let source: String
    public var position: Int { output.position }
    public var length: Int? { nil }
    public var started: Bool { output.started }
    public var seeks: Bool { false }

    private let sync = UnsafeMutablePointer<ogg_sync_state>.allocate(capacity: 1)
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private var streamSerial: Int32?
    private var codec: (any OggCodec)?
    private var finished = false
    private var title: String?
    private let output: FedOutput

    /// A packet larger than this is no audio (Vorbis and Opus packets are a few KB; a comment
    /// header with a cover picture may be a few MB): a stream that never ends one is refused
    /// before its pages fill the memory.
    static let largestPacket = 16 << 20

    public init(source: String, rate: Int) throws(DecodeError) {
        output = try FedOutput(source: source, rate: rate)
        self.source = source
        ogg_sync_init(sync)
        stream.initialize(to: ogg_stream_state())
    }

    deinit {
        if streamSerial != nil { ogg_stream_clear(stream) }
        ogg_sync_clear(sync)
        sync.deallocate()
        stream.deallocate()
    }

    /// Whether `bytes` begin as an Ogg stream does.
    public static func isOgg(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: Array("OggS".utf8)) }

    public func feed(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        try feedPieces(bytes, source: source, finished: finished) { (piece, count) throws(DecodeError) in
            guard let buffer = ogg_sync_buffer(sync, count) else {
                throw DecodeError(path: source, message: "libogg could not take the stream's bytes")
            }
            buffer.update(from: piece.assumingMemoryBound(to: CChar.self), count: count)
            ogg_sync_wrote(sync, count)
            // Pages are taken out as they come, so that what libogg holds stays one page.
            try takePages()
        }
    }

    public func finish() { finished = true }
    public func setSize(_ bytes: Int) {}

    public func seek(toFrame frame: Int) throws(DecodeError) -> Int {
        throw DecodeError(path: source, message: "cannot seek in an Ogg stream from the network")
    }

    public func takeTitle() -> String? {
        defer { title = nil }
        return title
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> FeedDecoder.Result {
        try output.read(into: buffer, finished: finished, nothing: "no Vorbis or Opus audio found in the Ogg stream")
    }

    /// Takes every whole page libogg holds, and decodes the packets they complete.
    private func takePages() throws(DecodeError) {
        var page = ogg_page()
        while true {
            let found = ogg_sync_pageout(sync, &page)
            if found < 0 { continue }  // bytes that were no page (a hole): skipped
            guard found == 1 else { return }
            let serial = ogg_page_serialno(&page)
            if ogg_page_bos(&page) != 0 || streamSerial == nil {
                // A new logical stream: the station's next song, or the first.
                if streamSerial != nil { ogg_stream_clear(stream) }
                ogg_stream_init(stream, serial)
                streamSerial = serial
                codec = nil
            } else if serial != streamSerial {
                continue  // a page of another stream multiplexed in (a video, a second track)
            }
            guard ogg_stream_pagein(stream, &page) == 0 else { continue }
            var packet = ogg_packet()
            while true {
                let result = ogg_stream_packetout(stream, &packet)
                if result < 0 { continue }  // a packet lost to a hole
                guard result == 1 else { break }
                try take(&packet)
            }
            if stream.pointee.body_fill - stream.pointee.body_returned > Self.largestPacket {
                throw DecodeError(path: source, message: "a packet of more than 16 MB in the Ogg stream: not audio")
            }
        }
    }

    private func take(_ packet: inout ogg_packet) throws(DecodeError) {
        let bytes = UnsafeRawBufferPointer(start: packet.packet, count: max(0, packet.bytes))
        if codec == nil {
            if VorbisPackets.isHeader(bytes) { codec = VorbisPackets() }
            else if OpusPackets.isHeader(bytes) { codec = OpusPackets() }
            else { throw DecodeError(path: source, message: "an Ogg stream of a codec songbox does not play (not Vorbis or Opus)") }
        }
        guard let codec else { return }
        let wasReady = codec.format != nil
        do throws(OggCodecError) {
            try codec.take(&packet, bytes, into: output.decoded)
        } catch {
            throw DecodeError(path: source, message: error.message)
        }
        if !wasReady, let format = codec.format {
            title = codec.title ?? title
            try output.follow(format)
        }
    }
}

struct OggCodecError: Error {
    let message: String
}

/// One logical stream's codec: takes its packets, headers first, and appends what they decode.
protocol OggCodec: AnyObject {
    /// Known once the headers are read.
    var format: SourceFormat? { get }
    /// "Artist - Title" from the comment header, as a station's ICY title reads.
    var title: String? { get }
    func take(_ packet: inout ogg_packet, _ bytes: UnsafeRawBufferPointer, into decoded: DecodedFrames) throws(OggCodecError)
}

extension OggCodec {
    /// The title a comment header gives: "ARTIST - TITLE", or either alone. Comments are
    /// `vendor, count, (length, "KEY=value")...`, little-endian lengths, each checked against the packet.
    static func title(ofComments bytes: UnsafeRawBufferPointer, from start: Int) -> String? {
        var offset = start
        func word() -> Int? {
            guard offset >= 0, bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        guard let vendor = word(), vendor <= bytes.count - offset else { return nil }
        offset += vendor
        guard let count = word() else { return nil }
        var title: String?, artist: String?
        for _ in 0..<min(count, bytes.count) {
            guard let length = word(), length <= bytes.count - offset else { break }
            let text = String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
            offset += length
            guard let equals = text.firstIndex(of: "=") else { continue }
            let value = String(text[text.index(after: equals)...])
            switch text[..<equals].uppercased() {
            case "TITLE" where title == nil: title = value
            case "ARTIST" where artist == nil: artist = value
            default: break
            }
        }
        return switch (artist, title) {
        case let (artist?, title?): artist + " - " + title
        case let (nil, title?): title
        case let (artist?, nil): artist
        default: nil
        }
    }
}

/// Vorbis: libvorbis's synthesis, its three headers first.
final class VorbisPackets: OggCodec {
    private(set) var format: SourceFormat?
    private(set) var title: String?
    private let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    private let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    private let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private var headers = 0
    private var mix = StereoMix.vorbis(channels: 2)
    /// Frames given out so far.
    private var emitted = 0

    static func isHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 7 && bytes[0] == 1 && bytes[1..<7].elementsEqual("vorbis".utf8)
    }

    init() {
        vorbis_info_init(info)
        vorbis_comment_init(comment)
    }

    deinit {
        if format != nil {
            vorbis_block_clear(block)
            vorbis_dsp_clear(dsp)
        }
        vorbis_comment_clear(comment)
        vorbis_info_clear(info)
        info.deallocate()
        comment.deallocate()
        dsp.deallocate()
        block.deallocate()
    }

    func take(_ packet: inout ogg_packet, _ bytes: UnsafeRawBufferPointer, into decoded: DecodedFrames) throws(OggCodecError) {
        guard format != nil else {
            guard vorbis_synthesis_headerin(info, comment, &packet) == 0 else {
                throw OggCodecError(message: "a damaged Vorbis header in the Ogg stream")
            }
            headers += 1
            if headers == 2 { title = Self.title(ofComments: bytes, from: 7) }
            guard headers == 3 else { return }
            let channels = Int(info.pointee.channels)
            guard (1...SourceFormat.maximumChannels).contains(channels),
                  vorbis_synthesis_init(dsp, info) == 0 else {
                throw OggCodecError(message: "a Vorbis stream of \(channels) channels: not one songbox plays")
            }
            vorbis_block_init(dsp, block)
            mix = StereoMix.vorbis(channels: channels)
            format = SourceFormat(sampleRate: info.pointee.rate, channels: channels, bitsPerSample: nil)
            return
        }
        // A packet libvorbis cannot read is a moment lost, as a player goes on after a hole.
        if vorbis_synthesis(block, &packet) == 0 { vorbis_synthesis_blockin(dsp, block) }
        var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
        let end = packet.e_o_s != 0 && packet.granulepos >= 0 ? Int(packet.granulepos) : nil
        while true {
            let ready = Int(vorbis_synthesis_pcmout(dsp, &channels))
            guard ready > 0, let channels else { break }
            // The last page's granule position is where the stream ends: the rest of its last
            // block is padding (as libvorbisfile trims it).
            let frames = end.map { max(0, min(ready, $0 - emitted)) } ?? ready
            if frames > 0 {
                decoded.append(frames: frames) { destination in
                    mix.mix(frames: frames, into: destination) { channel, frame in channels[channel]![frame] * 32768 }
                }
            }
            emitted += frames
            vorbis_synthesis_read(dsp, Int32(ready))
        }
    }
}

/// Opus: libopus's multistream decoder, set up from the OpusHead packet (RFC 7845): 48 kHz,
/// the pre-skip dropped, the output gain applied, the channels in Vorbis's order mixed to two.
final class OpusPackets: OggCodec {
    private(set) var format: SourceFormat?
    private(set) var title: String?
    private var decoder: OpaquePointer?
    private var headers = 0
    /// The header's pre-skip, and what of it is still to drop.
    private var preSkip = 0
    private var skip = 0
    private var gain: Float = 1
    /// Frames given out so far (after the pre-skip).
    private var emitted = 0
    private var mix = StereoMix.vorbis(channels: 2)
    /// The largest packet: 120 ms at 48 kHz.
    private static let largestFrames = 5760
    private var pcm: [Float] = []

    static func isHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 19 && bytes[0..<8].elementsEqual("OpusHead".utf8)
    }

    deinit { if let decoder { opus_multistream_decoder_destroy(decoder) } }

    func take(_ packet: inout ogg_packet, _ bytes: UnsafeRawBufferPointer, into decoded: DecodedFrames) throws(OggCodecError) {
        switch headers {
        case 0:
            try head(bytes)
            headers = 1
        case 1:
            // OpusTags; the stream is ready after it.
            if bytes.count >= 8, bytes[0..<8].elementsEqual("OpusTags".utf8) { title = Self.title(ofComments: bytes, from: 8) }
            headers = 2
            format = SourceFormat(sampleRate: 48_000, channels: mix.channels, bitsPerSample: nil)
        default:
            guard let decoder, let data = packet.packet, packet.bytes > 0, packet.bytes <= Int(Int32.max) else { return }
            let channels = mix.channels
            if pcm.count < Self.largestFrames * channels { pcm = [Float](repeating: 0, count: Self.largestFrames * channels) }
            let frames = Int(pcm.withUnsafeMutableBufferPointer {
                opus_multistream_decode_float(decoder, data, Int32(packet.bytes), $0.baseAddress!, Int32(Self.largestFrames), 0)
            })
            // A packet libopus cannot read is a moment lost, as a player goes on after a hole.
            guard frames > 0 else { return }
            let dropped = min(skip, frames)
            skip -= dropped
            var kept = frames - dropped
            // The last page's granule position less the pre-skip is the stream's length: the
            // rest of its last packet is padding (RFC 7845, 4.4).
            if packet.e_o_s != 0, packet.granulepos >= 0 { kept = max(0, min(kept, Int(packet.granulepos) - preSkip - emitted)) }
            emitted += kept
            guard kept > 0 else { return }
            let scale = gain * 32768
            pcm.withUnsafeBufferPointer { pcm in
                decoded.append(frames: kept) { destination in
                    mix.mix(frames: kept, into: destination) { channel, frame in pcm[(dropped + frame) * channels + channel] * scale }
                }
            }
        }
    }

    /// The identification header: version 0.x, the channel count and mapping, the pre-skip and
    /// the output gain (Q7.8 dB).
    private func head(_ bytes: UnsafeRawBufferPointer) throws(OggCodecError) {
        let channels = Int(bytes[9])
        let family = bytes[18]
        guard bytes[8] >> 4 == 0, channels >= 1 else { throw OggCodecError(message: "an Opus header songbox cannot read") }
        preSkip = Int(bytes[10]) | Int(bytes[11]) << 8
        skip = preSkip
        let decibels = Float(Int16(bitPattern: UInt16(bytes[16]) | UInt16(bytes[17]) << 8)) / 256
        gain = powf(10, decibels / 20)
        var streams: Int32 = 1, coupled: Int32 = channels > 1 ? 1 : 0
        var mapping: [UInt8] = [0, 1]
        if family != 0 {
            guard bytes.count >= 21 + channels else { throw OggCodecError(message: "an Opus header cut short") }
            streams = Int32(bytes[19])
            coupled = Int32(bytes[20])
            mapping = Array(bytes[21..<(21 + channels)])
        } else if channels > 2 {
            throw OggCodecError(message: "an Opus header of \(channels) channels without a channel mapping")
        }
        var error: Int32 = 0
        decoder = mapping.withUnsafeBufferPointer {
            opus_multistream_decoder_create(48_000, Int32(channels), streams, coupled, $0.baseAddress!, &error)
        }
        guard decoder != nil, error == OPUS_OK else {
            throw OggCodecError(message: "an Opus stream libopus cannot decode (\(String(cString: opus_strerror(error))))")
        }
        mix = StereoMix.vorbis(channels: channels)
    }
}
