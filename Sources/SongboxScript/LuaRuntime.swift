import Foundation
import Logging
import SongboxLibrary
import SongboxRemote
import Synchronization
internal import CLuaShim

/// A Lua script failed: where, what, and the Lua traceback.
public struct LuaScriptError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        /// The file could not be read.
        case unreadable
        /// The chunk did not compile (or was binary).
        case syntax
        /// A Lua error at run time.
        case runtime
        case instructionLimit = "instruction-limit"
        case memoryLimit = "memory-limit"
        /// The runtime stopped earlier (a limit) and runs no more code.
        case stopped
    }

    public let kind: Kind
    /// `file:line: message`.
    public let message: String
    /// Lua's `stack traceback:` lines, when there are any.
    public let traceback: String?

    public var description: String { traceback.map { message + "\n" + $0 } ?? message }
}

/// One Lua state with the songbox sandbox, limits and `songbox` module. Not thread-safe: one
/// owner (an actor or a serial queue) uses it; `deinit` closes the state.
public final class LuaRuntime {
    public struct Limits: Sendable {
        /// Lua VM instructions per entry call (a script run, later each event handler call).
        public var instructions: Int64
        /// Bytes the state may hold.
        public var memory: Int

        /// 100 million instructions (about a second on a Raspberry Pi 4), 64 MiB.
        /// What a script the user starts (`songbox run`) gets: 2 billion instructions a call
        /// (about 20 s on a Raspberry Pi 4: ordinary work, such as a few thousand `gsub`s over
        /// a long text, never trips it, and Ctrl-C is there), 64 MiB.
        public static let userScript = Limits(instructions: 2_000_000_000)

        public init(instructions: Int64 = 100_000_000, memory: Int = 64 << 20) {
            self.instructions = instructions
            self.memory = memory
        }
    }

    public let limits: Limits
    /// The library the `songbox.library`, `playlist` and `history` functions work on (nil: none).
    public let library: LibraryStore?
    /// In a dry run, every function registered with `writes: true` refuses.
    public let dryRun: Bool
    /// Library tracks kept as encoded Lua tables between `songbox.library` calls (may be shared
    /// with other runtimes on the same store).
    public let trackTables: TrackTableCache
    /// What evaluates the function playlists (`songbox.smart(name, function)`) a read of the
    /// library reaches, given by whoever makes the state: this state answers for those its own
    /// script defines, `next` (a plugin's live state, the script run again) for the others.
    public let functionPlaylists: ScriptPlaylistHost
    /// The script file this runtime runs (an absolute path, set by the first `run(file:)`): a
    /// smart playlist defined by a function here is stored as this file's.
    public private(set) var scriptPath: String?
    /// The status `songbox.exit` asked for (the first call's); nil while the script goes on.
    public internal(set) var exitRequested: Int?
    /// Where `songbox.subscribe` and `unsubscribe` go: a daemon's plugin hands its channels to
    /// the MPD server (so `channels` lists them); nil elsewhere, where no message arrives.
    public var subscriptions: ((Set<String>) -> Void)?
    /// The channels this state subscribed to.
    public internal(set) var channels: Set<String> = []
    /// The files `songbox.playlist.import` and `export` may touch: by default the user's, except
    /// songbox's own; a daemon plugin's own folder and the folders granted to it.
    public var fileAccess: FileAccess {
        get { fileAccessBox.value }
        set { fileAccessBox.value = newValue }
    }
    let fileAccessBox = FileAccessBox()
    /// Unix seconds on the wall clock: `songbox.time.now()` and what `songbox.at` schedules by.
    /// A `--fast` run and the tests set a clock of their own.
    public var wallClock: () -> Double = { Date().timeIntervalSince1970 }
    /// A practice run (a wall clock of its own): its `songbox.state` is kept apart (`StateAPI`).
    public var practice = false
    /// The zone a schedule that names none is in (config `time_zone`; else the system's).
    public var timeZone: TimeZone = .current
    /// Where an event a script posts (`songbox.alarm.fire`, `announce`) goes: a daemon hands it
    /// to every plugin; nil keeps it for this state's own handlers (`takePostedEvents`).
    public var postEvent: ((LuaValue) -> Void)?
    private var postedEvents: [LuaValue] = []
    /// Calls into the state from the host (a script run, each event or timer callback):
    /// what a budget per callback counts by.
    public private(set) var entries = 0
    /// The bundled alarm tone (`songbox.alarm.tone()`), set by the wiring.
    public var alarmTone: String?
    /// The bundled chime (`songbox.player.announce`'s `chime`).
    public var chime: String?
    /// The files that define the preset moods (`plugins/moods.lua`, then the user's), run in
    /// this state the first time a script uses `songbox.mood`; set by the wiring.
    public var moodPresetFiles: [String] = []
    let bridge: Bridge
    private let state: OpaquePointer

