import ArgumentParser
import Foundation
import Logging
import SongboxAudio
import SongboxServer
import SongboxWiring
import SongboxLibrary
import SongboxPlayback
import Synchronization

/// `songbox daemon`: the library, the player and the plugins, running until stopped.
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: tr("Run songbox as a service: the player, the plugins and the control socket."),
        discussion: helpParagraphs(tr("""
            Runs in the foreground (for systemd, or a terminal): plays to the configured output, \
            loads the bundled plugins and ~/.config/songbox/plugins, and answers `songbox play`, \
            `songbox plugin` and MPD-style requests on its control socket ($XDG_RUNTIME_DIR/songbox/control.sock). \
            SIGTERM or Ctrl-C stops it cleanly; SIGHUP reloads the config file and the plugins \
            without stopping the music. Every config key is in docs/config.md.
            """)))

    @OptionGroup var library: LibraryOptions

    @Option(name: .long, help: ArgumentHelp(tr("The config file (default: ~/.config/songbox/config)."), valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp(tr("A music folder to rescan (may be given again; default: the config's `music`)."), valueName: "dir"))
    var music: [String] = []

    @Option(name: .long, help: ArgumentHelp(tr("alsa:DEVICE, wav:PATH, fifo:PATH or null (default: the config's `output`)."), valueName: "spec"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp(tr("A plugin folder, instead of the bundled and user folders (may be given again)."), valueName: "dir"))
    var plugins: [String] = []

    @Option(name: .long, help: ArgumentHelp(tr("The control socket (default: $XDG_RUNTIME_DIR/songbox/control.sock)."), valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("Where MPD clients connect over TCP, HOST:PORT (may be given again; none: only the socket; default: the config's `bind`, else 127.0.0.1:6600)."), valueName: "address"))
    var bind: [String] = []

    @Option(name: .long, help: ArgumentHelp(tr("Where the web app listens, HOST:PORT (none: no web app; default: the config's `http`, else 127.0.0.1:8680)."), valueName: "address"))
    var http: String?

    @Flag(help: ArgumentHelp(tr("Play wav, fifo and null outputs as fast as the machine allows (tests and demos).")))
    var fast = false

    @Option(help: ArgumentHelp(tr("The ReplayGain mode: album gain, track gain, auto (album in order, track on random) or off (default: the config's replay_gain, else off)."),
                               valueName: "mode"))
    var replayGain: ReplayGainMode?

    func run() async throws {
        var options = DaemonOptions(database: library.db ?? defaultDatabasePath(), configPath: config ?? SongboxConfig.defaultPath())
        options.musicFolders = music.isEmpty ? nil : music.map(Self.absolute)
        options.output = output
        options.pluginFolders = plugins.isEmpty ? nil : plugins.map(Self.absolute)
        options.socketPath = socket
        options.binds = bind.isEmpty ? nil : bind.filter { $0 != "none" }
        options.http = http
        options.fast = fast
        options.replayGain = replayGain
        let logger = Logger(label: "songbox.daemon") { _ in StandardErrorLogHandler() }
        let daemon: Daemon
        do { daemon = try Daemon(options: options, logger: logger) } catch { throw CannotStart(reason: error) }
        try await daemon.run()
    }

    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
}

/// A daemon that cannot start for a reason a restart will not mend (its config, its options,
/// another daemon on its library): exit status 78 (`EX_CONFIG`), which the systemd units do not
/// restart on (`RestartPreventExitStatus=78`), so a typo is one clear failure, not a loop.
struct CannotStart: Error {
    static let exitStatus: Int32 = 78
    let reason: any Error
}

/// `songbox plugin ls|reload|enable|disable`: the running daemon's plugins.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: tr("List, reload, enable or disable the running daemon's plugins."),
        subcommands: [ListPlugins.self, Reload.self, Enable.self, Disable.self])

    struct ListPlugins: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: tr("The plugins, their state, last error, CPU and memory."))

        @OptionGroup var library: LibraryOptions

        func run() throws {
            let fields = try ControlClient(serving: library.path).send("plugins")
            var rows: [[String]] = []
            var errors: [(String, String)] = []
            var row: [String: String] = [:]
            func flush() {
                guard let name = row["plugin"] else { return }
                rows.append([name, row["status"] ?? "", row["errors"] ?? "", row["restarts"] ?? "",
                             (row["cpu"] ?? "") + " s", byteCount(Int64(row["memory"] ?? "") ?? 0), row["file"] ?? ""])
                if let error = row["error"] { errors.append((name, error)) }
                row = [:]
            }
            for (key, value) in fields {
                if key == "plugin" { flush() }
                row[key] = value
            }
            flush()
            guard !rows.isEmpty else {
                print(tr("The daemon runs no plugins."))
                return
            }
            print(TerminalText.table(header: [tr("NAME"), tr("STATUS"), tr("ERRORS"), tr("RESTARTS"), tr("CPU"), tr("MEMORY"), tr("FILE")], rows: rows,
                                     rightAligned: [2, 3, 4, 5], maxWidth: 80))
            for (name, error) in errors { print(tr("\(name): last error: \(error)")) }
        }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reload", abstract: tr("Load a plugin (default: every plugin and the config) afresh."))
        @Argument(help: ArgumentHelp(tr("The plugin's name (its file name without .lua)."))) var name: String?
        @OptionGroup var library: LibraryOptions
        func run() throws { _ = try ControlClient(serving: library.path).send("pluginreload", name.map { [$0] } ?? []) }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: tr("Start a disabled plugin again."))
        @Argument(help: ArgumentHelp(tr("The plugin's name."))) var name: String
        @OptionGroup var library: LibraryOptions
        func run() throws { _ = try ControlClient(serving: library.path).send("pluginenable", [name]) }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: tr("Stop a plugin (it gets `shutdown`) until enabled or reloaded."))
        @Argument(help: ArgumentHelp(tr("The plugin's name."))) var name: String
        @OptionGroup var library: LibraryOptions
        func run() throws { _ = try ControlClient(serving: library.path).send("plugindisable", [name]) }
    }
}
