import Foundation
import SongboxFiles

/// What a file holds, before it becomes the player's 16-bit stereo.
public struct SourceFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    /// Bits per sample of a lossless or PCM file; nil for a lossy one (Vorbis, Opus).
    public var bitsPerSample: Int?

    public init(sampleRate: Int, channels: Int, bitsPerSample: Int?) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
    }

    public var description: String {
        "\(sampleRate) Hz, " + (bitsPerSample.map { "\($0)-bit, " } ?? "") + "\(channels) channels"
    }

    /// The rates songbox takes from a file: FLAC's 20-bit field at most, so any count of frames a
    /// file can declare (below 2^40) times a rate stays far inside Int; 1 kHz at least, so that
    /// no header can make the resampler raise a short file into hours of output.
    static let rates = 1000...1_048_575
    /// More channels than any layout songbox knows are mixed in as "other" speakers; past this
    /// a header is lying.
    static let maximumChannels = 64
}

/// A format's own decoder as songbox drives it: frames at the file's rate, already mixed to
/// stereo, as Float with 16-bit full scale (±32768), so 16-bit samples pass exactly.
protocol FrameSource: AnyObject {
    /// What the file holds, from its header.
    var format: SourceFormat { get }
    /// Frames at the file's rate, when the header tells (before any decoding).
    var length: Int? { get }
    /// Writes up to `frames` interleaved stereo frames to `destination`; returns how many, 0 at
    /// the end. May return fewer than asked (one codec frame at a time).
    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int
    /// Moves to `frame` (at most the length), so that `read` goes on there sample-accurately.
    func seek(toFrame frame: Int) throws(DecodeError)
    /// Whether `seek` can move (not in a damaged Ogg file read from start to end).
    var seekable: Bool { get }
}

extension FrameSource {
    var seekable: Bool { true }
}

/// A file decoded by a format's library (`FLACDecoder`, `VorbisDecoder`, `OpusDecoder`) or by
/// songbox itself (`PCMFileDecoder`), made 16-bit interleaved stereo at the file's rate, or at
/// a rate the caller forces (resampled: `Resampler`). Owns its source, and through it one C
/// handle and one file: use it from one thread at a time.
///
/// 16-bit by rounding to nearest (ties to even, as libvorbis's own 16-bit output), without
/// dither: the rounding error of a 24-bit source is at -98 dBFS, under a Pi's DAC and amplifier
/// noise, and undithered output stays bit-exact against the reference decoders in the tests.
public class FileDecoder: TrackDecoder {
    public let path: String
    /// What `decode` produces.
    public let format: AudioFormat
    /// What the file holds.
    public let source: SourceFormat
    /// The frame the next `decode` starts at.
    public private(set) var position = 0
    /// Frames of `format` (so after resampling, if any). Once `decode` reaches the end, the
    /// frames really decoded (a truncated file's header promises more than there is).
    public private(set) var length: Int?
    public var seekable: Bool { frames.seekable }

    private let frames: any FrameSource
    private let resampler: Resampler?
    /// Stereo Float between the source (or the resampler) and `decode`'s Int16.
    private let scratch: UnsafeMutableBufferPointer<Float>
    private static let scratchFrames = 4096

    init(path: String, frames: any FrameSource, rate: Int?) throws(DecodeError) {
        self.path = path
        self.frames = frames
        source = frames.format
        let length = frames.length
        if let rate, rate != source.sampleRate {
            guard SourceFormat.rates.contains(rate) else { throw DecodeError(path: path, message: "cannot play at \(rate) Hz") }
            let resampler = Resampler(from: source.sampleRate, to: rate)
            self.resampler = resampler
            self.length = length.map { resampler.outputLength(ofInput: $0) }
        } else {
            resampler = nil
            self.length = length
        }
        format = AudioFormat(sampleRate: rate ?? source.sampleRate)
        scratch = .allocate(capacity: Self.scratchFrames * AudioFormat.channels)
    }

    deinit { scratch.deallocate() }

    public func decode(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> DecodedChunk {
        let wanted = min(buffer.count / AudioFormat.channels, Self.scratchFrames)
        guard wanted > 0 else { return .ended }
        let got = if let resampler { try resampler.render(into: scratch.baseAddress!, frames: wanted, from: frames) }
            else { try frames.read(into: scratch.baseAddress!, frames: wanted) }
        guard got > 0 else {
            length = position
            return .ended
        }
        let output = buffer.baseAddress!
        for index in 0..<(got * AudioFormat.channels) { output[index] = Self.int16(scratch[index]) }
        position += got
        return .frames(got)
    }

    /// Moves to `frame` (of `format`; clamped to `length`): what `decode` gives next is what a
    /// decode from the start gives there.
    public func seek(toFrame frame: Int) throws(DecodeError) {
        let target = max(0, length.map { min(frame, $0) } ?? frame)
        if let resampler { try resampler.seek(toOutput: target, in: frames) } else { try frames.seek(toFrame: target) }
        position = target
    }

    public func takeStreamTitle() -> StreamTitle? { nil }

    /// A sample at 16-bit scale, rounded half to even and clipped; NaN (a float file's) is silence.
    /// Without branches or checked conversions, so that the loops over a chunk are vectorised.
    @inline(__always) static func int16(_ sample: Float) -> Int16 {
        let clipped = sample.isNaN ? 0 : Swift.min(Swift.max(sample, -32768), 32767)
        // 1.5 * 2^23: adding it leaves no fraction bits, so the FPU rounds (to nearest, ties to
        // even) as lrintf does, and the low bits of the sum are the rounded value.
        let magic: Float = 12_582_912
        return Int16(truncatingIfNeeded: Int32(bitPattern: (clipped + magic).bitPattern) &- Int32(bitPattern: magic.bitPattern))
    }
}

/// A file as libFLAC, libvorbisfile and libopusfile read it: opened once (`MP3Decoder.openFile`:
/// missing, empty and folder said plainly), read through `VirtualStream`'s buffer, closed when
/// the decoder that owns this goes.
final class AudioFileBytes {
    let path: String
    let descriptor: Int32
    let size: Int
    private let stream: VirtualStream
    private var streamContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(stream).toOpaque() }

    init(path: String) throws(DecodeError) {
        self.path = path
        descriptor = try MP3Decoder.openFile(path)
        var info = stat()
        size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
        stream = VirtualStream(fd: descriptor, prefix: [], fileOffset: 0, fileSize: size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at the current offset; 0 at the end, -1 on an error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int { VirtualStream.read(streamContext, buffer, count) }

    /// Moves as lseek does; the new offset, or -1.
    func seek(_ offset: Int, whence: Int32) -> Int { Int(VirtualStream.seek(streamContext, off_t(offset), whence)) }

    var offset: Int { seek(0, whence: SEEK_CUR) }

    /// Up to `count` bytes from byte `at`, not moving the offset (for headers).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        var result = [UInt8](repeating: 0, count: min(count, size - offset))
        let got = result.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            return done
        }
        return Array(result.prefix(got))
    }
}
