import Foundation

/// How many 400 ms blocks (EBU R128 momentary blocks, 75 % overlap) had each loudness, in
/// 0.1 LU bins from -70 LUFS (the absolute gate) up. It is all the gating needs, so the
/// histograms of an album's tracks added together give the album's integrated loudness.
public struct LoudnessHistogram: Sendable, Equatable {
    public static let floor = -70.0
    public static let binWidth = 0.1
    public static let binCount = 800  // -70 ... +10 LUFS
    /// Blocks per bin; a block louder than the last bin counts in it.
    public private(set) var counts: [UInt32]

    public init() { counts = Array(repeating: 0, count: Self.binCount) }

    /// The bin of a block of `loudness` LUFS; nil under the absolute gate (or not a number).
    static func bin(_ loudness: Double) -> Int? {
        guard loudness.isFinite, loudness >= floor else { return nil }
        // Clamped before converting: Int() of a value past its range traps.
        return Int(min(Double(binCount - 1), (loudness - floor) / binWidth))
    }

    static func center(_ bin: Int) -> Double { floor + (Double(bin) + 0.5) * binWidth }

    mutating func add(bin: Int) {
        if counts[bin] < UInt32.max { counts[bin] += 1 }
    }

    /// Adds another track's blocks (for an album).
    public mutating func merge(_ other: LoudnessHistogram) {
        for bin in 0..<Self.binCount { counts[bin] = counts[bin].addingReportingOverflow(other.counts[bin]).overflow ? .max : counts[bin] + other.counts[bin] }
    }

    public var blockCount: Int { counts.reduce(0) { $0 + Int($1) } }

    /// Integrated loudness (LUFS) with the relative gate, each block at its bin's centre (within
    /// 0.05 LU of the exact value); nil when no block passes the absolute gate.
    public var integratedLoudness: Double? {
        integrated(energy: { Self.energy(Self.center($0)) * Double(counts[$0]) })
    }

    /// The loudness range (LU, EBU Tech 3342's 10th to 95th percentile of blocks over the
    /// relative gate of -20 LU), from these momentary blocks rather than 3 s ones; nil with
    /// no block.
    public var loudnessRange: Double? {
        let total = blockCount
        guard total > 0 else { return nil }
        let mean = (0..<Self.binCount).reduce(0.0) { $0 + Self.energy(Self.center($1)) * Double(counts[$1]) } / Double(total)
        let gate = Self.bin(Self.loudness(mean) - 20) ?? 0
        let kept = counts[gate...].reduce(0) { $0 + Int($1) }
        guard kept > 0 else { return nil }
        func percentile(_ fraction: Double) -> Double {
            let wanted = Double(kept) * fraction
            var seen = 0
            for bin in gate..<Self.binCount {
                seen += Int(counts[bin])
                if Double(seen) >= wanted { return Self.center(bin) }
            }
            return Self.center(Self.binCount - 1)
        }
        return percentile(0.95) - percentile(0.10)
    }

    /// The gating of BS.1770-4 over bins: the mean energy of the blocks over the absolute gate
    /// sets a relative gate 10 LU under it; the loudness of the blocks over both is the answer.
    /// `energy(bin)` is the summed energy of the blocks in `bin`.
    func integrated(energy: (Int) -> Double) -> Double? {
        let total = blockCount
        guard total > 0 else { return nil }
        let ungated = (0..<Self.binCount).reduce(0.0) { $0 + energy($1) } / Double(total)
        let gate = Self.bin(Self.loudness(ungated) - 10) ?? 0
        var sum = 0.0, kept = 0
        for bin in gate..<Self.binCount where counts[bin] > 0 {
            sum += energy(bin)
            kept += Int(counts[bin])
        }
        guard kept > 0, sum > 0 else { return nil }
        return Self.loudness(sum / Double(kept))
    }

    static func loudness(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }
    static func energy(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }

    // MARK: Stored form

