import Foundation

/// What a fed decoder decoded, handed out as the player's 16-bit stereo at one fixed rate:
/// resampled when the stream's own rate differs, and only as far as the frames at hand reach.
final class FedOutput {
    let source: String
    /// The rate `read` produces.
    let rate: Int
    private(set) var position = 0
    /// Decoded stereo at the stream's rate, waiting for `read`.
    let decoded = DecodedFrames()
    private var resampler: Resampler?
    private let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * AudioFormat.channels)

    init(source: String, rate: Int) throws(DecodeError) {
        guard SourceFormat.rates.contains(rate) else { throw DecodeError(path: source, message: "cannot play at \(rate) Hz") }
        self.source = source
        self.rate = rate
    }

    deinit { scratch.deallocate() }

    /// Whether a stream's format is known.
    var started: Bool { decoded.format.sampleRate > 0 }

    /// A stream's format is known: decode at its rate, resampled to `rate` if it differs.
    func follow(_ format: SourceFormat) throws(DecodeError) {
        guard SourceFormat.rates.contains(format.sampleRate) else {
            throw DecodeError(path: source, message: "the stream says \(format.sampleRate) Hz, which is no rate songbox plays")
        }
        guard format.sampleRate != decoded.format.sampleRate else { return }
        decoded.format = format
        resampler = format.sampleRate == rate ? nil : Resampler(from: format.sampleRate, to: rate)
    }

    /// A seek: what was decoded is dropped, and `read` counts on from `frame`.
    func restart(at frame: Int) {
        position = frame
        decoded.clear()
        if resampler != nil { resampler = Resampler(from: decoded.format.sampleRate, to: rate) }
    }

    /// What the decoded frames make, up to the buffer's size; `needsMore` when that is nothing
    /// yet, `ended` once `finished` and all is out (`nothing` thrown when nothing ever was).
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, finished: Bool, nothing: String) throws(DecodeError) -> FeedDecoder.Result {
        let wanted = min(buffer.count / AudioFormat.channels, 4096)
        guard wanted > 0 else { return .frames(0) }
        let got: Int
        if let resampler {
            // Only what the frames at hand make: the resampler would take a source that has
            // nothing yet for one that ended.
            let ready = finished ? wanted : min(wanted, resampler.outputReady(withMoreInput: decoded.available))
            got = ready > 0 ? try resampler.render(into: scratch.baseAddress!, frames: ready, from: decoded) : 0
        } else {
            got = decoded.read(into: scratch.baseAddress!, frames: wanted)
        }
        guard got > 0 else {
            guard finished else { return .needsMore }
            guard started else { throw DecodeError(path: source, message: nothing) }
            return .ended
        }
        let output = buffer.baseAddress!
        for index in 0..<(got * AudioFormat.channels) { output[index] = FileDecoder.int16(scratch[index]) }
        position += got
        return .frames(got)
    }
}

/// A decoder fed a network track's bytes as they arrive: MP3 (`FeedDecoder`), Ogg Vorbis and
/// Opus (`OggFeedDecoder`), AAC in ADTS frames (`ADTSFeedDecoder`), FLAC (`FLACFeedDecoder`).
public protocol FedDecoder: AnyObject {
    /// Frames produced so far.
    var position: Int { get }
    /// The length in frames, when the bytes fed tell it.
    var length: Int? { get }
    /// Whether the stream's format is known from the bytes fed (a seek can be placed only then).
    var started: Bool { get }
    /// Whether `seek` can move at all.
    var seeks: Bool { get }
    func feed(_ bytes: UnsafeRawBufferPointer) throws(DecodeError)
    /// No more bytes will come: what was fed is decoded to its end, and then `read` says `ended`.
    func finish()
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> FeedDecoder.Result
    /// The stream's size in bytes, when the server tells it.
    func setSize(_ bytes: Int)
    /// Moves to `frame`; returns the byte from which bytes must be fed now.
    func seek(toFrame frame: Int) throws(DecodeError) -> Int
    /// What the stream's own tags say it plays, when that changed since the last call.
    func takeTitle() -> String?
}

/// Bytes fed to a decoder, handed to its C library a piece at a time (`FeedDecoder.largestFeed`
/// at most, what one call takes); none once the stream `finished`.
func feedPieces(_ bytes: UnsafeRawBufferPointer, source: String, finished: Bool,
                _ take: (UnsafeRawPointer, Int) throws(DecodeError) -> Void) throws(DecodeError) {
    guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
    guard !finished else { throw DecodeError(path: source, message: "bytes fed after the end of the stream") }
    var offset = 0
    while offset < bytes.count {
        let count = min(FeedDecoder.largestFeed, bytes.count - offset)
        try take(base + offset, count)
        offset += count
    }
}

/// Decoded stereo frames waiting to be taken: the resampler's source.
final class DecodedFrames: FrameSource {
    /// The rate and channels of what is decoded now; rate 0 before any stream's headers.
    var format = SourceFormat(sampleRate: 0, channels: 2, bitsPerSample: nil)
    var length: Int? { nil }
    var seekable: Bool { false }
    private var samples: [Float] = []
    private var head = 0

    var available: Int { (samples.count - head) / AudioFormat.channels }

    /// Room for `frames` more stereo frames, written by `body`.
    func append(frames: Int, _ body: (UnsafeMutablePointer<Float>) -> Void) {
        if head > 0, head >= samples.count / 2 {
            samples.removeFirst(head)
            head = 0
        }
        let start = samples.count
        samples.append(contentsOf: repeatElement(0, count: frames * AudioFormat.channels))
        samples.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    func clear() {
        samples.removeAll(keepingCapacity: true)
        head = 0
    }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let count = min(frames, available)
        samples.withUnsafeBufferPointer { source in
            destination.update(from: source.baseAddress! + head, count: count * AudioFormat.channels)
        }
        head += count * AudioFormat.channels
        return count
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        throw DecodeError(path: "", message: "cannot seek in a stream")
    }
}
