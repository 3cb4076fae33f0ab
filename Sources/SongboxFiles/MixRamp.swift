/// A track's MixRamp: how its level rises at its start and falls at its end, as MPD's
/// `MIXRAMP_START` and `MIXRAMP_END` tags give it (or songbox's analysis measures it). The
/// player overlaps two tracks where the outgoing one's tail falls below a level and the
/// incoming one first reaches it (docs/player.md#mixramp).
public struct MixRamp: Sendable, Hashable, Codable {
    /// When the start first reaches each level: seconds from the track's start.
    public var start: Ramp?
    /// When the end last holds each level: seconds before the track's end.
    public var end: Ramp?

    public init(start: Ramp?, end: Ramp?) {
        self.start = start
        self.end = end
    }

    /// Nil when neither side is usable.
    public init?(start: String?, end: String?) {
        let start = start.flatMap(Ramp.init(parsing:)), end = end.flatMap(Ramp.init(parsing:))
        guard start != nil || end != nil else { return nil }
        self.init(start: start, end: end)
    }

    /// One side: levels (dB) rising, each with its time in seconds, as MPD's tags write it:
    /// `"-90.00 0.02;-60.00 0.05;-30.00 0.31"`.
    public struct Ramp: Sendable, Hashable, Codable {
        public let levels: [Float]
        public let seconds: [Float]

        /// The most pairs kept: a tag is text from a file, its size is bounded here.
        public static let limit = 64

        /// Pairs of (dB, seconds) with the levels rising and every number finite, the seconds
        /// not negative; nil otherwise or when empty.
        public init?(_ pairs: [(level: Double, seconds: Double)]) {
            guard !pairs.isEmpty, pairs.count <= Self.limit else { return nil }
            for (index, pair) in pairs.enumerated() {
                guard pair.level.isFinite, pair.seconds.isFinite, pair.seconds >= 0, abs(pair.level) < 1000,
                      pair.seconds < 1e7 else { return nil }
                if index > 0, pair.level < pairs[index - 1].level { return nil }
            }
            levels = pairs.map { Float($0.level) }
            seconds = pairs.map { Float($0.seconds) }
        }

        /// MPD's text: pairs separated by `;`, a level and seconds separated by a space.
        public init?(parsing text: String) {
            var pairs: [(level: Double, seconds: Double)] = []
            for item in text.split(separator: ";") where !item.allSatisfy(\.isWhitespace) {
                let parts = item.split(whereSeparator: \.isWhitespace)
                guard parts.count == 2, let level = Double(parts[0]), let seconds = Double(parts[1]) else { return nil }
                pairs.append((level, seconds))
            }
            self.init(pairs)
        }

        /// As MPD's tags write it.
        public var text: String {
            zip(levels, seconds).map { "\(Self.fixed($0)) \(Self.fixed($1))" }.joined(separator: ";")
        }

        private static func fixed(_ value: Float) -> String {
            let hundredths = Int((Double(value) * 100).rounded())
            let sign = hundredths < 0 ? "-" : ""
            let magnitude = abs(hundredths)
            let fraction = magnitude % 100
            return "\(sign)\(magnitude / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
        }

        /// The seconds at which the ramp reaches `level` dB, interpolated between the pairs on
        /// either side as MPD does; a level under the first pair's takes its time; nil when the
        /// track never reaches it.
        public func seconds(at level: Double) -> Double? {
            guard level.isFinite else { return nil }
            for index in levels.indices where Double(levels[index]) >= level {
                guard index > 0 else { return Double(seconds[0]) }
                let low = Double(levels[index - 1]), high = Double(levels[index])
                let from = Double(seconds[index - 1]), to = Double(seconds[index])
                return high == low ? to : from + (to - from) * (level - low) / (high - low)
            }
            return nil
        }
    }
}
