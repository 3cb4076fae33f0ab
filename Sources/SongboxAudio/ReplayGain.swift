import Foundation

/// Which ReplayGain the player applies, as MPD's `replay_gain_mode`.
public enum ReplayGainMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// None: the samples as decoded.
    case off
    /// Each track's own gain (the album's when the track has none).
    case track
    /// The album's gain (the track's when there is none), so an album keeps its dynamics.
    case album
    /// The album's gain while the queue plays in order, the track's while `random` is on.
    case auto

    /// `auto` resolved by the random mode: `.track` or `.album` (`.off` stays off).
    func resolved(random: Bool) -> ReplayGainMode {
        self == .auto ? (random ? .track : .album) : self
    }
}

/// The ReplayGain settings (config keys `replay_gain`, `replay_gain_preamp`,
/// `replay_gain_missing_preamp`, as MPD's).
public struct ReplayGainSettings: Sendable, Hashable {
    public var mode = ReplayGainMode.off
    /// dB added to the gain of a track that has ReplayGain (-15 to 15).
    public var preamp = 0.0
    /// dB applied to a track with no ReplayGain at all, when the mode is not off (-15 to 15).
    public var missingPreamp = 0.0

    /// The range MPD allows for both preamps.
    public static let preampRange = -15.0...15.0

    public init() {}
}

/// A track's ReplayGain as the player takes it: a gain and (when known) a peak for the track and
/// for its album, from one source, the file's tags or else songbox's analysis. Values that are
/// not numbers a file could sensibly hold are left out, and `ignored` says which and why.
public struct ReplayGain: Sendable, Hashable, Codable {
    public enum Source: String, Sendable, Hashable, Codable {
        /// The file's `replaygain_*` TXXX frames.
        case tags
        /// `songbox analyze` (ReplayGain 2.0 from the EBU R128 loudness, docs/moods.md).
        case analysis
    }

    /// A gain in dB and the linear peak it is limited by (nil: not known, not limited).
    public struct Value: Sendable, Hashable, Codable {
        public var gain: Double
        public var peak: Double?
    }

    /// Numbers as they were read (a tag or a database row), unchecked.
    public struct Readings: Sendable, Hashable {
        public var trackGain: Double?
        public var trackPeak: Double?
        public var albumGain: Double?
        public var albumPeak: Double?

