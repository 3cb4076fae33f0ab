import Foundation
import SongboxFiles

/// Decodes Apple Lossless (ALAC) packets in Swift, written from the format as Apple's
/// open-source reference (ALACDecoder, ag_dec, dp_dec, matrix_dec) defines it: each packet holds
/// elements of one or two channels; each channel is adaptive Golomb-Rice coded residuals run
/// through an adaptive FIR predictor, a stereo pair is un-mixed, and the low bytes of 24 and
/// 32-bit samples may come uncompressed beside them. Debian has no ALAC library but FFmpeg's
/// libavcodec (docs/architecture.md).
///
/// Every number a packet gives is bounded before it is used: integer arithmetic wraps as the
/// reference's C does (a damaged packet gives noise, never a trap), bit reads past the packet's
/// end read zeros and fail the packet, and nothing is allocated by what a packet says (the
/// buffers are sized once from the configuration's frame length).
final class ALACPackets: PacketCodec {
    let format: SourceFormat
    let frameLength: Int
    var preroll: Int { 0 }

    private let bitDepth: Int
    private let channels: Int
    private let pb: UInt32, mb: UInt32, kb: Int
    private let mix: StereoMix
    /// Decoded samples, channel after channel (`frameLength` each), at `bitDepth` bits.
    private let output: UnsafeMutablePointer<Int32>
    /// Residuals, and the two channels of a pair before un-mixing.
    private let residuals: UnsafeMutablePointer<Int32>
    private let mixU: UnsafeMutablePointer<Int32>
    private let mixV: UnsafeMutablePointer<Int32>
    private let shifted: UnsafeMutablePointer<UInt32>

    /// The 24-byte ALACSpecificConfig (`ALACConfig`, as the scanner reads it).
    init(config bytes: [UInt8], path: String) throws(DecodeError) {
        let config: ALACConfig
        do { config = try ALACConfig(bytes) } catch { throw DecodeError(path: path, message: error.reason) }
        frameLength = config.frameLength
        bitDepth = config.bitDepth
        pb = UInt32(config.pb)
        mb = UInt32(config.mb)
        kb = config.kb
        channels = config.channels
        let rate = config.sampleRate
        format = SourceFormat(sampleRate: rate, channels: channels, bitsPerSample: bitDepth)
        // The element order of Apple's channel layouts for 1 to 8 channels.
        let layouts: [[Speaker]] = [
            [.center], [.left, .right], [.center, .left, .right], [.center, .left, .right, .backCenter],
            [.center, .left, .right, .surroundLeft, .surroundRight],
            [.center, .left, .right, .surroundLeft, .surroundRight, .lowFrequency],
            [.center, .left, .right, .surroundLeft, .surroundRight, .backCenter, .lowFrequency],
            [.center, .left, .right, .left, .right, .surroundLeft, .surroundRight, .lowFrequency],
        ]
        mix = StereoMix(layouts[channels - 1])
        output = .allocate(capacity: frameLength * channels)
        residuals = .allocate(capacity: frameLength)
        mixU = .allocate(capacity: frameLength)
        mixV = .allocate(capacity: frameLength)
        shifted = .allocate(capacity: frameLength * 2)
    }

    deinit {
        output.deallocate()
        residuals.deallocate()
        mixU.deallocate()
        mixV.deallocate()
        shifted.deallocate()
    }

    func reset() throws(DecodeError) {}

    func decode(_ packet: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<Float>) throws(PacketError) -> Int {
        var bits = BitReader(packet)
        var channel = 0
        var frames: Int?
        // Each element is at least 3 bits: a packet ends long before this many.
        for _ in 0..<(packet.count * 8 / 3 + 1) {
            let tag = bits.read(3)
            switch tag {
            case 0, 3:  // SCE, LFE: one channel
                guard channel < channels else { throw PacketError("more channels than the configuration's \(channels)") }
                let count = try element(&bits, pair: false, channel: channel, expected: frames)
                frames = count
                channel += 1
            case 1:  // CPE: a pair
                guard channel + 2 <= channels else { throw PacketError("more channels than the configuration's \(channels)") }
                let count = try element(&bits, pair: true, channel: channel, expected: frames)
                frames = count
                channel += 2
            case 4:  // DSE: data, skipped
                _ = bits.read(4)
                let aligned = bits.read(1) == 1
                var count = Int(bits.read(8))
                if count == 255 { count += Int(bits.read(8)) }
                if aligned { bits.alignToByte() }
                bits.skip(count * 8)
            case 6:  // FIL: fill, skipped
                var count = Int(bits.read(4))
                if count == 15 { count += Int(bits.read(8)) - 1 }
                bits.skip(count * 8)
            case 7:  // END
                guard !bits.overrun else { throw PacketError("a packet cut short") }
                guard let frames, channel == channels else { throw PacketError("a packet of \(channel) channels, not \(channels)") }
                mixToStereo(frames: frames, into: destination)
                return frames
            default:
                throw PacketError("an element of kind \(tag), which ALAC does not use")
            }
            guard !bits.overrun else { throw PacketError("a packet cut short") }
        }
        throw PacketError("a packet without an end")
    }

