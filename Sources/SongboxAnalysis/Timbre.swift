import Foundation

/// The spectral shape of the full band, from a frame every fifth of a second: centroid,
/// roll-off, flatness, the share above 1.5 kHz, and 12 mel-frequency cepstral coefficients.
struct Timbre {
    static let bands = 26
    static let coefficients = 12
    private let rate: Double
    private let fftSize: Int
    /// Mel filters: for each band, (first bin, weights).
    private let filters: [(start: Int, weights: [Double])]
    private var frames = 0
    private var centroidSum = 0.0, centroidSquares = 0.0
    private var rolloffSum = 0.0, flatnessSum = 0.0, brightnessSum = 0.0
    private var cepstrumSum = Array(repeating: 0.0, count: coefficients)

    init(fftSize: Int, rate: Double) {
        self.rate = rate
        self.fftSize = fftSize
        func mel(_ hz: Double) -> Double { 2595 * log10(1 + hz / 700) }
        func hz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let top = mel(min(rate / 2, 16000)), bottom = mel(40)
        let edges = (0...Self.bands + 1).map { hz(bottom + (top - bottom) * Double($0) / Double(Self.bands + 1)) }
        let binWidth = rate / Double(fftSize)
        filters = (0..<Self.bands).map { band in
            let (low, mid, high) = (edges[band], edges[band + 1], edges[band + 2])
            let start = Int((low / binWidth).rounded(.up)), end = min(fftSize / 2, Int(high / binWidth))
            guard start <= end else { return (start: min(start, fftSize / 2), weights: [1]) }
            let weights = (start...end).map { bin -> Double in
                let f = Double(bin) * binWidth
                return f <= mid ? (f - low) / max(mid - low, 1e-9) : (high - f) / max(high - mid, 1e-9)
            }
            return (start, weights)
        }
    }

    mutating func add(power: [Float]) {
        let binWidth = rate / Double(fftSize)
        var total = 0.0, weighted = 0.0, high = 0.0, logSum = 0.0
        for bin in 1..<power.count {
            let p = Double(power[bin])
            total += p
            weighted += p * Double(bin) * binWidth
            if Double(bin) * binWidth >= 1500 { high += p }
            logSum += log(p + 1e-12)
        }
        // A silent frame says nothing about the timbre.
        guard total > 1e-6 else { return }
        frames += 1
        let centroid = weighted / total
        centroidSum += centroid
        centroidSquares += centroid * centroid
        brightnessSum += high / total
        let arithmetic = total / Double(power.count - 1)
        flatnessSum += min(1, exp(logSum / Double(power.count - 1)) / arithmetic)
        var running = 0.0
        for bin in 1..<power.count {
            running += Double(power[bin])
            if running >= 0.85 * total { rolloffSum += Double(bin) * binWidth; break }
        }
        let logBands = filters.map { filter -> Double in
            var energy = 0.0
            for (offset, weight) in filter.weights.enumerated() where filter.start + offset < power.count {
                energy += weight * Double(power[filter.start + offset])
            }
            return log(energy + 1e-10)
        }
        // DCT-II of the log mel bands, coefficients 1...12 (0 is the level, which loudness says).
        for k in 1...Self.coefficients {
            var sum = 0.0
            for (band, value) in logBands.enumerated() {
                sum += value * cos(Double.pi * Double(k) * (Double(band) + 0.5) / Double(Self.bands))
            }
            cepstrumSum[k - 1] += sum
        }
    }

    struct Summary {
        var centroid: Double, centroidSpread: Double, rolloff: Double, flatness: Double, brightness: Double
        var cepstrum: [Double]
    }

    var summary: Summary? {
        guard frames > 0 else { return nil }
        let n = Double(frames)
        let centroid = centroidSum / n
        return Summary(centroid: centroid, centroidSpread: max(0, centroidSquares / n - centroid * centroid).squareRoot(),
                       rolloff: rolloffSum / n, flatness: flatnessSum / n, brightness: brightnessSum / n,
                       cepstrum: cepstrumSum.map { $0 / n })
    }
}
