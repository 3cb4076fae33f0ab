import Foundation

/// Converts a stereo `FrameSource` from one rate to another: a windowed-sinc polyphase filter
/// (Kaiser window, beta 7.5), so one fixed-rate output (a WAV file, a FIFO) plays a queue of
/// mixed rates.
///
/// Output frame k is the input at time k * from / to, so the output starts where the input
/// does (no delay) and holds ceil(n * to / from) frames for n input frames. Its quality: flat to
/// 0.88 of the lower rate's Nyquist frequency (19.5 kHz at 44.1 kHz), at least 75 dB down from
/// that Nyquist frequency on, where aliases would fold back. Every output frame is computed from
/// its own window of input alone, so a seek gives what a decode from the start gives there.
final class Resampler {
    /// The ratio to / from in lowest terms: output frame k is input frame k * down / up.
    let up: Int
    let down: Int
    /// Input frames each side of an output frame's time that its filter reaches.
    let reach: Int
    private var taps: Int { 2 * reach }
    /// Filters by phase (the fraction of an input frame at which an output falls), `taps` each.
    private let phases: Int
    private let filters: [Float]

    /// Input frames held (interleaved stereo): frames `windowStart`... of the input, with zeros
    /// before the input's start and after its end.
    private var window: [Float] = []
    private var windowStart = 0
    /// The next output frame.
    private var next = 0
    /// Input frames, once the source has ended.
    private var inputLength: Int?
    private var sourceEnded = false

    /// Phases past this are rounded to the nearest of this many (1/8192 of an input frame at
    /// worst): an odd pair of rates would otherwise need a filter per output frame of a cycle.
    private static let maximumPhases = 4096
    private static let chunk = 4096

    init(from source: Int, to target: Int) {
        let common = Self.gcd(source, target)
        up = target / common
        down = source / common
        // Cut below the lower of the two Nyquist frequencies, in input frames' terms.
        let ratio = min(1, Double(target) / Double(source))
        let halfWidth = 40.0  // zero crossings each side, at the lower rate
        reach = Int((halfWidth / ratio).rounded(.up))
        phases = min(up, Self.maximumPhases)
        let cutoff = 0.4708 * ratio  // cycles per input frame: the middle of the transition band
        let beta = 7.5
        var filters = [Float](repeating: 0, count: phases * 2 * reach)
        for phase in 0..<phases {
            let fraction = Double(phase) / Double(phases)
            var row = [Double](repeating: 0, count: 2 * reach)
            for tap in 0..<(2 * reach) {
                // Tap `tap` weighs input frame floor(t) - reach + 1 + tap, at distance `t`.
                let distance = fraction + Double(reach - 1 - tap)
                let x = distance / Double(reach)
                guard abs(x) < 1 else { continue }
                let argument = 2 * cutoff * distance
                let sinc = argument == 0 ? 1 : sin(Double.pi * argument) / (Double.pi * argument)
                row[tap] = sinc * Self.besselI0(beta * (1 - x * x).squareRoot())
            }
            // Each phase passes DC at exactly 1: no ripple from phase to phase.
            let sum = row.reduce(0, +)
            for tap in 0..<(2 * reach) { filters[phase * 2 * reach + tap] = Float(row[tap] / sum) }
        }
        self.filters = filters
        start(atOutput: 0, input: 0)
    }

    /// The output frames `input` frames make.
    func outputLength(ofInput input: Int) -> Int {
        let (product, overflow) = input.multipliedReportingOverflow(by: up)
        // Only a length no file can have overflows (rates are at most 20 bits, lengths 40).
        return overflow ? Int.max / 2 : (product + down - 1) / down
    }

