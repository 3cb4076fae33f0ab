import Foundation
import SongboxFiles

/// Decodes uncompressed PCM files in Swift: WAV (RIFF; PCM and IEEE float, also as
/// WAVE_FORMAT_EXTENSIBLE with its channel mask) and AIFF/AIFF-C (big-endian; `sowt`
/// little-endian; `fl32`/`fl64` float), 8 to 32-bit integers and 32 or 64-bit floats.
///
/// Every number of a header is checked before it is used: a data chunk that says more than the
/// file holds plays what the file holds, and nothing is allocated by what a header says (reads
/// go through a buffer of at most 4096 frames, and never more than the file's size).
public final class PCMFileDecoder: FileDecoder {
    public convenience init(path: String, rate: Int? = nil) throws(DecodeError) {
        try self.init(bytes: try AudioFileBytes(path: path), rate: rate)
    }

    init(bytes: AudioFileBytes, rate: Int?) throws(DecodeError) {
        try super.init(path: bytes.path, frames: PCMFrames(bytes: bytes, layout: try PCMLayout(bytes)), rate: rate)
    }
}

/// Where a PCM file's samples are and how they are written.
struct PCMLayout {
    enum Encoding: Equatable {
        /// WAV's 8-bit samples are unsigned (AIFF's are signed).
        case unsigned8
        /// Two's complement integers of `bytes` bytes.
        case integer(bytes: Int, bigEndian: Bool)
        case float32(bigEndian: Bool)
        case float64(bigEndian: Bool)

        var isFloat: Bool {
            switch self {
            case .float32, .float64: true
            case .unsigned8, .integer: false
            }
        }

        var bytes: Int {
            switch self {
            case .unsigned8: 1
            case .integer(let bytes, _): bytes
            case .float32: 4
            case .float64: 8
            }
        }
    }

    var encoding: Encoding
    var format: SourceFormat
    var mix: StereoMix
    /// Bytes from one frame to the next (at least channels times the sample's bytes).
    var frameBytes: Int
    /// The file offset of the first frame.
    var start: Int
    /// Whole frames the file really holds from `start` on.
    var frames: Int

    private static let maximumChunks = 100_000

    init(_ bytes: AudioFileBytes) throws(DecodeError) {
        let header = bytes.bytes(at: 0, count: 12)
        let kind = header.count == 12 ? String(decoding: header[8..<12], as: UTF8.self) : ""
        switch (header.count == 12 ? String(decoding: header[0..<4], as: UTF8.self) : "", kind) {
        case ("RIFF", "WAVE"): try self.init(wave: bytes)
        case ("FORM", "AIFF"), ("FORM", "AIFC"): try self.init(aiff: bytes, compressed: kind == "AIFC")
        default: throw DecodeError(path: bytes.path, message: "not a WAV or AIFF file")
        }
    }

    /// The chunks of a RIFF or IFF file from byte 12 (`IFFChunk.walk`): each one's id, the
    /// offset of its data and its size as the file holds it. Stops at the end or when `wanted`
    /// says it has all it needs.
    private static func walk(_ bytes: AudioFileBytes, bigEndian: Bool,
                             _ wanted: (_ id: String, _ offset: Int, _ size: Int) -> Bool) throws(DecodeError) {
        let ended = IFFChunk.walk(size: bytes.size, bigEndian: bigEndian, limit: maximumChunks,
                                  read: { bytes.bytes(at: $0, count: $1) }) { wanted($0.id, $0.offset, $0.length) }
        guard ended else { throw DecodeError(path: bytes.path, message: "more than \(maximumChunks) chunks before the audio") }
    }

