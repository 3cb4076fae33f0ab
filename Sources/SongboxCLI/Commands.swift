import ArgumentParser
import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxWiring
import SongboxFiles
import SongboxPlayback

public let songboxVersion = "0.1.0"

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: tr("Index folders of MP3 files into the library."),
        discussion: helpParagraphs(tr("""
            Without PATH, scans the folders scanned before, else ~/Music. Unchanged files are not
            re-read. A track whose file is gone is marked missing: hidden, kept with its history,
            and back as it was when the file returns; it is deleted after missing_days (config,
            30 by default). Nothing is marked when a folder is unavailable, empty, on another
            filesystem than before, or lost all or more than a fifth of its tracks at once (an
            unmounted drive): the folder is held, unless --prune says the files were deleted.
            Exit status 0 when the scan completed, even with unreadable files; 1 when a folder
            given was unavailable or a folder was held.
            """)))

    @OptionGroup var library: LibraryOptions

    @Flag(help: ArgumentHelp(tr("The files that are gone were deleted: remove their tracks now, even from held folders.")))
    var prune = false

    @Argument(help: ArgumentHelp(tr("Folders or files to scan."), valueName: "path"))
    var paths: [String] = []

    func run() throws {
        try Self.run(paths: paths, prune: prune, database: library.db)
    }

    /// What `scan` does; `PlainScanCommand` runs it too.
    static func run(paths: [String], prune: Bool, database: String?) throws {
        let store = try LibraryOptions.openStore(database, creating: true)
        var scanner = LibraryScanner(store: store, logger: Logger(label: "songbox.scan"))
        scanner.missingGrace = try SongboxConfig.load().missingDays * 86_400
        var roots = paths
        if roots.isEmpty {
            roots = try scanner.rememberedFolders()
            // Said, so a scan without a folder never leaves the user guessing what it went over.
            if !roots.isEmpty { print(tr("Rescanning the folders scanned before: \(roots.map(FileName.display).joined(separator: ", "))")) }
        }
        let usingDefault = roots.isEmpty
        if usingDefault { roots = [(ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()) + "/Music"] }

        let display = ProgressDisplay()
        let report = try scanner.scan(roots, prune: prune, progress: display.update)
        display.finish()

        for (path, reason) in report.unreadable { print(tr("unreadable: \(FileName.display(path)): \(reason)")) }
        for (path, message) in report.warnings { print(tr("warning: \(FileName.display(path)): \(message)")) }
        for loop in report.symlinkLoops { print(tr("skipped: \(loop): folder already scanned (symlink loop)")) }
        for (path, reason) in report.skipped { print(tr("skipped: \(FileName.display(path)): \(reason)")) }
        for folder in report.unavailable {
            print(tr("unavailable: \(folder.path): \(folder.reason) (nothing under it was removed)"))
        }
        for folder in report.held {
            let tracks = tr(count: folder.tracks, "its \(folder.tracks) track not found stays", "its \(folder.tracks) tracks not found stay")
            print(tr("held: \(folder.path): \(folder.said); \(tracks) as they were (if the files were deleted: songbox scan --prune '\(folder.path)')"))
        }
        let seconds = Double(report.elapsed.components.seconds) + Double(report.elapsed.components.attoseconds) / 1e18
        let total = report.added + report.updated + report.moved + report.unchanged + report.unreadable.count
        var summary = tr("Scanned \(total) files in \(seconds, digits: 2) s: \(report.added) added, \(report.updated) updated, \(report.moved) moved, \(report.missing) missing, \(report.removed) removed, \(report.unchanged) unchanged, \(report.unreadable.count) unreadable")
        if report.restored > 0 { summary += tr(", \(report.restored) restored") }
        if report.excluded > 0 { summary += tr(", \(report.excluded) excluded") }
        if !report.skipped.isEmpty { summary += tr(", \(report.skipped.count) skipped") }
        print(summary)
        let rootUnavailable = report.unavailable.contains { report.roots.contains($0.path) }
        if rootUnavailable, usingDefault { print(tr("hint: no music folder scanned yet: run `songbox scan /path/to/music`")) }
        if rootUnavailable || !report.held.isEmpty { throw ExitCode(1) }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: tr("List tracks matching a query."),
        discussion: tr("QUERY uses the query language of docs/query-language.md, e.g. artist:\"נעמי שמר\" year:1960..1970 sort:-plays limit:10"))

    @OptionGroup var library: LibraryOptions

    @Flag(help: ArgumentHelp(tr("Print a JSON array of tracks.")))
    var json = false

    // `.allUnrecognized`: a negated term such as `-artist:x` is query text, not an unknown option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Query words (all tracks when empty)."), valueName: "query"))
    var query: [String] = []

    func validate() throws {
        try QueryArguments.refuseUnknownOptions(query, known: ["--json"])
    }

    func run() throws {
        let store = try library.openStore()
        let text = QueryArguments.join(query)
        let evaluated = try LibraryOptions.functionPlaylists.evaluated(reachedBy: text, in: store)
        if json {
            // Streamed a track at a time: memory does not grow with the answer (100,000 tracks
            // held 347 MB). An empty array says "none" to a program; the exit status stays 0.
            let printer = JSONArrayPrinter()
            let art = ArtPresence()
            try store.tracks.forEach(matching: text, evaluated: evaluated) { track in
                printer.element(.object(TrackJSON.listing(track) + [("art", JSONValue(art.source(track)))]))
            }
            printer.finish()
            return
        }
        guard let table = Self.table(try store.tracks.summaries(matching: text, evaluated: evaluated)) else { throw Self.nothingFound(query, in: store) }
        print(table)
    }

    /// No track matched: said on standard error, exit status 1 (grep's convention, for scripts).
    static func nothingFound(_ query: [String], in store: LibraryStore) -> ExitCode {
        complain(query.isEmpty ? "the library \(store.path) is empty: scan your music into it first (songbox scan ~/Music)"
                 : "no tracks match \(QueryArguments.join(query))")
        return ExitCode(1)
    }

    /// The aligned listing of `tracks`; nil when there are none.
    static func table(_ tracks: [TrackSummary]) -> String? {
        guard !tracks.isEmpty else { return nil }
        let rows = tracks.map { track in
            [String(track.id), track.artist ?? "", track.title ?? fileName(track.path), track.album ?? "",
             track.year.map(String.init) ?? "", TerminalText.duration(track.duration)]
        }
        return TerminalText.table(header: [tr("ID"), tr("ARTIST"), tr("TITLE"), tr("ALBUM"), tr("YEAR"), tr("TIME")], rows: rows,
                                  rightAligned: [0, 4, 5])
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: tr("Show every field of one track, lyrics included."))

    @OptionGroup var library: LibraryOptions

    @Flag(help: ArgumentHelp(tr("Print a JSON object.")))
    var json = false

    @OptionGroup var track: TrackArgument

    func run() throws {
        let store = try library.openStore()
        let found = try track.find(in: store)
        let lyrics = try store.tracks.lyrics(id: found.id)
        // A picture that cannot be read is no reason to fail `show`: it says none.
        let art = (try? ArtLocator.find(found.path))?.facts
        let analysis = try store.tracks.storedFeatures(of: found.id).map(Self.analysis)
        let language = try store.tracks.language(of: found)
        var fields = TrackJSON.allFields(found)
        if json {
            fields.append(("language", .string(language.language)))
            fields.append(("language_guessed", .bool(language.guessed)))
            fields.append(("lyrics_source", JSONValue(lyrics?.source.rawValue)))
            fields.append(("art", art.map { .object(ArtCommand.fields($0)) } ?? .null))
            printJSON(.object(fields + [("analysis", analysis.map { .object($0) } ?? .null)]))
            return
        }
        fields.append(("language", .string(language.guessed ? tr("\(language.language) (guessed from its letters)") : language.language)))
        fields.append(("lyrics_source", .string(LyricsCommand.summary(lyrics))))
        fields.append(("art", .string(ArtCommand.summary(art))))
        fields += analysis ?? []
        let width = fields.map { $0.0.count }.max() ?? 0
        for (name, value) in fields where name != "lyrics" {
            print(TerminalText.pad(name, to: width) + "  " + TerminalText.line(value.display))
        }
        if let lyrics = found.lyrics { print("\nlyrics:\n" + lyrics) }
    }
}

