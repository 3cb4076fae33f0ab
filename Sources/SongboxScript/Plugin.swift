import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxRemote
import Synchronization

/// One plugin of the daemon: a Lua file with its own state for as long as the daemon runs,
/// touched only by the plugin's own thread (its serial executor). Events, timers, reloads and
/// smart playlist reads reach the state as jobs in one inbox, in order.
///
/// A callback that fails is reported (file:line) and the plugin goes on. A plugin that cannot
/// load, or whose state a limit stopped (a runaway loop, a memory bomb), is restarted after a
/// pause that doubles each time; after `Policy.failuresBeforeDisabling` such failures within
/// `Policy.failureWindow` it is disabled, and the daemon and the other plugins go on.
public final class Plugin: Sendable {
    public enum Status: String, Sendable {
        case starting, running, restarting, disabled, stopped
    }

    /// What `songbox plugin ls` shows.
    public struct Info: Sendable {
        public var name: String
        public var file: String
        public var status: Status = .starting
        /// The last error, with file:line where Lua gave one.
        public var lastError: String?
        public var errors = 0
        public var restarts = 0
        /// Events handed to its handlers (only those of a type it has a handler for).
        public var events = 0
        /// CPU seconds the plugin's thread used.
        public var cpuSeconds = 0.0
        /// Bytes its Lua state holds.
        public var memory = 0
    }

    /// When a failing plugin is restarted, and when it is given up.
    public struct Policy: Sendable {
        public var firstPause = 1.0
        public var longestPause = 60.0
        public var failuresBeforeDisabling = 5
        public var failureWindow = 600.0

        public init() {}
    }

    /// What every plugin is made with.
    public struct Environment: Sendable {
        public var store: LibraryStore
        /// The player the plugin controls (the daemon's, shared).
        public var player: @Sendable () -> PlayerHost
        public var limits: LuaRuntime.Limits
        public var options: @Sendable () -> [String: [String: String]]
        public var logger: Logger
        /// Where `print` goes: the plugin's name and the line.
        public var output: @Sendable (String, String) -> Void
        /// The bounds of what a plugin logs and prints (`PluginLog`).
        public var logLimits = PluginLog.Limits()
        /// Seconds on the daemon's clock (monotonic); timers count on it.
        public var now: @Sendable () -> Double
        /// Unix seconds on the wall clock: `songbox.at` schedules by it (tests set their own).
        public var wall: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        /// The zone of a schedule that names none.
        public var timeZone: TimeZone = .current
        /// Where an event a plugin posts goes (`songbox.alarm.fire`, `announce`): every plugin.
        public var post: (@Sendable (LuaValue) -> Void)?
        /// The bundled alarm tone.
        public var alarmTone: String?
        /// The bundled chime.
        public var chime: String?
        /// The preset moods' files (`LuaRuntime.moodPresetFiles`).
        public var moodPresetFiles: [String] = []
        /// What evaluates the function playlists a plugin's reads reach (the daemon's: each by
        /// the plugin that defines it); by default each state answers only for its own.
        public var functionPlaylists = ScriptPlaylistHost(next: nil)
        public var policy = Policy()
        /// The files a plugin (by name) may import from and export to.
        public var fileAccess: @Sendable (String) -> FileAccess = { _ in .user }
        /// The hosts a plugin (by name) may reach with `songbox.http` (`net.NAME` in the config);
        /// nil: none, and no `songbox.http` in its state.
        public var network: @Sendable (String) -> NetworkGrant? = { _ in nil }
        /// The client its requests go through (made once for the daemon).
        public var http: GrantedHTTP?
        /// The MPD channels a plugin (by name) subscribed to, each time they change (empty when
        /// it unloads).
        public var subscriptions: @Sendable (String, Set<String>) -> Void = { _, _ in }

