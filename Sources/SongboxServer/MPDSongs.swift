import Foundation
import SongboxAudio
import SongboxFiles
import SongboxLibrary

/// How MPD clients name songs and folders: URIs relative to the music folder. With one music
/// folder a track's URI is its path inside it; with several, each folder is a top-level
/// directory named by its last component. A track outside every music folder is named by its
/// absolute path.
public struct MusicRoots: Sendable {
    public let folders: [String]
    /// Longest first: a folder inside another is matched before it.
    private let byLength: [String]

    /// With one music folder: what `uri` drops from the paths inside it, as bytes.
    let onlyPrefix: [UInt8]?

    public init(_ folders: [String]) {
        self.folders = folders.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.sorted()
        byLength = self.folders.sorted { $0.utf8.count > $1.utf8.count }
        onlyPrefix = self.folders.count == 1 ? Array((self.folders[0] == "/" ? "/" : self.folders[0] + "/").utf8) : nil
    }

    private func name(_ folder: String) -> String { (folder as NSString).lastPathComponent }

    /// The URI of the track or folder at `path`; a URL without its password.
    public func uri(_ path: String) -> String {
        if TrackLocation.isURL(path) { return TrackLocation.shown(path) }
        for folder in byLength {
            // By bytes, as the file system names them (a listing asks this of every path).
            let relative: Substring
            if path == folder {
                relative = ""
            } else if folder == "/", path.utf8.first == UInt8(ascii: "/") {
                relative = Substring(path.utf8.dropFirst())
            } else if path.utf8.starts(with: folder.utf8),
                      path.utf8.dropFirst(folder.utf8.count).first == UInt8(ascii: "/") {
                relative = Substring(path.utf8.dropFirst(folder.utf8.count + 1))
            } else {
                continue
            }
            if folders.count == 1 { return String(relative) }
            return relative.isEmpty ? name(folder) : name(folder) + "/" + relative
        }
        return path
    }

    /// The path a URI names; nil when it names nothing songbox knows (an unknown top folder).
    public func path(_ uri: String) -> String? {
        var uri = uri
        while uri.hasSuffix("/") { uri.removeLast() }
        if uri.hasPrefix("/") { return uri }
        if uri.hasPrefix("file://") { return String(uri.dropFirst("file://".count)) }
        if folders.count == 1 { return uri.isEmpty ? folders[0] : (folders[0] == "/" ? "/" : folders[0] + "/") + uri }
        let first = uri.split(separator: "/", maxSplits: 1)
        guard let head = first.first, let folder = folders.first(where: { name($0) == head }) else { return nil }
        return first.count > 1 ? folder + "/" + first[1] : folder
    }
}

/// The tags MPD clients know, and where songbox keeps each.
public enum MPDTag {
    /// MPD's name, the `library` column it lists and groups by, the query field it filters on.
    /// AlbumArtist lists and groups the artist of a song without one, as MPD does.
    static let table: [(name: String, column: String, field: String)] = [
        ("Artist", "artist", "artist"), ("Album", "album", "album"), ("AlbumArtist", TrackStore.albumArtistOrArtist, "albumartist"),
        ("Title", "title", "title"), ("Track", "track", "track"), ("Genre", "genre", "genre"), ("Date", "year", "year"),
        ("Comment", "comment", "comment"), ("Disc", "disc", "disc"),
        ("MUSICBRAINZ_ARTISTID", "mb_artistid", "mb_artistid"), ("MUSICBRAINZ_ALBUMID", "mb_albumid", "mb_albumid"),
        ("MUSICBRAINZ_ALBUMARTISTID", "mb_albumartistid", "mb_albumartistid"),
        ("MUSICBRAINZ_TRACKID", "mb_trackid", "mb_trackid"), ("MUSICBRAINZ_RELEASEGROUPID", "mb_releasegroupid", "mb_releasegroupid"),
        ("ISRC", "isrc", "isrc"),
    ]

