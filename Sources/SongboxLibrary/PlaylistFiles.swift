import Foundation
import GRDB
import SongboxFiles

/// Playlist file formats songbox writes and reads.
public enum PlaylistFileFormat: String, Sendable, CaseIterable {
    /// Extended M3U in UTF-8. Reading also takes plain `.m3u` (UTF-8, UTF-16 with a byte order
    /// mark, else 8-bit: Latin-1, or Windows-1255 where it looks like Hebrew).
    case m3u8
    /// songbox's portable JSON: tags and identifiers, so another library can find the same tracks.
    case json
    /// PLS (`[playlist]`, `File1=`, `Title1=`, `Length1=`), as internet radio stations publish
    /// theirs.
    case pls

    /// From a file name: `.json` is JSON, `.m3u` and `.m3u8` are M3U, `.pls` is PLS; nil for
    /// anything else.
    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "json": self = .json
        case "m3u", "m3u8": self = .m3u8
        case "pls": self = .pls
        default: return nil
        }
    }
}

/// What an import found: how many entries matched a track, and why each of the others did not.
public struct PlaylistImportReport: Sendable, Equatable {
    public struct Unmatched: Sendable, Equatable {
        /// 1-based: the line of an M3U file, the index in a JSON file's `tracks`.
        public var entry: Int
        /// The entry as the file has it: a path, or "artist - title".
        public var text: String
        public var reason: String
    }

    /// The playlist the matched tracks were saved as.
    public var name: String
    /// Entries in the file.
    public var total: Int
    /// The matched tracks, in file order (unmatched entries are left out).
    public var trackIDs: [Int64]
    public var unmatched: [Unmatched]

    public var matched: Int { trackIDs.count }
}

/// One track of the portable JSON format. Unknown values are left out.
struct PortableTrack: Codable, Sendable {
    var title: String?
    var artist: String?
    var album: String?
    var albumartist: String?
    var duration: Double?
    var isrc: String?
    var mb_trackid: String?
    var mb_albumid: String?
    var mb_artistid: String?
    var path: String?
}

/// The portable JSON file: `{"songbox_playlist": 1, "name": ..., "tracks": [...]}`.
struct PortablePlaylist: Codable, Sendable {
    static let version = 1
    var songbox_playlist: Int
    var name: String
    var tracks: [PortableTrack]
}

extension PlaylistStore {
    /// The largest playlist file an import reads.
    static let largestPlaylistFile = 64 << 20

    // MARK: Export

