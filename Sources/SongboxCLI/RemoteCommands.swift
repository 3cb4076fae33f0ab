import ArgumentParser
import Foundation
import SongboxFiles
import SongboxAudio
import SongboxLibrary
import SongboxRemote
import SongboxWiring

/// `songbox add-url URL`: a remote track kept in the library.
struct AddURL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-url",
        abstract: tr("Keep a track on the network (http:// or https://) in the library."),
        discussion: helpParagraphs(tr("""
            A file is downloaded once to read its tags and length, and the copy stays in the offline \
            cache, so it plays without the network until the cache needs the room (--keep-offline: \
            never). A live stream (internet radio) is kept as it is, named by --title. Its plays are \
            counted like a local track's. See docs/remote.md.
            """)))

    @OptionGroup var library: LibraryOptions

    @Option(help: ArgumentHelp(tr("The title (default: the file's tag; for a stream, the URL)."), valueName: "title"))
    var title: String?

    @Option(help: ArgumentHelp(tr("The artist (default: the file's tag)."), valueName: "artist"))
    var artist: String?

    @Option(help: ArgumentHelp(tr("The album (default: the file's tag)."), valueName: "album"))
    var album: String?

    @Flag(help: ArgumentHelp(tr("Keep the downloaded copy for offline listening, never evicted.")))
    var keepOffline = false

    @Argument(help: ArgumentHelp(tr("The URL."), valueName: "url"))
    var url: String

    func validate() throws {
        guard RemoteTracks.isURL(url), URL(string: url)?.host?.isEmpty == false else {
            throw ValidationError(tr("add-url takes an http:// or https:// URL, got '\(url)'"))
        }
    }

    func run() throws {
        let store = try library.openStore()
        let offline = OfflineTracks(store: store, wiring: try Wiring.load())
        let kept: OfflineTracks.Kept
        do {
            kept = try offline.keep(url, title: title, artist: artist, album: album, keepOffline: keepOffline)
        } catch let error as DownloadError {
            throw SongboxError(.unreadableFile, "cannot keep \(TrackLocation.shown(url)): \(error.message)")
        }
        guard let track = try store.tracks.track(id: kept.id) else { return }
        let name = [track.artist, track.title].compactMap { $0 }.joined(separator: " - ")
        if kept.stream {
            print(tr("Kept the stream \(TrackLocation.shown(url)) as track \(kept.id) (\(name))."))
        } else if kept.added {
            print(tr("Added track \(kept.id): \(name) (\(TerminalText.duration(track.duration)))."))
        } else {
            print(tr("Updated track \(kept.id): \(name) (\(TerminalText.duration(track.duration)))."))
        }
    }
}

/// `songbox cache ...`: remote tracks downloaded for offline listening.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: tr("Download remote tracks for offline listening, list and remove them."),
        discussion: helpParagraphs(tr("""
            Tracks added with `songbox add-url` play from the network, or from their copy in the \
            offline cache when there is one (network or not). `cache add` downloads and pins them \
            (keep_offline: never evicted); other copies are evicted least recently played first \
            once the cache passes cache_size (config, default 2G). See docs/remote.md.
            """)),
        subcommands: [Add.self, List.self, Remove.self, Stats.self])
}

extension CacheCommand {
    /// The tracks a query or a playlist names.
    struct Selection: ParsableArguments {
        @Option(help: ArgumentHelp(tr("The tracks of this playlist instead of a query."), valueName: "name"))
        var playlist: String?

        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Query words."), valueName: "query"))
        var query: [String] = []

        func tracks(_ store: LibraryStore) throws -> [Track] {
            let playlists = LibraryOptions.functionPlaylists
            if let playlist {
                return try store.playlists.playlist(named: playlist, evaluated: playlists.evaluated(reachedFrom: [playlist], in: store)).tracks
            }
            guard !query.isEmpty else { throw ValidationError(tr("give a query or --playlist NAME")) }
            let text = QueryArguments.join(query)
            let tracks = try store.tracks.matching(text, evaluated: playlists.evaluated(reachedBy: text, in: store))
            guard !tracks.isEmpty else { throw SongboxCLI.List.nothingFound(query, in: store) }
            return tracks
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: tr("Download the remote tracks of a query or a playlist, and keep them."))

