import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// What the player's ReplayGain reads from the library: the tags' values as stored, a damaged
/// value as none, and the analysis's album gain and peak only for a complete album.
@Suite struct LoudnessReadingsTests {
    let folder: String
    let store: LibraryStore

    init() throws {
        (folder, store) = try temporaryStore()
    }

    func insertTrack(_ path: String, trackGain: DatabaseValue) throws -> Int64 {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (path, size, mtime, duration, added, path_key, album_key, artist_key, rg_track_gain, rg_track_peak)
                VALUES (?, 1, 1, 10, 1700000000, ?, 'levels', 'meters', ?, 1e300)
                """, arguments: [path, path, trackGain])
            return db.lastInsertedRowID
        }
    }

    func analyze(_ id: Int64, gain: Double, peak: Double, albumGain: Double?) throws {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO audio_features (track_id, size, mtime, version, analyzed, duration, track_gain, track_peak, album_gain, histogram)
                VALUES (?, 1, 1, 1, 0, 10, ?, ?, ?, x'')
                """, arguments: [id, gain, peak, albumGain])
        }
    }

    @Test func damagedValuesReadAsNoneAndTheAlbumCountsOnlyWhenComplete() throws {
        let first = try insertTrack("/a.mp3", trackGain: "loud".databaseValue)
        let second = try insertTrack("/b.mp3", trackGain: (-3.5).databaseValue)
        try analyze(first, gain: -7, peak: 0.8, albumGain: -6)
        var readings = try store.tracks.loudnessReadings(of: [first, second, 999])
        #expect(readings.count == 2)
        #expect(readings[first]?.tagTrackGain == nil, "text in a number column is no number")
        #expect(readings[second]?.tagTrackGain == -3.5)
        #expect(readings[first]?.tagTrackPeak == 1e300, "stored as read: the player checks it")
        #expect(readings[first]?.trackGain == -7 && readings[first]?.trackPeak == 0.8)
        #expect(readings[first]?.albumGain == nil && readings[first]?.albumPeak == nil, "half the album analyzed")

        try analyze(second, gain: -5, peak: 0.9, albumGain: -6)
        readings = try store.tracks.loudnessReadings(of: [first, second])
        #expect(readings[first]?.albumGain == -6 && readings[first]?.albumPeak == 0.9)
        #expect(readings[second]?.albumGain == -6 && readings[second]?.albumPeak == 0.9)

        // A file changed since its analysis: its features no longer count, nor the album's gain.
        try store.runner.write { db in try db.execute(sql: "UPDATE tracks SET mtime = 2 WHERE id = ?", arguments: [second]) }
        readings = try store.tracks.loudnessReadings(of: [first, second])
        #expect(readings[second]?.trackGain == nil && readings[first]?.albumGain == nil)
    }
}