    /// MPD's other tags: known to clients (`tagtypes enable Name`), but not read from the files
    /// by songbox, so no song has them: a filter on one finds nothing, a listing is empty.
    static let absent = ["ArtistSort", "AlbumSort", "AlbumArtistSort", "Name", "OriginalDate", "Composer", "Performer",
                         "Conductor", "Work", "Grouping", "Label", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID"]

    public static var names: [String] { table.map(\.name) }

    /// The tag called `name`, in any case; nil for one songbox does not keep (`absent`); throws
    /// MPD's error for a name MPD does not know either.
    static func named(_ name: String) throws(MPDProtocol.Failure) -> (name: String, column: String, field: String)? {
        if let tag = table.first(where: { $0.name.lowercased() == name.lowercased() }) { return tag }
        if absent.contains(where: { $0.lowercased() == name.lowercased() }) { return nil }
        throw MPDProtocol.Failure(.argument, "Unknown tag type: \(name)")
    }

    /// The name of a tag MPD knows, kept or not, as MPD spells it.
    static func canonicalName(_ name: String) throws(MPDProtocol.Failure) -> String {
        if let tag = try named(name) { return tag.name }
        return absent.first { $0.lowercased() == name.lowercased() }!
    }

    /// The tags a song shows, in MPD's order: the MPD name, the `library` column (or SQL) to
    /// read it from, and its value in a `Track`. One table for both ways a song is written.
    static let songTags: [(name: String, column: String, value: @Sendable (Track) -> String?)] = [
        ("Artist", "artist", { $0.artist }), ("AlbumArtist", "albumartist", { $0.albumArtist }),
        ("Title", "title", { $0.title }), ("Album", "album", { $0.album }),
        ("Track", "track", { $0.track.map(String.init) }), ("Date", "coalesce(date, year)", { $0.date ?? $0.year.map(String.init) }),
        ("Genre", "genre", { $0.genre }), ("Comment", "comment", { $0.comment }), ("Disc", "disc", { $0.disc.map(String.init) }),
        ("MUSICBRAINZ_ARTISTID", "mb_artistid", { $0.musicBrainzArtistID }), ("MUSICBRAINZ_ALBUMID", "mb_albumid", { $0.musicBrainzAlbumID }),
        ("MUSICBRAINZ_ALBUMARTISTID", "mb_albumartistid", { $0.musicBrainzAlbumArtistID }),
        ("MUSICBRAINZ_TRACKID", "mb_trackid", { $0.musicBrainzTrackID }),
        ("MUSICBRAINZ_RELEASEGROUPID", "mb_releasegroupid", { $0.musicBrainzReleaseGroupID }), ("ISRC", "isrc", { $0.isrc }),
    ]

    /// The names of `songTags` lowercased, as `tagtypes` keeps a client's choice.
    static let songTagKeys = songTags.map { $0.name.lowercased() }

    /// The song's tags as MPD fields, in MPD's order, those in `wanted` (nil: all).
    static func fields(of track: Track, wanted: Set<String>?) -> [(String, String)] {
        songTags.indices.compactMap { index in
            let tag = songTags[index]
            guard let value = tag.value(track), !value.isEmpty, wanted.map({ $0.contains(songTagKeys[index]) }) ?? true else { return nil }
            return (tag.name, value)
        }
    }

    /// The columns a raw read of songs selects: path, the tags, duration, rate, channels, bits.
    static let songColumnNames = ["path"] + songTags.map(\.column) + ["duration", "samplerate", "channels", "bits", "mtime", "added"]
    static let songColumns = songColumnNames.joined(separator: ", ")
}

extension MPDResponse {
    /// A song as `lsinfo`, `find` and the queue listings show it.
    func song(_ track: Track?, path: String, duration: Double, roots: MusicRoots, client: MPDClient, stream: StreamTitle? = nil,
              tags: [(String, String)] = []) {
        field("file", roots.uri(path))
        if let track { times(modified: track.modified, added: track.added) }
        if let track { fields(MPDTag.fields(of: track, wanted: client.tagTypes)) }
        // A queued stream's tags a client gave it (`addtagid`).
        for (name, value) in tags where client.tagTypes.map({ $0.contains(name.lowercased()) }) ?? true { field(name, value) }
        if let track, let rate = track.sampleRate, let channels = track.channels, rate > 0 { audioFormat(rate, track.bits, channels) }
        // A radio station: what it says it plays, as MPD shows it.
        if let stream {
            if track == nil { field("Title", stream.title) }
            if let station = stream.station { field("Name", station) }
        }
        // A stream has no length to show.
        guard duration > 0 || !RemoteTracks.isURL(path) else { return }
        field("Time", MPDCommands.wholeSeconds(duration))
        field("duration", MPDCommands.seconds(duration))
    }