    /// Decodes one SCE/LFE (`pair` false) or CPE element into `output` from `channel` on;
    /// returns its frames.
    private func element(_ bits: inout BitReader, pair: Bool, channel: Int, expected: Int?) throws(PacketError) -> Int {
        _ = bits.read(4)  // element instance tag
        guard bits.read(12) == 0 else { throw PacketError("a damaged element header") }
        let partial = bits.read(1) == 1
        let bytesShifted = Int(bits.read(2))
        let uncompressed = bits.read(1) == 1
        guard bytesShifted != 3 else { throw PacketError("a damaged element header") }
        var frames = frameLength
        if partial { frames = Int(bits.read(32)) }
        guard frames >= 1, frames <= frameLength, expected == nil || expected == frames else {
            throw PacketError("a packet of \(frames) frames (at most \(frameLength))")
        }
        let shift = bytesShifted * 8
        let width = pair ? 2 : 1
        let first = output + channel * frameLength
        let second = output + (channel + 1) * frameLength
        var mixBits = 0, mixRes: Int32 = 0
        if !uncompressed {
            mixBits = Int(bits.read(8))
            mixRes = Int32(Int8(truncatingIfNeeded: bits.read(8)))
            // Each channel's prediction mode, quantization shift, Rice factor and coefficients.
            var modes = [0, 0], shifts = [0, 0], factors: [UInt32] = [0, 0]
            var coefficients = [[Int16]](repeating: [], count: 2)
            for index in 0..<width {
                let header = bits.read(8)
                modes[index] = Int(header >> 4)
                shifts[index] = Int(header & 0xF)
                let next = bits.read(8)
                factors[index] = next >> 5
                // Stored oldest first (the packet gives the newest sample's first), so that the
                // predictor walks memory forwards.
                coefficients[index] = (0..<Int(next & 0x1F)).map { _ in Int16(truncatingIfNeeded: bits.read(16)) }.reversed()
            }
            // The uncompressed low bytes come first; read after the residuals.
            var lowBytes = bits
            bits.skip(shift * width * frames)
            let channelBits = bitDepth - shift + (pair ? 1 : 0)
            guard channelBits <= 32 else { throw PacketError("\(channelBits)-bit channels") }
            for index in 0..<width {
                try residualsOf(&bits, frames: frames, factor: factors[index], channelBits: channelBits)
                let target = pair ? (index == 0 ? mixU : mixV) : first
                if modes[index] == 15 {
                    // Mode 15: a first-order pass before the coded predictor (the reference encoder never writes it).
                    Self.predict(residuals, into: residuals, frames: frames, coefficients: &coefficients[index], active: 31,
                                 channelBits: channelBits, quantization: 0)
                } else if modes[index] != 0 {
                    throw PacketError("prediction mode \(modes[index])")
                }
                Self.predict(residuals, into: target, frames: frames, coefficients: &coefficients[index],
                             active: coefficients[index].count, channelBits: channelBits, quantization: shifts[index])
                guard !bits.overrun else { throw PacketError("a packet cut short") }
            }
            if shift > 0 {
                for index in 0..<(frames * width) { shifted[index] = lowBytes.read(shift) }
            }
        } else {
            // Verbatim samples, interleaved, at the full bit depth.
            let unused = UInt32(32 - bitDepth)
            for index in 0..<frames {
                for part in 0..<width {
                    let value = Int32(bitPattern: bits.read(bitDepth) << unused) >> unused
                    (pair ? (part == 0 ? mixU : mixV) : first)[index] = value
                }
            }
            guard !bits.overrun else { throw PacketError("a packet cut short") }
            mixBits = 0
            mixRes = 0
        }
        let lowShift = uncompressed ? 0 : shift
        let keep = UInt32(32 - bitDepth)
        if pair {
            for index in 0..<frames {
                let u = mixU[index], v = mixV[index]
                var left = u, right = v
                if mixRes != 0 {
                    left = u &+ v &- ((mixRes &* v) >> mixBits)
                    right = left &- v
                }
                if lowShift > 0 {
                    left = (left << lowShift) | Int32(bitPattern: shifted[2 * index])
                    right = (right << lowShift) | Int32(bitPattern: shifted[2 * index + 1])
                }
                // Kept to the bit depth, as the reference's store into its sample size does.
                first[index] = (left << keep) >> keep
                second[index] = (right << keep) >> keep
            }
        } else {
            for index in 0..<frames {
                var value = first[index]
                if lowShift > 0 { value = (value << lowShift) | Int32(bitPattern: shifted[index]) }
                first[index] = (value << keep) >> keep
            }
        }
        return frames
    }

