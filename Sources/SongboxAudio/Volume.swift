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
        let step = (end - start) / Double(frames)
        for frame in 0..<frames {
            let gain = start + step * Double(frame)
            for channel in 0..<AudioFormat.channels {
                let index = frame * AudioFormat.channels + channel
                samples[index] = Int16(max(-32768, min(32767, (Double(samples[index]) * gain).rounded())))
            }
        }
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