        @OptionGroup var library: LibraryOptions
        @OptionGroup var selection: Selection

        func run() throws {
            let store = try library.openStore()
            let offline = OfflineTracks(store: store, wiring: try Wiring.load())
            let tracks = try selection.tracks(store)
            let remote = tracks.filter { RemoteTracks.isURL($0.path) }
            guard !remote.isEmpty else {
                throw SongboxError(.notFound, tracks.count == 1 ? "the track found is not remote" : "none of these \(tracks.count) tracks is remote",
                                   hint: "add one with `songbox add-url URL`")
            }
            var failed = 0
            try offline.pin(remote) { track, result in
                switch result {
                case .success(let size): print(tr("kept: \(track.id)  \(track.title ?? track.path) (\(byteCount(size)))"))
                case .failure(let error):
                    failed += 1
                    complain("cannot download \(track.path): \(error.message)")
                }
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: tr("List the remote tracks kept offline."))

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Print a JSON array.")))
        var json = false

        func run() throws {
            let store = try library.openStore()
            let entries = try OfflineTracks(store: store, wiring: try Wiring.load()).entries()
            if json {
                printJSON(.array(entries.map { entry in
                    .object([("id", .integer(entry.trackID)), ("url", .string(entry.url)), ("title", JSONValue(entry.title)),
                             ("keep_offline", .bool(entry.pinned)), ("cached", .bool(entry.complete)),
                             ("bytes", .integer(entry.size))])
                }))
                return
            }
            guard !entries.isEmpty else { return print(tr("No remote track is kept offline.")) }
            let rows = entries.map { entry in
                [String(entry.trackID), entry.title ?? entry.url, entry.complete ? byteCount(entry.size) : "-",
                 entry.pinned ? tr("yes") : ""]
            }
            print(TerminalText.table(header: [tr("ID"), tr("TITLE"), tr("SIZE"),
                                              tr("KEEP")], rows: rows, rightAligned: [0, 2]))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: tr("Delete the offline copies of a query's or a playlist's tracks, and unpin them."))

        @OptionGroup var library: LibraryOptions
        @OptionGroup var selection: Selection

        func run() throws {
            let store = try library.openStore()
            let removed = try OfflineTracks(store: store, wiring: try Wiring.load()).remove(Set(try selection.tracks(store).map(\.id)))
            print(tr(tr(count: removed, "Deleted \(removed) offline copy.", "Deleted \(removed) offline copies.")))
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", abstract: tr("Show the offline cache's size and limit."))

        @OptionGroup var library: LibraryOptions

        @Flag(help: ArgumentHelp(tr("Print a JSON object.")))
        var json = false

        func run() throws {
            let store = try library.openStore()
            let offline = OfflineTracks(store: store, wiring: try Wiring.load())
            let kept = try offline.entries().filter(\.complete)
            let bytes = kept.reduce(Int64(0)) { $0 + $1.size }
            let pinned = kept.filter(\.pinned).count
            // Downloads that stopped part way (to be resumed by the same add-url or cache add)
            // take room too, though the library keeps no copy of them yet.
            let partial = offline.cache.partialDownloads()
            if json {
                printJSON(.object([("tracks", JSONValue(kept.count)), ("pinned", JSONValue(pinned)), ("bytes", .integer(bytes)),
                                   ("partial", JSONValue(partial.count)), ("partial_bytes", .integer(partial.bytes)),
                                   ("limit", .integer(offline.limit)), ("folder", .string(offline.cache.folder))]))
                return
            }
            let limit = byteCount(offline.limit), folder = offline.cache.folder
            print(tr(tr(count: kept.count, "\(kept.count) track kept offline (\(pinned) pinned), \(byteCount(bytes)) of \(limit), in \(folder)",
                        "\(kept.count) tracks kept offline (\(pinned) pinned), \(byteCount(bytes)) of \(limit), in \(folder)")))
            if partial.count > 0 {
                let size = byteCount(partial.bytes)
                print(tr(count: partial.count, "\(partial.count) partial download (\(size)): the same add-url or cache add resumes it",
                         "\(partial.count) partial downloads (\(size)): the same add-url or cache add resumes them"))
            }
        }
    }
}
