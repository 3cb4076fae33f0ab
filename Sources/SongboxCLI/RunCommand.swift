@preconcurrency import Glibc  // C's stdout, a global Swift 6 cannot check: written only by the script's thread
import ArgumentParser
import Foundation
import Synchronization
import Logging
import SongboxAudio
import SongboxWiring
import SongboxLibrary
import SongboxPlayback
import SongboxScript

/// `songbox run FILE.lua [ARG...] [--dry-run]`: runs a Lua script against the library.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: tr("Run a Lua script against the library."),
        discussion: helpParagraphs(tr("""
            The script runs in the plugin sandbox (see docs/lua-api.md) with `songbox` as a global \
            and `require "songbox"`, including songbox.library, .history, .playlist and .smart on \
            the library of --db; ARGs are in `songbox.args` and in `...`. `print` writes to \
            standard output, `songbox.log.*` to standard error. On a Lua error or a limit the exit \
            status is 1 and standard error shows `file:line: message` and a traceback. With \
            --dry-run, every function that would change something refuses.
            """)))

    @OptionGroup var library: LibraryOptions
    @OptionGroup var outputOptions: OutputOptions

    @Flag(name: .long, help: ArgumentHelp(tr("Refuse every write the script attempts.")))
    var dryRun = false

    @Flag(name: .long, help: ArgumentHelp(tr("Play from the saved queue and place, and save them at the end, as `songbox play` does (else the script plays in a session of its own).")))
    var resume = false

    @Option(name: .long, help: ArgumentHelp(tr("Lua instructions the script may run per call (default 2000000000)."), valueName: "count"))
    var instructionLimit: Int64?

    @Option(name: .long, help: ArgumentHelp(tr("Memory the script may use, in MiB (default 64)."), valueName: "MiB"))
    var memoryLimit: Int?

    @Option(name: .customLong("for"), help: ArgumentHelp(
        tr("End the run after this long on the script's clock: 90 (seconds), 90s, 10m, 24h, 2d. With --fast, a day of timers takes moments."),
        valueName: "duration"))
    var duration: String?

    @Option(name: .long, help: ArgumentHelp(
        tr("Start the script's wall clock here, \"YYYY-MM-DD HH:MM [ZONE]\" (it then keeps to the script's clock: with --fast, days of songbox.at schedules and alarms in moments)."),
        valueName: "time"))
    var startTime: String?

    @Argument(help: ArgumentHelp(tr("The Lua script."), valueName: "file.lua"))
    var file: String

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Arguments for the script (songbox.args)."), valueName: "arg"))
    var arguments: [String] = []

    func validate() throws {
        if let duration, Self.seconds(duration) == nil {
            throw ValidationError(tr("--for takes a duration such as 90, 90s, 10m, 24h or 2d (up to a year), got '\(duration)'"))
        }
        if let instructionLimit, instructionLimit <= 0 { throw ValidationError(tr("--instruction-limit must be positive")) }
        if let memoryLimit, memoryLimit <= 0 { throw ValidationError(tr("--memory-limit must be positive")) }
        if let startTime { _ = try Self.instant(startTime) }
    }

    /// The instant of a `--start-time`: a date and a time of day, in ZONE or the system's.
    static func instant(_ text: String) throws(ValidationError) -> Double {
        let schedule: WallSchedule
        do throws(ScheduleError) { schedule = try WallSchedule(parsing: text, zone: .current) } catch {
            throw ValidationError(tr("--start-time: \(error.message)"))
        }
        guard let instant = schedule.instant else {
            throw ValidationError(tr("--start-time takes a date and a time, \"2026-03-27 06:30\" [ZONE], got '\(text)'"))
        }
        return instant
    }

    func run() throws {
        var limits = LuaRuntime.Limits.userScript
        if let instructionLimit { limits.instructions = instructionLimit }
        if let memoryLimit { limits.memory = memoryLimit << 20 }
        try Self.run(file: file, arguments: arguments, database: library.db, limits: limits, dryRun: dryRun,
                     output: outputOptions.output, fast: outputOptions.fast, resume: resume, bound: duration.flatMap(Self.seconds),
                     wallStart: startTime.map { try Self.instant($0) }, replayGain: outputOptions.replayGain)
    }

    /// Seconds of a duration: a number (seconds) or one with an `s`, `m`, `h` or `d`; at most a year.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let (digits, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard let value = Double(digits), value.isFinite, value > 0, value * unit <= 366 * 86_400 else { return nil }
        return value * unit
    }

    /// What `songbox run` does once its arguments are read (by swift-argument-parser, or by
    /// `PlainRunCommand` for the plain form).
    static func run(file: String, arguments: [String], database: String?, limits: LuaRuntime.Limits, dryRun: Bool,
                    output: String?, fast: Bool, resume: Bool = false, bound: Double? = nil, wallStart: Double? = nil,
                    replayGain: ReplayGainMode? = nil) throws {
        // Said here, in the reader's language (the runtime would say it too, as Lua's errors, in English).
        guard access(file, R_OK) == 0 else {
            complain("\(file): cannot read the script (\(String(cString: strerror(errno))))")
            throw ExitCode(1)
        }
        let store = try LibraryOptions.openStore(database)
        let wiring = try Wiring.load().replayGain(replayGain)
        let config = wiring.config
        let spec = try OutputOptions.resolve(output, wiring: wiring)
        let host = wiring.scriptPlayer(store: store, output: spec, fast: fast, resume: resume)
        // plugin.NAME.KEY lines of the config file, NAME being the script's file name.
        let runtime = try ScriptSetup.makeRuntime(file: file, arguments: arguments, store: store, limits: limits,
                                                  dryRun: dryRun, options: config.pluginOptions, player: host,
                                                  functionPlaylists: LibraryOptions.functionPlaylists, logger: scriptLogger) { bytes in
            // Lua's bytes as they are (through stdio, as Swift's print, so the order holds).
            _ = fwrite(bytes.baseAddress, 1, bytes.count, stdout)
        }
        // The user's own rights, except over songbox's files (the library's are always kept).
        runtime.fileAccess = FileAccess.user.protecting([SongboxConfig.defaultPath()])
        runtime.alarmTone = Wiring.alarmTone
        runtime.chime = Wiring.chime
        // The hosts the config grants this file's name (`net.NAME`), as a daemon's plugin has them.
        try wiring.grantNetwork(to: runtime, file: file)
        try DaemonAPI.install(on: runtime, database: store.path)
        runtime.moodPresetFiles = Wiring.moodPresetFiles(userFolder: config.pluginFolder)
        let loop = ScriptEventLoop(runtime: runtime, host: host, fast: fast, bound: bound, wallStart: wallStart) { message in
            complain("\(message)")
        }
        let stop = StopRequest()
        var interrupt: Interrupt?
        defer { interrupt?.cancel() }
        do {
            try runtime.run(file: file, arguments: arguments.map { .string($0) })
            // Then its events and timers, until nothing more can happen. From here Ctrl-C stops
            // playback cleanly (during the main chunk it ends the process, as for any program).
            interrupt = Interrupt { stop.request() }
            try loop.run(interrupted: { stop.requested })
        } catch {
            host.shutdown()
            complain("\(error)")
            throw ExitCode(1)
        }
        host.shutdown()
        if loop.callbackErrors > 0 { throw ExitCode(1) }
        if let status = runtime.exitRequested, status != 0 { throw ExitCode(Int32(status)) }
    }
}

/// Set from a signal handler, read by the script's loop.
final class StopRequest: Sendable {
    private let flag = Mutex(false)

    func request() { flag.withLock { $0 = true } }
    var requested: Bool { flag.withLock { $0 } }
}

/// The logger of scripts: `songbox.log.*` to standard error.
let scriptLogger = Logger(label: "songbox.script") { _ in StandardErrorLogHandler() }

/// Writes log messages to standard error as `level: message`, or `level: file:line: message`
/// for `songbox.log.*` (the script's line comes as the `script` metadata). Scripts and the
/// daemon (its plugins' messages included) log through it.
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = ProcessInfo.processInfo.environment["SONGBOX_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A log line is one line: a line break or another control character in a plugin's
    /// message, a tag or a file name is shown escaped (`TerminalText.line`), so none forges a line.
    func log(event: LogEvent) {
        let location = event.metadata?["script"].map { "\($0): " } ?? ""
        writeToStandardError(TerminalText.line("\(event.level): \(location)\(event.message)"))
    }
}
