import Foundation

/// Where a track's level first reaches, and last holds, each of a set of levels: the points
/// MixRamp overlaps two tracks at (MPD's `MIXRAMP_START` and `MIXRAMP_END`). The level is the
/// RMS of the mono mix over 10 ms windows, in dB to full scale (a full-scale sine is -3 dB).
/// Fixed memory: for each level its first and last window.
struct MixRampMeter {
    /// -60 to 0 dB in steps of 3.
    static let levels: [Double] = stride(from: -60.0, through: 0, by: 3).map { $0 }

    private let window: Int
    private let rate: Double
    private var sum = 0.0
    private var filled = 0
    private var windows = 0
    /// Per level, the first window at or above it and the last one.
    private var first: [Int?] = Array(repeating: nil, count: levels.count)
    private var last: [Int?] = Array(repeating: nil, count: levels.count)

    init(rate: Int) {
        self.rate = Double(rate)
        window = max(1, rate / 100)
    }

    @inline(__always)
    mutating func add(_ mono: Double) {
        sum += mono * mono
        filled += 1
        guard filled == window else { return }
        let level = 10 * log10(max(sum / Double(window), 1e-20))
        for index in Self.levels.indices where Self.levels[index] <= level {
            if first[index] == nil { first[index] = windows }
            last[index] = windows
        }
        windows += 1
        sum = 0
        filled = 0
    }

    /// The start: for each level reached, seconds from the start to its first window.
    var start: [LevelTime] {
        Self.levels.indices.compactMap { index in
            first[index].map { LevelTime(level: Self.levels[index], seconds: Double($0 * window) / rate) }
        }
    }

    /// The end: for each level reached, seconds from the end of its last window to the end of
    /// what was fed (`frames`).
    func end(frames: Int) -> [LevelTime] {
        Self.levels.indices.compactMap { index in
            last[index].map { LevelTime(level: Self.levels[index], seconds: max(0, Double(frames - ($0 + 1) * window) / rate)) }
        }
    }
}

/// A level (dB) and a time (seconds): one point of a MixRamp.
public struct LevelTime: Sendable, Equatable {
    public var level: Double
    public var seconds: Double
}