    /// The adaptive Golomb-Rice residuals of one channel into `residuals` (ag_dec's dyn_decomp):
    /// a running mean picks each value's Rice parameter; a run of zeros is coded as its length.
    private func residualsOf(_ bits: inout BitReader, frames: Int, factor: UInt32, channelBits: Int) throws(PacketError) {
        let pb = self.pb &* factor / 4
        let wb = UInt32((1 << kb) - 1)
        var mean = mb
        var zero: UInt32 = 0
        var index = 0
        while index < frames {
            let k = min(31 - (mean >> 9 &+ 3).leadingZeroBitCount, kb)
            let n = bits.rice(m: (1 << UInt32(k)) - 1, k: k, escapeBits: channelBits)
            let coded = n &+ zero
            residuals[index] = Int32(bitPattern: (coded >> 1) ^ (0 &- (coded & 1)))
            index += 1
            mean = n > 0xFFFF ? 0xFFFF : pb &* coded &+ mean &- ((pb &* mean) >> 9)
            zero = 0
            if mean << 2 < 512 && index < frames {
                // A run of zeros.
                zero = 1
                let k = mean.leadingZeroBitCount - 24 + Int((mean &+ 16) >> 6)
                let run = Int(bits.rice(m: ((1 << UInt32(k)) - 1) & wb, k: k, escapeBits: 16))
                guard run <= frames - index else { throw PacketError("a run of zeros past the packet's end") }
                for offset in 0..<run { residuals[index + offset] = 0 }
                index += run
                if run >= 65_535 { zero = 0 }
                mean = 0
            }
            if bits.overrun { throw PacketError("a packet cut short") }
        }
    }

