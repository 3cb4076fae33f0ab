import Foundation
import Logging
import ServiceLifecycle
import SongboxServer
import SongboxAudio
import SongboxFiles
import SongboxLibrary
import SongboxPlayback
import SongboxRemote
import SongboxScript
import SongboxWeb
import Synchronization
import UnixSignals

/// What `songbox daemon` is started with; each overrides the config file.
public struct DaemonOptions: Sendable {
    public var database: String
    public var configPath: String
    /// Folders to rescan; nil: the config file's `music`, else the folders scanned before.
    public var musicFolders: [String]?
    /// The output spec; nil: `$SONGBOX_OUTPUT`, the config file's, else ALSA's default.
    public var output: String?
    /// Plugin folders, loaded in order (a later folder's plugin replaces one of the same name);
    /// nil: the bundled plugins, then the user's folder.
    public var pluginFolders: [String]?
    public var socketPath: String?
    /// TCP addresses for MPD clients (`--bind`); nil: the config's `bind`, else 127.0.0.1:6600;
    /// empty: none.
    public var binds: [String]?
    /// The web app's address (`--http`); nil: the config's `http`, else 127.0.0.1:8680;
    /// `none`: no web app.
    public var http: String?
    /// Play wav, fifo and null outputs as fast as possible (tests, demos).
    public var fast = false
    /// The ReplayGain mode (`--replay-gain`); nil: the config file's `replay_gain`.
    public var replayGain: ReplayGainMode?

    public init(database: String, configPath: String) {
        self.database = database
        self.configPath = configPath
    }
}

/// The daemon: one library, one player on the configured output, the plugins with a live state
/// each, and the control socket; run as services under swift-service-lifecycle. SIGTERM and
/// SIGINT stop it cleanly (plays recorded, the place saved, plugins get `shutdown`); SIGHUP
/// reads the config again and reloads the plugins without stopping the music.
public final class Daemon: MPDBackend, Sendable {
    public let options: DaemonOptions
    public let store: LibraryStore
    let session: PlaybackSession
    /// The MPD clients connected: what changed for each (`idle`), their channels.
    let clients = Clients()
    let output: OutputSpec
    private let started = MonotonicClock.seconds
    /// The rescans of the music folders: at start, on the watcher's word, on the clock, on `update`.
    let rescans: Rescans
    let plugins: PluginSet
    let logger: Logger
    let config: CurrentConfig
    /// This daemon's claim on the library: no second daemon serves it.
    private let claim: LibraryDaemon
    /// The private folder made for the socket (`defaultSocket`), removed on the way out.
    private let madeFolder = Mutex<String?>(nil)
    /// Where the web app listens, and who may use it; nil: no web app.
    let web: WebConfiguration?
    /// The event bus as the web app's pages get it.
    let webEvents = WebEvents()
    /// Which alarms sound or are snoozed (`alarms` says).
    let alarmStates = AlarmStates()
    /// How the function playlists a read reaches are evaluated (by MPD clients, the control
    /// socket, the plugins): each by the live plugin whose script defines it, on that plugin's
    /// thread (awaited by an MPD command), else by running its script again.
    let functionPlaylists: ScriptPlaylistHost

