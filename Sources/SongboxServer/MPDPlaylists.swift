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
            let playlist = try read(try args.string(0))
            let tracks = try slice(playlist.tracks, try args.optionalRange(1))
            let roots = roots()
            for track in tracks {
                if command == "listplaylist" { out.field("file", roots.uri(track.path)) } else {
                    out.song(track, path: track.path, duration: track.duration, roots: roots, client: client)
                }
                await out.flush()
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
                let chosen = try slice(try read(name).tracks, try args.optionalRange(1))
                tracks = try library { () throws(SongboxError) in try store.tracks.playable(chosen) }
            }
            let position = try args.optionalInteger(2)
            try perform { engine throws(Failure) in
                if let position, position > engine.queue.count { throw Failure(.argument, "Bad song index") }
                _ = try Self.enqueue(tracks, placement: position.map { .position($0) } ?? .end, on: engine)
            }
        case "save":
            let name = try args.string(0)
            var ids: [Int64] = []
            for item in player.status.snapshot.queue.items {
                if item.track.trackID != PlayableTrack.notInLibrary {
                    ids.append(item.track.trackID)
                } else if item.track.isRemote {
                    ids.append(try keptTrackID(url: item.track.path))
                }
            }
            try change { () throws(SongboxError) in try store.playlists.savePlaylist(named: name, trackIDs: ids) }
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
            try change { () throws(SongboxError) in
                let count = try store.playlists.playlist(named: name).tracks.count
                guard range.lowerBound < count else { throw SongboxError(.invalidArgument, "Bad song index") }
                try store.playlists.removeFromPlaylist(named: name, positions: Array(range.clamped(to: 0..<count)))
            }
        case "playlistmove":
            let name = try args.string(0), from = try args.integer(1), to = try args.integer(2)
            try change { () throws(SongboxError) in try store.playlists.movePlaylistItem(named: name, from: from, to: to) }
        default:
            return false
        }
        return true
    }

    private func read(_ name: String) throws(Failure) -> Playlist {
        try library { () throws(SongboxError) in try store.playlists.playlist(named: name) }
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

    static func isoDate(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