    /// A request, from any thread, that the call running in a state end soon: from then on
    /// every songbox function the state calls fails at once, so a callback that loops over
    /// host calls (`queue.add` a thousand times) ends at its next call instead of holding the
    /// daemon's shutdown. Lua code alone is ended by the instruction budget.
    public final class Interruption: Sendable {
        private let requested = Atomic(false)
        public init() {}
        public func request() { requested.store(true, ordering: .relaxed) }
        public func clear() { requested.store(false, ordering: .relaxed) }
        public var isRequested: Bool { requested.load(ordering: .relaxed) }
    }

    /// What interrupts this state's calls (set by whoever may stop it: the daemon's plugins).
    public var interruption: Interruption? {
        get { bridge.interruption }
        set { bridge.interruption = newValue }
    }

    /// - Parameters:
    ///   - sandbox: false only for trusted code (tests, tools): all standard libraries stay.
    ///   - library: the store API functions use.
    ///   - trackTables: where library results are kept between calls (one per store; runtimes
    ///     on the same store may share one).
    ///   - functionPlaylists: what evaluates the function playlists a read reaches; by default
    ///     only this state's own.
    ///   - logger: receives `songbox.log.*`.
    ///   - output: receives what `print` writes (one call per line, newline included), as the
    ///     bytes Lua has (a Lua string need not be UTF-8); valid only during the call.
    public init(limits: Limits = Limits(), sandbox: Bool = true, dryRun: Bool = false, library: LibraryStore? = nil,
                trackTables: TrackTableCache = TrackTableCache(), functionPlaylists: ScriptPlaylistHost = ScriptPlaylistHost(next: nil),
                logger: Logger, output: @escaping (UnsafeRawBufferPointer) -> Void) throws(LuaScriptError) {
        self.limits = limits
        self.library = library
        self.trackTables = trackTables
        self.functionPlaylists = functionPlaylists
        self.dryRun = dryRun
        bridge = Bridge(logger: logger, output: output, dryRun: dryRun)
        guard let state = songbox_open(limits.memory, limits.instructions, dispatchCallback, outputCallback,
                                       Unmanaged.passUnretained(bridge).toOpaque()) else {
            throw LuaScriptError(kind: .runtime, message: "cannot create a Lua state: out of memory", traceback: nil)
        }
        self.state = state
        try check(songbox_setup(state, sandbox ? 1 : 0), "cannot set up the Lua state")
        try registerStandardFunctions()
        try registerTimeFunctions()
        try runPrelude(Prelude.source, chunkName: "=songbox")
    }

    deinit {
        songbox_close(state)
    }

    /// Posts an event: to `postEvent`, or kept for this state's handlers.
    func post(_ event: LuaValue) {
        if let postEvent { postEvent(event) } else if postedEvents.count < 1024 { postedEvents.append(event) }
    }

    /// The events this state posted for itself since the last call, oldest first.
    public func takePostedEvents() -> [LuaValue] {
        defer { postedEvents.removeAll() }
        return postedEvents
    }

    // MARK: the songbox table

