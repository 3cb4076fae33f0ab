internal import COpusFile
import Foundation

/// Decodes an Ogg Opus file with libopusfile, at 48 kHz as Opus always decodes: its length is
/// the last granule position less the pre-skip (libopusfile removes both ends' padding), seeks
/// are sample-accurate (`op_pcm_seek`, and a second decoded before the target to settle the
/// decoder: `settle`), the header's output gain is applied, and more than two channels are mixed
/// to two as every other format's are (`StereoMix`, Vorbis's order; the LFE left out), and as a
/// stream's are (`OggFeedDecoder`). Float output, not `op_read`'s: that one dithers.
public final class OpusDecoder: FileDecoder {
    public convenience init(path: String, rate: Int? = nil) throws(DecodeError) {
        try self.init(bytes: try AudioFileBytes(path: path), rate: rate)
    }

    init(bytes: AudioFileBytes, rate: Int?) throws(DecodeError) {
        try super.init(path: bytes.path, frames: try OpusFrames(bytes: bytes), rate: rate)
    }
}

/// One `OggOpusFile` and the file it reads.
final class OpusFrames: FrameSource {
    private let bytes: AudioFileBytes
    private let file: OpaquePointer
    let format: SourceFormat
    let length: Int?
    let seekable: Bool
    private var ended = false
    /// What `op_read_float` gives: every channel of the link, interleaved; room for a 120 ms
    /// packet of 8 channels (libopusfile keeps what does not fit for the next call).
    private var channelSamples: [Float] = []
    private var mix = StereoMix.vorbis(channels: 2)
    /// A packet's frames mixed to stereo, and how many of its samples `read` has handed out.
    private var mixed: [Float] = []
    private var mixedTaken = 0
    /// Frames decoded before a seek's target beyond libopusfile's own 80 ms. After its 80 ms the
    /// output differs from a decode from the start by thousands (CELT's energy prediction and
    /// SILK's state are still settling); after one more second, by at most 1 in the tests'
    /// sweeps. It costs a second's decode per seek (a few ms on a Pi).
    private static let settle = 48_000

    init(bytes: AudioFileBytes) throws(DecodeError) {
        self.bytes = bytes
        var callbacks = OpusFileCallbacks(read: { context, buffer, count in
            guard let buffer else { return -1 }
            return Int32(AudioFileBytes.of(context).read(into: buffer, count: Int(max(0, count))))
        }, seek: { context, offset, whence in
            AudioFileBytes.of(context).seek(Int(offset), whence: whence) < 0 ? -1 : 0
        }, tell: { context in
            Int64(AudioFileBytes.of(context).offset)
        }, close: nil)
        var status: Int32 = 0
        var opened = op_open_callbacks(bytes.context, &callbacks, nil, 0, &status)
        // A file cut short or with garbage inside fails libopusfile's scan of the whole file
        // (a bad last timestamp), or finds no length. Read from start to end instead, as a
        // stream: it plays as far as it is good, without a length or seeking.
        if opened.map({ op_pcm_total($0, -1) <= 0 }) ?? true {
            if let opened { op_free(opened) }
            _ = bytes.seek(0, whence: SEEK_SET)
            callbacks.seek = nil
            callbacks.tell = nil
            opened = op_open_callbacks(bytes.context, &callbacks, nil, 0, &status)
            seekable = false
        } else {
            seekable = true
        }
        guard let file = opened else {
            throw DecodeError(path: bytes.path, message: VorbisFrames.message(for: status, codec: "Opus"))
        }
        self.file = file
        format = SourceFormat(sampleRate: 48_000, channels: Int(op_channel_count(file, -1)), bitsPerSample: nil)
        let total = seekable ? op_pcm_total(file, -1) : -1
        length = total >= 0 ? Int(total) : nil
    }

    deinit { op_free(file) }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int {
        guard !ended else { return 0 }
        if mixed.isEmpty {
            guard try decodePacket() else { return 0 }
        }
        // What one packet made, handed out as asked: a packet may hold more than `frames`.
        let count = min(frames, (mixed.count - mixedTaken) / 2)
        mixed.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + mixedTaken, count: count * 2) }
        mixedTaken += count * 2
        if mixedTaken == mixed.count { mixed.removeAll(keepingCapacity: true); mixedTaken = 0 }
        return count
    }

    /// Decodes what libopusfile gives in one call (at most a packet, up to 120 ms) into `mixed`;
    /// false at the end.
    private func decodePacket() throws(DecodeError) -> Bool {
        guard !ended else { return false }
        if channelSamples.isEmpty { channelSamples = [Float](repeating: 0, count: 5760 * 8) }
        while true {
            var link: Int32 = 0
            let got = channelSamples.withUnsafeMutableBufferPointer {
                op_read_float(file, $0.baseAddress!, Int32($0.count), &link)
            }
            // A hole (bytes that are no Ogg page, a page lost): libopusfile goes on after it.
            if got == OP_HOLE { continue }
            guard got > 0 else {
                ended = true
                if got == 0 { return false }
                throw DecodeError(path: bytes.path, message: VorbisFrames.message(for: got, codec: "Opus"))
            }
            // Each link of a chained file has its own channels.
            let channels = Int(op_channel_count(file, link))
            if mix.channels != channels { mix = StereoMix.vorbis(channels: channels) }
            // The same storage each packet: no allocation on the audio thread once it has grown.
            mixed.removeAll(keepingCapacity: true)
            mixed.append(contentsOf: repeatElement(0, count: Int(got) * 2))
            channelSamples.withUnsafeBufferPointer { samples in
                mixed.withUnsafeMutableBufferPointer { mixed in
                    mix.mix(frames: Int(got), into: mixed.baseAddress!) { channel, frame in samples[frame * channels + channel] * 32768 }
                }
            }
            mixedTaken = 0
            return true
        }
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        mixed.removeAll(keepingCapacity: true)
        mixedTaken = 0
        if let length, frame >= length {
            ended = true
            return
        }
        ended = false
        let preroll = min(frame, Self.settle)
        let status = op_pcm_seek(file, Int64(frame - preroll))
        guard status == 0 else { throw DecodeError(path: bytes.path, message: "cannot seek: " + VorbisFrames.message(for: status, codec: "Opus")) }
        // Decoded and dropped: the decoder's state settles on the continuous decode's.
        var left = preroll
        var scratch = [Float](repeating: 0, count: 4096 * 2)
        while left > 0 {
            let got = try scratch.withUnsafeMutableBufferPointer { buffer throws(DecodeError) in try read(into: buffer.baseAddress!, frames: min(left, 4096)) }
            guard got > 0 else { break }
            left -= got
        }
    }
}