    /// How many output frames `render` can make when its source has `input` more frames ready
    /// and may have none after them (a stream still arriving): the last one's window must end
    /// within them. One frame short of exact, for the phase rounding of `position`.
    func outputReady(withMoreInput input: Int) -> Int {
        let lastInput = windowStart + window.count / AudioFormat.channels + input - 1
        let (product, overflow) = (lastInput - reach).multipliedReportingOverflow(by: up)
        guard !overflow, product >= 0 else { return 0 }
        return max(0, product / down - 1 - next)
    }

    /// Up to `frames` output frames into `destination` (interleaved stereo); 0 at the end.
    func render(into destination: UnsafeMutablePointer<Float>, frames: Int, from source: any FrameSource) throws(DecodeError) -> Int {
        var written = 0
        while written < frames {
            let (base, phase) = position(of: next)
            if let inputLength, base >= inputLength { break }
            try fill(from: base - reach + 1, through: base + reach, source: source)
            if let inputLength, base >= inputLength { break }
            let offset = (base - reach + 1 - windowStart) * AudioFormat.channels
            var left: Float = 0, right: Float = 0
            window.withUnsafeBufferPointer { window in
                filters.withUnsafeBufferPointer { filters in
                    let input = window.baseAddress! + offset
                    let filter = filters.baseAddress! + phase * taps
                    for tap in 0..<taps {
                        left += input[2 * tap] * filter[tap]
                        right += input[2 * tap + 1] * filter[tap]
                    }
                }
            }
            destination[2 * written] = left
            destination[2 * written + 1] = right
            written += 1
            next += 1
        }
        return written
    }

    /// Moves to output frame `frame`: the source to the first input frame its window needs.
    func seek(toOutput frame: Int, in source: any FrameSource) throws(DecodeError) {
        let (base, _) = position(of: frame)
        let first = base - reach + 1
        let input = inputLength.map { min(max(0, first), $0) } ?? max(0, first)
        try source.seek(toFrame: input)
        start(atOutput: frame, input: input)
    }

    /// Output frame `frame` next, the source at input frame `input` (its window's first frame,
    /// or 0 for the frames before the input's start, which are zeros).
    private func start(atOutput frame: Int, input: Int) {
        let first = position(of: frame).base - reach + 1
        window = [Float](repeating: 0, count: max(0, input - first) * AudioFormat.channels)
        windowStart = first
        next = frame
        sourceEnded = inputLength.map { input >= $0 } ?? false
    }

    /// The input frame at or before output frame `frame`'s time, and its filter.
    private func position(of frame: Int) -> (base: Int, phase: Int) {
        let time = frame.multipliedReportingOverflow(by: down).partialValue
        var base = time / up, phase = time % up
        if phases < up {
            phase = Int((Double(phase) * Double(phases) / Double(up)).rounded())
            if phase == phases { base += 1; phase = 0 }
        }
        return (base, phase)
    }

    /// Reads the source until the window holds input frame `last` (zeros once it has ended),
    /// first dropping the frames before `needed`, which no later output uses.
    private func fill(from needed: Int, through last: Int, source: any FrameSource) throws(DecodeError) {
        if needed - windowStart >= Self.chunk {
            window.removeFirst((needed - windowStart) * AudioFormat.channels)
            windowStart = needed
        }
        while windowStart + window.count / AudioFormat.channels <= last {
            let held = windowStart + window.count / AudioFormat.channels
            if sourceEnded {
                window += [Float](repeating: 0, count: (last + 1 - held) * AudioFormat.channels)
                break
            }
            let count = window.count
            window += [Float](repeating: 0, count: Self.chunk * AudioFormat.channels)
            let got = try window.withUnsafeMutableBufferPointer { buffer throws(DecodeError) in
                try source.read(into: buffer.baseAddress! + count, frames: Self.chunk)
            }
            window.removeLast((Self.chunk - got) * AudioFormat.channels)
            if got == 0 {
                sourceEnded = true
                inputLength = held
            }
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// The modified Bessel function of the first kind, order 0 (the Kaiser window's), by its series.
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > sum * 1e-12 {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}
