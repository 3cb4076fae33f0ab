import CMPG123
import Foundation
import SongboxFiles

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
    /// Length in frames of `format` (so after resampling, if any), after gapless trimming; nil
    /// when libmpg123 cannot tell. Once `read` reaches the end it is the frames really decoded
    /// (a truncated file's header promises more than there is).
    public private(set) var length: Int?
    /// The frame the next `read` starts at.
    public private(set) var position = 0

    private let handle: OpaquePointer
    /// The file, opened once: a seek reopens libmpg123 on it, and a track moved or deleted while
    /// it plays keeps playing.
    private let file: Int32
    /// MPEG samples per frame: 1152 (MPEG-1), 576 (MPEG-2 and 2.5 layer III).
    private var samplesPerFrame = 1152
    /// What libmpg123 reads: the file from where its audio begins, as the scanner decided it
    /// (`ID3v2Normaliser`: a tag that claims more bytes than the file holds would make libmpg123
    /// skip the audio with it). One for the decoder's life, rewound at each reopen.
    private let stream: VirtualStream

    static let libraryReady: Bool = mpg123_init() == Int32(MPG123_OK.rawValue)

    /// Opens `path` for decoding, at `rate` when given (else at the file's own rate).
    public init(path: String, rate: Int? = nil) throws(DecodeError) {
        self.path = path
        guard Self.libraryReady else { throw DecodeError(path: path, message: "libmpg123 failed to initialise") }
        file = try Self.openFile(path)
        var info = stat()
        let fileSize = fstat(file, &info) == 0 ? Int(info.st_size) : 0
        let plan = ID3v2Normaliser.plan(fd: file, fileSize: fileSize)
        stream = VirtualStream(fd: file, prefix: [], fileOffset: plan.replacement == nil ? 0 : plan.audioStart, fileSize: fileSize)
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            close(file)
            throw DecodeError(path: path, message: "libmpg123 could not create a decoder: \(Self.message(for: status))")
        }
        let replaced = mpg123_replace_reader_handle(handle, VirtualStream.read, VirtualStream.seek, nil)
        guard replaced == Int32(MPG123_OK.rawValue) else {
            mpg123_delete(handle)
            close(file)
            throw DecodeError(path: path, message: "libmpg123 does not take a custom reader: \(Self.message(for: replaced))")
        }
        // From here `handle` and `file` are freed by deinit, even when init throws.
        self.handle = handle
        format = AudioFormat(sampleRate: rate ?? 44_100)
        sourceRate = 0
        Self.configure(handle, rate: rate)

        try openStream()
        var frame = mpg123_frameinfo2()
        _ = mpg123_info2(handle, &frame)
        sourceRate = frame.rate
        samplesPerFrame = Int(mpg123_spf(handle))
        // Without a LAME/Xing header libmpg123 only estimates the length: count the frames.
        var encoderDelay = 0
        _ = mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &encoderDelay, nil)
        if encoderDelay < 0 { _ = mpg123_scan(handle) }
        // In output frames: libmpg123 converts to the forced rate.
        let samples = mpg123_length(handle)
        length = samples > 0 ? samples : nil
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
        close(file)
    }

    /// What every songbox decoder asks of libmpg123: quiet, gapless, 16-bit stereo at any rate it
    /// knows (or only `rate`, resampled to), ID3v2 skipped (tags are the library's business, and
    /// skipping keeps a huge tag out of memory).
    static func configure(_ handle: OpaquePointer, rate: Int?) {
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
    }

    /// Decodes up to `buffer.count / 2` frames into `buffer`; returns the frames written,
    /// 0 at the end of the file (or for a buffer smaller than one frame).
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> Int {
        let bytesWanted = (buffer.count / AudioFormat.channels) * AudioFormat.bytesPerFrame
        var filled = 0
        while true {
            let status = Self.fill(buffer, from: handle, bytes: bytesWanted, filled: &filled)
            switch status {
            case Int32(MPG123_OK.rawValue): return finish(filled)
            case Int32(MPG123_DONE.rawValue):
                let frames = finish(filled)
                length = position
                return frames
            case Int32(MPG123_NEW_FORMAT.rawValue):
                // Another rate in the file is resampled to the opened one (see openStream), so
                // the output format stays; should libmpg123 still give another, say so.
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
    }

    /// Decodes into `buffer` from its byte `filled` on (which follows what is written) until
    /// `bytes` are there or libmpg123 says anything but OK (a new format, the end, more input
    /// wanted, an error); returns that, or OK once full. The one read loop of both decoders.
    static func fill(_ buffer: UnsafeMutableBufferPointer<Int16>, from handle: OpaquePointer, bytes: Int,
                     filled: inout Int) -> Int32 {
        while filled < bytes {
            var done = 0
            let status = mpg123_read(handle, UnsafeMutableRawPointer(buffer.baseAddress!) + filled, bytes - filled, &done)
            filled += done
            if status != Int32(MPG123_OK.rawValue) { return status }
        }
        return Int32(MPG123_OK.rawValue)
    }

    /// Moves to `frame` (of `format`; clamped to `length`), sample-accurately: what `read` gives
    /// next is bit for bit what a decode from the start gives there (MPEG-1 files, including
    /// resampled; MPEG-2 files with a LAME header may differ by one in a few samples).
    public func seek(toFrame frame: Int) throws(DecodeError) {
        let target = max(0, length.map { min(frame, $0) } ?? frame)
        // libmpg123 decodes and drops `MPG123_PREFRAMES` frames before the target's, to refill
        // the bit reservoir (main data up to 511 bytes back, 255 in MPEG-2: 9 of the smallest
        // MPEG-1 frames, 85 MPEG-2 ones, plus the frames whose overlap the target needs). Its
        // default, 4, leaves up to 10 frames of silence after a seek in a low-bitrate file.
        let reservoir = samplesPerFrame == 576 ? 87 : 10
        // Its synthesis filter keeps a 16-slot ring whose position changes float rounding, and
        // no seek resets it: only a fresh open, then decoding from a frame a multiple of the
        // ring's cycle (4 frames of 36 slots, 8 of 18) before the target, lands where a
        // continuous decode is.
        // The cost: libmpg123 reads the frames from the start up to the target again (without
        // its frame index it reads them anyway for a forward seek), then decodes 10 to 13.
        let cycle = samplesPerFrame == 576 ? 8 : 4
        try openStream()
        position = 0
        var reached = seek(target, preframes: reservoir + cycle - 1)
        if reached >= 0 {
            // Now libmpg123 knows which frame holds the target: seek again from an aligned one.
            let targetFrame = mpg123_tellframe(handle)
            let preframes = reservoir + ((targetFrame - reservoir) % cycle + cycle) % cycle
            if preframes != reservoir + cycle - 1 { reached = seek(target, preframes: preframes) }
        }
        guard reached >= 0 else {
            throw DecodeError(path: path, message: "cannot seek: \(Self.message(for: Int32(reached), handle: handle))")
        }
        position = reached
    }

    private func seek(_ target: Int, preframes: Int) -> Int {
        mpg123_param2(handle, Int32(MPG123_PREFRAMES.rawValue), preframes, 0)
        return mpg123_seek(handle, target, SEEK_SET)
    }

    /// (Re)opens libmpg123 on `file` from its start, with the fresh decoder state of a new handle.
    private func openStream() throws(DecodeError) {
        mpg123_close(handle)
        stream.rewind()
        try check(mpg123_open_handle(handle, Unmanaged.passUnretained(stream).toOpaque()))
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        let status = mpg123_getformat(handle, &rate, &channels, &encoding)
        // DONE: no frame before the end; ERR: none within libmpg123's resync limit, or worse.
        guard status == Int32(MPG123_OK.rawValue) else {
            throw DecodeError(path: path, message: status == Int32(MPG123_DONE.rawValue) ? "no MPEG audio found"
                              : "no MPEG audio found: \(Self.message(for: status, handle: handle))")
        }
        format = AudioFormat(sampleRate: rate)
        // From here only this rate comes out: a later frame at another rate (a real change of
        // format inside the file, or a damaged header that reads as one) is resampled to it by
        // libmpg123, as the mpg123 command plays on, instead of ending the track.
        // (Forcing the rate is what makes libmpg123 use its NtoM resampler for such frames;
        // at the frame's own rate it decodes as it would unforced.)
        mpg123_param2(handle, Int32(MPG123_FORCE_RATE.rawValue), rate, 0)
        mpg123_format_none(handle)
        mpg123_format(handle, rate, Int32(MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue))
    }

    /// Opens `path` for reading; the errors libmpg123 would report vaguely, said plainly.
    /// Every file decoder opens its file here (`AudioFileBytes`).
    static func openFile(_ path: String) throws(DecodeError) -> Int32 {
        let fd = FileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased()
            throw DecodeError(path: path, message: reason)
        }
        var info = stat()
        let problem: String? = if fstat(fd, &info) != 0 { String(cString: strerror(errno)).lowercased() }
            else if (info.st_mode & S_IFMT) == S_IFDIR { "is a directory" }
            else if info.st_size == 0 { "empty file" }
            else { nil }
        if let problem {
            close(fd)
            throw DecodeError(path: path, message: problem)
        }
        return fd
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

    static func message(for status: Int32, handle: OpaquePointer? = nil) -> String {
        if status == Int32(MPG123_ERR.rawValue), let handle { return String(cString: mpg123_strerror(handle)) }
        return String(cString: mpg123_plain_strerror(status))
    }
}
