import Foundation

/// Fixtures of the formats beyond MP3, made at test time from sox's signals by Debian's own
/// encoders (flac, oggenc, opusenc; sox and ffmpeg for WAV and AIFF), and their reference
/// decodes (`flac -d`, `oggdec`, `opusdec`, ffmpeg). `scripts/install-deps.sh --test` installs
/// them. Sources are written to their own folder, away from the encoded files.
extension AudioFixtures {
    /// How a fixture is encoded from a WAV.
    public enum Encoding: String, Sendable, CaseIterable, CustomStringConvertible {
        case flac, oggFLAC, vorbis, opus
        /// WAV as sox writes it: 16-bit PCM (and WAVE_FORMAT_EXTENSIBLE past 2 channels).
        case wav16
        /// 24-bit WAV (sox writes it as WAVE_FORMAT_EXTENSIBLE).
        case wav24
        case wav8, wavFloat, wav32
        /// AIFF (big-endian) and AIFF-C `sowt` (little-endian, as ffmpeg writes it).
        case aiff, aifcLittleEndian
        /// MP4 (`.m4a`) as ffmpeg writes it: ALAC, and AAC-LC by its native encoder (1,024 samples
        /// of encoder delay, said in the edit list).
        case alac, aac

        public var description: String { rawValue }

        public var suffix: String {
            switch self {
            case .flac: "flac"
            case .oggFLAC: "oga"
            case .vorbis: "ogg"
            case .opus: "opus"
            case .wav16, .wav24, .wav8, .wavFloat, .wav32: "wav"
            case .aiff: "aiff"
            case .aifcLittleEndian: "aifc"
            case .alac, .aac: "m4a"
            }
        }

        /// Lossless: decodes to the source exactly (at 16 bits, or rounded from more).
        public var isLossless: Bool { self != .vorbis && self != .opus && self != .aac }
    }

    /// A repeatable signal as a WAV: a sine sweep per channel (channel c from 500 + 300c Hz up
    /// to 4000 + 500c Hz), at half scale, `frames` long.
    @discardableResult
    public static func signal(_ path: String, frames: Int, rate: Int = 44_100, channels: Int = 2, bits: Int = 16) throws -> String {
        let sweeps = (0..<channels).flatMap { ["sine", "\(500 + 300 * $0):\(4000 + 500 * $0)"] }
        try run("sox", ["-R", "-D", "-r", "\(rate)", "-c", "\(channels)", "-n", "-b", "\(bits)", path,
                        "synth", "\(frames)s"] + sweeps + ["vol", "0.5"])
        return path
    }

    /// Encodes the WAV `source` as `encoding` into `path`.
    @discardableResult
    public static func encode(_ source: String, as encoding: Encoding, to path: String) throws -> String {
        switch encoding {
        case .flac: try run("flac", ["--silent", "-f", "-o", path, source])
        case .oggFLAC: try run("flac", ["--silent", "-f", "--ogg", "-o", path, source])
        case .vorbis: try run("oggenc", ["-Q", "-q", "4", "-o", path, source])
        case .opus: try run("opusenc", ["--quiet", "--bitrate", "128", source, path])
        case .wav16: try run("sox", ["-D", source, "-b", "16", path])
        case .wav24: try run("sox", ["-D", source, "-b", "24", path])
        case .wav8: try run("sox", ["-D", source, "-e", "unsigned-integer", "-b", "8", path])
        case .wav32: try run("sox", ["-D", source, "-e", "signed-integer", "-b", "32", path])
        case .wavFloat: try run("sox", ["-D", source, "-e", "floating-point", "-b", "32", path])
        case .aiff: try run("sox", ["-D", source, path])
        case .aifcLittleEndian: try run("ffmpeg", ["-v", "error", "-y", "-i", source, "-c:a", "pcm_s16le", "-f", "aiff", path])
        // The movie first, as iTunes writes it (`+faststart`): a file cut short keeps its index.
        case .alac: try run("ffmpeg", ["-v", "error", "-y", "-i", source, "-c:a", "alac", "-movflags", "+faststart", path])
        // Without perceptual noise substitution: its noise comes from the decoder's random
        // generator, which a seek restarts, so a seek could not be compared sample for sample.
        case .aac: try run("ffmpeg", ["-v", "error", "-y", "-i", source, "-c:a", "aac", "-b:a", "192k", "-aac_pns", "0",
                                      "-movflags", "+faststart", path])
        }
        return path
    }