        public init(store: LibraryStore, player: @escaping @Sendable () -> PlayerHost, limits: LuaRuntime.Limits,
                    options: @escaping @Sendable () -> [String: [String: String]], logger: Logger,
                    output: @escaping @Sendable (String, String) -> Void, now: @escaping @Sendable () -> Double) {
            self.store = store
            self.player = player
            self.limits = limits
            self.options = options
            self.logger = logger
            self.output = output
            self.now = now
        }
    }

    private enum Job: Sendable {
        case event(BusEvent)
        case reload, disable, enable
        case evaluate(ScriptPlaylist, @Sendable (Result<[Int64]?, SongboxError>) -> Void)
        case stop
    }

    public let name: String
    public let file: String
    private let environment: Environment
    /// Its `print`, `songbox.log.*` and errors on their way to the log, bounded; kept across
    /// restarts (a plugin failing in a loop is bounded too).
    private let log: PluginLog
    /// Bounded: a plugin that falls behind loses the oldest events that only say a value
    /// changed (the newest of each kind follows), lyric lines among them; track and playback
    /// events are all kept.
    private let inbox = Mailbox<Job>(capacity: 1024) { job in
        guard case .event(let event) = job else { return nil }
        return event.coalescingKind
    }
    /// The event types its state has handlers for (`songbox.on`), as the state last said; nil
    /// while it loads, when every event is kept for it (a handler may be on its way).
    private let listening = Mutex<Set<String>?>(nil)
    private let info: Mutex<Info>
    private let finished = Reply<Void>()
    /// Set by `stop`: the callback running then ends at its next songbox call.
    private let interruption = LuaRuntime.Interruption()

    public init(file: String, environment: Environment) {
        self.file = file
        self.name = ScriptSetup.scriptName(file)
        self.environment = environment
        info = Mutex(Info(name: name, file: file))
        log = PluginLog(limits: environment.logLimits, now: environment.now, write: { [name] line in
            switch line {
            case .printed(let text): environment.output(name, text)
            case .logged(let level, let text, let location):
                environment.logger.log(level: level, "\(text)", metadata: location.isEmpty ? nil : ["script": "\(location)"])
            case .error(let text): environment.logger.error("plugin \(name): \(text)")
            }
        }, note: { [name] text in environment.logger.warning("plugin \(name): \(text)") })
    }

    public var snapshot: Info { info.withLock { $0 } }

    /// The last lines it wrote to the log, oldest first (`PluginLog.recent`).
    public var recentLog: [(secondsAgo: Double, line: PluginLog.Line)] { log.recent }

    /// Starts the plugin's thread: it loads the file and gets `startup`.
    public func start() {
        let thread = Thread { [self] in
            var worker = Worker(plugin: self)
            worker.run()
        }
        thread.name = "songbox plugin \(name)"
        thread.start()
    }

    /// Hands an event (a table with a `type`) to the plugin's handlers.
    public func deliver(_ event: LuaValue) { deliver([BusEvent(posted: event)]) }

    /// Hands events to the plugin's handlers, in order: only those of a type it has a handler
    /// for, so a plugin that does not listen is not woken and converts nothing.
    public func deliver(_ events: [BusEvent]) {
        let wanted = listening.withLock { listening in listening.map { names in events.filter { names.contains($0.name) } } ?? events }
        if !wanted.isEmpty { inbox.put(contentsOf: wanted.map(Job.event)) }
    }
    /// Loads the file afresh (after `shutdown` to the old state); a disabled plugin is enabled.
    public func reload() { inbox.put(.reload) }
    public func disable() { inbox.put(.disable) }
    public func enable() { inbox.put(.enable) }

    /// Gives the plugin `shutdown`, closes its state and waits for its thread to end.
    public func stop() {
        // The daemon stops within seconds whatever a plugin is doing (issue 31: a plugin
        // flooding the queue held SIGTERM for over ten seconds).
        interruption.request()
        inbox.put(.stop)
        inbox.close()
        finished.wait()
    }

