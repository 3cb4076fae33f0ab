import Foundation

/// Tempo from an onset envelope, streamed: each envelope frame updates a running
/// autocorrelation over the lags of up to `maxSeconds`, so memory does not grow with the track.
struct TempoTracker {
    /// Envelope frames per second.
    let frameRate: Double
    static let maxSeconds = 6.0
    static let slowest = 40.0, fastest = 240.0
    private let maxLag: Int
    /// The last `maxLag + 1` detrended envelope values, a ring.
    private var ring: [Double]
    private var cursor = 0
    private var frames = 0
    private var autocorrelation: [Double]
    private var trend = 0.0
    private var envelopeSum = 0.0, pulseSum = 0.0, levelSum = 0.0

    init(frameRate: Double) {
        self.frameRate = frameRate
        maxLag = Int(frameRate * Self.maxSeconds)
        ring = Array(repeating: 0, count: maxLag + 1)
        autocorrelation = Array(repeating: 0, count: maxLag + 1)
    }

    /// One envelope frame: its onset strength (≥ 0) and the level it rose from, in the same units.
    mutating func add(_ onset: Double, level: Double) {
        levelSum += level
        // What rises above the last second's mean is a pulse; the slow part is not rhythm.
        let smoothing = 1 / frameRate
        trend += (onset - trend) * smoothing
        let pulse = max(0, onset - trend)
        envelopeSum += onset
        pulseSum += pulse
        ring[cursor] = pulse
        ring.withUnsafeBufferPointer { ring in
            autocorrelation.withUnsafeMutableBufferPointer { acf in
                var index = cursor
                let available = min(frames, maxLag)
                for lag in 0...available {
                    acf[lag] += pulse * ring[index]
                    index = index == 0 ? maxLag : index - 1
                }
            }
        }
        cursor = cursor == maxLag ? 0 : cursor + 1
        frames += 1
    }

    struct Estimate {
        var bpm: Double
        /// The half or double tempo, when the envelope supports it nearly as well.
        var alternative: Double?
        /// How much the envelope repeats at the beat (0..1).
        var regularity: Double
        /// How much of the onset envelope is pulses rather than a steady level (0..1).
        var strength: Double
    }

    /// The tempo; nil for a stretch too short (under 5 s) or without pulses.
    func estimate() -> Estimate? {
        // A steady tone rises by rounding errors only: under a hundredth of its level is no pulse.
        guard Double(frames) >= frameRate * 5, autocorrelation[0] > 0, envelopeSum > 0.01 * levelSum else { return nil }
        // Each lag summed fewer products the longer it is: per product, a short track's
        // long lags are not at a disadvantage.
        var unbiased = self
        for lag in 0...maxLag {
            unbiased.autocorrelation[lag] *= Double(frames) / Double(max(1, frames - lag))
        }
        return unbiased.estimateUnbiased()
    }

    private func estimateUnbiased() -> Estimate? {
        // Candidates on a fine grid of lags, scored by their comb.
        let shortest = frameRate * 60 / Self.fastest, longest = frameRate * 60 / Self.slowest
        var best: (lag: Double, score: Double)?
        var lag = shortest
        while lag <= longest {
            let score = combScore(lag) * prior(lag)
            if score > (best?.score ?? 0) { best = (lag, score) }
            lag *= 1.002
        }
        guard let best, best.score > 0 else { return nil }
        let period = refine(best.lag)
        let bpm = 60 * frameRate / period
        guard bpm.isFinite, bpm > 0 else { return nil }
        let raw = combScore(period)
        // Double: the pulses half way between beats are nearly as strong as the beats. Half:
        // every other beat stands out nearly as well as every beat does.
        let faster = period / 2 >= shortest / 1.5 ? support(period / 2) / max(support(period), .leastNonzeroMagnitude) : 0
        let slower = period * 2 * 2 <= Double(maxLag) ? combScore(period * 2) / max(raw, .leastNonzeroMagnitude) : 0
        // When both are, the one nearer the usual tempos.
        let alternative: Double? = max(faster, slower) < 0.6 ? nil
            : (faster >= 0.6 ? faster * prior(period / 2) : 0) >= (slower >= 0.6 ? slower * prior(period * 2) : 0) ? bpm * 2 : bpm / 2
        let regularity = min(1, max(0, raw / autocorrelation[0]))
        let strength = min(1, max(0, 2 * pulseSum / envelopeSum))
        return Estimate(bpm: bpm, alternative: alternative, regularity: regularity, strength: strength)
    }