extension Show {
    /// What `songbox analyze` stored beyond the six fields every track has (docs/moods.md).
    static func analysis(_ stored: StoredFeatures) -> [(String, JSONValue)] {
        [("tempo_alt", JSONValue(stored.tempoAlternative)), ("beat_strength", JSONValue(stored.beatStrength)),
         ("beat_regularity", JSONValue(stored.beatRegularity)), ("key_strength", JSONValue(stored.keyStrength)),
         ("loudness_range", JSONValue(stored.loudnessRange)), ("true_peak", JSONValue(stored.truePeak)),
         ("track_gain", JSONValue(stored.trackGain)), ("track_peak", JSONValue(stored.trackPeak)),
         ("album_gain", JSONValue(stored.albumGain)), ("brightness", JSONValue(stored.brightness)),
         ("analyzed", JSONValue(date: stored.analyzed))]
    }
}

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: tr("Override a track's title, artist, album, genre, year or language, or set its rating, liked or highlight."),
        discussion: helpParagraphs(tr("""
            Edits live in the library database; the music file is never written. An empty value
            (title=) goes back to the file's tag. rating is 1 to 5 (0 clears), liked is yes or no,
            highlight is the part `songbox play --highlights` plays (highlight=1:05..1:35),
            language (2 to 8 letters: he, en) replaces the guess moods filter on (language= goes
            back to it).
            """)))

    @OptionGroup var library: LibraryOptions

    @Argument(help: ArgumentHelp(tr("The track id (from `songbox ls`).")))
    var id: Int64

    @Argument(help: ArgumentHelp(tr("One or more field=value."), valueName: "field=value"))
    var edits: [String]

    func validate() throws {
        if edits.isEmpty { throw ValidationError(tr("give at least one field=value, e.g. rating=5")) }
    }

    func run() throws {
        let highlightPrefix = "highlight="
        let highlights = try edits.filter { $0.lowercased().hasPrefix(highlightPrefix) }.map { text throws(SongboxError) in
            let value = String(text.dropFirst(highlightPrefix.count))
            return value.isEmpty ? nil : try Highlight(parsing: value)
        }
        let parsed = try edits.filter { !$0.lowercased().hasPrefix(highlightPrefix) }
            .map { text throws(SongboxError) in try TrackEdit(parsing: text) }
        let store = try library.openStore()
        if !parsed.isEmpty { try store.tracks.apply(parsed, to: id) }
        if let highlight = highlights.last { try store.tracks.setHighlight(highlight, of: id) }
        if let track = try store.tracks.track(id: id) {
            print("\(track.id)  \(TerminalText.line(track.artist ?? ""))  \(TerminalText.line(track.title ?? fileName(track.path)))")
        }
    }
}

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: tr("Remove tracks matching a query from the library (and playlists); files are not deleted."),
        discussion: tr("Removed files stay out of later scans."))

    @OptionGroup var library: LibraryOptions

    @Flag(name: .shortAndLong, help: ArgumentHelp(tr("Do not ask (on a terminal, rm shows what will go and asks first).")))
    var yes = false

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Query words; required."), valueName: "query"))
    var query: [String] = []

    func validate() throws {
        try QueryArguments.refuseUnknownOptions(query, known: ["--yes"])
        if query.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError(tr("rm needs a query, e.g. `songbox rm artist:\"Test Artist\"`"))
        }
    }

    func run() throws {
        let store = try library.openStore()
        let text = QueryArguments.join(query)
        let evaluated = try LibraryOptions.functionPlaylists.evaluated(reachedBy: text, in: store)
        let tracks = try store.tracks.matching(text, evaluated: evaluated)
        guard !tracks.isEmpty else { throw List.nothingFound(query, in: store) }
        // On a terminal a person typed it: show what will go and ask. A script passes --yes, or
        // runs without a terminal.
        if !yes, isatty(STDIN_FILENO) != 0 {
            if let table = List.table(try store.tracks.summaries(matching: text, evaluated: evaluated)) { print(table) }
            print(tr(tr(count: tracks.count, "Remove this track from the library (files stay)? [y/N] ",
                        "Remove these \(tracks.count) tracks from the library (files stay)? [y/N] ")), terminator: "")
            fflush(nil)  // the question shows before the answer is read
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                print(tr("Nothing removed."))
                throw ExitCode(1)
            }
        }
        // A remote track's offline copy goes with it (the index row would go, the file would stay).
        let remote = Set(tracks.filter { RemoteTracks.isURL($0.path) }.map(\.id))
        if !remote.isEmpty { try OfflineTracks(store: store, wiring: try Wiring.load()).remove(remote) }
        let removed = try store.tracks.remove(ids: tracks.map(\.id))
        for track in tracks {
            print(tr("removed: \(track.id)  \(TerminalText.name(track.artist, track.title ?? fileName(track.path)) ?? "")"))
        }
        print(tr(tr(count: removed, "Removed \(removed) track from the library (files untouched).",
                    "Removed \(removed) tracks from the library (files untouched).")))
    }
}

