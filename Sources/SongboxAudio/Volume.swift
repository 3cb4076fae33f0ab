import Foundation

/// How a fade moves between two volumes.
public enum FadeCurve: String, Sendable, Hashable, Codable {
    /// The volume (0–100) changes by the same amount every second.
    case linear
    /// The gain changes by the same number of decibels every second, which the ear hears as
    /// even; silence is taken as -60 dB.
    case logarithmic
}

/// Volume 0–100 is linear amplitude: 100 leaves samples untouched, 50 halves them.
enum Gain {
    static let silenceDecibels = -60.0

    static func of(volume: Double) -> Double { max(0, min(100, volume)) / 100 }

    /// Volume at `fraction` (0...1) of the way from `from` to `to`.
    static func volume(from: Double, to: Double, fraction: Double, curve: FadeCurve) -> Double {
        let t = max(0, min(1, fraction))
        switch curve {
        case .linear:
            return from + (to - from) * t
        case .logarithmic:
            if t >= 1 { return to }
            let start = decibels(of: from), end = decibels(of: to)
            let level = pow(10, (start + (end - start) * t) / 20) * 100
            return level <= pow(10, silenceDecibels / 20) * 100 ? 0 : level
        }
    }

    private static func decibels(of volume: Double) -> Double {
        volume <= 0 ? silenceDecibels : max(silenceDecibels, 20 * log10(volume / 100))
    }

    /// Multiplies interleaved stereo frames by a gain that moves linearly from `start` to `end`
    /// across the buffer. Unity gain leaves the samples bit-exact and costs nothing.
    static func apply(_ samples: UnsafeMutableBufferPointer<Int16>, from start: Double, to end: Double) {
        if start == 1, end == 1 { return }
        let frames = samples.count / AudioFormat.channels
        guard frames > 0 else { return }
        ramp(frames: frames, from: start, to: end) { index, gain in samples[index] = scaled(samples[index], by: gain) }
    }

    /// Adds `source`'s frames, times a gain that moves linearly from `start` to `end` across
    /// them, to the first frames of `target` (a crossfade's outgoing side, an announcement):
    /// each scaled sample as `apply` makes it, the sum clamped. One pass over both.
    static func add(_ source: UnsafeBufferPointer<Int16>, into target: UnsafeMutableBufferPointer<Int16>,
                    from start: Double, to end: Double) {
        let frames = min(source.count, target.count) / AudioFormat.channels
        guard frames > 0 else { return }
        ramp(frames: frames, from: start, to: end) { index, gain in
            target[index] = Int16(clamping: Int32(target[index]) &+ Int32(scaled(source[index], by: gain)))
        }
    }

    /// `body(index, gain)` for each sample of `frames` interleaved frames, the gain moving
    /// linearly from `start` to `end` across them.
    @inline(__always)
    private static func ramp(frames: Int, from start: Double, to end: Double, _ body: (Int, Double) -> Void) {
        let step = (end - start) / Double(frames)
        var index = 0
        for frame in 0..<frames {
            let gain = start + step * Double(frame)
            for _ in 0..<AudioFormat.channels {
                body(index, gain)
                index &+= 1
            }
        }
    }

    /// `sample * gain` rounded half away from zero (as `rounded()`), within Int16. Without
    /// `rounded()`, which is a call into libm on a CPU without SSE4.1 (most of a crossfade's
    /// cost): the part cut off by truncation is exact for these magnitudes, so comparing it
    /// with one half rounds exactly as `rounded()` does.
    @inline(__always)
    static func scaled(_ sample: Int16, by gain: Double) -> Int16 {
        // Clamped first (the bounds are whole numbers: the same as rounding first), so the
        // conversion never traps, whatever the gain.
        let product = max(-32768, min(32767, Double(sample) * gain))
        let whole = Int32(product)
        let cut = product - Double(whole)
        return Int16(truncatingIfNeeded: cut >= 0.5 ? whole &+ 1 : cut <= -0.5 ? whole &- 1 : whole)
    }
}

/// A volume change spread over time on the player's clock.
struct Fade: Sendable, Hashable {
    var from: Double
    var to: Double
    /// Clock seconds when it started and how long it lasts.
    var start: Double
    var length: Double
    var curve: FadeCurve

    func volume(at clock: Double) -> Double {
        length <= 0 ? to : Gain.volume(from: from, to: to, fraction: (clock - start) / length, curve: curve)
    }

    func isDone(at clock: Double) -> Bool { clock >= start + length }
}