    /// Opens the library and the output and loads the plugins; nothing is served yet.
    public init(options: DaemonOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        // A folder named on the command line is meant to be there (the config's may be a
        // drive not mounted yet: the scanner holds it).
        for folder in options.musicFolders ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw DaemonError("the music folder \(folder) does not exist", hint: "check the path given with --music")
            }
        }
        let wiring = try Wiring.load(configPath: options.configPath).replayGain(options.replayGain)
        let config = wiring.config
        let current = CurrentConfig(config)
        self.config = current
        // A web app beyond this machine without a password is refused before anything starts.
        let webAddress = options.http ?? config.http
        if let webAddress, webAddress != "none" {
            let web = try WebConfiguration(address: webAddress, password: config.httpPassword, hostNames: config.httpHosts)
            try web.check()
            self.web = web
        } else {
            web = nil
        }
        let store = try LibraryStore(path: options.database, access: .shared)
        // The daemon records every play and saves the queue: a library it cannot write is refused.
        try store.checkWritable()
        self.store = store
        claim = try LibraryDaemon(claiming: options.database)
        let spec: OutputSpec
        do { spec = try wiring.output(options.output) } catch { throw DaemonError(error.message) }
        output = spec
        session = wiring.session(store: store, output: spec, fast: options.fast,
                                 report: { message in logger.warning("\(message)") })
        let session = self.session
        let start = MonotonicClock.seconds
        let everyPlugin = PluginSetHolder()
        functionPlaylists = ScriptPlaylistHost(next: ChainedEvaluator(
            first: LivePluginPlaylists { everyPlugin.current },
            then: Wiring.scriptPlaylistRunner(logger: logger) { current.value.pluginOptions }))
        var environment = Plugin.Environment(
            // Each plugin's own handle on the one player (made on the plugin's thread).
            store: store, player: { Wiring.pluginPlayer(store: store, session: session) },
            limits: Daemon.pluginLimits,
            options: { current.value.pluginOptions }, logger: logger,
            output: { name, text in
                // A plugin's print, one line each, named; a control character in it (a line
                // break among them) is shown escaped, so none forges a line or reaches a terminal.
                let line = text.utf8.last == 0x0A ? String(decoding: text.utf8.dropLast(), as: UTF8.self) : text
                FileHandle.standardOutput.write(Data("[\(name)] \(VisibleText.escaped(line))\n".utf8))
            },
            now: { MonotonicClock.seconds - start })
        // A plugin reads and writes files only in its own folder beside the library
        // (plugins/NAME, made on demand) and the folders granted to it by name.
        let dataFolder = (options.database as NSString).deletingLastPathComponent + "/plugins"
        let configPath = options.configPath
        environment.fileAccess = { name in
            let own = dataFolder + "/" + name
            try? FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
            return FileAccess(protected: [configPath], folders: [own] + (current.value.grants[name] ?? []))
        }
        // The hosts a plugin may reach (`net.NAME`), as the config says at its (re)load.
        environment.network = { name in current.value.networkGrants[name] }
        environment.http = GrantedHTTP.shared(trusting: config.tlsCertificates)
        environment.functionPlaylists = functionPlaylists
        let clients = self.clients
        environment.subscriptions = { name, channels in clients.setChannels(channels, of: "plugin " + name) }
        let webEvents = self.webEvents, alarmStates = self.alarmStates
        // An event a plugin posts (an alarm fired or announced) reaches every plugin.
        environment.post = { event in
            everyPlugin.current.forEach { $0.deliver(event) }
            alarmStates.note(event)
            webEvents.post(event)
        }
        environment.alarmTone = Wiring.alarmTone
        environment.chime = Wiring.chime
        environment.moodPresetFiles = Wiring.moodPresetFiles(userFolder: config.pluginFolder)
        environment.policy.firstPause = config.pluginRestartPause
        environment.policy.longestPause = max(60, config.pluginRestartPause)
        environment.policy.failuresBeforeDisabling = config.pluginFailures
        plugins = PluginSet(environment: environment, logger: logger)
        everyPlugin.set(plugins)
        rescans = Rescans(store: store, logger: logger, clients: clients, config: current, musicFolders: options.musicFolders) {
            [plugins] event in
            plugins.current.forEach { $0.deliver(event) }
            webEvents.post(event)
        }
        // The event bus's subscribers, beside the recorder: MPD's idle clients, the plugins
        // (each only the events it has handlers for), and the log of what would not play.
        session.pipeline.subscribe(clients)
        session.pipeline.subscribe(plugins)
        session.pipeline.subscribe(ProblemLog(logger: logger))
        session.pipeline.subscribe(webEvents)
    }

    /// Limits of a plugin's state: each event or timer callback gets this many instructions.
    static let pluginLimits = LuaRuntime.Limits(instructions: 50_000_000, memory: 64 << 20)

    /// Serves until SIGTERM or SIGINT, then stops cleanly.
    public func run() async throws {
        let socketPath = try options.socketPath ?? config.value.socket ?? defaultSocket()
        var endpoints = [MPDEndpoint.unix(path: socketPath)]
        for bind in options.binds ?? config.value.binds ?? ["127.0.0.1:6600"] {
            do { endpoints.append(try MPDEndpoint(parsing: bind)) } catch { throw DaemonError(error.message) }
        }
        let commands = MPDCommands(backend: self, clients: clients)
        let server = MPDServer(endpoints: endpoints, commands: commands, clients: clients,
                               access: config.value.access, maximumConnections: config.value.maxConnections)
        // The web app: the same commands, through the same table.
        let webServer = web.map { WebServer(configuration: $0, commands: CommandCall(commands: commands, clients: clients), events: webEvents, logger: logger) }
        // Shut down in the reverse order: the watcher and the rescans first, then the MPD server
        // (no client left), the player and the plugins last. Each waits for the server to listen:
        // a daemon that cannot bind starts nothing and says why.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: CoreService(daemon: self, server: server, web: webServer, socket: socketPath)),
                .init(service: server),
                .init(service: ReloadService(daemon: self)),
                .init(service: RescanService(daemon: self, server: server), successTerminationBehavior: .ignore),
                .init(service: WatchService(daemon: self, server: server), successTerminationBehavior: .ignore),
            ] + (webServer.map { [.init(service: $0)] } ?? []),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        defer { madeFolder.withLock { $0 }.map { _ = rmdir($0) } }
        try await group.run()
    }

    /// The control socket when none is named: in the runtime folder, unless that folder is not
    /// the user's own and closed to others (another user could have made it first, to stand in
    /// for the daemon); then in a new private folder, said in the log. Commands find it through
    /// the library either way.
    private func defaultSocket() throws(DaemonError) -> String {
        let path = defaultControlSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        guard let problem = RuntimeFolder.problem(with: folder) else { return path }
        let made = try RuntimeFolder.makePrivate()
        madeFolder.withLock { $0 = made }
        let chosen = made + "/control.sock"
        logger.warning("songbox daemon: not using the socket folder \(folder): \(problem); the socket is \(chosen) instead")
        return chosen
    }

    /// The server listens: the library's clients can find it, and the log says where.
    func listening(on socketPath: String, tcpPorts: [Int], webPort: Int?) {
        claim.announce(socket: socketPath)
        FetchPolicy.listening(on: tcpPorts)
        let tcp = tcpPorts.map(String.init).joined(separator: ", ")
        let configured = FileManager.default.fileExists(atPath: options.configPath) ? options.configPath : "none (\(options.configPath) is not there: the defaults)"
        let musicFolders = rescans.musicFolders
        let folders = musicFolders.isEmpty ? "the folders scanned before" : musicFolders.joined(separator: ", ")
        logger.info("songbox daemon: library \(options.database), config \(configured), music \(folders)")
        if let web, let webPort {
            let host = web.host.contains(":") ? "[\(web.host)]" : web.host
            logger.info("songbox daemon: the web app is at http://\(host):\(webPort)/\(web.password == nil ? "" : " (with a password)")")
        }
        logger.info("songbox daemon: listening on \(socketPath)\(tcp.isEmpty ? "" : " and TCP port \(tcp)"), playing to \(output)")
    }

    /// Starts the plugins and the flow of events to them.
    func start() {
        plugins.load(folders: pluginFolders())
        rescans.scanIfNew()
        // Stopped (or killed) while playing: it plays on from its place, as MPD does.
        if session.wasPlaying, !config.value.restorePaused {
            logger.info("songbox daemon: playing on where it stopped")
            session.player.perform { $0.play() }
        }
    }

    /// Stops the player (what was heard is recorded, the place saved), then the plugins.
    func stop() {
        session.shutdown()
        plugins.stopAll()
        logger.info("songbox daemon: stopped")
    }

    /// SIGHUP: the config file again (plugin options, music folders), and every plugin loaded
    /// afresh. The output and the socket stay as they are until a restart.
    func reload() {
        do {
            let fresh = try SongboxConfig.load(from: options.configPath)
            config.value = fresh
        } catch {
            logger.error("the config file was not reloaded: \(error)")
        }
        plugins.load(folders: pluginFolders())
        logger.info("songbox daemon: reloaded the config and \(plugins.current.count) plugins")
    }

    func pluginFolders() -> [String] {
        if let folders = options.pluginFolders { return folders }
        // Beside the default config file: ~/.config/songbox/plugins.
        let user = config.value.pluginFolder ?? (SongboxConfig.defaultPath() as NSString).deletingLastPathComponent + "/plugins"
        return [Self.bundledPluginFolder, user].compactMap { $0 }
    }

    /// The plugins that come with songbox (compiled in, written out once: `BundledPlugins`).
    static var bundledPluginFolder: String? { BundledPlugins.folder }

    // MARK: What the MPD commands act on

    public var player: Player { session.player }
    public func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) async -> T { await session.execute(body) }
    public var uptime: Double { MonotonicClock.seconds - started }
    public func startUpdate() -> Int? { rescans.start() }
    public var updateJob: Int? { rescans.running }

    public func deliver(message: String, channel: String) {
        let event = LuaValue.table(["type": .string("message"), "channel": .string(channel), "text": .string(message)])
        for plugin in plugins.current { plugin.deliver(event) }
    }

    public func remotePlaylist(_ url: String) async throws(SongboxError) -> [String] {
        do {
            return try await Wiring(config: config.value).remoteTracks.playlist(at: url)
        } catch {
            throw SongboxError(.notFound, "cannot load \(url): \(error.message)")
        }
    }

    public func evaluatedPlaylists(reachedFrom names: [String]) async throws(SongboxError) -> [String: [Int64]] {
        try await functionPlaylists.evaluated(reachedFrom: names, in: store)
    }

    public func songboxCommand(_ command: String, _ arguments: [String]) async -> Result<[(String, String)], MPDProtocol.Failure>? {
        do { return .success(try await answer(command, arguments)) } catch { return .failure(error) }
    }
}