    /// The reference decoder's output for `path`, encoded as `encoding`: `flac -d` (lossless),
    /// `oggdec`, `opusdec --rate 48000 --no-dither`, ffmpeg for WAV, AIFF and ALAC, the `faad`
    /// CLI for AAC (libfaad2, as songbox; it drops the first packet's 1,024 samples, which are
    /// ffmpeg's encoder delay, and keeps the last packet's padding: `frames` cuts that).
    public static func reference(of path: String, encoding: Encoding, channels: Int, frames: Int? = nil) throws -> ReferencePCM {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wav = folder + "/reference.wav", raw = folder + "/reference.raw"
        switch encoding {
        case .flac, .oggFLAC: try run("flac", ["-d", "--silent", "-f", "-o", wav, path])
        case .vorbis: try run("oggdec", ["-Q", "-o", wav, path])
        case .opus: try run("opusdec", ["--quiet", "--rate", "48000", "--no-dither", path, wav])
        case .aac: try run("faad", ["-q", "-o", wav, path])
        case .wav16, .wav24, .wav8, .wavFloat, .wav32, .aiff, .aifcLittleEndian, .alac:
            try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-f", "f64le", "-c:a", "pcm_f64le", raw])
        }
        // Integers become float64 exactly (sox divides by a power of two): nothing is rounded.
        if FileManager.default.fileExists(atPath: wav) {
            // `-c`: faad writes mono AAC as two equal channels (libfaad2's room for Parametric Stereo).
            try run("sox", ["-D", wav, "-t", "raw", "-e", "floating-point", "-b", "64", "-c", "\(channels)", raw])
        }
        guard let data = FileManager.default.contents(atPath: raw) else { return ReferencePCM(channels: channels, samples: []) }
        var samples = [Double](repeating: 0, count: data.count / 8)
        _ = samples.withUnsafeMutableBytes { data.copyBytes(to: $0) }
        if let frames { samples = Array(samples.prefix(frames * channels)) }
        return ReferencePCM(channels: channels, samples: samples.map { $0 * 32768 })
    }
}

/// A reference decode: interleaved samples at 16-bit scale (fractions kept from deeper sources).
public struct ReferencePCM: Sendable {
    public var channels: Int
    public var samples: [Double]

    public init(channels: Int, samples: [Double]) {
        self.channels = channels
        self.samples = samples
    }

    public var frames: Int { samples.count / max(1, channels) }

    /// As songbox plays it: 16-bit stereo, mono to both sides, rounded to nearest (ties to even)
    /// and clipped.
    public var stereo16: [Int16] {
        precondition(channels <= 2, "a downmix is checked by its own test")
        var result: [Int16] = []
        result.reserveCapacity(frames * 2)
        for frame in 0..<frames {
            let left = samples[frame * channels], right = samples[frame * channels + channels - 1]
            result.append(Self.round(left))
            result.append(Self.round(right))
        }
        return result
    }

    static func round(_ value: Double) -> Int16 {
        Int16(max(-32768, min(32767, value.rounded(.toNearestOrEven))))
    }
}

/// The largest difference between two renders of the same length, or nil when the lengths differ.
public func largestDifference(_ a: [Int16], _ b: [Int16]) -> Int? {
    guard a.count == b.count else { return nil }
    return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

extension AudioFixtures {
    /// The Ogg file at `path` with its last page's granule position set to `granule` (its CRC
    /// made right again, so the page itself is sound): a last timestamp that lies.
    public static func settingLastGranule(of path: String, to granule: Int64) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var start = 0, last = 0..<0
        while start + 27 <= bytes.count, bytes[start..<(start + 4)].elementsEqual("OggS".utf8) {
            let segments = Int(bytes[start + 26])
            let size = 27 + segments + bytes[(start + 27)..<(start + 27 + segments)].reduce(0) { $0 + Int($1) }
            last = start..<(start + size)
            start += size
        }
        guard !last.isEmpty else { throw FixtureError("\(path) holds no Ogg page") }
        withUnsafeBytes(of: granule.littleEndian) { bytes.replaceSubrange((last.lowerBound + 6)..<(last.lowerBound + 14), with: $0) }
        bytes.replaceSubrange((last.lowerBound + 22)..<(last.lowerBound + 26), with: [0, 0, 0, 0])
        // Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, starting at 0.
        var crc: UInt32 = 0
        for byte in bytes[last] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((last.lowerBound + 22)..<(last.lowerBound + 26), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
