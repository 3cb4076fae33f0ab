import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxPlayback
internal import CLuaShim

/// `songbox.smart(name, query_or_function)`: a live smart playlist. A query is stored as text; a
/// function stays in Lua, and the database records the script that defines it (`ScriptPlaylist`).
/// Reading the playlist runs the function: in the state that holds it when its own script reads
/// it (`RunningScriptPlaylists`), else in a fresh state that runs the script again, read-only
/// (`ScriptPlaylistRunner`; the daemon asks the live state of the plugin that defines it).
enum SmartFunctions {
    /// Registers `songbox.smart` on `runtime`.
    static func install(on runtime: LuaRuntime, store: LibraryStore) throws(LuaScriptError) {
        try runtime.register("smart") { [weak runtime] args in
            let name = try args.string(1)
            guard let runtime else { return [] }
            // While the script runs again to evaluate one of its playlists, its definitions store
            // nothing: they are stored already. Otherwise a definition is a write.
            if runtime.bridge.evaluating != nil { return [.boolean(true)] }
            if runtime.dryRun {
                // A dry run checks a definition and stores nothing. Definitions are a plugin's
                // top level: refused, they ended the check at its first line (on songbox's own
                // prelude line, the caller of this function).
                if let text = try args.optionalString(2) {
                    do throws(SongboxError) { _ = try LibraryQuery.parse(text) } catch { return [.nil, .string("songbox.smart: \(error.message)")] }
                }
                runtime.bridge.logger.info("dry run: smart playlist '\(name)' checked, not stored")
                return [.boolean(true)]
            }
            do {
                if let text = try args.optionalString(2) {
                    try store.playlists.saveSmartPlaylist(named: name, query: text)
                } else {
                    guard let script = runtime.scriptPath else {
                        return [.nil, .string("songbox.smart: a smart playlist defined by a function must be defined "
                                                + "in a script file (songbox run FILE.lua), which reading it runs again")]
                    }
                    try store.playlists.saveScriptPlaylist(named: name, script: script, function: name)
                }
            } catch let error as SongboxError {
                return [.nil, .string("songbox.smart: \(error.message)")]
            }
            return [.boolean(true)]
        }
        try runtime.runPrelude(prelude, chunkName: "=songbox")
    }

    /// Wraps the host `smart` (name, query) / (name) so that a function stays in this state, and
    /// keeps `smart_evaluate(name)`: the function's track ids, `nil, message` when it fails or
    /// gives something else than tracks, or `false` when this state has no such function.
    static let prelude = """
        local install, keep = ...
        local define = songbox.smart
        local type, pcall, tostring, error, select = type, pcall, tostring, error, select
        local format, math_type = string.format, math.type
        local functions = {}
        local function check(n, value, count, expected)
          local got = n > count and "no value" or type(value)
          error(format("bad argument #%d to 'songbox.smart' (%s expected, got %s)", n, expected, got), 3)
        end
        install("smart", function(...)
          local name, rule = ...
          local count = select("#", ...)
          if type(name) ~= "string" then check(1, name, count, "string") end
          if type(rule) == "function" then
            functions[name] = rule
            return define(name)
          end
          if type(rule) ~= "string" then check(2, rule, count, "string or function") end
          return define(name, rule)
        end)

        keep("smart_evaluate", function(name)
          local fn = functions[name]
          if not fn then return false end
          local ok, result = pcall(fn)
          if not ok then return nil, tostring(result) end
          if type(result) ~= "table" then
            return nil, format("the function gave %s, not a list of tracks", type(result))
          end
          local ids = {}
          for i = 1, #result do
            local item = result[i]
            local id = item
            if type(item) == "table" then id = item.id end
            if math_type(id) ~= "integer" then
              return nil, format("item %d of the list the function gave is %s, not a track or a track id", i, type(item))
            end
            ids[i] = id
          end
          return ids
        end)
        """
}

/// Evaluates the smart playlists a running script defined by a function, in that script's own
/// state. Bound (`ScriptPlaylists.running`) only while the state runs on this thread, and used
/// only from inside one of its host functions: the call back in is an ordinary nested Lua call
/// on the Lua thread (main or coroutine) that called the host function, and it shares the outer
/// call's instruction budget. Another thread is answered by the host's `next` instead.
struct RunningScriptPlaylists: ScriptPlaylistEvaluator, @unchecked Sendable {
    let runtime: LuaRuntime
    private let thread = pthread_self()

    init(runtime: LuaRuntime) { self.runtime = runtime }

    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]? {
        guard pthread_equal(thread, pthread_self()) != 0, playlist.script == runtime.scriptPath,
              runtime.bridge.callingThread != nil else { return nil }
        return try runtime.evaluateSmartFunction(playlist)
    }
}

