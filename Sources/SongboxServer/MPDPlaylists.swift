import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback

/// MPD's stored playlists, answered from songbox's playlists. Smart playlists (a query or a
/// script function) are listed and read like the others, evaluated when read, and refuse
/// changes (change them with `songbox playlist smart`).
extension MPDCommands {
    /// The library track of `url`. A stored playlist holds library tracks: a URL the library does
    /// not keep yet is kept now, as a stream named by its URL (as `songbox add-url` keeps one).
    func keptTrackID(url: String) throws(Failure) -> Int64 {
        try library { () throws(SongboxError) in
            if let known = try store.tracks.track(path: url) { return known.id }
            return try store.offline.keepRemote(url: url, copy: nil, size: 0, title: url, artist: nil, album: nil).id
        }
    }

    /// Answers a playlist command; false when `command` is not one.
    func playlistCommand(_ command: String, _ args: Arguments, client: MPDClient, out: MPDResponse) async throws(Failure) -> Bool {
        switch command {
        case "listplaylists":
            try storedPlaylists(out)
        case "listplaylist", "listplaylistinfo":
            let playlist = try await read(try args.string(0))
            let tracks = try slice(playlist.tracks, try args.optionalRange(1))
            let roots = roots()
            for track in tracks {
                if command == "listplaylist" { out.field("file", roots.uri(track.path)) } else {
                    out.song(track, path: track.path, duration: track.duration, roots: roots, client: client)
                }
                await out.flush()
            }
        case "playlistlength":
            let playlist = try await read(try args.string(0))
            out.field("songs", String(playlist.tracks.count))
            out.field("playtime", Self.wholeSeconds(playlist.duration))
        case "searchplaylist":
            // The playlist's songs a filter finds (without case, as `search`), each with its `Pos`.
            let playlist = try await read(try args.string(0))
            let selection = try MPDSelection(Array(args.values.dropFirst()), exact: false, roots: roots())
            let evaluated = try await evaluated(reachedBy: selection.query)
            let wanted = Set(try library { () throws(SongboxError) in
                try store.tracks.files(matching: selection.query, evaluated: evaluated).map(\.id)
            })
            let roots = roots()
            var skip = selection.window?.lowerBound ?? 0, left = selection.window?.count ?? Int.max
            for (position, track) in playlist.tracks.enumerated() where left > 0 && wanted.contains(track.id) {
                if skip > 0 { skip -= 1; continue }
                left -= 1
                out.song(track, path: track.path, duration: track.duration, roots: roots, client: client)
                out.field("Pos", String(position))
                await out.flush()
                guard out.open else { return true }
            }
        case "load":
            let name = try args.string(0)
            let tracks: [PlayableTrack]
            if RemoteTracks.isURL(name) {
                // A playlist on the network (a station's .pls or .m3u): its streams, as MPD loads them.
                let urls: [String]
                do { urls = try await backend.remotePlaylist(name) } catch { throw Failure(.noExist, error.message) }
                let chosen = try slice(urls, try args.optionalRange(1))
                tracks = try library { () throws(SongboxError) in try chosen.map { url throws(SongboxError) in try store.tracks.playable(url: url) } }
            } else {
                let chosen = try slice(try await read(name).tracks, try args.optionalRange(1))
                tracks = try library { () throws(SongboxError) in try store.tracks.playable(chosen) }
            }
            let position = try args.optionalInteger(2)
            try await perform { engine throws(Failure) in
                if let position, position > engine.queue.count { throw Failure(.argument, "Bad song index") }
                _ = try Self.enqueue(tracks, placement: position.map { .position($0) } ?? .end, on: engine)
            }
        case "save":
            let name = try args.string(0)
            // MPD 0.24's modes: `create` (the default) refuses a playlist that exists, `append`
            // and `replace` one that does not.
            let mode = args.values.count > 1 ? try args.string(1) : "create"
            guard ["create", "append", "replace"].contains(mode) else {
                throw Failure(.argument, "Unrecognized save mode, expected one of 'create', 'append', 'replace'")
            }
            var ids: [Int64] = []
            for item in player.status.snapshot.queue.items {
                if item.track.trackID != PlayableTrack.notInLibrary {
                    ids.append(item.track.trackID)
                } else if item.track.isRemote {
                    ids.append(try keptTrackID(url: item.track.path))
                }
            }
            let found = ids
            try change { () throws(SongboxError) in
                if mode != "create", try !store.playlists.playlistExists(named: name) { throw SongboxError(.notFound, "No such playlist") }
                if mode == "append" {
                    try store.playlists.addToPlaylist(named: name, trackIDs: found)
                } else {
                    try store.playlists.savePlaylist(named: name, trackIDs: found, replace: mode == "replace")
                }
            }
        case "rm":
            let name = try args.string(0)
            try change { () throws(SongboxError) in try store.playlists.deletePlaylist(named: name) }
        case "rename":
            let old = try args.string(0), new = try args.string(1)
            try change { () throws(SongboxError) in _ = try store.playlists.renamePlaylist(old, to: new) }
        case "playlistadd":
            let name = try args.string(0)
            let uri = try args.string(1)
            let ids = RemoteTracks.isURL(uri) ? [try keptTrackID(url: uri)] : try playable(under: uri, single: false).map(\.trackID)
            let position = try args.optionalInteger(2)
            try change { () throws(SongboxError) in
                if try store.playlists.playlistExists(named: name) {
                    try store.playlists.addToPlaylist(named: name, trackIDs: ids, at: position)
                } else {
                    try store.playlists.savePlaylist(named: name, trackIDs: ids)
                }
            }
        case "playlistclear":
            let name = try args.string(0)
            try change { () throws(SongboxError) in
                guard try store.playlists.playlistExists(named: name) else { throw SongboxError(.notFound, "No such playlist") }
                try store.playlists.savePlaylist(named: name, trackIDs: [], replace: true)
            }
        case "playlistdelete":
            let name = try args.string(0), range = try args.range(1)
            let evaluated = try await evaluated(reachedFrom: [name])
            try change { () throws(SongboxError) in
                let count = try store.playlists.playlist(named: name, evaluated: evaluated).tracks.count
                guard range.lowerBound < count else { throw SongboxError(.invalidArgument, "Bad song index") }
                try store.playlists.removeFromPlaylist(named: name, positions: Array(range.clamped(to: 0..<count)))
            }
        case "playlistmove":
            // A position or (MPD 0.24) a range, to a position; moving nothing, or to where it is, changes nothing.
            let name = try args.string(0), from = try args.range(1), to = try args.unsigned(2)
            guard from.upperBound != Int.max else { throw Failure(.argument, "Open-ended range not supported") }
            guard !from.isEmpty, from.lowerBound != to else { return true }
            let evaluated = try await evaluated(reachedFrom: [name])
            try change { () throws(SongboxError) in
                let count = try store.playlists.playlist(named: name, evaluated: evaluated).tracks.count
                guard from.upperBound <= count, to <= count - from.count else { throw SongboxError(.invalidArgument, "Bad range") }
                try store.playlists.movePlaylistItems(named: name, from: from, to: to)
            }
        default:
            return false
        }
        return true
    }

