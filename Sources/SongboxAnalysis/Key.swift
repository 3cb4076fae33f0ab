import Foundation

/// A musical key: a tonic pitch class and a mode.
public struct MusicalKey: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: String, Sendable { case major, minor }
    /// 0 = C, 1 = C#, ... 11 = B.
    public var tonic: Int
    public var mode: Mode

    public init(tonic: Int, mode: Mode) {
        self.tonic = ((tonic % 12) + 12) % 12
        self.mode = mode
    }

    static let names = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]

    /// `C major`, `F# minor`: the form stored, shown and queried.
    public var description: String { "\(Self.names[tonic]) \(mode.rawValue)" }

    /// Reads `description`'s form back; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let tonic = Self.names.firstIndex(of: String(parts[0])),
              let mode = Mode(rawValue: String(parts[1])) else { return nil }
        self.init(tonic: tonic, mode: mode)
    }
}

/// A chromagram summed over the track, and the key whose Krumhansl-Kessler profile it matches best.
struct KeyDetector {
    /// Pitch class of each FFT bin, nil outside 55 Hz ... 2 kHz (below, bins are wider than a
    /// semitone; above, harmonics blur the picture).
    private let pitchClass: [Int?]
    private(set) var chroma = Array(repeating: 0.0, count: 12)
    private var frame = Array(repeating: 0.0, count: 12)

    init(fftSize: Int, rate: Double) {
        pitchClass = (0...fftSize / 2).map { bin in
            let frequency = Double(bin) * rate / Double(fftSize)
            guard frequency >= 55, frequency <= 2000 else { return nil }
            let midi = 69 + 12 * log2(frequency / 440)
            return ((Int(midi.rounded()) % 12) + 12) % 12
        }
    }

    /// One power spectrum: its magnitudes folded into 12 classes, normalised so each frame
    /// with sound counts the same (a loud chorus does not outvote the verses).
    mutating func add(power: [Float]) {
        for index in 0..<12 { frame[index] = 0 }
        var total = 0.0
        for (bin, value) in power.enumerated() {
            guard let pitch = pitchClass[bin] else { continue }
            let magnitude = Double(value).squareRoot()
            frame[pitch] += magnitude
            total += magnitude
        }
        guard total > 1e-3 else { return }
        for index in 0..<12 { chroma[index] += frame[index] / total }
    }

    // Krumhansl & Kessler (1982) probe-tone ratings, C major and C minor.
    private static let majorProfile = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88]
    private static let minorProfile = [6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17]

    /// The best key and its correlation with the chroma (-1...1); nil with no tonal frame.
    func estimate() -> (key: MusicalKey, strength: Double)? {
        let total = chroma.reduce(0, +)
        guard total > 0, total.isFinite else { return nil }
        var best: (key: MusicalKey, strength: Double)?
        for tonic in 0..<12 {
            for (mode, profile) in [(MusicalKey.Mode.major, Self.majorProfile), (.minor, Self.minorProfile)] {
                let rotated = (0..<12).map { profile[(($0 - tonic) % 12 + 12) % 12] }
                let r = Self.correlation(chroma, rotated)
                if r > (best?.strength ?? -2) { best = (MusicalKey(tonic: tonic, mode: mode), r) }
            }
        }
        return best
    }

    static func correlation(_ x: [Double], _ y: [Double]) -> Double {
        let mx = x.reduce(0, +) / Double(x.count), my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for index in x.indices {
            sxy += (x[index] - mx) * (y[index] - my)
            sxx += (x[index] - mx) * (x[index] - mx)
            syy += (y[index] - my) * (y[index] - my)
        }
        guard sxx > 0, syy > 0 else { return 0 }
        return sxy / (sxx * syy).squareRoot()
    }
}