/// Runs the evaluators in order: the first that holds the function answers.
struct ChainedEvaluator: ScriptPlaylistEvaluator {
    let first: any ScriptPlaylistEvaluator
    let then: any ScriptPlaylistEvaluator

    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]? {
        if let ids = try first.trackIDs(of: playlist, in: store, host: host) { return ids }
        return try then.trackIDs(of: playlist, in: store, host: host)
    }

    func awaitedTrackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) async throws(SongboxError) -> [Int64]? {
        if let ids = try await first.awaitedTrackIDs(of: playlist, in: store, host: host) { return ids }
        return try await then.awaitedTrackIDs(of: playlist, in: store, host: host)
    }
}

// MARK: Services

/// The player and the plugins: started once the server listens, stopped last.
struct CoreService: Service {
    let daemon: Daemon
    let server: MPDServer
    let web: WebServer?
    let socket: String

    func run() async throws {
        let tcpPorts = try await server.listening()
        let webPort = try await web?.listening()
        daemon.listening(on: socket, tcpPorts: tcpPorts, webPort: webPort)
        daemon.start()
        try? await gracefulShutdown()
        daemon.stop()
    }
}

/// SIGHUP reloads the config and the plugins.
struct ReloadService: Service {
    let daemon: Daemon

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            daemon.reload()
        }
    }
}

/// Rescans the music folders every `rescan_minutes`, when set.
struct RescanService: Service {
    let daemon: Daemon
    let server: MPDServer

    func run() async throws {
        guard (try? await server.listening()) != nil else { return }
        while !Task.isCancelled {
            let interval = daemon.rescans.interval
            guard interval > 0 else {
                try? await gracefulShutdown()
                return
            }
            let slept: Void?? = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
            guard slept != nil, !Task.isShuttingDownGracefully else { return }
            _ = daemon.rescans.start()
        }
    }
}

/// The config as last read: SIGHUP replaces it, plugins read their options and grants from it.
final class CurrentConfig: Sendable {
    private let storage: Mutex<SongboxConfig>

    init(_ config: SongboxConfig) { storage = Mutex(config) }

    var value: SongboxConfig {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
