/// Why a track started.
public enum StartReason: String, Sendable, Hashable, Codable {
    /// The one before it ended and the queue went on.
    case next
    /// Someone asked for it (play, next, previous, seek to another item).
    case user
    /// Autoplay put it there.
    case autoplay
    /// An alarm started playback.
    case alarm
    /// Playback resumed where a previous run left off.
    case restored
}

/// Why a track stopped playing.
public enum EndReason: String, Sendable, Hashable, Codable {
    /// It played to its end (or to the end of its highlight).
    case finished
    /// The user moved on (next, previous, play another item).
    case skipped
    /// Playback was stopped (stop, the sleep timer, Ctrl-C).
    case stopped
    /// The file could not be decoded any further.
    case error
    /// The queue changed under it (removed, cleared).
    case replaced
}

/// What a finished track counts as in the history (see `PlayCountRules`).
public enum PlayVerdict: String, Sendable, Hashable, Codable {
    case play, skip
}

public enum PlaybackState: String, Sendable, Hashable, Codable {
    case stopped, playing, paused
}

/// How the next track is chosen, as MPD's `repeat`, `random`, `single` and `consume`.
public struct PlaybackModes: Sendable, Hashable, Codable {
    /// `single` and `consume` are off, on, or on for one track only (`oneshot`).
    public enum Toggle: String, Sendable, Hashable, Codable {
        case off, on, oneshot
        var isOn: Bool { self != .off }
    }

    public var `repeat` = false
    public var random = false
    public var single = Toggle.off
    public var consume = Toggle.off

    public init(repeat: Bool = false, random: Bool = false, single: Toggle = .off, consume: Toggle = .off) {
        self.repeat = `repeat`
        self.random = random
        self.single = single
        self.consume = consume
    }
}

/// When the sleep timer stops playback.
public enum SleepTimer: Sendable, Hashable, Codable {
    /// After this many seconds of playback from when it was set.
    case after(seconds: Double)
    case endOfTrack
    case endOfQueue

    /// The longest timer, in minutes: a year. The one bound of `songbox sleep`, an MPD client's
    /// `sleep` and Lua's `player.sleep`.
    public static let longestMinutes = 525_600.0

    /// A timer of `minutes`; nil when that is none (not above 0, past a year, not a number).
    public static func after(minutes: Double) -> SleepTimer? {
        // NaN fails both comparisons.
        guard minutes > 0, minutes <= longestMinutes else { return nil }
        return .after(seconds: minutes * 60)
    }

    /// The timer as `sleep` takes it and says it: minutes (as set), `track` or `queue`.
    public var word: String {
        switch self {
        case .after(let seconds): String(format: "%g", seconds / 60)
        case .endOfTrack: "track"
        case .endOfQueue: "queue"
        }
    }

    /// A timer as the control socket and the CLI say it: minutes, `track`, `queue`, or `off`.
    public struct Setting: Sendable, Hashable {
        /// nil: `off`.
        public let timer: SleepTimer?

        public init?(parsing text: String) {
            switch text {
            case "off": timer = nil
            case "track": timer = .endOfTrack
            case "queue": timer = .endOfQueue
            default:
                guard let minutes = Double(text), let timer = SleepTimer.after(minutes: minutes) else { return nil }
                self.timer = timer
            }
        }
    }
}

/// Something that happened in the player. Events are reported in the order they happen.
public enum PlayerEvent: Sendable, Hashable {
    case trackStarted(item: QueueItem, position: Int, reason: StartReason)
    /// `played` is the seconds actually delivered to the output; `counted` what the history records.
    case trackEnded(item: QueueItem, reason: EndReason, played: Double, duration: Double, counted: PlayVerdict?)
    case paused(item: QueueItem, at: Double)
    case resumed(item: QueueItem, at: Double)
    case seeked(item: QueueItem, from: Double, to: Double)
    case queueChanged(version: Int)
    case volumeChanged(volume: Double)
    case optionsChanged(PlaybackModes, replayGain: ReplayGainMode)
    /// The output failed; `paused` when it stayed unavailable as long as the player waits
    /// (`Player.outputPatience`) and playback was paused rather than claim to play.
    case outputError(message: String, paused: Bool)
    /// Playback moved to output `index` (0-based) of the configured ones, named by `spec`.
    case outputChanged(index: Int, spec: String)
    case decodeError(item: QueueItem, message: String)
    /// Synchronised lyric line `index` (0-based, of the track's `lyricTimes`), which starts at
    /// `milliseconds`, begins with the next frame rendered. After a seek or a start mid-way, the
    /// line in effect there is announced once (its start already heard or not).
    case lyric(item: QueueItem, index: Int, milliseconds: Int)
    /// The playing stream (an internet radio station) says it now plays `title`.
    case streamTitle(item: QueueItem, title: StreamTitle)
    /// The queue ran out (or the sleep timer or a stop ended playback).
    case stopped
    /// The item after `from` is known: how `from` should give way to `to` for `reason` is asked
    /// ahead (`songbox.player.on_transition`), with the default the settings give (`crossfade`
    /// seconds, `curve`). The answer is `PlayerEngine.chooseTransition`.
    case transitionAhead(from: QueueItem, to: QueueItem, reason: TransitionReason, crossfade: Double, curve: CrossfadeCurve)
    /// An announcement (`PlayerEngine.announce`) could not be played: passed over.
    case announcementFailed(source: String, message: String)