/// `songbox check`: SQLite's integrity check of the library file.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: tr("Check that the library database is sound (reads every page)."))

    @OptionGroup var library: LibraryOptions

    func run() throws {
        let store = try library.openStore()
        let problems = try store.integrityProblems()
        guard problems.isEmpty else {
            for problem in problems { complain("  \(problem)") }
            throw SongboxError.damaged(at: store.path)
        }
        print(tr("The library at \(store.path) is sound."))
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: tr("Show library totals."))

    @OptionGroup var library: LibraryOptions

    @Flag(help: ArgumentHelp(tr("Print a JSON object.")))
    var json = false

    func run() throws {
        let store = try library.openStore()
        let stats = try store.history.statistics()
        if json {
            printJSON(.object([
                ("tracks", JSONValue(stats.tracks)), ("artists", JSONValue(stats.artists)),
                ("albums", JSONValue(stats.albums)), ("genres", JSONValue(stats.genres)),
                ("duration", JSONValue(stats.duration)), ("size", .integer(stats.size)),
                ("plays", JSONValue(stats.plays)), ("skips", JSONValue(stats.skips)),
                ("playlists", JSONValue(stats.playlists)), ("unreadable", JSONValue(stats.unreadable)),
                ("missing", JSONValue(stats.missing)), ("excluded", JSONValue(stats.excluded)), ("folders", .array(stats.folders.map { .string($0) })),
                ("database", .string(store.path)), ("database_size", .integer(stats.databaseSize)),
            ]))
            return
        }
        let lines: [(Message, String)] = [
            (Message("tracks"), String(stats.tracks)), (Message("artists"), String(stats.artists)), (Message("albums"), String(stats.albums)),
            (Message("genres"), String(stats.genres)), (Message("duration"), TerminalText.duration(stats.duration)),
            (Message("music size"), byteCount(stats.size)), (Message("plays"), String(stats.plays)), (Message("skips"), String(stats.skips)),
            (Message("playlists"), String(stats.playlists)), (Message("unreadable"), String(stats.unreadable)),
            (Message("missing"), String(stats.missing)), (Message("excluded"), String(stats.excluded)), (Message("database"), "\(store.path) (\(byteCount(stats.databaseSize)))"),
        ] + stats.folders.map { (Message("folder"), $0) }
        let names = lines.map { tr($0.0) }
        let width = max(10, names.map(TerminalText.width).max() ?? 0)
        for (name, (_, value)) in zip(names, lines) { print(TerminalText.pad(name, to: width) + "  " + value) }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: tr("Show the versions of songbox and the libraries it uses."))

    func run() {
        print("songbox \(songboxVersion)")
        for (name, version) in LinkedLibraries.versions { print("  \(name) \(version)") }
    }
}

/// The last part of a path, as a person reads it.
func fileName(_ path: String) -> String { FileName.display(String(path.split(separator: "/").last ?? "")) }

func byteCount(_ bytes: Int64) -> String { Catalog.bytes(bytes) }

func printJSON(_ value: JSONValue) {
    print(value.json())
}