    /// Makes a Swift function callable from Lua as `songbox.<name>` (namespaces are created on the
    /// way, all read-only to scripts). A function that `writes` refuses in a dry run.
    public func register(_ name: String, writes: Bool = false, _ body: @escaping HostFunction.Body) throws(LuaScriptError) {
        try register(HostFunction(name: name, writes: writes, flags: 0, body: body))
    }

    func register(_ function: HostFunction) throws(LuaScriptError) {
        try validate(function.name)
        let index = bridge.functions.count
        bridge.functions.append(function)
        try check(songbox_register(state, function.name, Int32(index), function.flags), "cannot register songbox.\(function.name)")
    }

    /// Sets a value at `songbox.<name>` (e.g. `args`, `options`).
    public func set(_ name: String, to value: LuaValue) throws(LuaScriptError) {
        try validate(name)
        try fillBuffer([value])
        try check(songbox_register(state, name, -1, 0), "cannot set songbox.\(name)")
    }

    /// Gives the state `songbox.http` (`HTTPAPI`), reaching the hosts of `grant` only. A state
    /// never granted has no `songbox.http`.
    public func grantNetwork(_ grant: NetworkGrant, client: GrantedHTTP) throws(LuaScriptError) {
        try HTTPAPI.install(on: self, grant: grant, client: client)
    }

    /// A folder where `require` finds Lua modules.
    public func addModulePath(_ folder: String) throws(LuaScriptError) {
        try check(songbox_add_module_path(state, folder), "cannot add the module path \(folder)")
    }

