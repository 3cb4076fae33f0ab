import ArgumentParser
import Foundation
import SongboxLibrary
import SongboxWiring
import SongboxScript

/// `songbox`: the command-line entry point.
public struct SongboxCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "songbox",
        abstract: tr("A music library, player and Lua automation host for headless players."),
        version: songboxVersion,
        subcommands: [Scan.self, Analyze.self, List.self, Show.self, LyricsCommand.self, ArtCommand.self, Edit.self, Remove.self, Stats.self, Play.self, Run.self, PlaylistCommand.self, HistoryCommand.self, Check.self, DaemonCommand.self, PluginCommand.self, AlarmCommand.self, AutoplayCommand.self, ScrobbleCommand.self, AddURL.self, CacheCommand.self, Version.self] + ClientCommands.all
    )

    /// Declared here too, so that `songbox --db PATH scan` works as well as `songbox scan --db PATH`.
    @OptionGroup var library: LibraryOptions

    public init() {}
}

/// Options every command that touches the library takes.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        tr("The library database (default: $SONGBOX_DB, else ~/.local/share/songbox/library.db)."),
        valueName: "path"))
    var db: String?

    /// The library's path: --db, else `$SONGBOX_DB`, else the default.
    var path: String { db ?? defaultDatabasePath() }

    /// The library.
    func openStore(creating: Bool = false) throws -> LibraryStore {
        try Self.openStore(db, creating: creating)
    }

    /// A library named with --db or $SONGBOX_DB must exist, unless the command makes one
    /// (`creating`: scan), which then says so: a mistyped path is an error, not a new empty
    /// library. The default location is made on demand.
    static func openStore(_ db: String?, creating: Bool = false) throws -> LibraryStore {
        let path = db ?? defaultDatabasePath()
        let named = db != nil || ProcessInfo.processInfo.environment["SONGBOX_DB"].map { !$0.isEmpty } == true
        let exists = FileManager.default.fileExists(atPath: path)
        if named, !path.isEmpty, !exists, !creating {
            throw SongboxError(.notFound, "there is no library at \(path)",
                               hint: "check the path; to make a library there, scan into it: songbox --db \(path) scan /path/to/music")
        }
        let store = try LibraryStore(path: path)
        if !exists, creating { complain("Made a new library at \(path)") }
        return store
    }

    /// How a command evaluates the smart playlists defined by a script function that its reads
    /// reach: by the daemon serving the library, if one runs (its live plugin answers), else by
    /// running the script again, read-only (`ScriptPlaylistRunner`).
    static let functionPlaylists = Wiring.commandPlaylists(logger: scriptLogger)
}