    /// The track ids of a smart playlist this plugin defined by a function, from its live state;
    /// nil when it holds no such function. Waits for the plugin's turn, at most `timeout` seconds:
    /// what another thread that must have the answer before it goes on (a plugin's) asks.
    public func evaluate(_ playlist: ScriptPlaylist, timeout: Double = 10) throws(SongboxError) -> [Int64]? {
        let reply = Reply<Result<[Int64]?, SongboxError>>()
        inbox.put(.evaluate(playlist, reply.put))
        guard let result = reply.wait(timeout: timeout) else { throw noAnswer(playlist, timeout) }
        return try result.get()
    }

    /// The same, awaited: the caller's task is suspended until the plugin's thread answers (or
    /// `timeout` seconds pass), holding no thread meanwhile.
    public func evaluate(_ playlist: ScriptPlaylist, timeout: Double = 10) async throws(SongboxError) -> [Int64]? {
        let reply = AwaitedReply<Result<[Int64]?, SongboxError>>()
        inbox.put(.evaluate(playlist, reply.put))
        guard let result = await reply.value(timeout: timeout) else { throw noAnswer(playlist, timeout) }
        return try result.get()
    }

    private func noAnswer(_ playlist: ScriptPlaylist, _ timeout: Double) -> SongboxError {
        SongboxError(.scriptFailed, "smart playlist '\(playlist.name)': plugin \(name) did not answer within \(Int(timeout)) s", at: file)
    }

    /// The plugin's thread: the only code that touches its Lua state.
    private struct Worker {
        let plugin: Plugin
        var runtime: LuaRuntime?
        /// The next timer of the state, on the daemon's clock.
        var deadline: Double?
        var restartAt: Double?
        var failures: [Double] = []
        var pause: Double
        /// The prelude's count of handler changes when the listened types were last read.
        var listeningVersion: Int?
        /// Events handed to its handlers.
        var handled = 0

        init(plugin: Plugin) {
            self.plugin = plugin
            pause = plugin.environment.policy.firstPause
        }

        var environment: Environment { plugin.environment }

        mutating func run() {
            load()
            noteUsage()
            jobs: while true {
                let wake = [deadline, restartAt].compactMap { $0 }.min()
                let job = plugin.inbox.take(timeout: wake.map { max(0, $0 - environment.now()) })
                switch job {
                case nil:
                    if plugin.inbox.isClosedAndEmpty { break jobs }
                    if let restartAt, environment.now() >= restartAt {
                        self.restartAt = nil
                        load()
                    } else {
                        advanceTimers()
                    }
                    noteUsage()
                    plugin.log.flush()
                    continue
                case .event(let event)?:
                    let results = call("dispatch", [event.value, .number(environment.now())])
                    if event.name == "transition_ahead", results.count > 1 {
                        PlayerAPI.applyTransition(results[1], of: event.value, host: environment.player())
                    }
                    handled += 1
                case .reload?:
                    unload(status: .starting)
                    failures = []
                    pause = environment.policy.firstPause
                    restartAt = nil
                    load()
                case .disable?:
                    unload(status: .disabled)
                    restartAt = nil
                case .enable?:
                    if runtime == nil, plugin.snapshot.status == .disabled { load() }
                case .evaluate(let playlist, let answer)?:
                    answer(evaluate(playlist))
                case .stop?:
                    // What was interrupted is over: `shutdown` runs as any callback does.
                    plugin.interruption.clear()
                    unload(status: .stopped)
                    plugin.log.flush(final: true)
                    plugin.finished.put(())
                    return
                }
                // Timers first: the next deadline after what the job did.
                if runtime != nil { advanceTimers() }
                noteListening()
                noteFallingBehind()
                noteUsage()
                plugin.info.withLock { $0.events = handled }
                plugin.log.flush()
            }
            unload(status: .stopped)
            plugin.log.flush(final: true)
            plugin.finished.put(())
        }

