import Foundation
import GRDB
import SongboxTestSupport

@testable import SongboxLibrary

/// A library database in a new temporary folder, with tracks added row by row (no audio files):
/// what the playlist and history tests work on. Track paths lie under `folder + "/music"`.
struct PlaylistLibrary {
    let folder: String
    let store: LibraryStore
    var music: String { folder + "/music" }

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        store = try LibraryStore(path: folder + "/library.db")
    }

    /// Adds a track at `music/<relativePath>` and returns its id.
    @discardableResult
    func add(_ relativePath: String, title: String?, artist: String?, album: String? = nil, duration: Double = 200,
             isrc: String? = nil, musicBrainzTrackID: String? = nil) throws -> Int64 {
        let path = music + "/" + relativePath
        return try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (path, size, mtime, title, artist, album, isrc, mb_trackid, duration, added,
                  path_key, title_key, artist_key, album_key)
                VALUES (?, 1000, 0, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
                """, arguments: [path, title, artist, album, isrc, musicBrainzTrackID, duration, SearchKey.fold(path),
                                 SearchKey.fold(title), SearchKey.fold(artist), SearchKey.fold(album)])
            return db.lastInsertedRowID
        }
    }

    /// The stored positions of a playlist's items, in order.
    func positions(_ name: String) throws -> [Int] {
        try store.runner.read { db in
            try Int.fetchAll(db, sql: """
                SELECT position FROM playlist_items JOIN playlists ON playlists.id = playlist_id
                WHERE playlists.name = ? ORDER BY position
                """, arguments: [name])
        }
    }

    func ids(_ name: String) throws -> [Int64] {
        try store.playlists.playlist(named: name).tracks.map(\.id)
    }

    /// Writes a file under the library folder (making its folders) and returns its path.
    @discardableResult
    func write(_ relativePath: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + relativePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func write(_ relativePath: String, text: String) throws -> String {
        try write(relativePath, Array(text.utf8))
    }
}

/// The code of a thrown `SongboxError`, for `#expect`.
func songboxError(_ body: () throws -> Void) -> SongboxError? {
    do { try body() } catch let error as SongboxError { return error } catch { return nil }
    return nil
}
