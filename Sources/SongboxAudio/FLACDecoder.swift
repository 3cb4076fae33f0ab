internal import CFLAC
import Foundation

/// Decodes a FLAC file (native `.flac`, or FLAC in Ogg) with libFLAC: its length is STREAMINFO's
/// total samples, seeks land on the sample (libFLAC trims the frame it finds), and the PCM is
/// what `flac -d` writes, made 16-bit stereo as `FileDecoder` says.
public final class FLACDecoder: FileDecoder {
    /// Opens `path` for decoding, at `rate` when given (else at the file's own rate).
    public convenience init(path: String, rate: Int? = nil) throws(DecodeError) {
        let bytes = try AudioFileBytes(path: path)
        try self.init(bytes: bytes, ogg: bytes.bytes(at: 0, count: 4) == Array("OggS".utf8), rate: rate)
    }

    init(bytes: AudioFileBytes, ogg: Bool, rate: Int?) throws(DecodeError) {
        try super.init(path: bytes.path, frames: try FLACFrames(bytes: bytes, ogg: ogg), rate: rate)
    }
}

/// Where libFLAC's bytes come from: a file, or the bytes of a stream fed so far.
protocol FLACInput: AnyObject {
    var path: String { get }
    /// Up to `count` bytes; 0 at the end (of the bytes at hand), -1 on an error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int
    /// Moves as lseek does; the new offset, or -1 when it cannot.
    func seek(_ offset: Int, whence: Int32) -> Int
    /// The offset, or -1 when unknown.
    var offset: Int { get }
    /// The size, when known.
    var length: Int? { get }
}

extension AudioFileBytes: FLACInput {
    var length: Int? { size }
}

/// One libFLAC stream decoder and the bytes it reads, and the frame it decoded last, mixed to
/// stereo, waiting to be read.
final class FLACFrames: FrameSource {
    private let bytes: any FLACInput
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private(set) var format = SourceFormat(sampleRate: 0, channels: 0, bitsPerSample: 0)
    /// STREAMINFO's total samples; nil when it says 0 (unknown: a stream encoded as it came).
    private(set) var length: Int?
    private var path: String { bytes.path }

    /// The decoded frame not yet read, interleaved stereo.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var pendingEnd = 0
    /// Frames given since the open or the last seek (a stream with none that reported an error
    /// is an error, not an empty track).
    private var decoded = 0
    private var ended = false
    /// What libFLAC's error callback said last (it goes on after a lost sync or a bad frame).
    private var lastError: String?
    private var mixes: [Int: StereoMix] = [:]