        /// Makes the state, runs the file and gives it `startup`.
        mutating func load() {
            plugin.info.withLock { $0.status = .starting }
            plugin.listening.withLock { $0 = nil }
            listeningVersion = nil
            defer { noteListening() }
            let name = plugin.name
            let log = plugin.log
            do {
                let made = try ScriptSetup.makeRuntime(
                    file: plugin.file, store: environment.store, limits: environment.limits,
                    options: environment.options(), player: environment.player(), functionPlaylists: environment.functionPlaylists,
                    modulesBesideFile: false,
                    logger: log.logger(level: environment.logger.logLevel),
                    output: { bytes in log.log(.printed(String(decoding: bytes, as: UTF8.self))) })
                made.interruption = plugin.interruption
                made.fileAccess = environment.fileAccess(name)
                made.wallClock = environment.wall
                made.timeZone = environment.timeZone
                made.postEvent = environment.post
                made.alarmTone = environment.alarmTone
                made.chime = environment.chime
                made.moodPresetFiles = environment.moodPresetFiles
                if let grant = environment.network(name), let http = environment.http { try made.grantNetwork(grant, client: http) }
                let subscriptions = environment.subscriptions
                made.subscriptions = { channels in subscriptions(name, channels) }
                try made.run(file: plugin.file)
                runtime = made
                plugin.info.withLock { $0.status = .running }
                call("dispatch", [.table(["type": .string("startup")]), .number(environment.now())])
                advanceTimers()
            } catch {
                runtime = nil
                failed("\(error)")
            }
        }

        /// Gives the state `shutdown` and drops it.
        mutating func unload(status: Status) {
            if runtime != nil { call("dispatch", [.table(["type": .string("shutdown")]), .number(environment.now())]) }
            if runtime?.channels.isEmpty == false { environment.subscriptions(plugin.name, []) }
            runtime = nil
            deadline = nil
            plugin.info.withLock { $0.status = status }
        }

        /// The event types the state has handlers for, read again when they changed (a state
        /// that is gone listens to nothing until it is loaded again).
        mutating func noteListening() {
            guard let runtime else { return plugin.listening.withLock { $0 = [] } }
            guard let results = try? runtime.callKeptFunction("listening", [listeningVersion.map { .integer($0) } ?? .nil]),
                  results.count == 2, let version = results[0].intValue, let names = results[1].arrayValue else { return }
            listeningVersion = version
            let listening = Set(names.compactMap(\.stringValue))
            plugin.listening.withLock { $0 = listening }
            if listening.contains("transition_ahead") { PlayerAPI.askTransitions(environment.player()) }
        }

        /// Value events the plugin lost to its bound because it fell behind: said, once a fall.
        func noteFallingBehind() {
            let dropped = plugin.inbox.takeDropped()
            if dropped > 0 {
                environment.logger.warning("plugin \(plugin.name): fell behind its events: \(dropped) older value events (volume, queue, lyric lines) dropped, the newest of each kind kept")
            }
        }

        mutating func advanceTimers() {
            guard runtime != nil else { return }
            let results = call("advance", [.number(environment.now()), .number(environment.wall())])
            deadline = results.count > 1 ? results[1].doubleValue : nil
        }

        /// Calls a prelude function; reports the callbacks that failed. A limit that stopped the
        /// state is a failure of the plugin.
        @discardableResult
        mutating func call(_ function: String, _ arguments: [LuaValue]) -> [LuaValue] {
            guard let runtime else { return [] }
            do {
                let results = try runtime.callKeptFunction(function, arguments)
                for error in results.first?.arrayValue ?? [] { report(error.stringValue ?? "a callback failed") }
                return results
            } catch {
                self.runtime = nil
                deadline = nil
                failed("\(error)")
                return []
            }
        }

        mutating func evaluate(_ playlist: ScriptPlaylist) -> Result<[Int64]?, SongboxError> {
            guard let runtime, playlist.script == runtime.scriptPath else { return .success(nil) }
            return ScriptPlaylists.$running.withValue(RunningScriptPlaylists(runtime: runtime)) {
                Result { () throws(SongboxError) in try runtime.evaluateSmartFunction(playlist) }
            }
        }