    private func validate(_ name: String) throws(LuaScriptError) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } }) else {
            throw LuaScriptError(kind: .runtime, message: "invalid songbox name '\(name)'", traceback: nil)
        }
    }

    // MARK: running code

    /// Loads and runs a Lua file (text only) with `arguments` as `...`; returns its results.
    /// Errors name the file as `displayName` (default: `path`).
    @discardableResult
    public func run(file path: String, displayName: String? = nil, arguments: [LuaValue] = []) throws(LuaScriptError) -> [LuaValue] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw LuaScriptError(kind: .unreadable, message: "\(path): cannot read the script (\(error.localizedDescription))", traceback: nil)
        }
        if scriptPath == nil { scriptPath = URL(fileURLWithPath: path).standardizedFileURL.path }
        return try run(source: data, chunkName: "@" + (displayName ?? path), arguments: arguments)
    }

    /// Runs Lua source text. `chunkName` is `@path` for files (errors then read `path:line:`).
    @discardableResult
    public func run(source: String, chunkName: String = "=(string)", arguments: [LuaValue] = []) throws(LuaScriptError) -> [LuaValue] {
        try run(source: Data(source.utf8), chunkName: chunkName, arguments: arguments)
    }

    private func run(source: Data, chunkName: String, arguments: [LuaValue]) throws(LuaScriptError) -> [LuaValue] {
        let L = songbox_lua(state)!
        let base = songbox_gettop(L)
        defer {
            songbox_settop(L, base)
            assert(songbox_gettop(L) == base, "Lua stack unbalanced after a run")
        }
        if songbox_stop_reason(state) != 0 {
            throw LuaScriptError(kind: .stopped, message: "\(displayName(chunkName)): the script was stopped earlier (\(stopDescription)) and runs no more code", traceback: nil)
        }
        var bytes = [UInt8](source)
        bytes.append(0)  // never empty, so there is always a valid pointer
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { songbox_load(state, $0.baseAddress!, source.count, chunkName) }
        }
        guard status == songbox_ok() else {
            // Lua names the file in syntax errors, not in "attempt to load a binary chunk".
            let failure = error(status: status, kind: .syntax, chunkName: chunkName)
            guard failure.message.hasPrefix("attempt to load") else { throw failure }
            throw LuaScriptError(kind: failure.kind, message: "\(displayName(chunkName)): \(failure.message)", traceback: failure.traceback)
        }
        return try callTop(arguments, on: L, base: base, chunkName: chunkName)
    }

    /// Calls the function on top of thread `L`'s stack (above `base`) and returns its results.
    private func callTop(_ arguments: [LuaValue], on L: OpaquePointer, base: Int32, chunkName: String) throws(LuaScriptError) -> [LuaValue] {
        try fillBuffer(arguments)
        // A call from the host, not from a host function calling back in: a new callback.
        if bridge.callingThread == nil { entries += 1 }
        // While Lua runs, a playlist this script defined by a function is read from this state.
        let callStatus = ScriptPlaylists.$running.withValue(RunningScriptPlaylists(runtime: self)) {
            songbox_call(state, L, Int32(arguments.count))
        }
        guard callStatus == songbox_ok() else { throw error(status: callStatus, kind: .runtime, chunkName: chunkName, on: L) }
        let reader = LuaStackReader(L: L)
        let top = songbox_gettop(L)
        return top > base ? ((base + 1)...top).map { (try? reader.value(at: $0)) ?? .nil } : []
    }

    /// Runs host Lua that builds part of the `songbox` API in Lua (see `songbox_run_prelude`).
    func runPrelude(_ source: String, chunkName: String) throws(LuaScriptError) {
        let L = songbox_lua(state)!
        let base = songbox_gettop(L)
        defer { songbox_settop(L, base) }
        let status = source.withCString { songbox_run_prelude(state, $0, strlen($0), chunkName) }
        guard status == songbox_ok() else { throw error(status: status, kind: .runtime, chunkName: chunkName) }
    }

    /// Calls a function the prelude kept (`keep(name, fn)`) with `arguments`; returns its results.
    /// A fresh instruction budget applies, as for every entry call. `thread`: the Lua thread to
    /// call on when a host function calls back in (the one it was called from); default the main one.
    @discardableResult
    func callKeptFunction(_ name: String, _ arguments: [LuaValue] = [], on thread: OpaquePointer? = nil) throws(LuaScriptError) -> [LuaValue] {
        let L = thread ?? songbox_lua(state)!
        let base = songbox_gettop(L)
        defer { songbox_settop(L, base) }
        if songbox_stop_reason(state) != 0 {
            throw LuaScriptError(kind: .stopped, message: "the script was stopped earlier (\(stopDescription)) and runs no more code", traceback: nil)
        }
        let status = name.withCString { songbox_push_host(state, L, $0) }
        guard status == songbox_ok() else {
            throw LuaScriptError(kind: .runtime, message: "no host function '\(name)'", traceback: nil)
        }
        return try callTop(arguments, on: L, base: base, chunkName: "=songbox")
    }

    // MARK: state

    /// Bytes the Lua state holds now.
    public var memoryUsed: Int { songbox_memory_used(state) }
    /// Instructions the last (or current) entry call ran, to the hook's granularity (1000).
    public var instructionsUsed: Int64 { songbox_instructions_used(state) }
    /// Whether a limit stopped the state (it then runs no more code).
    public var isStopped: Bool { songbox_stop_reason(state) != 0 }
    /// Bridge calls that left the Lua stack unbalanced: always 0 unless there is a bug.
    public var stackImbalances: Int { songbox_imbalances(state) }

    private var stopDescription: String {
        songbox_stop_reason(state) == Int32(SONGBOX_STOP_MEMORY)
            ? "memory limit of \(limits.memory >> 20) MB exceeded"
            : "instruction limit of \(limits.instructions) exceeded"
    }

    private func displayName(_ chunkName: String) -> String {
        chunkName.hasPrefix("@") || chunkName.hasPrefix("=") ? String(chunkName.dropFirst()) : chunkName
    }

    /// Takes the error message on top of the stack and makes it an error value.
    private func error(status: Int32, kind: LuaScriptError.Kind, chunkName: String,
                       on thread: OpaquePointer? = nil) -> LuaScriptError {
        let L = thread ?? songbox_lua(state)!
        let text = LuaStackReader(L: L).string(at: -1) ?? "(error object is not a string)"
        songbox_pop(L, 1)
        var message = text, traceback: String?
        if let range = text.range(of: "\nstack traceback:") {
            message = String(text[..<range.lowerBound])
            traceback = String(text[text.index(after: range.lowerBound)...])
        }
        switch songbox_stop_reason(state) {
        case Int32(SONGBOX_STOP_INSTRUCTIONS):
            return LuaScriptError(kind: .instructionLimit, message: "\(location(chunkName, traceback)): \(stopDescription)",
                                  traceback: traceback)
        case Int32(SONGBOX_STOP_MEMORY):
            // Lua runs no message handler for a memory error: the allocator took the traceback.
            let recorded = String(cString: songbox_stop_traceback(state))
            return LuaScriptError(kind: .memoryLimit, message: "\(location(chunkName, traceback)): \(stopDescription)",
                                  traceback: traceback ?? (recorded.isEmpty ? nil : recorded))
        default:
            // A single refused allocation that Lua reported without retrying (a string buffer).
            if let limit = memoryLimitMessage(for: message) {
                return LuaScriptError(kind: .memoryLimit, message: "\(location(chunkName, traceback)): \(limit)", traceback: traceback)
            }
            return LuaScriptError(kind: status == songbox_errmem() ? .memoryLimit : kind, message: message, traceback: traceback)
        }
    }

    /// "memory limit of N MB exceeded" when `message` is Lua's "not enough memory" for an
    /// allocation the cap refused in the current entry call (a `pcall` may have caught it).
    func memoryLimitMessage(for message: String) -> String? {
        guard message.hasSuffix("not enough memory"), songbox_refusals(state) > 0 else { return nil }
        return "memory limit of \(limits.memory >> 20) MB exceeded"
    }

    /// Where a limit was hit: as recorded by the shim, else the first Lua frame of the traceback,
    /// else the chunk.
    private func location(_ chunkName: String, _ traceback: String?) -> String {
        let recorded = String(cString: songbox_stop_location(state))
        if !recorded.isEmpty { return recorded }
        for line in (traceback ?? "").split(separator: "\n").dropFirst() {
            let frame = line.trimmingCharacters(in: .whitespaces)
            guard !frame.hasPrefix("[C]"), let colon = frame.range(of: ": in ") else { continue }
            return String(frame[..<colon.lowerBound])
        }
        return displayName(chunkName)
    }

    private func check(_ status: Int32, _ what: String) throws(LuaScriptError) {
        guard status != songbox_ok() else { return }
        let L = songbox_lua(state)!
        let detail = LuaStackReader(L: L).string(at: -1) ?? "out of memory"
        songbox_pop(L, 1)
        throw LuaScriptError(kind: .runtime, message: "\(what): \(detail)", traceback: nil)
    }

    private func fillBuffer(_ values: [LuaValue]) throws(LuaScriptError) {
        do { try bridge.fillBuffer(state, values) } catch {
            throw LuaScriptError(kind: .runtime, message: "cannot pass a value to Lua: \(error.description)", traceback: nil)
        }
    }
}

