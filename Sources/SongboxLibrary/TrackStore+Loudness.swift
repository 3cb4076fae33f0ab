import Foundation
import GRDB

/// What the library holds for a track's ReplayGain, as stored (unchecked: a file's tag can say
/// anything): the file's `replaygain_*` tags, and what `songbox analyze` measured.
public struct LoudnessReadings: Sendable, Equatable {
    public var tagTrackGain: Double?
    public var tagTrackPeak: Double?
    public var tagAlbumGain: Double?
    public var tagAlbumPeak: Double?
    /// The analysis's ReplayGain 2.0 track gain (dB) and true peak (linear).
    public var trackGain: Double?
    public var trackPeak: Double?
    /// The analysis's album gain, only while every track of the album is analyzed as its file
    /// is now (docs/moods.md), and the album's peak: the highest of its tracks' peaks.
    public var albumGain: Double?
    public var albumPeak: Double?
}

extension TrackStore {
    /// The loudness readings of the tracks `ids` (those the library has), in one read: the
    /// tracks' rows, then their albums' (two statements: 100,000 tracks take a fraction of a
    /// second, where one statement joining each track to its album's group took a minute).
    public func loudnessReadings(of ids: [Int64]) throws(SongboxError) -> [Int64: LoudnessReadings] {
        guard !ids.isEmpty else { return [:] }
        return try runner.read { db in
            struct Album: Hashable { var key: String, artist: String }
            var found: [Int64: LoudnessReadings] = [:]
            var albumOf: [Int64: Album] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.id, t.rg_track_gain, t.rg_track_peak, t.rg_album_gain, t.rg_album_peak,
                       f.track_gain, f.track_peak, f.album_gain, t.album_key, coalesce(t.albumartist_key, t.artist_key, '')
                FROM tracks t LEFT JOIN audio_features f ON f.track_id = t.id AND f.size = t.size AND f.mtime = t.mtime
                WHERE t.id IN (SELECT value FROM json_each(?))
                """, arguments: [LibrarySQL.jsonList(ids)])
            while let row = try rows.next() {
                // A value that is not a number (a damaged row) reads as none, never a trap.
                func number(_ index: Int) -> Double? { Double.fromDatabaseValue(row[index] as DatabaseValue) }
                let id: Int64 = row[0]
                found[id] = LoudnessReadings(tagTrackGain: number(1), tagTrackPeak: number(2), tagAlbumGain: number(3),
                                             tagAlbumPeak: number(4), trackGain: number(5), trackPeak: number(6),
                                             albumGain: number(7))
                if let key = String.fromDatabaseValue(row[8] as DatabaseValue),
                   let artist = String.fromDatabaseValue(row[9] as DatabaseValue) {
                    albumOf[id] = Album(key: key, artist: artist)
                }
            }
            // An album is what `updateAlbumGain` takes for one: the same album key and album
            // artist (else artist) key, missing tracks left out; complete when each member has
            // features of its file as it is now. Its peak: the highest of its tracks'.
            var albums: [Album: (complete: Bool, peak: Double?)] = [:]
            let keys = Array(Set(albumOf.values.map(\.key)))
            let groups = try Row.fetchCursor(db, sql: """
                SELECT m.album_key, coalesce(m.albumartist_key, m.artist_key, ''), count(*) = count(f.track_id), max(f.track_peak)
                FROM tracks m
                LEFT JOIN audio_features f ON f.track_id = m.id AND f.size = m.size AND f.mtime = m.mtime
                WHERE m.missing_since IS NULL AND m.album_key IN (SELECT value FROM json_each(?))
                GROUP BY 1, 2
                """, arguments: ["[" + keys.map(JSONText.quoted).joined(separator: ",") + "]"])
            while let row = try groups.next() {
                guard let key = String.fromDatabaseValue(row[0] as DatabaseValue),
                      let artist = String.fromDatabaseValue(row[1] as DatabaseValue) else { continue }
                albums[Album(key: key, artist: artist)] = (row[2], Double.fromDatabaseValue(row[3] as DatabaseValue))
            }
            for id in found.keys {
                if let album = albumOf[id], let group = albums[album], group.complete {
                    found[id]?.albumPeak = group.peak
                } else {
                    found[id]?.albumGain = nil
                }
            }
            return found
        }
    }
}