    private init(wave bytes: AudioFileBytes) throws(DecodeError) {
        let path = bytes.path
        var fmt: [UInt8]?, data: (offset: Int, size: Int)?
        try Self.walk(bytes, bigEndian: false) { id, offset, size in
            if id == "fmt " { fmt = bytes.bytes(at: offset, count: min(size, 40)) }
            if id == "data" { data = (offset, size) }
            return fmt != nil && data != nil
        }
        guard let fmt, fmt.count >= 16 else { throw DecodeError(path: path, message: "a WAV file without a format (fmt) chunk") }
        guard let data else { throw DecodeError(path: path, message: "a WAV file without audio (no data chunk)") }
        var tag = Self.number(fmt[0..<2], bigEndian: false)
        let channels = Int(Self.number(fmt[2..<4], bigEndian: false))
        let rate = Int(Self.number(fmt[4..<8], bigEndian: false))
        let blockAlign = Int(Self.number(fmt[12..<14], bigEndian: false))
        let bits = Int(Self.number(fmt[14..<16], bigEndian: false))
        var mask: UInt32 = 0
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: the real tag is the sub-format GUID's first two bytes.
            let guidTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
            guard fmt.count >= 40, Array(fmt[26..<40]) == guidTail else {
                throw DecodeError(path: path, message: "a WAVE_FORMAT_EXTENSIBLE file of a sub-format songbox does not play")
            }
            mask = Self.number(fmt[20..<24], bigEndian: false)
            tag = Self.number(fmt[24..<26], bigEndian: false)
        }
        let encoding: Encoding
        switch (tag, bits) {
        case (1, 8): encoding = .unsigned8
        // Samples of 9 to 32 bits fill whole bytes, the low bits unused (as WAV says).
        case (1, 9...32): encoding = .integer(bytes: (bits + 7) / 8, bigEndian: false)
        case (3, 32): encoding = .float32(bigEndian: false)
        case (3, 64): encoding = .float64(bigEndian: false)
        default:
            throw DecodeError(path: path, message: "WAV audio of format \(tag), \(bits) bits, which songbox does not play (compressed, or not PCM)")
        }
        try self.init(path: path, encoding: encoding, channels: channels, rate: rate, bits: bits,
                      frameBytes: blockAlign, start: data.offset, size: data.size, declaredFrames: nil,
                      mix: StereoMix.wave(channels: channels, mask: mask))
    }

    private init(aiff bytes: AudioFileBytes, compressed: Bool) throws(DecodeError) {
        let path = bytes.path
        var comm: [UInt8]?, sound: (offset: Int, size: Int)?
        try Self.walk(bytes, bigEndian: true) { id, offset, size in
            if id == "COMM" { comm = bytes.bytes(at: offset, count: min(size, 22)) }
            if id == "SSND" { sound = (offset, size) }
            return comm != nil && sound != nil
        }
        guard let comm, comm.count >= 18 else { throw DecodeError(path: path, message: "an AIFF file without a COMM chunk") }
        guard let sound, sound.size >= 8 else { throw DecodeError(path: path, message: "an AIFF file without audio (no SSND chunk)") }
        let channels = Int(Self.number(comm[0..<2], bigEndian: true))
        let declared = Int(Self.number(comm[2..<6], bigEndian: true))
        let bits = Int(Self.number(comm[6..<8], bigEndian: true))
        guard let rate = AudioContainer.extendedInteger(Array(comm[8..<18]), limit: SourceFormat.rates.upperBound),
              SourceFormat.rates.contains(rate) else {
            throw DecodeError(path: path, message: "an AIFF sample rate that is not a whole number of Hz")
        }
        let compression = compressed && comm.count >= 22 ? String(decoding: comm[18..<22], as: UTF8.self) : "NONE"
        let encoding: Encoding
        switch (compression, bits) {
        case ("NONE", 1...32), ("twos", 1...32): encoding = .integer(bytes: (bits + 7) / 8, bigEndian: true)
        case ("sowt", 1...32): encoding = .integer(bytes: (bits + 7) / 8, bigEndian: false)
        case ("fl32", _), ("FL32", _): encoding = .float32(bigEndian: true)
        case ("fl64", _), ("FL64", _): encoding = .float64(bigEndian: true)
        default:
            throw DecodeError(path: path, message: "AIFF-C audio compressed as '\(compression)', which songbox does not play")
        }
        // SSND: an offset to the first frame and a block size (0 in practice), then the frames.
        let skip = Int(Self.number(bytes.bytes(at: sound.offset, count: 4)[0..<4], bigEndian: true))
        guard skip <= sound.size - 8 else { throw DecodeError(path: path, message: "the SSND chunk's offset is past its end") }
        try self.init(path: path, encoding: encoding, channels: channels, rate: rate, bits: bits,
                      frameBytes: channels * encoding.bytes, start: sound.offset + 8 + skip, size: sound.size - 8 - skip,
                      declaredFrames: declared, mix: StereoMix.aiff(channels: channels))
    }

    /// Checks the numbers both formats give; the frames are what `size` holds, and no more than
    /// `declaredFrames` (AIFF's COMM) when given.
    private init(path: String, encoding: Encoding, channels: Int, rate: Int, bits: Int, frameBytes: Int, start: Int,
                 size: Int, declaredFrames: Int?, mix: StereoMix) throws(DecodeError) {
        guard (1...SourceFormat.maximumChannels).contains(channels) else {
            throw DecodeError(path: path, message: "\(channels) channels (songbox plays 1 to \(SourceFormat.maximumChannels))")
        }
        guard SourceFormat.rates.contains(rate) else { throw DecodeError(path: path, message: "a sample rate of \(rate) Hz") }
        guard frameBytes >= channels * encoding.bytes else {
            throw DecodeError(path: path, message: "frames of \(frameBytes) bytes cannot hold \(channels) samples of \(encoding.bytes) bytes")
        }
        self.encoding = encoding
        self.frameBytes = frameBytes
        self.start = start
        frames = min(max(0, size) / frameBytes, declaredFrames ?? .max)
        self.mix = mix
        format = SourceFormat(sampleRate: rate, channels: channels, bitsPerSample: encoding.isFloat ? encoding.bytes * 8 : bits)
    }

    /// An unsigned integer of up to 4 bytes.
    static func number(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt32 {
        let ordered = bigEndian ? Array(bytes) : bytes.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Reads a PCM file's frames through a buffer and mixes them to stereo.
final class PCMFrames: FrameSource {
    private let bytes: AudioFileBytes
    private let layout: PCMLayout
    private var next = 0
    private var buffer: [UInt8] = []
    private static let chunkFrames = 4096

    init(bytes: AudioFileBytes, layout: PCMLayout) {
        self.bytes = bytes
        self.layout = layout
    }

    var format: SourceFormat { layout.format }
    var length: Int? { layout.frames }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int {
        let wanted = min(frames, layout.frames - next, Self.chunkFrames)
        guard wanted > 0 else { return 0 }
        if buffer.count < wanted * layout.frameBytes { buffer = [UInt8](repeating: 0, count: wanted * layout.frameBytes) }
        let offset = layout.start + next * layout.frameBytes
        let got = buffer.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < wanted * layout.frameBytes {
                let n = pread(bytes.descriptor, buffer.baseAddress! + done, wanted * layout.frameBytes - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            return done / layout.frameBytes
        }
        // A file that shrank since it was opened ends where it ends now.
        guard got > 0 else { return 0 }
        buffer.withUnsafeBytes { convert(UnsafeRawBufferPointer(rebasing: $0[0..<(got * layout.frameBytes)]), frames: got, into: destination) }
        next += got
        return got
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        next = min(max(0, frame), layout.frames)
    }

    /// Mixes `frames` frames of raw bytes to stereo at 16-bit scale: integers placed in the top
    /// bits of an Int32 and divided by 2^16 (exact up to 24 bits), floats times 32768.
    private func convert(_ raw: UnsafeRawBufferPointer, frames: Int, into destination: UnsafeMutablePointer<Float>) {
        let stride = layout.frameBytes
        let base = raw.baseAddress!
        let mix = layout.mix
        switch layout.encoding {
        case .integer(bytes: 2, bigEndian: false):
            mix.mix(frames: frames, into: destination) { channel, index in
                Float(Int16(littleEndian: base.loadUnaligned(fromByteOffset: index * stride + channel * 2, as: Int16.self)))
            }
        case .unsigned8:
            mix.mix(frames: frames, into: destination) { channel, index in
                (Float(base.load(fromByteOffset: index * stride + channel, as: UInt8.self)) - 128) * 256
            }
        case .integer(let size, let bigEndian):
            let scale: Float = 1.0 / 65_536
            mix.mix(frames: frames, into: destination) { channel, index in
                let sample = base + index * stride + channel * size
                var value: UInt32 = 0
                for byte in 0..<size {
                    let next = UInt32(sample.load(fromByteOffset: bigEndian ? byte : size - 1 - byte, as: UInt8.self))
                    value = value << 8 | next
                }
                return Float(Int32(bitPattern: value << UInt32(32 - 8 * size))) * scale
            }
        case .float32(let bigEndian):
            mix.mix(frames: frames, into: destination) { channel, index in
                let bits = base.loadUnaligned(fromByteOffset: index * stride + channel * 4, as: UInt32.self)
                let value = Float(bitPattern: bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits))
                return value.isFinite ? value * 32768 : 0
            }
        case .float64(let bigEndian):
            mix.mix(frames: frames, into: destination) { channel, index in
                let bits = base.loadUnaligned(fromByteOffset: index * stride + channel * 8, as: UInt64.self)
                let value = Double(bitPattern: bigEndian ? UInt64(bigEndian: bits) : UInt64(littleEndian: bits))
                return value.isFinite ? Float(max(-2, min(2, value)) * 32768) : 0
            }
        }
    }
}