    /// The adaptive FIR predictor (dp_dec's unpc_block): each sample is the residual plus a
    /// prediction from the `active` before it, and the coefficients follow the residual's sign.
    /// Mode 31 is plain first-order; 0 copies.
    private static func predict(_ input: UnsafeMutablePointer<Int32>, into output: UnsafeMutablePointer<Int32>, frames: Int,
                                coefficients: inout [Int16], active: Int, channelBits: Int, quantization: Int) {
        let unused = Int32(32 - channelBits)
        @inline(__always) func signExtend(_ value: Int32) -> Int32 { (value << unused) >> unused }
        output[0] = input[0]
        guard frames > 1 else { return }
        if active == 0 {
            if input != output { output.advanced(by: 1).update(from: input.advanced(by: 1), count: frames - 1) }
            return
        }
        if active == 31 {
            var previous = output[0]
            for index in 1..<frames {
                previous = signExtend(input[index] &+ previous)
                output[index] = previous
            }
            return
        }
        for index in 1...min(active, frames - 1) { output[index] = signExtend(input[index] &+ output[index - 1]) }
        guard frames > active + 1 else { return }
        coefficients.withUnsafeMutableBufferPointer { coefficients in
            let weights = coefficients.baseAddress!
            // The orders encoders write (ffmpeg 4 to 6 by default, Apple's 4 and 8) with the loops
            // over the coefficients unrolled by the compiler: the same arithmetic, twice as fast.
            switch active {
            case 4: adapt(order: 4, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            case 5: adapt(order: 5, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            case 6: adapt(order: 6, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            case 7: adapt(order: 7, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            case 8: adapt(order: 8, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            default: adapt(order: active, input, into: output, frames: frames, weights: weights, unused: unused, quantization: quantization)
            }
        }
    }

    /// `predict`'s loop from sample `order + 1` on, for `order` coefficients (inlined where it is a
    /// constant, so its inner loops are unrolled).
    @inline(__always)
    private static func adapt(order active: Int, _ input: UnsafeMutablePointer<Int32>, into output: UnsafeMutablePointer<Int32>,
                              frames: Int, weights: UnsafeMutablePointer<Int16>, unused: Int32, quantization: Int) {
        let half: Int32 = quantization > 0 ? 1 << Int32(quantization - 1) : 0
        let shift = Int32(quantization)
        for index in (active + 1)..<frames {
            // window[0] is the oldest of the `active + 1` samples before this one, window[active] the newest.
            let window = output + (index - active - 1)
            let top = window[0]
            var sum: Int32 = 0
            for j in 0..<active { sum = sum &+ Int32(weights[j]) &* (window[j + 1] &- top) }
            var residual = input[index]
            let value = residual &+ top &+ ((sum &+ half) &>> shift)
            output[index] = (value << unused) >> unused
            guard residual != 0 else { continue }
            // The coefficients move against the error, oldest first, until it is spent.
            if residual > 0 {
                for j in 0..<active {
                    let difference = top &- window[j + 1]
                    let step = difference.signum()
                    weights[j] = weights[j] &- Int16(truncatingIfNeeded: step)
                    residual = residual &- Int32(j + 1) &* ((step &* difference) &>> shift)
                    if residual <= 0 { break }
                }
            } else {
                for j in 0..<active {
                    let difference = top &- window[j + 1]
                    let step = 0 &- difference.signum()
                    weights[j] = weights[j] &- Int16(truncatingIfNeeded: step)
                    residual = residual &- Int32(j + 1) &* ((step &* difference) &>> shift)
                    if residual >= 0 { break }
                }
            }
        }
    }

    /// Channels at `bitDepth` bits to stereo at 16-bit scale (exact: a power of two).
    private func mixToStereo(frames: Int, into destination: UnsafeMutablePointer<Float>) {
        let scale = Float(sign: .plus, exponent: 16 - bitDepth, significand: 1)
        let output = self.output, length = frameLength
        mix.mix(frames: frames, into: destination) { channel, index in Float(output[channel * length + index]) * scale }
    }
}

/// Reads bits most significant first from a packet; past its end it reads zeros and says
/// `overrun`.
struct BitReader {
    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        count = bytes.count
    }

    var overrun: Bool { position > count * 8 }

    /// The 32 bits from the current position (zeros past the end).
    @inline(__always) func peek() -> UInt32 { UInt32(truncatingIfNeeded: peekWide() >> 32) }

    /// The 64 bits from the current position, of which the first 57 are the packet's (zeros past the end).
    @inline(__always) func peekWide() -> UInt64 {
        guard let base else { return 0 }
        let byte = position >> 3
        var word: UInt64 = 0
        if byte + 8 <= count {
            word = UInt64(bigEndian: UnsafeRawPointer(base + byte).loadUnaligned(as: UInt64.self))
        } else {
            for index in byte..<(byte + 8) { word = word << 8 | UInt64(index < count ? base[index] : 0) }
        }
        return word << UInt64(position & 7)
    }

    /// `width` bits (0 to 32) as an unsigned number.
    @inline(__always) mutating func read(_ width: Int) -> UInt32 {
        guard width > 0 else { return 0 }
        guard position <= count * 8 else {
            position += width
            return 0
        }
        let value = peek() >> UInt32(32 - width)
        position += width
        return value
    }

    mutating func skip(_ width: Int) { position += max(0, width) }

    mutating func alignToByte() { position = (position + 7) & ~7 }

    /// A Golomb-Rice value of parameter `k` (`m` = 2^k - 1): up to 8 ones and a zero give the
    /// quotient, then k bits (or k - 1 when they start with 0 and make less than 2); 9 ones
    /// escape to a plain `escapeBits`-bit value.
    @inline(__always) mutating func rice(m: UInt32, k: Int, escapeBits: Int) -> UInt32 {
        // One read for the quotient and the k bits after it: at most 9 + 32 of the 57 bits.
        let word = peekWide()
        let prefix = (~word).leadingZeroBitCount
        if prefix >= 9 {
            position += 9
            return read(escapeBits)
        }
        position += prefix + 1
        guard k > 0 else { return 0 }
        let value = UInt32(truncatingIfNeeded: (word << UInt64(prefix + 1)) >> UInt64(64 - min(k, 32)))
        var result = UInt32(prefix) &* m
        if value >= 2 {
            result = result &+ value &- 1
            position += k
        } else {
            position += k - 1
        }
        return result
    }
}
