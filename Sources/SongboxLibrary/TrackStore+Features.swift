import Foundation
import GRDB
import SongboxFiles
import SongboxAnalysis

/// A track `songbox analyze` has to do: never analyzed, changed since, or by an older analyzer.
public struct AnalysisCandidate: Sendable, Equatable {
    public var id: Int64
    /// The track's path or URL, as the library shows it.
    public var path: String
    /// The file to decode: the path, or a remote track's offline copy.
    public var file: String
    /// The file as the library knows it; stored with the features.
    public var size: Int64
    public var mtime: Int64
    public var duration: Double
    /// The file's channels (1 or 2), when the scan could tell.
    public var channels: Int?
}

/// The analysis stored for a track (`audio_features`), for `songbox show` and the player.
public struct StoredFeatures: Sendable, Equatable {
    public var tempoAlternative: Double?
    public var beatStrength: Double?
    public var beatRegularity: Double?
    public var keyStrength: Double?
    public var loudnessRange: Double?
    public var truePeak: Double?
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var brightness: Double?
    public var vector: [Float]?
    public var version: Int
    public var analyzed: Int64
}

extension TrackStore {
    /// The tracks matching the query text that need analyzing, in the query's order, and how
    /// many matching ones are already done. A remote track is analyzed from its complete
    /// offline copy (`copy` finds it); one with no copy is left out.
    public func tracksToAnalyze(matching text: String, copy: @Sendable (String) -> String? = { _ in nil },
                                now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> (pending: [AnalysisCandidate], done: Int) {
        let query = try LibraryQuery.parse(text, now: now)
        return try runner.read { db in
            let (sql, arguments) = try LibrarySQL.statement(for: query, selecting: "id, path, size, mtime, duration, channels", in: db, evaluated: evaluated)
            let current = try Set(Int64.fetchAll(db, sql: """
                SELECT f.track_id FROM audio_features f JOIN tracks t ON t.id = f.track_id
                WHERE f.size = t.size AND f.mtime = t.mtime AND f.version >= ?
                """, arguments: [TrackAnalyzer.version]))
            var pending: [AnalysisCandidate] = [], done = 0
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                let id: Int64 = row[0]
                if current.contains(id) { done += 1; continue }
                let path: String = row[1]
                // A remote track without a copy here has nothing to decode (docs/remote.md).
                guard let file = TrackLocation.isURL(path) ? copy(path) : path else { continue }
                pending.append(AnalysisCandidate(id: id, path: path, file: file, size: row[2], mtime: row[3], duration: row[4], channels: row[5]))
            }
            return (pending, done)
        }
    }

    /// Stores `features` of `track` in one transaction (a run stopped at any point keeps every
    /// track it finished), then the album gain of its album when every track of it is analyzed.
    /// A track whose file changed or was removed meanwhile is not stored; returns whether it was.
    @discardableResult
    public func saveFeatures(_ features: AudioFeatures, of track: AnalysisCandidate, now: Date = Date()) throws(SongboxError) -> Bool {
        try runner.write { db in
            let unchanged = try Bool.fetchOne(db, sql: "SELECT size = ? AND mtime = ? FROM tracks WHERE id = ?",
                                              arguments: [track.size, track.mtime, track.id]) ?? false
            guard unchanged else { return false }
            try db.execute(sql: """
                INSERT OR REPLACE INTO audio_features (track_id, size, mtime, version, analyzed, duration, tempo, tempo_alt,
                  beat_strength, beat_regularity, "key", key_strength, loudness, loudness_range, true_peak, track_gain,
                  track_peak, energy, danceability, valence, brightness, vector, histogram, mixramp_start, mixramp_end)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    track.id, track.size, track.mtime, TrackAnalyzer.version, Int64(now.timeIntervalSince1970), features.duration,
                    features.tempo, features.tempoAlternative, features.beatStrength, features.beatRegularity,
                    features.key?.description, features.keyStrength, features.loudness, features.loudnessRange, features.truePeak,
                    features.trackGain, features.trackPeak, features.energy, features.danceability, features.valence,
                    features.brightness, features.vector.map(Self.vectorBlob), Data(features.histogram.encoded),
                    Self.rampText(features.mixRampStart), Self.rampText(features.mixRampEnd),
                ])
            try Self.updateAlbumGain(of: track.id, in: db)
            return true
        }
    }

    private static func rampText(_ points: [LevelTime]) -> String? {
        MixRamp.Ramp(points.map { ($0.level, $0.seconds) })?.text
    }

    /// The MixRamp of the tracks `ids` that have one: each side from the file's tag when it
    /// has a usable one, else from the analysis of the file as it is now.
    public func mixRamps(of ids: [Int64]) throws(SongboxError) -> [Int64: MixRamp] {
        guard !ids.isEmpty else { return [:] }
        return try runner.read { db in
            var found: [Int64: MixRamp] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.id, coalesce(t.mixramp_start, f.mixramp_start), coalesce(t.mixramp_end, f.mixramp_end)
                FROM tracks t LEFT JOIN audio_features f ON f.track_id = t.id AND f.size = t.size AND f.mtime = t.mtime
                WHERE t.id IN (SELECT value FROM json_each(?))
                  AND coalesce(t.mixramp_start, f.mixramp_start, t.mixramp_end, f.mixramp_end) IS NOT NULL
                """, arguments: [LibrarySQL.jsonList(ids)])
            while let row = try rows.next() {
                // Text that is not a ramp (a damaged row) reads as none.
                found[row[0]] = MixRamp(start: String.fromDatabaseValue(row[1] as DatabaseValue),
                                        end: String.fromDatabaseValue(row[2] as DatabaseValue))
            }
            return found
        }
    }

