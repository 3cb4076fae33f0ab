import ArgumentParser
import Foundation
import SongboxLibrary
import SongboxScript

/// `songbox`: the command-line entry point.
public struct SongboxCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "songbox",
        abstract: "A music library, player and Lua automation host for headless players.",
        version: songboxVersion,
        subcommands: [Scan.self, List.self, Show.self, Edit.self, Remove.self, Stats.self, Play.self, Run.self, PlaylistCommand.self, HistoryCommand.self, DaemonCommand.self, PluginCommand.self, Version.self]
    )

    /// Declared here too, so that `songbox --db PATH scan` works as well as `songbox scan --db PATH`.
    @OptionGroup var library: LibraryOptions

    public init() {}
}

/// Options every command that touches the library takes.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library database (default: $SONGBOX_DB, else ~/.local/share/songbox/library.db).",
        valueName: "path"))
    var db: String?

    /// The library, able to read smart playlists defined by a script function (each read runs
    /// the script again, read-only; see `ScriptPlaylistRunner`).
    func openStore() throws -> LibraryStore {
        try Self.openStore(db)
    }

    static func openStore(_ db: String?) throws -> LibraryStore {
        let store = try LibraryStore(path: db ?? defaultDatabasePath())
        store.scriptEvaluator = ScriptPlaylistRunner(logger: scriptLogger)
        return store
    }
}