extension LuaRuntime {
    /// Calls the function this state keeps for `playlist`, with writes refused: its track ids, or
    /// nil when this state defined no such function.
    func evaluateSmartFunction(_ playlist: ScriptPlaylist) throws(SongboxError) -> [Int64]? {
        let outer = bridge.evaluating
        bridge.evaluating = playlist.name
        defer { bridge.evaluating = outer }
        let results: [LuaValue]
        do { results = try callKeptFunction("smart_evaluate", [.string(playlist.function)], on: bridge.callingThread) } catch {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)': \(error.message)", at: playlist.script)
        }
        switch results.first {
        case .boolean(false)?: return nil
        case .array(let items)?: return items.compactMap { $0.intValue.map(Int64.init) }
        case .table(let fields)? where fields.isEmpty: return []
        default:
            let message = results.count > 1 ? results[1].stringValue ?? "" : "no result"
            // The function's pcall caught the memory cap's refusal: say which limit it was.
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)': \(memoryLimitMessage(for: message) ?? message)",
                               at: playlist.script)
        }
    }
}

/// Evaluates a smart playlist defined by a function by running its script again in a fresh,
/// read-only state (no event loop, no timers, writes refused, `print` to the debug log), then
/// calling the function. What one-shot commands (`songbox ls playlist:NAME`) use.
public struct ScriptPlaylistRunner: ScriptPlaylistEvaluator {
    public var limits: LuaRuntime.Limits
    /// `plugin.NAME.KEY` settings, by script name; asked only when a playlist is evaluated, so a
    /// command that reads none does not read the config file. By default the config file's (one
    /// with a mistake gives none here: the commands that use it report it).
    public var pluginOptions: @Sendable () -> [String: [String: String]]
    /// The player's saved state, which `songbox.player.status()` reads (the script plays nothing).
    public var savedPlayer: @Sendable (LibraryStore) -> PlayerSnapshot?
    public var logger: Logger

    public init(limits: LuaRuntime.Limits = .init(), pluginOptions: @escaping @Sendable () -> [String: [String: String]] = { [:] },
                savedPlayer: @escaping @Sendable (LibraryStore) -> PlayerSnapshot? = { _ in nil }, logger: Logger) {
        self.limits = limits
        self.pluginOptions = pluginOptions
        self.savedPlayer = savedPlayer
        self.logger = logger
    }

    public func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]? {
        guard FileManager.default.fileExists(atPath: playlist.script) else {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' is defined by a function in a script that is gone",
                               at: playlist.script,
                               hint: "run the script from where it is now (songbox run FILE.lua), or delete the playlist with `songbox playlist rm \"\(playlist.name)\"`")
        }
        // A read runs the script again: its log lines were said when it ran, not at every read
        // (`SONGBOX_LOG=debug` shows them); its errors still are.
        var logger = self.logger
        if logger.logLevel > .debug { logger.logLevel = max(logger.logLevel, .error) }
        let runtime: LuaRuntime
        do {
            runtime = try ScriptSetup.makeRuntime(
                file: playlist.script, store: store, limits: limits, options: pluginOptions(),
                player: PlayerHost(store: store) { StillPlayer(restoring: savedPlayer(store)) }, functionPlaylists: host, logger: logger,
                output: { bytes in
                    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
                    logger.debug("\(playlist.script): \(text)")
                })
            runtime.bridge.evaluating = playlist.name
            // Writes are refused as in a dry run: a script can guard them with `songbox.dry_run`.
            try runtime.set("dry_run", to: .boolean(true))
            try ScriptPlaylists.rerunningScript(of: playlist) { try runtime.run(file: playlist.script) }
        } catch let error as SongboxError {
            throw error
        } catch let error as LuaScriptError {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)': \(error.message)", at: playlist.script)
        } catch {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' failed", at: playlist.script, cause: error)
        }
        guard let ids = try runtime.evaluateSmartFunction(playlist) else {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)': the script no longer defines it (it ran without calling songbox.smart(\"\(playlist.function)\", function))",
                               at: playlist.script)
        }
        return ids
    }
}

/// A player that never plays (a null output, stepped by nobody), holding a saved state:
/// `songbox.player.status()` reads it; commands are writes, refused where this is used.
public final class StillPlayer: ScriptPlayer {
    public let control: any PlayerControl
    public var steppedEngine: PlayerEngine? { nil }
    public var state: PlaybackState { .stopped }

    public init(restoring snapshot: PlayerSnapshot?) {
        let engine = PlayerEngine(output: NullOutput())
        if let snapshot { engine.restore(snapshot) }
        control = SteppedPlayer(engine: engine)
    }

    public func pump() {}
    public func nextEvent(timeout: Double) -> PlaybackEvent? { nil }
    public func shutdown() {}

    /// Without highlights: a still player never plays.
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] {
        tracks.map { PlayableTrack(trackID: $0.id, path: $0.path, duration: $0.duration) }
    }
}
