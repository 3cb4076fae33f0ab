import Foundation
import GRDB

/// Stickers: named values on songs, as MPD clients keep them (`sticker set song URI NAME VALUE`).
/// songbox's own facts are stickers too, so clients such as myMPD see them: `playCount`,
/// `skipCount` and `lastPlayed` (Unix seconds) come from the play history; a client's writes of
/// them (myMPD counts plays itself) are taken and change nothing, as the player's count is the
/// truth. `rating` (0 to 10, MPD clients' scale: songbox keeps 1 to 5 stars, so a value is
/// halved, rounding up) and `like` (2: liked, 0 or 1: not) are the user's overrides, the same
/// ones `songbox edit` sets; the value a client set is kept beside them and read back while the
/// override still says the same (a 7 reads 7, not 8; a dislike, 0, reads 0). Other names are
/// kept as given.
extension TrackStore {
    /// The stickers that are songbox's statistics: writes of them are taken and ignored.
    public static let statisticStickers = ["playCount", "skipCount", "lastPlayed"]
    /// The stickers that are songbox's overrides.
    public static let overrideStickers = ["rating", "like"]

    /// Every sticker of a track, by name.
    public func stickers(of trackID: Int64) throws(SongboxError) -> [(name: String, value: String)] {
        guard let track = try track(id: trackID) else { throw Self.noTrack(trackID) }
        let stored = try runner.read { db in
            try Row.fetchAll(db, sql: "SELECT name, value FROM stickers WHERE track_id = ? ORDER BY name", arguments: [trackID])
                .map { (name: $0["name"] as String, value: $0["value"] as String) }
        }
        let asSet = Dictionary(stored.filter { Self.overrideStickers.contains($0.name) }, uniquingKeysWith: { first, _ in first })
        return Self.ownStickers(track, asSet: asSet) + stored.filter { !Self.overrideStickers.contains($0.name) }
    }

    /// One sticker's value; nil when the track has none of that name.
    public func sticker(_ name: String, of trackID: Int64) throws(SongboxError) -> String? {
        try stickers(of: trackID).first { $0.name == name }?.value
    }

    public func setSticker(_ name: String, to value: String, of trackID: Int64) throws(SongboxError) {
        try Self.checkStickerName(name)
        guard try track(id: trackID) != nil else { throw Self.noTrack(trackID) }
        switch name {
        case _ where Self.statisticStickers.contains(name):
            return  // the player's count is the truth
        case "rating", "like":
            // A client may pad numbers with zeros (myMPD's `stickers_pad_int`): the number is what counts.
            let range = name == "rating" ? 0...10 : 0...2
            guard let number = Int(value), range.contains(number) else {
                throw SongboxError(.invalidArgument, name == "rating" ? "the rating sticker is 0 to 10, got '\(value)'"
                                   : "the like sticker is 0 (hate), 1 (neutral) or 2 (love), got '\(value)'")
            }
            let edit = name == "rating" ? TrackEdit(field: .rating, value: number == 0 ? nil : (number + 1) / 2)
                : TrackEdit(field: .liked, value: number == 2 ? 1 : nil)
            try apply([edit], to: trackID)
            try runner.write { db in
                try db.execute(sql: """
                    INSERT INTO stickers (track_id, name, value) VALUES (?, ?, ?)
                    ON CONFLICT (track_id, name) DO UPDATE SET value = excluded.value
                    """, arguments: [trackID, name, String(number)])
            }
        default:
            try runner.write { db in
                try db.execute(sql: """
                    INSERT INTO stickers (track_id, name, value) VALUES (?, ?, ?)
                    ON CONFLICT (track_id, name) DO UPDATE SET value = excluded.value
                    """, arguments: [trackID, name, value])
            }
        }
    }

    /// Deletes one sticker (or, with nil, every sticker that can be deleted); false when there
    /// was none.
    @discardableResult
    public func deleteSticker(_ name: String?, of trackID: Int64) throws(SongboxError) -> Bool {
        if let name { try Self.checkStickerName(name) }
        guard try track(id: trackID) != nil else { throw Self.noTrack(trackID) }
        // The player's counts stay: deleting one is taken and changes nothing.
        if let name, Self.statisticStickers.contains(name) { return true }
        var deleted = false
        if name == nil || name.map(Self.overrideStickers.contains) == true {
            let had = try stickers(of: trackID).contains { Self.overrideStickers.contains($0.name) && (name == nil || $0.name == name) }
            let fields: [TrackEdit.Field] = name == "rating" ? [.rating] : name == "like" ? [.liked] : [.rating, .liked]
            try apply(fields.map { TrackEdit(field: $0, value: nil) }, to: trackID)
            deleted = deleted || had
        }
        // The values a client set of `rating` and `like` go with them.
        let changes = try runner.write { db in
            try db.execute(sql: "DELETE FROM stickers WHERE track_id = ? AND (? IS NULL OR name = ?)", arguments: [trackID, name, name])
            return db.changesCount
        }
        return deleted || (changes > 0 && name.map(Self.overrideStickers.contains) != true)
    }

