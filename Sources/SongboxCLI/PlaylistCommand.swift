import ArgumentParser
import Foundation
import SongboxLibrary

/// `songbox playlist ...`: saved and smart playlists, and playlist files.
struct PlaylistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract: tr("List, show, save, import and export playlists (saved and smart)."),
        discussion: helpParagraphs(tr("""
            A saved playlist is a list of tracks; a smart playlist is a query, evaluated each time it \
            is read. Either can be used in a query: songbox ls playlist:"Top 10". See docs/playlists.md.
            """)),
        subcommands: [List.self, Show.self, Save.self, Smart.self, Rename.self, Remove.self, Export.self, Import.self])
}

extension PlaylistCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: tr("List playlists."))

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Print a JSON array of playlists.")))
        var json = false

        func run() throws {
            let store = try library.openStore()
            let playlists = try store.playlists.all(evaluated: LibraryOptions.functionPlaylists.evaluatedEach(in: store))
            if json {
                printJSON(.array(playlists.map { playlist in
                    .object([
                        ("name", .string(playlist.name)), ("kind", .string(playlist.kind.rawValue)),
                        ("query", JSONValue(playlist.query)), ("script", JSONValue(playlist.script)),
                        ("tracks", JSONValue(playlist.trackCount)),
                        ("duration", .number(FieldValue.duration(playlist.duration))),
                        ("created", JSONValue(date: playlist.created)), ("modified", JSONValue(date: playlist.modified)),
                        ("problem", JSONValue(playlist.problem)),
                    ])
                }))
                return
            }
            guard !playlists.isEmpty else { return }
            let rows = playlists.map { playlist in
                [playlist.name, playlist.kind.rawValue, String(playlist.trackCount), TerminalText.duration(playlist.duration),
                 playlist.problem.map { tr("error: \($0)") } ?? playlist.query ?? playlist.script.map { tr("function in \($0)") } ?? ""]
            }
            print(TerminalText.table(header: [tr("NAME"), tr("KIND"), tr("TRACKS"), tr("TIME"), tr("QUERY")], rows: rows, rightAligned: [2, 3]))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: tr("Show the tracks of a playlist, in order."))

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Print a JSON object: name, kind, query, script, modified and tracks.")))
        var json = false

        @Argument(help: ArgumentHelp(tr("The playlist's name.")))
        var name: String

        func run() throws {
            let store = try library.openStore()
            let playlist = try store.playlists.playlist(named: name, evaluated: LibraryOptions.functionPlaylists.evaluated(reachedFrom: [name], in: store))
            if json {
                printJSON(.object([
                    ("name", .string(playlist.name)), ("kind", .string(playlist.kind.rawValue)),
                    ("query", JSONValue(playlist.query)), ("script", JSONValue(playlist.script)),
                    ("duration", .number(FieldValue.duration(playlist.duration))),
                    ("modified", JSONValue(date: playlist.modified)),
                    ("tracks", .array(playlist.tracks.map { .object(TrackJSON.listing($0)) })),
                ]))
                return
            }
            guard !playlist.tracks.isEmpty else { return }
            let rows = playlist.tracks.enumerated().map { index, track in
                [String(index + 1), String(track.id), track.artist ?? "", track.title ?? fileName(track.path),
                 track.album ?? "", TerminalText.duration(track.duration)]
            }
            print(TerminalText.table(header: ["#", tr("ID"), tr("ARTIST"), tr("TITLE"), tr("ALBUM"), tr("TIME")], rows: rows,
                                     rightAligned: [0, 1, 5]))
        }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save",
            abstract: tr("Save the tracks a query finds now as a saved playlist."),
            discussion: "songbox playlist save \"Road trip\" genre:rock duration:..5:00 random limit:2h")

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Replace a playlist of that name.")))
        var replace = false

        @Argument(help: ArgumentHelp(tr("The playlist's name.")))
        var name: String

        @Argument(help: ArgumentHelp(tr("Query words (all tracks when empty)."), valueName: "query"))
        var query: [String] = []

        func run() throws {
            let store = try library.openStore()
            let text = QueryArguments.join(query)
            let tracks = try store.tracks.matching(text, evaluated: LibraryOptions.functionPlaylists.evaluated(reachedBy: text, in: store))
            try store.playlists.savePlaylist(named: name, trackIDs: tracks.map(\.id), replace: replace)
            print(tr(tr(count: tracks.count, "Saved playlist '\(name)': \(tracks.count) track.", "Saved playlist '\(name)': \(tracks.count) tracks.")))
        }
    }

    struct Smart: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "smart",
            abstract: tr("Store a smart playlist: a query evaluated each time the playlist is read."),
            discussion: helpParagraphs(tr("""
                Defining an existing smart playlist again replaces its query; replacing a saved \
                playlist needs --replace. Example: songbox playlist smart "Top 10" 'plays>0 sort:-plays limit:10'
                """)))

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Replace a saved playlist of that name.")))
        var replace = false

        @Argument(help: ArgumentHelp(tr("The playlist's name.")))
        var name: String

        @Argument(help: ArgumentHelp(tr("Query words."), valueName: "query"))
        var query: [String] = []

        func run() throws {
            let store = try library.openStore()
            let text = QueryArguments.join(query)
            try store.playlists.saveSmartPlaylist(named: name, query: text, replace: replace)
            let count = try store.playlists.playlist(named: name, evaluated: LibraryOptions.functionPlaylists.evaluated(reachedFrom: [name], in: store)).tracks.count
            print(tr(tr(count: count, "Smart playlist '\(name)' (\(text)): \(count) track now.", "Smart playlist '\(name)' (\(text)): \(count) tracks now.")))
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: tr("Rename a playlist."))

        @OptionGroup var library: LibraryOptions

        @Argument(help: ArgumentHelp(tr("The current name.")))
        var old: String

        @Argument(help: ArgumentHelp(tr("The new name.")))
        var new: String

        func run() throws {
            let stale = try library.openStore().playlists.renamePlaylist(old, to: new)
            print(tr("Renamed playlist '\(old)' to '\(new)'."))
            for name in stale {
                print(tr("note: smart playlist '\(name)' still names playlist:\"\(old)\"; change its query"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: tr("Delete playlists (their tracks stay in the library)."))

        @OptionGroup var library: LibraryOptions

        @Argument(help: ArgumentHelp(tr("Playlist names."), valueName: "name"))
        var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError(tr("give the name of the playlist to delete")) }
        }

        func run() throws {
            let store = try library.openStore()
            for name in names {
                try store.playlists.deletePlaylist(named: name)
                print(tr("Deleted playlist '\(name)'."))
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: tr("Write a playlist to an M3U8 or portable JSON file."),
            discussion: helpParagraphs(tr("""
                The format follows the file's extension (.json, else M3U8) unless --format is given. \
                M3U8 paths are relative to the file's folder for tracks inside it, else absolute.
                """)))

        @OptionGroup var library: LibraryOptions

        @Option(help: ArgumentHelp(tr("m3u8 or json (default: from the file's extension).")))
        var format: Format?

        @Argument(help: ArgumentHelp(tr("The playlist's name.")))
        var name: String

        @Argument(help: ArgumentHelp(tr("The file to write (replaced if it exists)."), valueName: "file"))
        var file: String

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case m3u8, m3u, json
            var fileFormat: PlaylistFileFormat { self == .json ? .json : .m3u8 }
        }

        func run() throws {
            let store = try library.openStore()
            let count = try store.playlists.exportPlaylist(named: name, to: file, format: format?.fileFormat,
                                                           evaluated: LibraryOptions.functionPlaylists.evaluated(reachedFrom: [name], in: store))
            print(tr(tr(count: count, "Wrote \(count) track of '\(name)' to \(file).", "Wrote \(count) tracks of '\(name)' to \(file).")))
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: tr("Read an M3U/M3U8 or portable JSON playlist file into a saved playlist."),
            discussion: helpParagraphs(tr("""
                Entries are matched with library tracks (M3U: by path, relative to the file; JSON: by \
                path, MusicBrainz id, ISRC, then artist and title). Unmatched entries are listed with \
                the reason, and left out. Exit status 0 when the playlist was saved.
                """)))

        @OptionGroup var library: LibraryOptions

        @Option(help: ArgumentHelp(tr("The playlist's name (default: the name in a JSON file, else the file name).")))
        var name: String?

        @Option(help: ArgumentHelp(tr("m3u8 or json (default: from the extension, else from the contents).")))
        var format: Export.Format?

        @Flag(help: ArgumentHelp(tr("Replace a playlist of that name.")))
        var replace = false

        @Flag(help: ArgumentHelp(tr("Print the report as a JSON object.")))
        var json = false

        @Argument(help: ArgumentHelp(tr("The playlist file."), valueName: "file"))
        var file: String

        func run() throws {
            let report = try library.openStore().playlists.importPlaylist(from: file, name: name, format: format?.fileFormat,
                                                                replace: replace)
            if json {
                printJSON(.object([
                    ("name", .string(report.name)), ("total", JSONValue(report.total)),
                    ("matched", JSONValue(report.matched)),
                    ("unmatched", .array(report.unmatched.map { entry in
                        .object([("entry", JSONValue(entry.entry)), ("text", .string(entry.text)),
                                 ("reason", .string(entry.reason))])
                    })),
                ]))
                return
            }
            for entry in report.unmatched { print(tr("unmatched: entry \(entry.entry): \(entry.text): \(entry.reason)")) }
            print(tr(report.unmatched.isEmpty ? "Imported '\(report.name)': \(report.matched) of \(report.total) entries matched."
                     : "Imported '\(report.name)': \(report.matched) of \(report.total) entries matched, \(report.unmatched.count) unmatched."))
        }
    }
}
