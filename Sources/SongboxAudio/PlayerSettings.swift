/// The player's tunables. Defaults are what a listener expects; each is documented in docs/player.md.
public struct PlayerSettings: Sendable, Hashable {
    public var countRules = PlayCountRules()
    /// Seconds of fade-out before pause, stop and skip (and of fade-in on resume); 0 cuts at once.
    public var transitionFade = 0.1
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