/// What the C callbacks reach: the registered functions and the injected output and logger.
final class Bridge {
    var functions: [HostFunction] = []
    let logger: Logger
    let output: (UnsafeRawBufferPointer) -> Void
    let dryRun: Bool
    /// The smart playlist being evaluated: writes are refused meanwhile.
    var evaluating: String?
    var interruption: LuaRuntime.Interruption?
    /// The Lua thread of the host function running now (nil between calls).
    private(set) var callingThread: OpaquePointer?
    private var bytes: [UInt8] = []

    init(logger: Logger, output: @escaping (UnsafeRawBufferPointer) -> Void, dryRun: Bool) {
        self.logger = logger
        self.output = output
        self.dryRun = dryRun
    }

    /// Why a write by the function `name` is refused now (a dry run, a smart playlist being
    /// evaluated); nil when writes are allowed. The one rule, for functions registered as writing
    /// and for those that write only with some arguments (`player.volume(n)`).
    func writeRefusal(_ name: String) -> LuaFunctionError? {
        if dryRun { return .message("dry run: \(name) refused") }
        if let evaluating { return .message("songbox.\(name) refused: smart playlist '\(evaluating)' is being evaluated, which only reads") }
        return nil
    }

    func fillBuffer(_ state: OpaquePointer, _ values: [LuaValue]) throws(LuaConversionError) {
        songbox_buffer_reset(state)
        bytes.removeAll(keepingCapacity: true)
        for value in values {
            guard case .records(let records) = value else {
                try value.encode(into: &bytes)
                continue
            }
            // Records go to the buffer as they are kept, each copied once.
            records.encodeHeader(into: &bytes)
            try append(state, bytes)
            bytes.removeAll(keepingCapacity: true)
            for record in records.records { try append(state, record) }
        }
        try append(state, bytes)
    }

