internal import COpusFile
import Foundation

/// Decodes an Ogg Opus file with libopusfile, at 48 kHz as Opus always decodes: its length is
/// the last granule position less the pre-skip (libopusfile removes both ends' padding), seeks
/// are sample-accurate (`op_pcm_seek`, and a second decoded before the target to settle the
/// decoder: `settle`), the header's output gain is applied, and more than two channels are downmixed by
/// libopusfile (`op_read_float_stereo`). Float output, not `op_read`'s: that one dithers.
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
        while true {
            let got = op_read_float_stereo(file, destination, Int32(min(frames, 4096) * 2))
            // A hole (bytes that are no Ogg page, a page lost): libopusfile goes on after it.
            if got == OP_HOLE { continue }
            guard got > 0 else {
                ended = true
                if got == 0 { return 0 }
                throw DecodeError(path: bytes.path, message: VorbisFrames.message(for: got, codec: "Opus"))
            }
            for index in 0..<(Int(got) * 2) { destination[index] *= 32768 }
            return Int(got)
        }
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
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
