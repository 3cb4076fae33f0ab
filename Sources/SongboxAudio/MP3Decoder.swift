import CMPG123
import Foundation

/// Why a file could not be decoded, and which file.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Decodes one MP3 file to 16-bit stereo PCM with libmpg123.
///
/// Gapless: the encoder delay and padding that LAME/Xing headers declare are cut, so the tracks
/// of a gapless album join without a gap. Mono is decoded to two equal channels. Given a `rate`
/// other than the file's, libmpg123 resamples (its NtoM synth) so one fixed-rate output can play
/// a queue of mixed rates. Owns one `mpg123_handle`: use a decoder from one thread at a time.
public final class MP3Decoder {
    public let path: String
    /// What `read` produces.
    public private(set) var format: AudioFormat
    /// The file's own sample rate.
    public private(set) var sourceRate: Int
    /// Length in frames of `format`, after gapless trimming; nil when libmpg123 cannot tell.
    public private(set) var length: Int?
    /// The frame the next `read` starts at.
    public private(set) var position = 0

    private let handle: OpaquePointer

    private static let libraryReady: Bool = mpg123_init() == Int32(MPG123_OK.rawValue)

    /// Opens `path` for decoding, at `rate` when given (else at the file's own rate).
    public init(path: String, rate: Int? = nil) throws(DecodeError) {
        self.path = path
        guard Self.libraryReady else { throw DecodeError(path: path, message: "libmpg123 failed to initialise") }
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw DecodeError(path: path, message: "libmpg123 could not create a decoder: \(Self.message(for: status))")
        }
        // From here `handle` is freed by deinit, or below on a failed open.
        self.handle = handle
        format = AudioFormat(sampleRate: rate ?? 44_100)
        sourceRate = 0
        // Tags are the library's business: skipping ID3v2 keeps a huge tag out of memory.
        let flags = MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | MPG123_FORCE_STEREO.rawValue
            | MPG123_SKIP_ID3V2.rawValue
        mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), Int(flags), 0)
        if let rate { mpg123_param2(handle, Int32(MPG123_FORCE_RATE.rawValue), rate, 0) }
        mpg123_format_none(handle)
        var rates: UnsafePointer<Int>?
        var rateCount = 0
        mpg123_rates(&rates, &rateCount)
        for index in 0..<rateCount {
            mpg123_format(handle, rates![index], Int32(MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue))
        }
        if let rate { mpg123_format(handle, rate, Int32(MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue)) }

        guard FileManager.default.isReadableFile(atPath: path) else {
            throw DecodeError(path: path, message: FileManager.default.fileExists(atPath: path)
                              ? "permission denied" : "no such file")
        }
        try check(mpg123_open(handle, path))
        var outRate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        try check(mpg123_getformat(handle, &outRate, &channels, &encoding))
        var frame = mpg123_frameinfo2()
        _ = mpg123_info2(handle, &frame)
        sourceRate = frame.rate
        format = AudioFormat(sampleRate: outRate)
        // Without a LAME/Xing header libmpg123 only estimates the length: count the frames.
        var encoderDelay = 0
        _ = mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &encoderDelay, nil)
        if encoderDelay < 0 { _ = mpg123_scan(handle) }
        let samples = mpg123_length(handle)
        length = samples > 0 ? samples : nil
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Decodes up to `buffer.count / 2` frames into `buffer`; returns the frames written,
    /// 0 at the end of the file.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> Int {
        let bytesWanted = (buffer.count / AudioFormat.channels) * AudioFormat.bytesPerFrame
        var filled = 0
        while filled < bytesWanted {
            var done = 0
            let raw = UnsafeMutableRawPointer(buffer.baseAddress!) + filled
            let status = mpg123_read(handle, raw, bytesWanted - filled, &done)
            filled += done
            switch status {
            case Int32(MPG123_OK.rawValue): continue
            case Int32(MPG123_DONE.rawValue): return finish(filled)
            case Int32(MPG123_NEW_FORMAT.rawValue):
                // A stream that changes rate mid-file: keep going at the rate it was opened with
                // is not possible without resampling, so say so.
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                if rate != format.sampleRate {
                    throw DecodeError(path: path, message: "the sample rate changes inside the file (\(format.sampleRate) to \(rate) Hz)")
                }
            default:
                if filled > 0 { return finish(filled) }
                throw DecodeError(path: path, message: Self.message(for: status, handle: handle))
            }
        }
        return finish(filled)
    }

    /// Moves to `frame` (of `format`), sample-accurately.
    public func seek(toFrame frame: Int) throws(DecodeError) {
        let target = max(0, length.map { min(frame, $0) } ?? frame)
        let reached = mpg123_seek(handle, target, SEEK_SET)
        guard reached >= 0 else {
            throw DecodeError(path: path, message: "cannot seek: \(Self.message(for: Int32(reached), handle: handle))")
        }
        position = reached
    }

    private func finish(_ bytes: Int) -> Int {
        let frames = bytes / AudioFormat.bytesPerFrame
        position += frames
        return frames
    }

    private func check(_ status: Int32) throws(DecodeError) {
        guard status == Int32(MPG123_OK.rawValue) else {
            throw DecodeError(path: path, message: Self.message(for: status, handle: handle))
        }
    }

    private static func message(for status: Int32, handle: OpaquePointer? = nil) -> String {
        if status == Int32(MPG123_ERR.rawValue), let handle { return String(cString: mpg123_strerror(handle)) }
        return String(cString: mpg123_plain_strerror(status))
    }
}
