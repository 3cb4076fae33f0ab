import Foundation

/// The player's tunables. Defaults are what a listener expects; each is documented in docs/player.md.
public struct PlayerSettings: Sendable, Hashable {
    public var countRules = PlayCountRules()
    /// Seconds of fade-out before pause, stop and skip (and of fade-in on resume); 0 cuts at once.
    public var transitionFade = 0.1
    /// Crossfades between tracks (docs/player.md#crossfade): off when its length is 0.
    public var crossfade = CrossfadeSettings()
    /// Seconds of fade-out before the sleep timer stops playback.
    public var sleepFade = 10.0
    /// `previous` restarts the track when more than this many seconds were played.
    public var previousRestartsAfter = 3.0
    /// ReplayGain: the mode and the preamps (docs/player.md#replaygain).
    public var replayGain = ReplayGainSettings()
    /// The most items the queue holds (`max_queue_length`, MPD's `max_playlist_length`): an
    /// addition past it is refused, whoever asks (an MPD client, a plugin, the CLI).
    public var maxQueueLength = 16_384
    /// Frames decoded and written at a time.
    public var chunkFrames = 4096
    /// The configured outputs (`output` given more than once), first choice first: where
    /// playback can move (an alarm whose output fails, an MPD client's `enableoutput`).
    public var outputs: [OutputSpec] = []
    /// How tracks that are URLs are opened; without it they fail with a `decode_error`.
    public var remote: RemoteTracks?

    public init() {}
}

/// How one track fades into the next (docs/player.md#crossfade).
public struct CrossfadeSettings: Sendable, Hashable, Codable {
    /// The lengths there are, in seconds: the one bound of the config, MPD's `crossfade`, Lua
    /// and the CLI.
    public static let range = 0.0...30.0

    /// Seconds the outgoing and incoming tracks overlap when a track ends by itself; 0: off.
    public var seconds = 0.0 { didSet { seconds = Self.bounded(seconds) } }
    /// Seconds they overlap on a manual change (`next`, `previous`, `play N`); nil: `seconds`.
    public var manualSeconds: Double? { didSet { manualSeconds = manualSeconds.map(Self.bounded) } }
    /// No crossfade into or out of a track shorter than this many seconds (a bridge, an intro).
    public var minTrackSeconds = 20.0 { didSet { minTrackSeconds = minTrackSeconds.isFinite ? max(0, minTrackSeconds) : 20 } }
    public var curve = CrossfadeCurve.equalPower
    /// MixRamp's level (MPD's `mixrampdb`): two tracks overlap where the outgoing one falls
    /// below it and the incoming one reaches it (dB to full scale, after each one's ReplayGain).
    public var mixRampDB = -17.0 { didSet { mixRampDB = Self.mixRampLevels.clamp(mixRampDB, else: -17) } }
    /// Seconds MixRamp's overlap is shortened by (MPD's `mixrampdelay`).
    public var mixRampDelay = 0.0 { didSet { mixRampDelay = Self.range.clamp(mixRampDelay, else: 0) } }

    /// The MixRamp levels there are, in dB.
    public static let mixRampLevels = -96.0...0.0

    public init(seconds: Double = 0, manualSeconds: Double? = nil, minTrackSeconds: Double = 20,
                curve: CrossfadeCurve = .equalPower) {
        self.seconds = Self.bounded(seconds)
        self.manualSeconds = manualSeconds.map(Self.bounded)
        self.minTrackSeconds = minTrackSeconds.isFinite ? max(0, minTrackSeconds) : 20
        self.curve = curve
    }

    /// The overlap of a change: natural (a track's end) or manual.
    public func length(manual: Bool) -> Double { manual ? manualSeconds ?? seconds : seconds }

    /// `seconds` within `range` (NaN: 0).
    public static func bounded(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : max(range.lowerBound, min(range.upperBound, seconds))
    }
}

/// The shape of a crossfade: the outgoing track's gain goes from 1 to 0 while the incoming
/// one's goes from 0 to 1.
public enum CrossfadeCurve: String, Sendable, Hashable, Codable, CaseIterable {
    /// cos and sin of a quarter turn: the summed power of two unrelated signals stays even.
    case equalPower = "equal-power"
    /// Straight lines: the summed amplitude of one signal stays even (a dip of 3 dB for two).
    case linear
    /// Placed by the two tracks' MixRamp points: the incoming track at full level from its
    /// start, overlapped so that it reaches `mixRampDB` where the outgoing one falls below it,
    /// from where the outgoing one fades out (equal-power) to its end. Without the points, and
    /// on a manual change, equal-power.
    case mixRamp = "mixramp"

    /// The gains (outgoing, incoming) at `fraction` (0...1) of the way through.
    func gains(at fraction: Double) -> (out: Double, in: Double) {
        let t = fraction.isNaN ? 1 : max(0, min(1, fraction))
        switch self {
        case .equalPower, .mixRamp: return (cos(t * .pi / 2), sin(t * .pi / 2))
        case .linear: return (1 - t, t)
        }
    }
}

extension ClosedRange<Double> {
    /// `value` within the range; `fallback` for NaN.
    func clamp(_ value: Double, else fallback: Double) -> Double {
        value.isNaN ? fallback : Swift.max(lowerBound, Swift.min(upperBound, value))
    }
}