    /// What is stored beyond the six fields every track shows; nil when the track (as its file is
    /// now) was not analyzed.
    public func storedFeatures(of trackID: Int64) throws(SongboxError) -> StoredFeatures? {
        try runner.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT f.* FROM audio_features f JOIN tracks t ON t.id = f.track_id
                WHERE f.track_id = ? AND f.size = t.size AND f.mtime = t.mtime
                """, arguments: [trackID]) else { return nil }
            let blob: Data? = row["vector"]
            return StoredFeatures(tempoAlternative: row["tempo_alt"], beatStrength: row["beat_strength"],
                                  beatRegularity: row["beat_regularity"], keyStrength: row["key_strength"],
                                  loudnessRange: row["loudness_range"], truePeak: row["true_peak"], trackGain: row["track_gain"],
                                  trackPeak: row["track_peak"], albumGain: row["album_gain"], brightness: row["brightness"],
                                  vector: blob.map(Self.vector), version: row["version"], analyzed: row["analyzed"])
        }
    }

    /// An album is the tracks sharing the album and album artist (else artist) keys. When each
    /// of them has current features, their histograms together give the album gain, stored on
    /// each; until then none has one.
    static func updateAlbumGain(of trackID: Int64, in db: Database) throws {
        let members = """
            SELECT m.id FROM tracks m, tracks t WHERE t.id = ? AND t.album_key IS NOT NULL AND m.missing_since IS NULL
              AND m.album_key = t.album_key
              AND coalesce(m.albumartist_key, m.artist_key, '') = coalesce(t.albumartist_key, t.artist_key, '')
            """
        let rows = try Row.fetchAll(db, sql: """
            SELECT a.id, f.histogram FROM (\(members)) a
            LEFT JOIN audio_features f ON f.track_id = a.id
              AND f.size = (SELECT size FROM tracks WHERE id = a.id) AND f.mtime = (SELECT mtime FROM tracks WHERE id = a.id)
            """, arguments: [trackID])
        var histograms: [LoudnessHistogram] = []
        for row in rows {
            guard let blob: Data = row[1], let histogram = LoudnessHistogram(encoded: [UInt8](blob)) else { return }
            histograms.append(histogram)
        }
        guard !histograms.isEmpty else { return }
        let gain = AlbumLoudness.gain(histograms)
        let ids = rows.map { $0[0] as Int64 }
        try db.execute(sql: "UPDATE audio_features SET album_gain = ? WHERE track_id IN (SELECT value FROM json_each(?))",
                       arguments: [gain, LibrarySQL.jsonList(ids)])
    }

    static func vectorBlob(_ vector: [Float]) -> Data {
        var data = Data(capacity: vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func vector(_ blob: Data) -> [Float] {
        [UInt8](blob).withUnsafeBytes { vector($0) }
    }

    /// Little-endian Float32s from raw bytes (a trailing partial one is dropped).
    static func vector(_ bytes: UnsafeRawBufferPointer) -> [Float] {
        // One typed step per byte: Swift 6.2 gives up type-checking the single expression.
        stride(from: 0, to: bytes.count - 3, by: 4).map { (offset: Int) -> Float in
            let low: UInt32 = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            let high: UInt32 = UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            return Float(bitPattern: low | high)
        }
    }
}