    /// The autocorrelation at a fractional lag (linear between neighbours), 0 past the end.
    private func value(at lag: Double) -> Double {
        let low = Int(lag)
        guard low >= 0, low + 1 <= maxLag else { return 0 }
        let fraction = lag - Double(low)
        return autocorrelation[low] * (1 - fraction) + autocorrelation[low + 1] * fraction
    }

    /// How well pulses recur every `lag` frames: the mean at its multiples less what lies between
    /// them at halves or at thirds (whichever is more), so a period with pulses in between (half
    /// or a third of the true tempo, or three of its eighths) scores less.
    private func combScore(_ lag: Double) -> Double {
        let comb = self.comb(lag)
        return comb.on - max(comb.halves, comb.thirds)
    }

    /// The mean height of the peaks at the multiples of `lag`, without `combScore`'s penalty.
    private func support(_ lag: Double) -> Double { comb(lag).on }

    /// Means over the multiples of `lag` (up to 8, within the autocorrelation): the peaks at them,
    /// the values half way between them, and a third and two thirds of the way.
    private func comb(_ lag: Double) -> (on: Double, halves: Double, thirds: Double) {
        var on = 0.0, halves = 0.0, thirds = 0.0, count = 0.0
        var multiple = 1.0
        while multiple * lag <= Double(maxLag - 1) && multiple <= 8 {
            on += peak(near: multiple * lag)
            halves += value(at: (multiple - 0.5) * lag)
            thirds += (value(at: (multiple - 1.0 / 3) * lag) + value(at: (multiple - 2.0 / 3) * lag)) / 2
            count += 1
            multiple += 1
        }
        return count > 0 ? (on / count, halves / count, thirds / count) : (0, 0, 0)
    }

    /// The largest value within a frame of `lag` (envelope peaks are not exactly periodic).
    private func peak(near lag: Double) -> Double {
        max(value(at: lag), value(at: max(0, lag - 1)), value(at: lag + 1))
    }

    /// A mild preference for tempos near 120 BPM (log-normal, σ 1.2 octaves): it only decides
    /// between periods the envelope supports about equally.
    private func prior(_ lag: Double) -> Double {
        let octaves = log2(60 * frameRate / lag / 120)
        return exp(-0.5 * (octaves / 1.2) * (octaves / 1.2))
    }

    /// The period in frames, to a fraction of a frame: from the peaks at as many multiples of
    /// `lag` as the autocorrelation holds (the tenth beat pins the period ten times closer).
    private func refine(_ lag: Double) -> Double {
        var weighted = 0.0, weights = 0.0
        var period = lag
        var multiple = 1.0
        while (multiple * period).rounded() + 2 < Double(maxLag) {
            let center = Int((multiple * period).rounded())
            var top = center
            for candidate in max(1, center - 2)...(center + 2) where autocorrelation[candidate] > autocorrelation[top] { top = candidate }
            let (a, b, c) = (autocorrelation[top - 1], autocorrelation[top], autocorrelation[top + 1])
            let curvature = a - 2 * b + c
            let offset = curvature < 0 ? min(0.5, max(-0.5, 0.5 * (a - c) / curvature)) : 0
            // Later multiples pin the period closer: weight by the multiple and the peak's height.
            let weight = multiple * multiple * max(b, 0)
            weighted += (Double(top) + offset) / multiple * weight
            weights += weight
            // Each estimate steers where the next multiple is looked for.
            if weights > 0 { period = weighted / weights }
            multiple += 1
        }
        return period
    }
}