        public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
            self.trackGain = trackGain
            self.trackPeak = trackPeak
            self.albumGain = albumGain
            self.albumPeak = albumPeak
        }
    }

    public var source: Source
    public var track: Value?
    public var album: Value?
    /// Values read and left out, each with its reason (`replaygain_track_gain 1e+300 dB ignored: ...`).
    public var ignored: [String]

    /// Gains beyond this many dB are no measurement (a silent track's is about +50 at most).
    static let largestGain = 60.0
    /// Peaks above this (20 dB over full scale) are no measurement either.
    static let largestPeak = 10.0

    /// The tags' gains when they hold a usable one, else the analysis's; nil when neither does.
    /// Either way, what was ignored in both is listed.
    public static func choose(tags: Readings, analysis: Readings) -> ReplayGain? {
        var ignored: [String] = []
        let fromTags = checked(tags, names: "replaygain", ignored: &ignored)
        let fromAnalysis = checked(analysis, names: "analysis", ignored: &ignored)
        if fromTags.track != nil || fromTags.album != nil {
            return ReplayGain(source: .tags, track: fromTags.track, album: fromTags.album, ignored: ignored)
        }
        if fromAnalysis.track != nil || fromAnalysis.album != nil {
            return ReplayGain(source: .analysis, track: fromAnalysis.track, album: fromAnalysis.album, ignored: ignored)
        }
        // No gain, but a reason worth showing (a garbage tag): kept with nothing to apply.
        return ignored.isEmpty ? nil : ReplayGain(source: .tags, track: nil, album: nil, ignored: ignored)
    }

    private static func checked(_ readings: Readings, names: String, ignored: inout [String])
        -> (track: Value?, album: Value?) {
        func value(_ kind: String, _ gain: Double?, _ peak: Double?) -> Value? {
            let gainName = "\(names)_\(kind)_gain", peakName = "\(names)_\(kind)_peak"
            var usablePeak: Double?
            if let peak {
                if !peak.isFinite {
                    ignored.append("\(peakName) \(peak) ignored: not a finite number")
                } else if peak < 0 || peak > largestPeak {
                    ignored.append("\(peakName) \(peak) ignored: a peak is from 0 to \(Int(largestPeak))")
                } else if peak > 0 {
                    usablePeak = peak  // 0: not measured, as MPD reads it
                }
            }
            guard let gain else { return nil }
            guard gain.isFinite else {
                ignored.append("\(gainName) \(gain) ignored: not a finite number")
                return nil
            }
            guard abs(gain) <= largestGain else {
                ignored.append("\(gainName) \(gain) dB ignored: beyond ±\(Int(largestGain)) dB")
                return nil
            }
            return Value(gain: gain, peak: usablePeak)
        }
        return (value("track", readings.trackGain, readings.trackPeak), value("album", readings.albumGain, readings.albumPeak))
    }

    /// The gain `mode` (`.track` or `.album`) takes, falling back to the other one as MPD does.
    func value(for mode: ReplayGainMode) -> (Value, ReplayGainMode)? {
        switch mode {
        case .album: album.map { ($0, .album) } ?? track.map { ($0, .track) }
        case .track: track.map { ($0, .track) } ?? album.map { ($0, .album) }
        case .off, .auto: nil
        }
    }
}

/// The ReplayGain applied to what plays: the linear factor that multiplies the volume in the
/// rendered samples, and where it came from.
public struct AppliedGain: Sendable, Hashable {
    /// The mode asked for (`auto` stays `auto`).
    public var mode: ReplayGainMode
    /// The gain used, `.track` or `.album`; nil when none was (off, or the track has none).
    public var used: ReplayGainMode?
    public var source: ReplayGain.Source?
    /// dB applied in the end (gain and preamp, lowered by the peak limit), 0 when off.
    public var decibels: Double
    /// The linear factor: 10^(decibels / 20).
    public var scale: Double
    /// Whether the peak lowered the gain (scale × peak ≤ 1: no clipping).
    public var limited: Bool
    /// Values left out, with their reasons.
    public var ignored: [String]

    public static let off = AppliedGain(idle: .off)

    /// Nothing applied: no track is open. Only the mode.
    public init(idle mode: ReplayGainMode) {
        self.init(mode: mode, used: nil, source: nil, decibels: 0, scale: 1, limited: false, ignored: [])
    }

    /// What `settings` make of `gain` while `random` is as given.
    public init(_ gain: ReplayGain?, settings: ReplayGainSettings, random: Bool) {
        self.init(idle: settings.mode)
        ignored = gain?.ignored ?? []
        let resolved = settings.mode.resolved(random: random)
        guard resolved != .off else { return }
        guard let gain, let (value, used) = gain.value(for: resolved) else {
            // MPD's `replay_gain_missing_preamp`: for tracks without ReplayGain.
            decibels = settings.missingPreamp
            scale = pow(10, decibels / 20)
            return
        }
        self.used = used
        source = gain.source
        decibels = value.gain + settings.preamp
        scale = pow(10, decibels / 20)
        if let peak = value.peak, scale * peak > 1 {
            scale = 1 / peak
            decibels = -20 * log10(peak)
            limited = true
        }
    }

    private init(mode: ReplayGainMode, used: ReplayGainMode?, source: ReplayGain.Source?, decibels: Double, scale: Double,
                 limited: Bool, ignored: [String]) {
        self.mode = mode
        self.used = used
        self.source = source
        self.decibels = decibels
        self.scale = scale
        self.limited = limited
        self.ignored = ignored
    }
}
