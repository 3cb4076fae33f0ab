import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxPlayback
import SongboxRemote
import SongboxScript
import SongboxServer

/// How songbox is put together from its config: the output, the player wired to the library,
/// the player a script or a plugin drives, the evaluator of function smart playlists.
/// `songbox daemon`, `songbox play` and `songbox run` all start here, so they record plays,
/// save the place and hand events on the same way.
public struct Wiring: Sendable {
    public let config: SongboxConfig

    public init(config: SongboxConfig) {
        self.config = config
    }

    /// The config file at `path` (none there: the defaults).
    public static func load(configPath: String = SongboxConfig.defaultPath()) throws -> Wiring {
        Wiring(config: try SongboxConfig.load(from: configPath))
    }

    /// How remote tracks are reached and kept offline, as the config says.
    public var remoteTracks: NetworkTracks {
        NetworkTracks.shared(trusting: config.tlsCertificates, cache: offlineCache,
                             policy: FetchPolicy(allowLocalFromElsewhere: config.allowLocalStreams))
    }

    /// Gives the state running `file` the hosts the config grants that name (`net.NAME`), if
    /// any: its `songbox.http`.
    public func grantNetwork(to runtime: LuaRuntime, file: String) throws(LuaScriptError) {
        guard let grant = config.networkGrants[ScriptSetup.scriptName(file)] else { return }
        try runtime.grantNetwork(grant, client: GrantedHTTP.shared(trusting: config.tlsCertificates))
    }

    /// Where remote tracks' offline copies are (`cache_folder`).
    public var offlineCache: OfflineCache {
        OfflineCache(folder: config.cacheFolder ?? OfflineCache.defaultFolder())
    }

    /// The config's player settings, with the way to remote tracks.
    public var settings: PlayerSettings {
        var settings = config.settings
        settings.remote = RemoteTracks(remoteTracks)
        return settings
    }

    /// This wiring with the ReplayGain mode `mode` instead of the config's (`--replay-gain`);
    /// nil: as it is.
    public func replayGain(_ mode: ReplayGainMode?) -> Wiring {
        guard let mode else { return self }
        var config = self.config
        config.settings.replayGain.mode = mode
        return Wiring(config: config)
    }

    /// The alarm tone that comes with the bundled plugins (`songbox.alarm.tone()`).
    public static var alarmTone: String? { bundledPlugin("alarm-tone.mp3") }
    /// The bundled chime an announcement may start with.
    public static var chime: String? { bundledPlugin("chime.mp3") }

    /// The files that define the preset moods: the bundled `plugins/moods.lua`, then a
    /// `moods.lua` in the user's plugin folder (`userFolder`, else beside the config file), whose
    /// definitions win.
    public static func moodPresetFiles(userFolder: String?) -> [String] {
        let folder = userFolder ?? (SongboxConfig.defaultPath() as NSString).deletingLastPathComponent + "/plugins"
        let user = folder + "/moods.lua"
        return [bundledPlugin("moods.lua"), FileManager.default.fileExists(atPath: user) ? user : nil].compactMap { $0 }
    }

    /// A file of the bundled plugins (compiled in, written out on first use).
    public static func bundledPlugin(_ name: String) -> String? { BundledPlugins.file(name) }

    /// Where the audio goes: `override`, else `$SONGBOX_OUTPUT`, else the config's, else ALSA's
    /// default; a file output's folder must exist.
    public func output(_ override: String?) throws(AudioOutputError) -> OutputSpec {
        let text = override ?? ProcessInfo.processInfo.environment["SONGBOX_OUTPUT"] ?? config.output
            ?? OutputSpec.default.description
        let spec = try OutputSpec(parsing: text)
        try spec.checkDestination()
        return spec
    }

    /// A player in real time on `spec`, recording into `store`, from where the saved state left off.
    public func session(store: LibraryStore, output spec: OutputSpec, fast: Bool = false,
                        report: @escaping @Sendable (String) -> Void = reportToStandardError) -> PlaybackSession {
        PlaybackSession(store: store, output: spec.makeOutput(), settings: settings, fast: fast, report: report)
    }

