import GRDB

/// Writes scan results into the `tracks` table.
enum TrackWriter {
    struct Counts: Sendable {
        var added = 0, updated = 0, moved = 0
        var unreadable: [(path: String, reason: String)] = []
        var warnings: [(path: String, message: String)] = []
    }

    static func store(_ batch: [(FoundFile, Result<ProbedFile, SongboxError>)],
                      knownPaths: [String: KnownFiles.Entry], moves: MoveCandidates, added: Int,
                      in db: Database) throws -> Counts {
        try SearchIndex.deferred(in: db) { try storeTracks(batch, knownPaths: knownPaths, moves: moves, added: added, in: db) }
    }

    private static func storeTracks(_ batch: [(FoundFile, Result<ProbedFile, SongboxError>)],
                                    knownPaths: [String: KnownFiles.Entry], moves: MoveCandidates, added: Int,
                                    in db: Database) throws -> (Counts, touched: [Int64]) {
        var counts = Counts()
        var touched: [Int64] = []
        for (file, result) in batch {
            switch result {
            case .failure(let error):
                let reason = error.cause.map { "\(error.message): \($0)" } ?? error.message
                try db.execute(sql: """
                    INSERT INTO unreadable (path, size, mtime, reason, at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
                      reason = excluded.reason, at = excluded.at
                    """, arguments: [file.path, file.size, file.mtime, reason, added])
                counts.unreadable.append((file.path, reason))
            case .success(let probed):
                let values = columnValues(file, probed)
                if let existing = knownPaths[file.path] {
                    try update(id: existing.id, values, in: db)
                    touched.append(existing.id)
                    counts.updated += 1
                } else if let moved = try movedTrack(file, probed, moves: moves, in: db) {
                    try update(id: moved, values, in: db)
                    moves.claim(moved, size: file.size)
                    touched.append(moved)
                    counts.moved += 1
                } else {
                    try db.cachedStatement(sql: insertSQL).run(binding: values.map(\.1) + [added.databaseValue])
                    touched.append(db.lastInsertedRowID)
                    counts.added += 1
                }
                try db.cachedStatement(sql: "DELETE FROM unreadable WHERE path = ?").execute(arguments: [file.path])
                counts.warnings += probed.warnings.map { (file.path, $0) }
            }
        }
        return (counts, touched)
    }

    private static func update(id: Int64, _ values: [(String, DatabaseValue)], in db: Database) throws {
        try db.cachedStatement(sql: updateSQL).run(binding: values.map(\.1) + [id.databaseValue])
    }

    /// The columns `columnValues` gives, in its order: the statements are written once, not for each file.
    private static let columns = columnValues(FoundFile(path: "", size: 0, mtime: 0),
                                              ProbedFile(tags: FileTags(), audio: AudioFacts(duration: 0, bitrate: 0, sampleRate: 0, channels: 0)))
        .map(\.0)
    private static let insertSQL = "INSERT INTO tracks (\((columns + ["added"]).joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ") + ")"
    private static let updateSQL = "UPDATE tracks SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// A vanished track with the same size, length, title and artist: the same file, moved.
    private static func movedTrack(_ file: FoundFile, _ probed: ProbedFile, moves: MoveCandidates,
                                   in db: Database) throws -> Int64? {
        for candidate in moves.candidates(size: file.size) {
            let row = try Row.fetchOne(db, sql: "SELECT duration, title, artist FROM tracks WHERE id = ?",
                                       arguments: [candidate])
            guard let row else { continue }
            let duration: Double = row[0]
            if abs(duration - probed.audio.duration) < 0.001, row[1] == probed.tags.title, row[2] == probed.tags.artist {
                return candidate
            }
        }
        return nil
    }

    /// Column values for a scanned file, in one fixed order.
    static func columnValues(_ file: FoundFile, _ probed: ProbedFile) -> [(String, DatabaseValue)] {
        let tags = probed.tags
        let audio = probed.audio
        return [
            ("path", file.path.databaseValue), ("size", file.size.databaseValue), ("mtime", file.mtime.databaseValue),
            ("title", tags.title.databaseValue), ("artist", tags.artist.databaseValue), ("album", tags.album.databaseValue),
            ("albumartist", tags.albumArtist.databaseValue), ("genre", tags.genre.databaseValue), ("comment", tags.comment.databaseValue),
            ("lyrics", tags.lyrics.databaseValue), ("year", tags.year.databaseValue), ("date", tags.date.databaseValue),
            ("track", tags.track.databaseValue), ("tracktotal", tags.trackTotal.databaseValue), ("disc", tags.disc.databaseValue),
            ("disctotal", tags.discTotal.databaseValue), ("has_picture", tags.hasPicture.databaseValue), ("isrc", tags.isrc.databaseValue),
            ("mb_trackid", tags.musicBrainzTrackID.databaseValue), ("mb_albumid", tags.musicBrainzAlbumID.databaseValue),
            ("mb_artistid", tags.musicBrainzArtistID.databaseValue), ("mb_albumartistid", tags.musicBrainzAlbumArtistID.databaseValue),
            ("mb_releasegroupid", tags.musicBrainzReleaseGroupID.databaseValue),
            ("rg_track_gain", tags.replayGainTrackGain.databaseValue), ("rg_track_peak", tags.replayGainTrackPeak.databaseValue),
            ("rg_album_gain", tags.replayGainAlbumGain.databaseValue), ("rg_album_peak", tags.replayGainAlbumPeak.databaseValue),
            ("mixramp_start", tags.mixRampStart.databaseValue), ("mixramp_end", tags.mixRampEnd.databaseValue),
            ("duration", audio.duration.databaseValue), ("bitrate", audio.bitrate.databaseValue), ("samplerate", audio.sampleRate.databaseValue),
            ("channels", audio.channels.databaseValue), ("bits", audio.bits.databaseValue),
            ("path_key", (SearchKey.fold(file.path) as String).databaseValue),  // `as`: Swift 6.2 finds the String? overload as good
            ("title_key", SearchKey.fold(tags.title).databaseValue), ("artist_key", SearchKey.fold(tags.artist).databaseValue),
            ("album_key", SearchKey.fold(tags.album).databaseValue), ("albumartist_key", SearchKey.fold(tags.albumArtist).databaseValue),
            ("genre_key", SearchKey.fold(tags.genre).databaseValue), ("comment_key", SearchKey.fold(tags.comment).databaseValue),
            ("lyrics_key", SearchKey.fold(tags.lyrics).databaseValue),
            ("lyrics_source", (probed.lyrics?.source.rawValue).databaseValue),
            ("lyrics_lines", probed.lyrics.flatMap { LyricLine.json($0.lines) }.databaseValue),
            ("lrc_mtime", probed.lrcMtime.databaseValue),
            // Found, so not missing: a missing track whose file is back is restored.
            ("missing_since", .null),
        ]
    }
}