        func report(_ message: String) {
            plugin.info.withLock {
                $0.lastError = message
                $0.errors += 1
            }
            plugin.log.log(.error(message))
        }

        /// The state is gone: restart it after a pause, or give up.
        mutating func failed(_ message: String) {
            report(message)
            let now = environment.now()
            let policy = environment.policy
            failures = failures.filter { now - $0 < policy.failureWindow } + [now]
            if failures.count >= policy.failuresBeforeDisabling {
                plugin.info.withLock { $0.status = .disabled }
                environment.logger.error("plugin \(plugin.name): disabled after \(failures.count) failures; `songbox plugin enable \(plugin.name)` tries again")
                restartAt = nil
                return
            }
            plugin.info.withLock {
                $0.status = .restarting
                $0.restarts += 1
            }
            restartAt = now + pause
            pause = min(pause * 2, policy.longestPause)
        }

        func noteUsage() {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            let seconds = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
            let memory = runtime?.memoryUsed ?? 0
            plugin.info.withLock {
                $0.cpuSeconds = seconds
                $0.memory = memory
            }
        }
    }
}

/// A value one thread hands another, once; the other waits for it.
final class Reply<Value: Sendable>: Sendable {
    private let box = Mailbox<Value>()

    @Sendable func put(_ value: Value) { box.put(value) }

    /// The value; nil when `timeout` seconds passed first.
    func wait(timeout: Double? = nil) -> Value? { box.take(timeout: timeout) }
}

/// A value a thread hands a task, once; the task awaits it, suspended (no thread held).
final class AwaitedReply<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case awaited(CheckedContinuation<Value?, Never>)
        case put(Value)
        case over
    }

    private let state = Mutex(State.empty)

    @Sendable func put(_ value: Value) { finish(with: value) }

    /// The value; nil when `timeout` seconds passed first (or the task was cancelled).
    func value(timeout: Double) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready: Value?? = self.state.withLock { state in
                            switch state {
                            case .empty:
                                state = .awaited(continuation)
                                return nil
                            case .put(let value):
                                state = .over
                                return .some(value)
                            case .awaited, .over:
                                return .some(nil)
                            }
                        }
                        if let ready { continuation.resume(returning: ready) }
                    }
                } onCancel: {
                    self.finish(with: nil)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Hands `value` to the task awaiting it, or keeps it for the task to come; only the first
    /// call counts.
    private func finish(with value: Value?) {
        let waiting: CheckedContinuation<Value?, Never>? = state.withLock { state in
            switch state {
            case .empty:
                if let value { state = .put(value) } else { state = .over }
                return nil
            case .awaited(let continuation):
                state = .over
                return continuation
            case .put, .over:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}

/// Asks the daemon's live plugins for the smart playlists their functions define, so a read is
/// answered by the state that holds the function (warm), on its plugin's own thread, instead of
/// running the script again.
public struct LivePluginPlaylists: ScriptPlaylistEvaluator {
    private let plugins: @Sendable () -> [Plugin]

    public init(plugins: @escaping @Sendable () -> [Plugin]) { self.plugins = plugins }

    /// The running plugin whose script defines `playlist`, unless that is the one asking (its
    /// own state answers for itself, `RunningScriptPlaylists`).
    private func owner(of playlist: ScriptPlaylist) -> Plugin? {
        guard let plugin = plugins().first(where: { $0.file == playlist.script }),
              plugin.snapshot.status == .running,
              Thread.current.name != "songbox plugin \(plugin.name)" else { return nil }
        return plugin
    }

    public func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]? {
        try owner(of: playlist)?.evaluate(playlist)
    }

    public func awaitedTrackIDs(of playlist: ScriptPlaylist, in store: LibraryStore,
                                host: ScriptPlaylistHost) async throws(SongboxError) -> [Int64]? {
        guard let owner = owner(of: playlist) else { return nil }
        return try await owner.evaluate(playlist)
    }
}