    /// The player of a `songbox run` script, made on its first player call: stepped by the
    /// script's loop on a fast output (deterministic timers), else in real time on its own
    /// thread. Refused while a daemon runs: it owns the output and the saved queue.
    public func scriptPlayer(store: LibraryStore, output spec: OutputSpec, fast: Bool, resume: Bool = false) -> PlayerHost {
        let settings = self.settings
        return PlayerHost(store: store) { () throws(SongboxError) -> any ScriptPlayer in
            // ALSA keeps real time whatever --fast says: only the other outputs are stepped.
            var stepped = fast
            if case .alsa = spec { stepped = false }
            // A script plays in a session of its own: from an empty queue, and its queue, place
            // and volume are not saved (its plays are recorded). The saved state is the one
            // `songbox play` and the daemon resume: a script's try-out must not become it, nor
            // a script start from whatever played last. `--resume` asks for the saved state, as
            // `songbox play` has it. A stepped run of its own (a practice, a preview: no device,
            // no real time) plays even beside a daemon; anything else would be a second player
            // on the daemon's output, or take the daemon's saved queue.
            if !stepped || resume, let socket = LibraryDaemon.socket(serving: store.path), (try? ControlClient(path: socket)) != nil {
                throw SongboxError(.invalidArgument, "a songbox daemon runs (\(socket)) and owns the player: play through it with songbox.daemon.command, put the script in its plugin folder (~/.config/songbox/plugins), or run it with --fast --output null")
            }
            if stepped {
                return SteppedScriptPlayer(SteppedPlayback(store: store, output: spec.makeOutput(), settings: settings,
                                                           restore: resume, savesState: resume))
            }
            let session = PlaybackSession(store: store, output: spec.makeOutput(), settings: settings, fast: fast,
                                          restore: resume, savesState: resume)
            return SessionScriptPlayer(session, owned: true)
        }
    }

    /// The player of a daemon's plugin: the daemon's session, shared. Its events reach the
    /// plugin through the daemon's dispatcher, and the plugin never stops it.
    public static func pluginPlayer(store: LibraryStore, session: PlaybackSession) -> PlayerHost {
        PlayerHost(store: store) { SessionScriptPlayer(session, owned: false) }
    }

    /// The evaluator of smart playlists defined by a function when no plugin holds it: the
    /// script run again, read-only, with its `plugin.NAME.*` options and the saved player state.
    /// By default the options are the config file's, read only when a playlist is evaluated (a
    /// command that reads none does not read the file; one with a mistake gives none here: the
    /// commands that use it report it).
    public static func scriptPlaylistRunner(
        logger: Logger,
        pluginOptions: @escaping @Sendable () -> [String: [String: String]] = { (try? SongboxConfig.load())?.pluginOptions ?? [:] }
    ) -> ScriptPlaylistRunner {
        ScriptPlaylistRunner(pluginOptions: pluginOptions, savedPlayer: savedPlayer, logger: logger)
    }

    /// What one-shot commands read function playlists with: the daemon that serves the library,
    /// if one runs (its live plugin answers, as MPD clients see it), else the script run again.
    public static func commandPlaylists(logger: Logger) -> ScriptPlaylistHost {
        ScriptPlaylistHost(next: ChainedEvaluator(first: DaemonPlaylists(), then: scriptPlaylistRunner(logger: logger)))
    }

    /// The player's state as saved in `store`, if any.
    @Sendable public static func savedPlayer(_ store: LibraryStore) -> PlayerSnapshot? {
        PlaybackRecorder(store: store, report: { _ in }).savedSnapshot()
    }
}

/// A script's player in real time: a `PlaybackSession`, and the script's subscription to it.
final class SessionScriptPlayer: ScriptPlayer {
    let session: PlaybackSession
    /// Set when the script owns the session (`songbox run`): it stops it at the end.
    private let events: Mailbox<PlaybackEvent>?

    init(_ session: PlaybackSession, owned: Bool) {
        self.session = session
        events = owned ? session.subscribe() : nil
    }

    var control: any PlayerControl { session.player }
    var steppedEngine: PlayerEngine? { nil }
    var state: PlaybackState { session.player.status.snapshot.state }
    func pump() {}
    func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] { try session.store.tracks.playable(tracks) }

    func nextEvent(timeout: Double) -> PlaybackEvent? {
        events?.take(timeout: timeout)
    }

    func shutdown() {
        if events != nil { session.shutdown() }
    }
}

/// A script's player stepped by its own loop, its events through the same pipeline.
public final class SteppedScriptPlayer: ScriptPlayer {
    public let playback: SteppedPlayback
    private let events: Mailbox<PlaybackEvent>

    public init(_ playback: SteppedPlayback) {
        self.playback = playback
        events = playback.pipeline.subscribe()
    }

    public var control: any PlayerControl { playback.player }
    public var steppedEngine: PlayerEngine? { playback.engine }
    public var state: PlaybackState { playback.engine.state }
    public func pump() { playback.pump() }
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] { try playback.pipeline.recorder.store.tracks.playable(tracks) }
    public func nextEvent(timeout: Double) -> PlaybackEvent? { events.take(timeout: timeout) }
    public func shutdown() { playback.shutdown() }
}

/// Function playlists as the daemon serving the library answers them (`scriptplaylist`); nil
/// (the next evaluator) when no daemon runs.
struct DaemonPlaylists: ScriptPlaylistEvaluator {
    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]? {
        guard let daemon = try? ControlClient(serving: store.path) else { return nil }
        do {
            return try daemon.send("scriptplaylist", [playlist.name]).compactMap { $0.0 == "id" ? Int64($0.1) : nil }
        } catch let error as DaemonError {
            throw SongboxError(.scriptFailed, "the songbox daemon: \(error.text)", at: playlist.script)
        } catch {
            throw SongboxError(.scriptFailed, "the songbox daemon: \(Message(verbatim: "\(error)"))", at: playlist.script)
        }
    }
}