    private func append(_ state: OpaquePointer, _ bytes: [UInt8]) throws(LuaConversionError) {
        guard songbox_buffer_append(state, bytes, bytes.count) != 0 else {
            throw LuaConversionError(description: "out of memory")
        }
    }

    /// Runs function `index` for the trampoline. Returns the number of results (encoded in the
    /// state's buffer) or a SONGBOX_RESULT_* error status. Never touches the Lua stack except to
    /// read the arguments, and never raises.
    func runHostFunction(_ L: OpaquePointer, _ index: Int) -> Int32 {
        let top = songbox_gettop(L)
        defer { assert(songbox_gettop(L) == top, "a bridge function left the Lua stack unbalanced") }
        let state = songbox_owner(L)!
        let function = functions[index]
        if function.writes, let refusal = writeRefusal(function.name) { return fail(state, refusal) }
        if interruption?.isRequested == true { return fail(state, .message("songbox.\(function.name): not run, the plugin is stopping")) }
        let outerThread = callingThread
        callingThread = L
        defer { callingThread = outerThread }
        do {
            let results = try function.body(LuaArguments(L: L, count: Int(top)))
            try fillBuffer(state, results)
            return Int32(results.count)
        } catch let error as LuaFunctionError {
            return fail(state, error)
        } catch let error as LuaConversionError {
            return fail(state, .message("\(function.name): \(error.description)"))
        } catch {
            return fail(state, .message("\(function.name): \(error)"))
        }
    }

    private func fail(_ state: OpaquePointer, _ error: LuaFunctionError) -> Int32 {
        var payload: [UInt8] = []
        let status: Int32
        switch error {
        case .message(let text):
            status = Int32(SONGBOX_RESULT_ERROR)
            payload.append(contentsOf: text.utf8)
        case .argument(let n, let text):
            status = Int32(SONGBOX_RESULT_ARG_ERROR)
            withUnsafeBytes(of: Int32(n)) { payload.append(contentsOf: $0) }
            payload.append(contentsOf: text.utf8)
        case .type(let n, let expected):
            status = Int32(SONGBOX_RESULT_TYPE_ERROR)
            withUnsafeBytes(of: Int32(n)) { payload.append(contentsOf: $0) }
            payload.append(contentsOf: expected.utf8)
        }
        songbox_buffer_reset(state)
        _ = songbox_buffer_append(state, payload, payload.count)
        return status
    }
}

private let dispatchCallback: songbox_dispatch_fn = { context, L, function in
    Unmanaged<Bridge>.fromOpaque(context!).takeUnretainedValue().runHostFunction(L!, Int(function))
}

private let outputCallback: songbox_output_fn = { context, bytes, length in
    Unmanaged<Bridge>.fromOpaque(context!).takeUnretainedValue().output(UnsafeRawBufferPointer(start: bytes, count: length))
}

/// The runtime's file rights, shared with the functions that read them at each call.
final class FileAccessBox {
    var value = FileAccess.user
}
