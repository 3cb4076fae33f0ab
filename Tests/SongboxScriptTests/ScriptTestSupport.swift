import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxPlayback
import SongboxScript
import SongboxWiring
import SongboxTestSupport
import Synchronization
import Testing

/// The Lua test scripts of this target.
let luaFolder = Fixtures.packageRoot + "/Tests/SongboxScriptTests/lua"

/// The bundled example library (16 tracks) scanned in-process into a new database in a new
/// temporary folder.
func exampleStore() throws -> (folder: String, store: LibraryStore) {
    let (folder, store) = try temporaryStore()
    let report = try LibraryScanner(store: store, logger: Logger(label: "test.scan")).scan([TestLibrary.examples])
    #expect(report.added == 16)
    return (folder, store)
}

/// A runtime whose print output and log records are captured.
final class TestRuntime {
    let runtime: LuaRuntime
    let printed: Captured<String>
    let logs: Captured<LogRecord>

    /// With a `library`, the library API (`songbox.library`, `history`, `playlist`, `smart`) and
    /// the player API (`songbox.queue`, `player`) are installed. `sandbox: false` keeps every
    /// standard library as Lua ships it (to compare the sandbox's versions with).
    /// `functionPlaylists`: what evaluates the function playlists its reads reach.
    init(limits: LuaRuntime.Limits = LuaRuntime.Limits(), sandbox: Bool = true, dryRun: Bool = false,
         library: LibraryStore? = nil, functionPlaylists: ScriptPlaylistHost = ScriptPlaylistHost(next: nil)) throws {
        let printed = Captured<String>(), logs = Captured<LogRecord>()
        self.printed = printed
        self.logs = logs
        var logger = Logger(label: "test.script") { _ in CapturingLogHandler(records: logs) }
        logger.logLevel = .debug
        runtime = try LuaRuntime(limits: limits, sandbox: sandbox, dryRun: dryRun, library: library, functionPlaylists: functionPlaylists,
                                 logger: logger) { printed.append(String(decoding: $0, as: UTF8.self)) }
        try LibraryAPI.install(on: runtime)
        if let library {
            // The player API too, on a null output stepped by hand (made only if a script plays).
            try PlayerAPI.install(on: runtime, host: PlayerHost(store: library) {
                SteppedScriptPlayer(SteppedPlayback(store: library, output: NullOutput(), restore: false, report: { _ in }))
            })
        }
        try runtime.addModulePath(luaFolder + "/modules")
    }

    /// Runs lua/<name>, shown in errors as `name`.
    @discardableResult
    func run(_ name: String, _ arguments: [LuaValue] = []) throws(LuaScriptError) -> [LuaValue] {
        try runtime.run(file: luaFolder + "/" + name, displayName: name, arguments: arguments)
    }

    /// The error `body` throws (nil when it does not).
    func failure(_ body: (LuaRuntime) throws -> Void) -> LuaScriptError? {
        do { try body(runtime) } catch let error as LuaScriptError { return error } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }
}

final class Captured<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    var all: [Element] { storage.withLock { $0 } }
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
}

struct LogRecord: Equatable, Sendable {
    var level: Logger.Level
    var message: String
    var location: String
}

struct CapturingLogHandler: LogHandler {
    let records: Captured<LogRecord>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(LogRecord(level: event.level, message: "\(event.message)",
                                 location: event.metadata?["script"].map { "\($0)" } ?? ""))
    }
}