    /// The tracks under `folder` (a path; "/" or empty: all) that have the sticker `name`, with
    /// its value, in path order; `matching` keeps only values it accepts.
    public func withSticker(_ name: String, under folder: String,
                       matching: @escaping @Sendable (String) -> Bool = { _ in true }) throws(SongboxError) -> [(path: String, value: String)] {
        let prefix = folder.isEmpty || folder == "/" ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
        return try runner.read { db in
            var found: [(path: String, value: String)] = []
            let own = Self.statisticStickers.contains(name) || Self.overrideStickers.contains(name)
            let asSet = own ? try Dictionary(Row.fetchAll(db, sql: "SELECT track_id, value FROM stickers WHERE name = ?", arguments: [name])
                .map { ($0[0] as Int64, [name: $0[1] as String]) }, uniquingKeysWith: { first, _ in first }) : [:]
            let sql = own
                ? "SELECT * FROM library WHERE substr(path, 1, ?) = ? ORDER BY path"
                : "SELECT l.path, s.value FROM stickers s JOIN library l ON l.id = s.track_id WHERE s.name = ? AND substr(l.path, 1, ?) = ? ORDER BY l.path"
            let arguments: StatementArguments = own ? [prefix.count, prefix] : [name, prefix.count, prefix]
            if own {
                let cursor = try Track.fetchCursor(db, sql: sql, arguments: arguments)
                while let track = try cursor.next() {
                    if let value = Self.ownStickers(track, asSet: asSet[track.id] ?? [:]).first(where: { $0.name == name })?.value,
                       matching(value) {
                        found.append((track.path, value))
                    }
                }
            } else {
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) where matching(row[1]) {
                    found.append((row[0], row[1]))
                }
            }
            return found
        }
    }

    /// The name of every sticker some track has, songbox's own among them, in byte order (MPD's
    /// `stickernames`).
    public func stickerNames() throws(SongboxError) -> [String] {
        try runner.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM stickers
                UNION SELECT 'playCount' WHERE EXISTS (SELECT 1 FROM library)
                UNION SELECT 'skipCount' WHERE EXISTS (SELECT 1 FROM library)
                UNION SELECT 'lastPlayed' WHERE EXISTS (SELECT 1 FROM library WHERE last_played IS NOT NULL)
                UNION SELECT 'rating' WHERE EXISTS (SELECT 1 FROM library WHERE rating IS NOT NULL)
                UNION SELECT 'like' WHERE EXISTS (SELECT 1 FROM library WHERE liked)
                ORDER BY 1
                """)
        }
    }

    /// songbox's facts as stickers: those that have a value. `asSet`: the `rating` and `like` a
    /// client set, read back while the override still says the same.
    static func ownStickers(_ track: Track, asSet: [String: String] = [:]) -> [(name: String, value: String)] {
        var own: [(name: String, value: String)] = [("playCount", String(track.plays)), ("skipCount", String(track.skips))]
        if let last = track.lastPlayed { own.append(("lastPlayed", String(last))) }
        let rating = asSet["rating"].flatMap(Int.init)
        if let rating, (rating == 0 ? nil : (rating + 1) / 2) == track.rating {
            own.append(("rating", String(rating)))
        } else if let stars = track.rating {
            own.append(("rating", String(stars * 2)))
        }
        let like = asSet["like"].flatMap(Int.init)
        if let like, (like == 2) == track.liked {
            own.append(("like", String(like)))
        } else if track.liked {
            own.append(("like", "2"))
        }
        return own
    }

    static func checkStickerName(_ name: String) throws(SongboxError) {
        guard !name.isEmpty, !name.contains("="), !name.contains("\n") else {
            throw SongboxError(.invalidArgument, "a sticker name is text without '=' or line breaks, got '\(name)'")
        }
    }

    static func noTrack(_ id: Int64) -> SongboxError { SongboxError(.notFound, "no track with id \(id)") }
}