    /// The events that only say a value changed (the newest of a kind says all of it): what a
    /// consumer that falls behind may lose the older ones of.
    public static let valueEventNames: Set<String> = ["queue_changed", "volume_changed", "options_changed", "lyric", "stream_title"]

    /// The name plugins see (`track_started`, ...).
    public var name: String {
        switch self {
        case .trackStarted: "track_started"
        case .trackEnded: "track_ended"
        case .paused: "paused"
        case .resumed: "resumed"
        case .seeked: "seeked"
        case .queueChanged: "queue_changed"
        case .volumeChanged: "volume_changed"
        case .optionsChanged: "options_changed"
        case .outputError: "output_error"
        case .outputChanged: "output_changed"
        case .decodeError: "decode_error"
        case .lyric: "lyric"
        case .streamTitle: "stream_title"
        case .stopped: "stopped"
        case .transitionAhead: "transition_ahead"
        case .announcementFailed: "announcement_failed"
        }
    }
}

/// Everything needed to pick up where the player was: saved by the daemon, restored at start-up.
public struct PlayerSnapshot: Sendable, Hashable, Codable {
    public var queue: PlayQueue
    /// The id of the current item, and where in it (seconds).
    public var current: Int?
    public var elapsed: Double
    public var state: PlaybackState
    public var modes: PlaybackModes
    public var volume: Double
    public var highlights: Bool
    /// The crossfade a client or a script chose (MPD `crossfade`, `songbox.player.crossfade`),
    /// kept across a restart as MPD keeps it; nil: the config's. (Absent from states saved
    /// before it existed, which decode as nil.)
    public var crossfade: Double?

    public init(queue: PlayQueue = PlayQueue(), current: Int? = nil, elapsed: Double = 0, state: PlaybackState = .stopped,
                modes: PlaybackModes = PlaybackModes(), volume: Double = 100, highlights: Bool = false, crossfade: Double? = nil) {
        self.queue = queue
        self.current = current
        self.elapsed = elapsed
        self.state = state
        self.modes = modes
        self.volume = volume
        self.highlights = highlights
        self.crossfade = crossfade
    }
}

/// What `status` reports: the snapshot plus what is only known while playing.
public struct PlayerStatus: Sendable, Hashable {
    public var snapshot: PlayerSnapshot
    /// Seconds of the current track, when known.
    public var duration: Double?
    public var format: AudioFormat?
    /// The volume heard now (the snapshot's is where a fade in progress is going).
    public var currentVolume: Double
    public var sleepTimer: SleepTimer?
    /// Seconds of playback until the sleep timer stops it, once that is known (for `track` and
    /// `queue`: in the last track); it waits while paused.
    public var sleepLeft: Double?
    /// Seconds of audio rendered since the player started: the player's clock.
    public var clock: Double
    /// Set while the output is unavailable and being retried.
    public var outputError: String?
    /// The last track that would not play, and why, until cleared (`PlayerEngine.playError`).
    public var playError: String?
    /// The state playback is going to (see `PlayerEngine.heading`).
    public var heading: PlaybackState = .stopped
    /// The item playback is going to (see `PlayerEngine.headingID`).
    public var headingID: Int?
    /// The ReplayGain mode and what it makes of the current track.
    public var replayGain = AppliedGain.off
    /// The outputs playback can move to (`PlayerEngine.outputs`) and the one in use.
    public var outputs: [String] = []
    public var outputIndex = 0
    /// What the playing stream says it plays (its latest `StreamTitle`).
    public var streamTitle: StreamTitle?
    /// Playing, but waiting for the network's next bytes.
    public var buffering = false
    /// What the playing file holds (rate, bits, channels), before it becomes the output's
    /// 16-bit stereo; nil for MP3 and streams.
    public var source: SourceFormat?
    /// The crossfade's length at a track's natural end, in seconds (MPD's `xfade`); 0: off.
    public var crossfade = 0.0
    /// MixRamp's level (MPD's `mixrampdb`) and, when the curve is `mixramp`, its delay.
    public var mixRampDB = -17.0
    public var mixRampDelay: Double?
}

/// Why one track gives way to the next, as a transition hook is told (docs/player.md#plugins-choose).
public enum TransitionReason: String, Sendable, Hashable, Codable {
    /// The track ends by itself and the queue goes on.
    case natural
    /// `next`, or a jump to the item after it.
    case skip
    /// The track ends by itself into the next one of an alarm's music (started with the
    /// reason `alarm`).
    case alarm
    /// The track ends by itself into one autoplay added.
    case autoplay
}

/// A transition a plugin chose: seconds of crossfade (0: none) and its curve.
public struct TransitionChoice: Sendable, Hashable {
    public var seconds: Double
    public var curve: CrossfadeCurve

    /// `seconds` bounded to `CrossfadeSettings.range` (NaN: 0).
    public init(seconds: Double, curve: CrossfadeCurve = .equalPower) {
        self.seconds = CrossfadeSettings.bounded(seconds)
        self.curve = curve
    }
}