    /// A compact form for the library: (bins skipped, count) pairs of the non-empty bins, each a
    /// LEB128 varint. A typical track takes a few hundred bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        var previous = -1
        for bin in 0..<Self.binCount where counts[bin] > 0 {
            Self.appendVarint(UInt64(bin - previous - 1), to: &bytes)
            Self.appendVarint(UInt64(counts[bin]), to: &bytes)
            previous = bin
        }
        return bytes
    }

    /// Reads `encoded`; nil for bytes it did not write (a damaged row is not trusted).
    public init?(encoded bytes: [UInt8]) {
        self.init()
        var index = 0, bin = -1
        while index < bytes.count {
            guard let skip = Self.readVarint(bytes, &index), let count = Self.readVarint(bytes, &index),
                  skip < UInt64(Self.binCount), count <= UInt64(UInt32.max) else { return nil }
            bin += Int(skip) + 1
            guard bin < Self.binCount else { return nil }
            counts[bin] = UInt32(count)
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    private static func readVarint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0, shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}

/// EBU R128 / ITU-R BS.1770-4 loudness of a stereo stream, block by block, and its true peak.
/// Keeps nothing per block but the histogram, so an hour costs what a minute does.
struct LoudnessMeter {
    private var left: (Biquad, Biquad)
    private var right: (Biquad, Biquad)
    /// Samples in a 100 ms sub-block; four of them make a 400 ms block, one a step.
    private let subBlockLength: Int
    private var subBlockFill = 0
    private var subBlockSum = 0.0
    /// The last four sub-blocks' mean squares, oldest first.
    private var recent: [Double] = []
    private(set) var histogram = LoudnessHistogram()
    /// The exact energy summed per bin, for the track's own integrated loudness.
    private var binEnergy = Array(repeating: 0.0, count: LoudnessHistogram.binCount)
    private var truePeak: TruePeakMeter
    /// Only the left channel counts (a mono file decoded to two).
    private let mono: Bool

    init(rate: Int, mono: Bool = false) {
        self.mono = mono
        let weighting = Biquad.kWeighting(rate: Double(rate))
        left = (weighting.shelf, weighting.highPass)
        right = left
        subBlockLength = max(1, Int((Double(rate) / 10).rounded()))
        truePeak = TruePeakMeter()
    }

    /// One stereo frame, each channel full scale ±1.
    @inline(__always)
    mutating func add(_ l: Double, _ r: Double) {
        truePeak.add(l, r)
        let kl = left.1.process(left.0.process(l))
        let kr = right.1.process(right.0.process(r))
        subBlockSum += mono ? kl * kl : kl * kl + kr * kr
        subBlockFill += 1
        if subBlockFill == subBlockLength { closeSubBlock() }
    }

    private mutating func closeSubBlock() {
        recent.append(subBlockSum / Double(subBlockLength))
        subBlockSum = 0
        subBlockFill = 0
        if recent.count > 4 { recent.removeFirst() }
        guard recent.count == 4 else { return }
        let energy = recent.reduce(0, +) / 4
        guard energy > 0, let bin = LoudnessHistogram.bin(LoudnessHistogram.loudness(energy)) else { return }
        histogram.add(bin: bin)
        binEnergy[bin] += energy
    }

    /// Integrated loudness in LUFS, gated; nil for silence or less than 400 ms.
    var integratedLoudness: Double? { histogram.integrated { binEnergy[$0] } }

    /// The true peak, linear (1 = full scale), from 4x oversampling; 0 for silence.
    var peak: Double { truePeak.peak }
}

/// The true peak: the highest sample of the signal oversampled 4x by a polyphase windowed-sinc
/// interpolator (12 taps a phase, as BS.1770-4 Annex 2 suggests).
struct TruePeakMeter {
    static let taps = 12
    static let phases = 4
    /// `phases` filters of `taps` each, one after the other.
    /// An instance's copy: a static one costs a lazy-initialisation check per sample.
    private let filters: [Double]
    /// The most any phase can amplify: no output exceeds this times the window's largest sample.
    private let gain: Double
    private var historyLeft = Array(repeating: 0.0, count: taps)
    private var historyRight = Array(repeating: 0.0, count: taps)
    private var cursor = 0
    private(set) var peak = 0.0
    /// Samples to go before the window holds nothing that could beat `peak`.
    private var loudFor = 0

    init() {
        let (taps, phases) = (Self.taps, Self.phases)
        var filters: [Double] = []
        var gain = 0.0
        for phase in 0..<phases {
            let center = Double(taps * phases - 1) / 2
            let kernel = (0..<taps).map { tap -> Double in
                let n = Double(tap * phases + phase)
                let t = (n - center) / Double(phases)
                let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
                // A Blackman window over the whole 48-point filter.
                let x = (n + 0.5) / Double(taps * phases)
                return sinc * (0.42 - 0.5 * cos(2 * Double.pi * x) + 0.08 * cos(4 * Double.pi * x))
            }
            let sum = kernel.reduce(0, +)
            filters += kernel.map { $0 / sum }
            gain = max(gain, kernel.reduce(0) { $0 + abs($1) } / abs(sum))
        }
        self.filters = filters
        self.gain = gain
    }

    @inline(__always)
    mutating func add(_ l: Double, _ r: Double) {
        historyLeft[cursor] = l
        historyRight[cursor] = r
        cursor = cursor == Self.taps - 1 ? 0 : cursor + 1
        // Only while the window holds a sample that could beat the peak so far: the quiet
        // stretches of a track need no filtering.
        if max(abs(l), abs(r)) * gain >= peak { loudFor = Self.taps }
        guard loudFor > 0 else { return }
        loudFor -= 1
        for phase in 0..<Self.phases {
            var sumLeft = 0.0, sumRight = 0.0
            var index = cursor
            for tap in 0..<Self.taps {
                // The history runs oldest first from `cursor`; the filter's last tap meets it.
                let weight = filters[phase * Self.taps + Self.taps - 1 - tap]
                sumLeft += weight * historyLeft[index]
                sumRight += weight * historyRight[index]
                index = index == Self.taps - 1 ? 0 : index + 1
            }
            peak = max(peak, abs(sumLeft), abs(sumRight))
        }
    }
}