    /// The stored playlist `name`; MPD's `No such playlist` when there is none.
    private func read(_ name: String) async throws(Failure) -> Playlist {
        let evaluated = try await evaluated(reachedFrom: [name])
        do { return try library { () throws(SongboxError) in try store.playlists.playlist(named: name, evaluated: evaluated) } } catch {
            throw error.code == .noExist ? Failure(.noExist, "No such playlist") : error
        }
    }

    private func slice<Item>(_ tracks: [Item], _ range: Range<Int>?) throws(Failure) -> [Item] {
        guard let range else { return tracks }
        guard range.lowerBound <= tracks.count else { throw Failure(.argument, "Bad song index") }
        return Array(tracks[range.clamped(to: 0..<tracks.count)])
    }

    /// A change to the playlists: MPD's errors for songbox's, and `stored_playlist` for idle clients.
    func changePlaylists(_ body: () throws(SongboxError) -> Void) throws(Failure) { try change(body) }

    private func change(_ body: () throws(SongboxError) -> Void) throws(Failure) {
        do { try body() } catch {
            if error.message.contains("already exists") { throw Failure(.exists, "Playlist already exists") }
            if error.code == .notFound { throw Failure(.noExist, "No such playlist") }
            throw Failure(.argument, error.message)
        }
        clients.post(.storedPlaylist)
    }

    /// `2024-05-01T12:00:00Z`, from Unix seconds, by arithmetic (a listing of the whole library
    /// writes two for each song: no formatter made each time). Outside years 1970 to 9999 (a
    /// damaged row), the nearest end.
    static func isoDate(_ seconds: Int64) -> String {
        FieldValue.isoDate(min(max(seconds, 0), 253_402_300_799))
    }
}