    /// The playlist as the text of a file of `format`.
    ///
    /// M3U8 path rule: a track inside `folder` (the folder the file will be written to) is
    /// written relative to it; any other track by its absolute path. So a playlist saved at the
    /// top of the music folder keeps working when the whole folder moves, and no `../` is ever
    /// written. With `folder` nil every path is absolute. JSON always carries absolute paths (they
    /// are one of several ways to find a track again).
    public func exportPlaylist(named name: String, format: PlaylistFileFormat, relativeTo folder: String? = nil,
                               now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> String {
        let playlist = try playlist(named: name, now: now, evaluated: evaluated)
        switch format {
        case .m3u8: return Self.m3u8(playlist, relativeTo: folder.map(FilePaths.resolved))
        case .json: return try Self.json(playlist)
        case .pls: return Self.pls(playlist)
        }
    }

    /// Writes the playlist to the file `path` (replacing it), in `format` or, when nil, the
    /// format its extension names (M3U8 for any other extension). Returns the number of tracks.
    /// The file is written whole or not at all (a temporary file renamed over it), and never over
    /// the library's own database (`access` may protect more, or keep to some folders).
    @discardableResult
    public func exportPlaylist(named name: String, to path: String, format: PlaylistFileFormat? = nil,
                               access: FileAccess = .user, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> Int {
        let access = access.protecting(library.managedFiles)
        let format = format ?? PlaylistFileFormat(path: path) ?? .m3u8
        let folder = FilePaths.parent(try access.check(path, writing: true))
        let playlist = try playlist(named: name, now: now, evaluated: evaluated)
        let text = switch format {
        case .m3u8: Self.m3u8(playlist, relativeTo: folder)
        case .json: try Self.json(playlist)
        case .pls: Self.pls(playlist)
        }
        try access.write(Data(text.utf8), to: path, unwritable: "cannot write the playlist file")
        return playlist.tracks.count
    }

    static func m3u8(_ playlist: Playlist, relativeTo folder: String?) -> String {
        var lines = ["#EXTM3U", "#PLAYLIST:" + playlist.name]
        for track in playlist.tracks {
            let title = track.title ?? ((track.path as NSString).lastPathComponent as NSString).deletingPathExtension
            let label = [track.artist, title].compactMap { $0 }.joined(separator: " - ")
            lines.append("#EXTINF:\(Int(track.duration.rounded())),\(Self.oneLine(label))")
            if let folder, track.path.hasPrefix(folder == "/" ? "/" : folder + "/") {
                lines.append(String(track.path.dropFirst(folder == "/" ? 1 : folder.count + 1)))
            } else {
                lines.append(track.path)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// PLS: absolute paths and URLs, each with its title and length (-1 for a stream).
    static func pls(_ playlist: Playlist) -> String {
        var lines = ["[playlist]"]
        for (index, track) in playlist.tracks.enumerated() {
            let number = index + 1
            let title = track.title ?? ((track.path as NSString).lastPathComponent as NSString).deletingPathExtension
            lines.append("File\(number)=\(track.path)")
            lines.append("Title\(number)=" + Self.oneLine([track.artist, title].compactMap { $0 }.joined(separator: " - ")))
            lines.append("Length\(number)=\(track.duration > 0 ? Int(track.duration.rounded()) : -1)")
        }
        lines += ["NumberOfEntries=\(playlist.tracks.count)", "Version=2"]
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ playlist: Playlist) throws(SongboxError) -> String {
        let file = PortablePlaylist(songbox_playlist: PortablePlaylist.version, name: playlist.name,
                                    tracks: playlist.tracks.map { track in
            PortableTrack(title: track.title, artist: track.artist, album: track.album, albumartist: track.albumArtist,
                          duration: FieldValue.duration(track.duration), isrc: track.isrc,
                          mb_trackid: track.musicBrainzTrackID, mb_albumid: track.musicBrainzAlbumID,
                          mb_artistid: track.musicBrainzArtistID, path: track.path)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(file), as: UTF8.self) + "\n"
        } catch {
            throw SongboxError(.invalidArgument, "cannot encode playlist '\(playlist.name)' as JSON", cause: error)
        }
    }

    /// Line breaks and other control characters become spaces (an M3U entry is one line).
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    // MARK: Import

    /// Reads an M3U/M3U8 or portable JSON file (`format`, else from the extension, else from the
    /// contents), matches its entries with library tracks and saves the matches, in order, as the
    /// saved playlist `name` (default: the name in a JSON file, else the file name without its
    /// extension). An existing playlist of that name is replaced only with `replace`.
    ///
    /// M3U entries are paths: absolute, relative to the playlist file's folder, or `file://` URLs;
    /// backslashes count as `/`, CRLF line ends and `#` comments are fine. An entry whose path is
    /// not a library track falls back on its `#EXTINF` "artist - title". JSON entries are matched
    /// by path, then MusicBrainz track id, then ISRC, then artist and title (compared folded: case,
    /// niqqud and accents do not matter).
    @discardableResult
    public func importPlaylist(from path: String, name: String? = nil, format: PlaylistFileFormat? = nil,
                               replace: Bool = false, access: FileAccess = .user,
                               now: Date = Date()) throws(SongboxError) -> PlaylistImportReport {
        let (data, absolute) = try access.protecting(library.managedFiles).read(path, most: Self.largestPlaylistFile, missing: "no such playlist file",
                                              unreadable: "cannot read the playlist file")
        let base = FilePaths.parent(absolute)
        let fallbackName = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try importPlaylist(contents: data, format: format ?? PlaylistFileFormat(path: path), folder: base,
                                  name: name, defaultName: fallbackName, replace: replace, now: now, source: path)
    }

    /// `importPlaylist(from:)` for contents already read: relative M3U paths resolve against `folder`.
    @discardableResult
    public func importPlaylist(contents data: Data, format: PlaylistFileFormat? = nil, folder: String,
                               name: String? = nil, defaultName: String = "Imported", replace: Bool = false,
                               now: Date = Date(), source: String? = nil) throws(SongboxError) -> PlaylistImportReport {
        let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
        let format = format ?? (first == UInt8(ascii: "{") ? .json : PlaylistText.isPLS(data) ? .pls : .m3u8)
        let entries: [ImportEntry]
        var fileName: String?
        switch format {
        case .m3u8:
            entries = Self.importEntries(PlaylistText.m3u(data), folder: FilePaths.absolute(folder))
        case .pls:
            entries = Self.importEntries(PlaylistText.pls(data), folder: FilePaths.absolute(folder))
        case .json:
            let file = try Self.jsonEntries(data, source: source)
            fileName = file.name
            entries = file.entries
        }
        let chosen = name ?? fileName ?? defaultName
        try PlaylistRecord.validate(name: chosen)
        return try runner.write { db in
            if !replace, let existing = try PlaylistRecord.fetch(chosen, in: db) { throw Self.exists(existing) }
            var report = PlaylistImportReport(name: chosen, total: entries.count, trackIDs: [], unmatched: [])
            for entry in entries {
                switch try Self.match(entry, in: db) {
                case .success(let id): report.trackIDs.append(id)
                case .failure(let reason):
                    report.unmatched.append(.init(entry: entry.number, text: entry.display, reason: reason.text))
                }
            }
            let id: Int64
            if let existing = try PlaylistRecord.fetch(chosen, in: db) {
                try db.execute(sql: "UPDATE playlists SET query = NULL WHERE id = ?", arguments: [existing.id])
                id = existing.id
            } else {
                id = try PlaylistRecord.insert(chosen, query: nil, now: now, in: db)
            }
            try Self.setItems(report.trackIDs, of: id, now: now, in: db)
            return report
        }
    }

    /// One entry of a playlist file, with what it offers to match by.
    struct ImportEntry: Sendable {
        var number: Int
        var display: String
        /// An absolute, standardized path, when the entry gives one.
        var path: String?
        /// Why the entry has no usable path (a stream URL, ...), when it has none.
        var pathProblem: String?
        var musicBrainzTrackID: String?
        var isrc: String?
        var artist: String?
        var title: String?
        var album: String?
        var duration: Double?
    }

    struct MatchFailure: Error { var text: String }

    /// The track an entry stands for: by path, MusicBrainz track id, ISRC, then artist + title.
    static func match(_ entry: ImportEntry, in db: Database) throws -> Result<Int64, MatchFailure> {
        var tried: [String] = []
        if let path = entry.path {
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM library WHERE path = ?", arguments: [path]) {
                return .success(id)
            }
            // A URL the library does not keep yet: kept now, as `songbox add-url` keeps a stream
            // (the entry's title and length; no download inside an import).
            if TrackLocation.isURL(path) {
                return .success(try RemoteTrackStore.insert(url: path, probed: .remote(title: entry.title ?? path, artist: entry.artist,
                                                                                     duration: entry.duration ?? 0), in: db))
            }
            // The library keeps real paths (symlinks resolved), as the scanner found them.
            if let real = FilePaths.real(path), real != path,
               let id = try Int64.fetchOne(db, sql: "SELECT id FROM library WHERE path = ?", arguments: [real]) {
                return .success(id)
            }
            tried.append(FileManager.default.fileExists(atPath: path)
                         ? "the file is not in the library (scan its folder)" : "no such file")
        } else if let problem = entry.pathProblem {
            tried.append(problem)
        }
        if let mbid = entry.musicBrainzTrackID?.trimmingCharacters(in: .whitespaces), !mbid.isEmpty {
            if let id = try best(db, "lower(mb_trackid) = ?", [mbid.lowercased()], entry) { return .success(id) }
            tried.append("no track with its MusicBrainz id")
        }
        if let isrc = entry.isrc?.trimmingCharacters(in: .whitespaces), !isrc.isEmpty {
            if let id = try best(db, "upper(isrc) = ?", [isrc.uppercased()], entry) { return .success(id) }
            tried.append("no track with its ISRC")
        }
        if let title = entry.title, !SearchKey.fold(title).isEmpty {
            if let artist = entry.artist, !SearchKey.fold(artist).isEmpty {
                if let id = try best(db, "artist_key = ? AND title_key = ?", [SearchKey.fold(artist), SearchKey.fold(title)], entry) {
                    return .success(id)
                }
                tried.append("no track by that artist with that title")
            } else {
                tried.append("no artist to match the title by")
            }
        } else if entry.path == nil, entry.pathProblem == nil {
            tried.append("nothing to match by (no path, id, or artist and title)")
        }
        return .failure(MatchFailure(text: tried.joined(separator: "; ")))
    }

    /// Of several tracks meeting `condition`, the one on the same album, then closest in length, then the first.
    private static func best(_ db: Database, _ condition: String, _ arguments: [String], _ entry: ImportEntry) throws -> Int64? {
        let rows = try Row.fetchAll(db, sql: "SELECT id, album_key, duration FROM library WHERE \(condition) ORDER BY id",
                                    arguments: StatementArguments(arguments))
        let album = entry.album.map { SearchKey.fold($0) }
        return rows.min { a, b in
            func score(_ row: Row) -> (Int, Double) {
                let sameAlbum = album != nil && (row["album_key"] as String?) == album
                let distance = entry.duration.map { abs(($0) - (row["duration"] as Double)) } ?? 0
                return (sameAlbum ? 0 : 1, distance)
            }
            return score(a) < score(b)
        }.map { $0["id"] }
    }

    // MARK: Reading files

    /// The entries of an M3U or PLS file, their paths resolved against `folder`.
    static func importEntries(_ entries: [PlaylistText.Entry], folder: String) -> [ImportEntry] {
        entries.map { written in
            var entry = ImportEntry(number: written.line, display: written.location)
            (entry.path, entry.pathProblem) = resolve(written.location, folder: folder)
            entry.artist = written.artist
            entry.title = written.title
            entry.duration = written.duration
            return entry
        }
    }

    /// An M3U entry as an absolute, standardized path, or why it is not one.
    static func resolve(_ text: String, folder: String) -> (path: String?, problem: String?) {
        var location = text
        if location.lowercased().hasPrefix("file:") {
            guard let url = URL(string: location), url.isFileURL else { return (nil, "not a valid file:// URL") }
            location = url.path
        } else if TrackLocation.isURL(location) {
            return (location, nil)
        } else if let scheme = location.range(of: "://"), location[..<scheme.lowerBound].allSatisfy(\.isLetter) {
            return (nil, "a URL songbox cannot play (http:// and https:// only)")
        }
        location = location.replacingOccurrences(of: "\\", with: "/")
        if location.count >= 2, location.first!.isLetter, location.dropFirst().first == ":" {
            return (nil, "a Windows path (drive \(location.prefix(2))) that does not exist here")
        }
        if !location.hasPrefix("/") { location = folder + "/" + location }
        return (FilePaths.standardize(location), nil)
    }

    static func jsonEntries(_ data: Data, source: String?) throws(SongboxError) -> (name: String?, entries: [ImportEntry]) {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw SongboxError(.invalidArgument, "not a JSON file", at: source,
                               hint: "export one with `songbox playlist export NAME FILE.json`", cause: error)
        }
        guard let file = object as? [String: Any], let version = file["songbox_playlist"] as? Int else {
            throw SongboxError(.invalidArgument, "not a songbox playlist: no \"songbox_playlist\" version", at: source,
                               hint: "the file must be an object {\"songbox_playlist\": 1, \"name\": ..., \"tracks\": [...]}")
        }
        guard version == PortablePlaylist.version else {
            throw SongboxError(.invalidArgument, "songbox playlist version \(version) is not supported (this songbox reads version 1)",
                               at: source, hint: "a newer songbox wrote it; update songbox")
        }
        guard let tracks = file["tracks"] as? [Any] else {
            throw SongboxError(.invalidArgument, "the playlist has no \"tracks\" list", at: source)
        }
        let entries = tracks.enumerated().map { index, item -> ImportEntry in
            guard let track = item as? [String: Any] else {
                return ImportEntry(number: index + 1, display: "(not an object)", pathProblem: "not a track object")
            }
            func text(_ key: String) -> String? {
                (track[key] as? String).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            }
            let label = [text("artist"), text("title")].compactMap { $0 }.joined(separator: " - ")
            return ImportEntry(number: index + 1, display: label.isEmpty ? (text("path") ?? "(empty entry)") : label,
                               path: text("path").map(FilePaths.standardize), musicBrainzTrackID: text("mb_trackid"),
                               isrc: text("isrc"), artist: text("artist"), title: text("title"), album: text("album"),
                               duration: (track["duration"] as? NSNumber)?.doubleValue)
        }
        return (file["name"] as? String, entries)
    }
}
