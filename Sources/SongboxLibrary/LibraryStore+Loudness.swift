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

extension LibraryStore {
    /// The loudness readings of the tracks `ids` (those the library has), in one read.
    public func loudnessReadings(of ids: [Int64]) throws(SongboxError) -> [Int64: LoudnessReadings] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            // An album is what `updateAlbumGain` takes for one: the same album key and album
            // artist (else artist) key, missing tracks left out; complete when each member has
            // features of its file as it is now.
            let rows = try Row.fetchCursor(db, sql: """
                WITH wanted AS (SELECT DISTINCT value AS id FROM json_each(?)),
                chosen AS (
                  SELECT t.id, t.rg_track_gain, t.rg_track_peak, t.rg_album_gain, t.rg_album_peak,
                         f.track_gain, f.track_peak, f.album_gain, t.album_key,
                         coalesce(t.albumartist_key, t.artist_key, '') AS artist
                  FROM tracks t JOIN wanted w ON w.id = t.id
                  LEFT JOIN audio_features f ON f.track_id = t.id AND f.size = t.size AND f.mtime = t.mtime),
                albums AS (
                  SELECT m.album_key, coalesce(m.albumartist_key, m.artist_key, '') AS artist,
                         count(*) = count(f.track_id) AS complete, max(f.track_peak) AS peak
                  FROM tracks m
                  LEFT JOIN audio_features f ON f.track_id = m.id AND f.size = m.size AND f.mtime = m.mtime
                  WHERE m.missing_since IS NULL AND m.album_key IN (SELECT album_key FROM chosen)
                  GROUP BY 1, 2)
                SELECT c.id, c.rg_track_gain, c.rg_track_peak, c.rg_album_gain, c.rg_album_peak,
                       c.track_gain, c.track_peak, CASE WHEN a.complete THEN c.album_gain END, CASE WHEN a.complete THEN a.peak END
                FROM chosen c LEFT JOIN albums a ON a.album_key = c.album_key AND a.artist = c.artist
                """, arguments: [Self.jsonList(ids)])
            var found: [Int64: LoudnessReadings] = [:]
            while let row = try rows.next() {
                // A value that is not a number (a damaged row) reads as none, never a trap.
                func number(_ index: Int) -> Double? { Double.fromDatabaseValue(row[index] as DatabaseValue) }
                found[row[0]] = LoudnessReadings(tagTrackGain: number(1), tagTrackPeak: number(2), tagAlbumGain: number(3),
                                                 tagAlbumPeak: number(4), trackGain: number(5), trackPeak: number(6),
                                                 albumGain: number(7), albumPeak: number(8))
            }
            return found
        }
    }
}