    /// A song from a raw read of `MPDTag.songColumns`: no `Track` made, columns read by index.
    func song(_ row: RawRow, roots: MusicRoots, client: MPDClient) {
        let path = row.utf8(0)
        if let prefix = roots.onlyPrefix, path.count > prefix.count, path.starts(with: prefix) {
            // The common case, straight from SQLite's bytes: the path inside the one music folder.
            field("file", utf8: UnsafeRawBufferPointer(rebasing: path[prefix.count...]))
        } else {
            field("file", roots.uri(Self.text(row, 0)))
        }
        let base = Int32(MPDTag.songTags.count + 1)
        let mtime = row.int64(base + 4)
        times(modified: mtime >= 0 ? mtime / 1_000_000_000 : nil, added: row.int64(base + 5))
        let wanted = client.tagTypes
        for (index, tag) in MPDTag.songTags.enumerated() where wanted.map({ $0.contains(MPDTag.songTagKeys[index]) }) ?? true {
            let column = Int32(index + 1)
            guard !row.isNull(column) else { continue }
            let value = row.utf8(column)
            if !value.isEmpty { field(tag.name, utf8: value) }
        }
        let duration = row.double(base)
        if row.int64(base + 1) > 0 { audioFormat(row.int64(base + 1), row.isNull(base + 3) ? nil : row.int64(base + 3), row.int64(base + 2)) }
        field("Time", MPDCommands.wholeSeconds(duration))
        field("duration", MPDCommands.seconds(duration))
    }

    /// `Last-Modified` (the file's time) and `Added` (when songbox first saw it), as MPD 0.24
    /// writes them after the file.
    private func times(modified: Int64?, added: Int64) {
        if let modified { field("Last-Modified", MPDCommands.isoDate(modified)) }
        if added > 0 { field("Added", MPDCommands.isoDate(added)) }
    }

    /// `Format: RATE:BITS:CHANNELS` as MPD writes it: the bits of a lossless file, `f` for
    /// the float samples of a lossy one.
    private func audioFormat(_ rate: some BinaryInteger, _ bits: (some BinaryInteger)?, _ channels: some BinaryInteger) {
        field("Format", "\(rate):\(bits.map { "\($0)" } ?? "f"):\(channels)")
    }

    private static func text(_ row: RawRow, _ column: Int32) -> String { String(decoding: row.utf8(column), as: UTF8.self) }

    /// A queue item: the song, its position and id.
    func queueItem(_ item: QueueItem, position: Int, track: Track?, roots: MusicRoots, client: MPDClient, stream: StreamTitle? = nil,
                   tags: [(String, String)] = []) {
        song(track, path: item.track.path, duration: item.track.duration, roots: roots, client: client, stream: stream, tags: tags)
        field("Pos", String(position))
        field("Id", String(item.id))
    }
}

/// The tags clients gave queued streams (`addtagid`, `cleartagid`), by queue item id: volatile as
/// in MPD (gone with the item, and with a restart), bounded (a few items' worth, a few each).
final class QueueTags: @unchecked Sendable {
    private let lock = NSLock()
    private var byItem: [Int: [(String, String)]] = [:]
    static let mostItems = 1024, mostTags = 64

    func tags(of id: Int) -> [(String, String)] { lock.withLock { byItem[id] ?? [] } }

    /// Adds `tag` with `value`; a nil value clears `tag` (nil: every tag). Items no longer in
    /// the queue (`keeping`) lose theirs.
    func change(_ id: Int, tag: String?, value: String?, keeping: Set<Int>) {
        lock.withLock {
            byItem = byItem.filter { keeping.contains($0.key) }
            var tags = byItem[id] ?? []
            if let value, let tag {
                guard tags.count < Self.mostTags, byItem.count < Self.mostItems || byItem[id] != nil else { return }
                tags.append((tag, value))
            } else {
                tags.removeAll { tag == nil || $0.0 == tag }
            }
            byItem[id] = tags.isEmpty ? nil : tags
        }
    }
}
