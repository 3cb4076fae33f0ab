import Foundation
import GRDB

/// What the mood helpers (`songbox.mood.*`, `songbox.similar`) know of one analyzed track: its
/// features, its feature vector, and what decides whether it may be picked.
public struct MoodTrack: Sendable, Equatable {
    public var id: Int64
    public var duration: Double
    /// Unix seconds of the last counted play.
    public var lastPlayed: Int64?
    public var liked: Bool
    /// The user's override (`songbox edit ID language=he`), else the guess from the script of
    /// the title and artist (`TrackLanguage.guess`).
    public var language: String
    /// `MoodFeature.allCases` in order; nil where the analysis could not tell (a tone's tempo).
    public var features: [Double?]
    /// The analysis's feature vector (docs/moods.md); empty when none was stored.
    public var vector: [Float]

    public init(id: Int64, duration: Double, lastPlayed: Int64? = nil, liked: Bool = false, language: String = "other",
                features: [Double?], vector: [Float]) {
        self.id = id
        self.duration = duration
        self.lastPlayed = lastPlayed
        self.liked = liked
        self.language = language
        self.features = features
        self.vector = vector
    }

    public func value(_ feature: MoodFeature) -> Double? { features[feature.index] }
}

/// The features a mood's ranges may name.
public enum MoodFeature: String, CaseIterable, Sendable {
    case energy, valence, danceability, tempo, loudness

    /// Its place in `MoodTrack.features`.
    public var index: Int {
        switch self {
        case .energy: 0
        case .valence: 1
        case .danceability: 2
        case .tempo: 3
        case .loudness: 4
        }
    }

    /// How far outside a range a value may be before it scores 0: a quarter of the 0..1 scale,
    /// 25 BPM, 6 LU. Inside the range it scores 1; in between, linearly less.
    public var falloff: Double {
        switch self {
        case .energy, .valence, .danceability: 0.25
        case .tempo: 25
        case .loudness: 6
        }
    }
}

/// A track's language guessed from the script its title and artist are written in.
public enum TrackLanguage {
    /// `"he"` when the letters are mostly Hebrew, `"latin"` when mostly Latin, else `"other"`
    /// (another script, or no letters at all). Hebrew wins a tie: a Hebrew title with a Latin
    /// artist is a Hebrew song more often than not.
    public static func guess(title: String?, artist: String?) -> String {
        var hebrew = 0, latin = 0, other = 0
        for scalar in ((title ?? "") + " " + (artist ?? "")).unicodeScalars where scalar.properties.isAlphabetic {
            switch scalar.value {
            case 0x05D0...0x05EA, 0xFB1D...0xFB4F: hebrew += 1
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: latin += 1
            case 0x0591...0x05C7: break  // points and cantillation marks: not letters of their own
            default: other += 1
            }
        }
        if hebrew > 0, hebrew >= latin, hebrew >= other { return "he" }
        if latin > 0, latin >= other { return "latin" }
        return "other"
    }

    /// Whether `text` can be kept as a language override: 2 to 8 lowercase ASCII letters (`he`,
    /// `en`, `latin`).
    public static func isValid(_ text: String) -> Bool {
        (2...8).contains(text.utf8.count) && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }
}

extension TrackStore {
    /// The track's language as the mood helpers filter on it, and whether the user set it
    /// (`songbox edit ID language=he`) or it is guessed from the letters of its title and artist.
    public func language(of track: Track) throws(SongboxError) -> (language: String, guessed: Bool) {
        let set = try runner.read { db in
            try String.fetchOne(db, sql: "SELECT language FROM overrides WHERE track_id = ?", arguments: [track.id])
        }
        if let set { return (set, false) }
        return (TrackLanguage.guess(title: track.title, artist: track.artist), true)
    }

    /// Every track analyzed as its file is now, for the mood helpers, in id order. Read raw (no
    /// row objects): the first mood call of a state over 20,000 tracks waits for this.
    public func moodTracks() throws(SongboxError) -> [MoodTrack] {
        try runner.readRaw { reader in
            var tracks: [MoodTrack] = []
            try reader.forEachRow(of: RowStatement(sql: Self.moodTracksSQL, arguments: [])) { row in
                func text(_ column: Int32) -> String? { row.isNull(column) ? nil : String(decoding: row.utf8(column), as: UTF8.self) }
                func number(_ column: Int32) -> Double? {
                    guard !row.isNull(column) else { return nil }
                    let value = row.double(column)
                    return value.isFinite ? value : nil
                }
                let vector = row.isNull(12) ? [] : Self.vector(row.utf8(12))
                tracks.append(MoodTrack(id: row.int64(0), duration: row.double(1), lastPlayed: row.isNull(5) ? nil : row.int64(5),
                                        liked: row.int64(4) != 0,
                                        language: text(6) ?? TrackLanguage.guess(title: text(2), artist: text(3)),
                                        features: (7...11).map { number(Int32($0)) }, vector: vector))
            }
            return tracks
        }
    }

    /// The tables, not the `library` view (which joins `audio_features` once more).
    static let moodTracksSQL = """
        SELECT t.id, t.duration, coalesce(o.title, t.title), coalesce(o.artist, t.artist), coalesce(o.liked, 0), t.last_played,
          o.language, f.energy, f.valence, f.danceability, f.tempo, f.loudness, f.vector
        FROM audio_features f JOIN tracks t ON t.id = f.track_id AND t.size = f.size AND t.mtime = f.mtime AND t.missing_since IS NULL
        LEFT JOIN overrides o ON o.track_id = t.id
        ORDER BY t.id
        """

    // MARK: Feedback

    /// How often each track was skipped early while `mood` played (`mood_feedback`).
    public func moodSkips(_ mood: String) throws(SongboxError) -> [Int64: Int] {
        try runner.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT track_id, skips FROM mood_feedback WHERE mood = ?", arguments: [mood])
            return Dictionary(rows.map { ($0[0] as Int64, $0[1] as Int) }, uniquingKeysWith: { $1 })
        }
    }

    /// Counts one more early skip of `track` in `mood`; returns the count now.
    @discardableResult
    public func recordMoodSkip(_ track: Int64, mood: String) throws(SongboxError) -> Int {
        guard try self.track(id: track) != nil else {
            throw SongboxError(.notFound, "no track with id \(track)", hint: "find ids with `songbox ls`")
        }
        return try runner.write { db in
            try db.execute(sql: """
                INSERT INTO mood_feedback (mood, track_id, skips) VALUES (?, ?, 1)
                ON CONFLICT (mood, track_id) DO UPDATE SET skips = min(skips + 1, 1000)
                """, arguments: [mood, track])
            return try Int.fetchOne(db, sql: "SELECT skips FROM mood_feedback WHERE mood = ? AND track_id = ?",
                                    arguments: [mood, track]) ?? 1
        }
    }

    /// Forgets the skips kept for `mood` (of one track, or all); returns how many were kept.
    @discardableResult
    public func forgetMoodSkips(_ mood: String, track: Int64? = nil) throws(SongboxError) -> Int {
        try runner.write { db in
            if let track {
                try db.execute(sql: "DELETE FROM mood_feedback WHERE mood = ? AND track_id = ?", arguments: [mood, track])
            } else {
                try db.execute(sql: "DELETE FROM mood_feedback WHERE mood = ?", arguments: [mood])
            }
            return db.changesCount
        }
    }
}
