import CMPG123
import Foundation

/// Decodes MP3 bytes pushed in as they arrive (libmpg123's feed mode) to 16-bit stereo PCM: what
/// a network stream needs, where the next bytes may not be there yet. It never waits: `read`
/// gives what the bytes fed so far hold, and says when it needs more, so a player can go on
/// with its other work (a pause pressed while the network stalls) and come back.
///
/// What plays a remote track (`SongboxRemote`'s `StreamDecoder`). Owns one `mpg123_handle`: use
/// it from one thread at a time.
public final class FeedDecoder: FedDecoder {
    /// What a `read` gave.
    public enum Result: Equatable, Sendable {
        /// This many frames were written to the buffer (at least one).
        case frames(Int)
        /// Nothing more can be decoded from the bytes fed so far.
        case needsMore
        /// Every byte was fed (`finish`) and everything in them is decoded.
        case ended
    }

    /// Where the bytes come from, for messages (a URL).
    public let source: String
    /// What `read` produces; nil until the bytes fed show the first frame.
    public private(set) var format: AudioFormat?
    /// Frames produced so far.
    public private(set) var position = 0
    private let handle: OpaquePointer
    private var finished = false

    /// The bytes fed and not yet taken by libmpg123 are held by it; a bound on what it holds
    /// keeps a stream's memory flat whatever the network does.
    public static let largestFeed = 1 << 20

    /// A decoder at `rate` when given (resampling to it), else at the stream's own rate.
    public init(source: String, rate: Int? = nil) throws(DecodeError) {
        self.source = source
        guard MP3Decoder.libraryReady else { throw DecodeError(path: source, message: "libmpg123 failed to initialise") }
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw DecodeError(path: source, message: "libmpg123 could not create a decoder: \(MP3Decoder.message(for: status))")
        }
        self.handle = handle
        MP3Decoder.configure(handle, rate: rate)
        let opened = mpg123_open_feed(handle)
        guard opened == Int32(MPG123_OK.rawValue) else {
            mpg123_delete(handle)
            throw DecodeError(path: source, message: "libmpg123 cannot decode a stream: \(MP3Decoder.message(for: opened))")
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Hands bytes of the stream to the decoder, in order.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        try feedPieces(bytes, source: source, finished: finished) { (piece, count) throws(DecodeError) in
            let status = mpg123_feed(handle, piece.assumingMemoryBound(to: UInt8.self), count)
            guard status == Int32(MPG123_OK.rawValue) else {
                throw DecodeError(path: source, message: MP3Decoder.message(for: status, handle: handle))
            }
        }
    }

    /// The stream's size in bytes, when the server tells it: libmpg123 can then tell its length.
    public func setSize(_ bytes: Int) {
        guard bytes > 0 else { return }
        mpg123_set_filesize(handle, bytes)
    }

    /// The length in frames, when libmpg123 can tell it (a Xing/LAME header, or the size).
    public var length: Int? {
        let frames = mpg123_length(handle)
        return frames > 0 ? frames : nil
    }

    /// Moves to `frame`; returns the byte of the stream from which bytes must be fed now (what
    /// was fed before is dropped). Only once the first frame has been decoded.
    public func seek(toFrame frame: Int) throws(DecodeError) -> Int {
        var inputOffset = 0
        let reached = mpg123_feedseek(handle, max(0, frame), SEEK_SET, &inputOffset)
        guard reached >= 0 else {
            throw DecodeError(path: source, message: "cannot seek: \(MP3Decoder.message(for: Int32(reached), handle: handle))")
        }
        position = reached
        return inputOffset
    }

    /// No more bytes will come: what is fed is decoded to its end, and then `read` says `ended`.
    public func finish() {
        finished = true
    }

    public var started: Bool { format != nil }
    public var seeks: Bool { true }
    /// An MP3 stream's titles come in its ICY metadata, which the network source takes out.
    public func takeTitle() -> String? { nil }

    /// Decodes up to `buffer.count / 2` frames into `buffer` from the bytes fed so far.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> Result {
        let bytesWanted = (buffer.count / AudioFormat.channels) * AudioFormat.bytesPerFrame
        guard bytesWanted > 0 else { return .frames(0) }
        var filled = 0
        while true {
            let status = MP3Decoder.fill(buffer, from: handle, bytes: bytesWanted, filled: &filled)
            switch status {
            case Int32(MPG123_OK.rawValue):
                return .frames(finish(filled))
            case Int32(MPG123_NEW_FORMAT.rawValue):
                try take(newFormat: ())
            case Int32(MPG123_NEED_MORE.rawValue), Int32(MPG123_DONE.rawValue):
                if filled > 0 { return .frames(finish(filled)) }
                guard finished else { return .needsMore }
                guard format != nil else { throw DecodeError(path: source, message: "no MPEG audio found") }
                return .ended
            default:
                if filled > 0 { return .frames(finish(filled)) }
                throw DecodeError(path: source, message: MP3Decoder.message(for: status, handle: handle))
            }
        }
    }

    /// The stream's format, found (or changed) at this frame: from here only this rate comes out.
    private func take(newFormat: Void) throws(DecodeError) {
        var found = 0, channels: Int32 = 0, encoding: Int32 = 0
        mpg123_getformat(handle, &found, &channels, &encoding)
        if let format, format.sampleRate != found {
            throw DecodeError(path: source, message: "the sample rate changes inside the stream (\(format.sampleRate) to \(found) Hz)")
        }
        format = AudioFormat(sampleRate: found)
    }

    private func finish(_ bytes: Int) -> Int {
        let frames = bytes / AudioFormat.bytesPerFrame
        position += frames
        return frames
    }
}