    init(bytes: any FLACInput, ogg: Bool) throws(DecodeError) {
        self.bytes = bytes
        guard let decoder = FLAC__stream_decoder_new() else {
            throw DecodeError(path: bytes.path, message: "libFLAC could not create a decoder")
        }
        self.decoder = decoder
        // From here deinit frees the decoder, even when init throws.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = ogg
            ? FLAC__stream_decoder_init_ogg_stream(decoder, Self.read, Self.seek, Self.tell, Self.size, Self.atEnd,
                                                   Self.write, Self.metadata, Self.error, context)
            : FLAC__stream_decoder_init_stream(decoder, Self.read, Self.seek, Self.tell, Self.size, Self.atEnd,
                                               Self.write, Self.metadata, Self.error, context)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw DecodeError(path: path, message: status == FLAC__STREAM_DECODER_INIT_STATUS_UNSUPPORTED_CONTAINER
                              ? "this libFLAC does not decode FLAC in Ogg" : "libFLAC could not start decoding (status \(status.rawValue))")
        }
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0, format.sampleRate > 0 else {
            throw DecodeError(path: path, message: "not a FLAC stream" + (lastError.map { ": \($0)" } ?? ""))
        }
    }

    deinit {
        FLAC__stream_decoder_finish(decoder)
        FLAC__stream_decoder_delete(decoder)
    }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int {
        while pendingStart == pendingEnd {
            if ended { return 0 }
            try decodeNext()
        }
        return takePending(into: destination, frames: frames)
    }

    /// Frames decoded and not yet taken.
    var pendingFrames: Int { pendingEnd - pendingStart }
    /// Whether libFLAC reached the end of the bytes (or gave up on them).
    var atEnd: Bool { ended }

    /// Decodes what comes next (a frame into `pending`, or bytes that are not one); at the end
    /// of the bytes `atEnd` turns true.
    func decodeNext() throws(DecodeError) {
        let going = FLAC__stream_decoder_process_single(decoder) != 0
        let state = FLAC__stream_decoder_get_state(decoder)
        guard going, state == FLAC__STREAM_DECODER_SEARCH_FOR_FRAME_SYNC || state == FLAC__STREAM_DECODER_READ_FRAME else {
            ended = true
            if state != FLAC__STREAM_DECODER_END_OF_STREAM || (decoded == 0 && lastError != nil) {
                let reason = lastError ?? "libFLAC stopped (state \(state.rawValue))"
                if decoded == 0 { throw DecodeError(path: path, message: "no FLAC audio could be decoded: \(reason)") }
            }
            return
        }
    }

    /// Up to `frames` of the pending frame, as interleaved stereo.
    func takePending(into destination: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let count = min(frames, pendingEnd - pendingStart)
        pending.withUnsafeBufferPointer { pending in
            destination.update(from: pending.baseAddress! + pendingStart * 2, count: count * 2)
        }
        pendingStart += count
        decoded += count
        return count
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        pendingStart = 0
        pendingEnd = 0
        decoded = 0
        lastError = nil
        // libFLAC refuses a seek to the end itself.
        if let length, frame >= length {
            ended = true
            return
        }
        ended = false
        guard FLAC__stream_decoder_seek_absolute(decoder, UInt64(frame)) != 0 else {
            // After a failed seek libFLAC decodes nothing until flushed.
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEEK_ERROR { FLAC__stream_decoder_flush(decoder) }
            throw DecodeError(path: path, message: "cannot seek to sample \(frame)" + (lastError.map { ": \($0)" } ?? ""))
        }
    }

    /// Takes STREAMINFO's numbers, each checked: a lying header is refused, not computed with.
    private func take(_ info: FLAC__StreamMetadata_StreamInfo) {
        guard SourceFormat.rates.contains(Int(info.sample_rate)), (1...8).contains(info.channels),
              (4...32).contains(info.bits_per_sample) else {
            lastError = "STREAMINFO says \(info.sample_rate) Hz, \(info.channels) channels, \(info.bits_per_sample) bits"
            return
        }
        format = SourceFormat(sampleRate: Int(info.sample_rate), channels: Int(info.channels), bitsPerSample: Int(info.bits_per_sample))
        // 36 bits: any value fits an Int.
        length = info.total_samples > 0 ? Int(info.total_samples) : nil
    }

    /// Mixes a decoded frame into `pending`. A frame may differ from STREAMINFO in channels and
    /// bits (libFLAC checks them against the frame's own header), so each is read as it says.
    private func take(_ frame: FLAC__Frame, _ channels: UnsafePointer<UnsafePointer<FLAC__int32>?>) -> Bool {
        let count = Int(frame.header.blocksize), channelCount = Int(frame.header.channels)
        let bits = Int(frame.header.bits_per_sample)
        guard (1...8).contains(channelCount), (4...32).contains(bits) else { return false }
        let mix = mixes[channelCount] ?? StereoMix.flac(channels: channelCount)
        mixes[channelCount] = mix
        // To 16-bit scale: exact for up to 24 bits (a power of two, within Float's 24-bit mantissa).
        let scale = Float(sign: .plus, exponent: 16 - bits, significand: 1)
        if pending.count < count * 2 { pending = [Float](repeating: 0, count: count * 2) }
        var inputs: [UnsafePointer<FLAC__int32>] = []
        for channel in 0..<channelCount {
            guard let samples = channels[channel] else { return false }
            inputs.append(samples)
        }
        pending.withUnsafeMutableBufferPointer { pending in
            mix.mix(frames: count, into: pending.baseAddress!) { channel, index in Float(inputs[channel][index]) * scale }
        }
        pendingStart = 0
        pendingEnd = count
        return true
    }

    // The callbacks: `context` is this object, which outlives its decoder.

    private static func frames(_ context: UnsafeMutableRawPointer?) -> FLACFrames {
        Unmanaged<FLACFrames>.fromOpaque(context!).takeUnretainedValue()
    }

    private static let read: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, context in
        guard let buffer, let bytes else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        let got = frames(context).bytes.read(into: buffer, count: bytes.pointee)
        bytes.pointee = max(0, got)
        return got < 0 ? FLAC__STREAM_DECODER_READ_STATUS_ABORT
            : got == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private static let seek: FLAC__StreamDecoderSeekCallback = { _, offset, context in
        guard offset <= UInt64(Int.max), frames(context).bytes.seek(Int(offset), whence: SEEK_SET) >= 0 else {
            return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR
        }
        return FLAC__STREAM_DECODER_SEEK_STATUS_OK
    }

    private static let tell: FLAC__StreamDecoderTellCallback = { _, offset, context in
        let at = frames(context).bytes.offset
        guard at >= 0, let offset else { return FLAC__STREAM_DECODER_TELL_STATUS_ERROR }
        offset.pointee = UInt64(at)
        return FLAC__STREAM_DECODER_TELL_STATUS_OK
    }

    private static let size: FLAC__StreamDecoderLengthCallback = { _, length, context in
        guard let size = frames(context).bytes.length else { return FLAC__STREAM_DECODER_LENGTH_STATUS_UNSUPPORTED }
        length?.pointee = UInt64(size)
        return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
    }

    private static let atEnd: FLAC__StreamDecoderEofCallback = { _, context in
        let bytes = frames(context).bytes
        guard let size = bytes.length else { return 0 }
        return bytes.offset >= size ? 1 : 0
    }

    private static let write: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, context in
        guard let frame, let buffer, frames(context).take(frame.pointee, buffer) else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    private static let metadata: FLAC__StreamDecoderMetadataCallback = { _, metadata, context in
        guard let metadata, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
        frames(context).take(metadata.pointee.data.stream_info)
    }

    private static let error: FLAC__StreamDecoderErrorCallback = { _, status, context in
        frames(context).lastError = switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: "lost sync (bytes that are not FLAC frames)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: "a damaged frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: "a damaged frame (its checksum does not match)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_METADATA: "damaged metadata"
        default: "a stream libFLAC cannot parse"
        }
    }
}
