import GRDB

/// Versioned schema. Never edit a shipped migration: add a new one.
enum Schema {
    /// Text columns that are searched get a folded twin (`title_key`, ...): see `SearchKey`.
    static let searchableTagColumns = ["title", "artist", "album", "albumartist", "genre", "comment", "lyrics"]

    /// Brings the database to the current schema. `user_version` counts the migrations applied,
    /// so opening an up-to-date database costs one read transaction (the version, no unknown
    /// migration, every table there) and no write.
    /// `beforeChanging` runs before a migration writes (it takes the lock that makes one
    /// process at a time do it; the migrator then finds what another process already did).
    static func migrate(_ writer: any DatabaseWriter, beforeChanging: () -> Void = {}) throws {
        let migrator = Self.migrator
        let current = try writer.read { db in
            let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            let superseded = try migrator.hasBeenSuperseded(db)
            if current > migrationCount || superseded {
                throw SongboxError(.databaseUnavailable, "the library was written by a newer songbox (schema \(current); this one knows \(migrationCount)): it is left as it is", hint: "run the songbox that wrote it, or a newer one")
            }
            if current == migrationCount { try checkObjects(db) }
            if current == 0 { try checkNotAnother(db) }
            return current
        }
        guard current != migrationCount else { return }
        beforeChanging()
        try migrator.migrate(writer)
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(migrationCount)") }
        try writer.read { db in try checkObjects(db) }
    }

    /// A database with tables but none of songbox's migrations is another program's: songbox
    /// would otherwise add its tables to it.
    static func checkNotAnother(_ db: Database) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        guard !tables.isEmpty, !tables.contains("grdb_migrations") else { return }
        throw SongboxError.notALibrary(at: nil)
    }

    /// Every table and view the schema makes: one that was dropped (by hand, or a broken copy)
    /// is reported at open instead of failing some later command with a bare SQLite error.
    static let objects = ["tracks", "overrides", "history", "playlists", "playlist_items", "folders", "excluded",
                          "unreadable", "search_index_state", "track_search", "highlights", "saved_state", "library", "stickers", "audio_features", "mood_feedback", "offline"]

    static func checkObjects(_ db: Database) throws {
        let present = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
        let missing = objects.filter { !present.contains($0) }
        guard missing.isEmpty else {
            throw SongboxError(.databaseUnavailable, Message(count: missing.count, one: "the library database is damaged: no \(missing.joined(separator: ", ")) table",
                                                             other: "the library database is damaged: no \(missing.joined(separator: ", ")) tables"),
                               hint: "restore it from a backup, or move it away and scan again (play history would be lost)")
        }
    }

    /// The schema version a library of this songbox has (`PRAGMA user_version`).
    static let migrationCount = migrator.migrations.count

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tracks, overrides, history, playlists") { db in
            try db.execute(sql: """
                CREATE TABLE tracks (
                  id INTEGER PRIMARY KEY,
                  path TEXT NOT NULL UNIQUE,
                  size INTEGER NOT NULL,
                  mtime INTEGER NOT NULL,              -- nanoseconds since 1970
                  title TEXT, artist TEXT, album TEXT, albumartist TEXT, genre TEXT,
                  comment TEXT, lyrics TEXT,
                  year INTEGER, date TEXT,
                  track INTEGER, tracktotal INTEGER, disc INTEGER, disctotal INTEGER,
                  has_picture INTEGER NOT NULL DEFAULT 0,
                  isrc TEXT,
                  mb_trackid TEXT, mb_albumid TEXT, mb_artistid TEXT, mb_albumartistid TEXT,
                  mb_releasegroupid TEXT,
                  rg_track_gain REAL, rg_track_peak REAL, rg_album_gain REAL, rg_album_peak REAL,
                  duration REAL NOT NULL,              -- seconds, exact (gapless)
                  bitrate INTEGER,                     -- kbit/s, average
                  samplerate INTEGER, channels INTEGER,
                  added INTEGER NOT NULL,              -- unix seconds
                  plays INTEGER NOT NULL DEFAULT 0,    -- maintained from history by a trigger
                  skips INTEGER NOT NULL DEFAULT 0,
                  last_played INTEGER,
                  path_key TEXT NOT NULL,
                  title_key TEXT, artist_key TEXT, album_key TEXT, albumartist_key TEXT,
                  genre_key TEXT, comment_key TEXT, lyrics_key TEXT
                );
                CREATE INDEX tracks_by_artist ON tracks(artist_key);
                CREATE INDEX tracks_by_album ON tracks(album_key);

                -- A user's edits. The music files are never written.
                CREATE TABLE overrides (
                  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                  title TEXT, artist TEXT, album TEXT, genre TEXT, year INTEGER,
                  rating INTEGER CHECK (rating BETWEEN 1 AND 5),
                  liked INTEGER CHECK (liked IN (0, 1)),
                  title_key TEXT, artist_key TEXT, album_key TEXT, genre_key TEXT
                );

                -- One row per play or skip. Snapshots of path, artist and title keep a row
                -- meaningful after its track is removed.
                CREATE TABLE history (
                  id INTEGER PRIMARY KEY,
                  track_id INTEGER REFERENCES tracks(id) ON DELETE SET NULL,
                  path TEXT NOT NULL, artist TEXT, title TEXT,
                  kind TEXT NOT NULL CHECK (kind IN ('play', 'skip')),
                  reason TEXT NOT NULL,
                  played REAL NOT NULL,                -- seconds heard
                  at INTEGER NOT NULL                  -- unix seconds
                );
                CREATE INDEX history_by_track ON history(track_id, at);
                CREATE INDEX history_by_time ON history(at);
                CREATE TRIGGER history_counts AFTER INSERT ON history WHEN NEW.track_id IS NOT NULL
                BEGIN
                  UPDATE tracks SET
                    plays = plays + (NEW.kind = 'play'),
                    skips = skips + (NEW.kind = 'skip'),
                    last_played = CASE WHEN NEW.kind = 'play'
                                  THEN max(coalesce(last_played, 0), NEW.at) ELSE last_played END
                  WHERE id = NEW.track_id;
                END;

                CREATE TABLE playlists (
                  id INTEGER PRIMARY KEY,
                  name TEXT NOT NULL UNIQUE,
                  query TEXT,                          -- set for a smart playlist
                  created INTEGER NOT NULL,
                  modified INTEGER NOT NULL
                );
                CREATE TABLE playlist_items (
                  playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
                  position INTEGER NOT NULL,
                  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                  PRIMARY KEY (playlist_id, position)
                );

                -- Folders a scan without arguments goes over.
                CREATE TABLE folders (path TEXT PRIMARY KEY, added INTEGER NOT NULL);
                -- Files the user removed with `songbox rm`: later scans leave them out.
                CREATE TABLE excluded (path TEXT PRIMARY KEY, at INTEGER NOT NULL);
                -- Files a scan could not read, with the reason; retried when they change.
                CREATE TABLE unreadable (
                  path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                  reason TEXT NOT NULL, at INTEGER NOT NULL
                );

                -- What every reader sees: file tags with the user's overrides on top.
                CREATE VIEW library AS
                SELECT t.id, t.path,
                  coalesce(o.title, t.title) AS title,
                  coalesce(o.artist, t.artist) AS artist,
                  coalesce(o.album, t.album) AS album,
                  t.albumartist,
                  coalesce(o.genre, t.genre) AS genre,
                  t.comment, t.lyrics,
                  coalesce(o.year, t.year) AS year, t.date,
                  t.track, t.tracktotal, t.disc, t.disctotal, t.has_picture, t.isrc,
                  t.mb_trackid, t.mb_albumid, t.mb_artistid, t.mb_albumartistid, t.mb_releasegroupid,
                  t.rg_track_gain, t.rg_track_peak, t.rg_album_gain, t.rg_album_peak,
                  t.duration, t.bitrate, t.samplerate, t.channels, t.size, t.mtime,
                  t.added, t.plays, t.skips, t.last_played,
                  o.rating AS rating, coalesce(o.liked, 0) AS liked,
                  t.path_key,
                  coalesce(o.title_key, t.title_key) AS title_key,
                  coalesce(o.artist_key, t.artist_key) AS artist_key,
                  coalesce(o.album_key, t.album_key) AS album_key,
                  t.albumartist_key,
                  coalesce(o.genre_key, t.genre_key) AS genre_key,
                  t.comment_key, t.lyrics_key
                FROM tracks t LEFT JOIN overrides o ON o.track_id = t.id;
                """)
        }
        migrator.registerMigration("v2: trigram search index") { db in
            // Substring search on the four keys free words search, through an FTS5 trigram
            // index instead of a scan of every row. It indexes the keys as the `library` view
            // shows them (overrides applied). Triggers keep it in step with both tables, except
            // inside a scan's batch, which turns them off (`search_index_state.live = 0`) and
            // refreshes the rows it wrote in one statement (`SearchIndex.refresh`): per-row
            // upkeep doubled the time of a full scan.
            let columns = SearchIndex.columns.joined(separator: ", ")
            let live = "WHEN (SELECT live FROM search_index_state)"
            try db.execute(sql: """
                CREATE TABLE search_index_state (live INTEGER NOT NULL);
                INSERT INTO search_index_state (live) VALUES (1);
                CREATE VIRTUAL TABLE track_search USING fts5(\(columns), tokenize = 'trigram case_sensitive 1', detail = none);
                INSERT INTO track_search (rowid, \(columns)) SELECT id, \(columns) FROM library;
                CREATE TRIGGER track_search_insert AFTER INSERT ON tracks \(live) BEGIN \(SearchIndex.refreshSQL("NEW.id")) END;
                CREATE TRIGGER track_search_update AFTER UPDATE OF \(columns) ON tracks \(live) BEGIN \(SearchIndex.refreshSQL("NEW.id")) END;
                CREATE TRIGGER track_search_delete AFTER DELETE ON tracks BEGIN
                  DELETE FROM track_search WHERE rowid = OLD.id;
                END;
                CREATE TRIGGER track_search_override_insert AFTER INSERT ON overrides BEGIN \(SearchIndex.refreshSQL("NEW.track_id")) END;
                CREATE TRIGGER track_search_override_update AFTER UPDATE ON overrides BEGIN \(SearchIndex.refreshSQL("NEW.track_id")) END;
                CREATE TRIGGER track_search_override_delete AFTER DELETE ON overrides BEGIN \(SearchIndex.refreshSQL("OLD.track_id")) END;
                """)
        }
        migrator.registerMigration("v3: highlights, saved player state") { db in
            try db.execute(sql: """
                -- The part of a track the highlights mode plays (seconds).
                CREATE TABLE highlights (
                  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                  start REAL NOT NULL CHECK (start >= 0),
                  "end" REAL NOT NULL CHECK ("end" > start)
                );
                -- Named blobs the player and the daemon keep across restarts (the queue, ...).
                CREATE TABLE saved_state (
                  name TEXT PRIMARY KEY,
                  value BLOB NOT NULL,
                  updated INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4: smart playlists defined by a script function") { db in
            // A smart playlist has a query, or a Lua function: then `script` is the file that
            // defines it (an absolute path) and `script_function` the name it was defined under
            // there, which a rename of the playlist keeps.
            try db.execute(sql: """
                ALTER TABLE playlists ADD COLUMN script TEXT;
                ALTER TABLE playlists ADD COLUMN script_function TEXT;
                """)
        }
        migrator.registerMigration("v5: missing tracks, folder devices") { db in
            // A track whose file a scan did not find is marked missing instead of deleted: it
            // leaves every listing but keeps its id, history, overrides and playlist places, and
            // comes back as it was when its file reappears. `folders.device` is the filesystem a
            // folder was on when it was scanned, so an unmounted drive is told from deleted files.
            try db.execute(sql: """
                ALTER TABLE tracks ADD COLUMN missing_since INTEGER;  -- unix seconds
                ALTER TABLE folders ADD COLUMN device INTEGER;
                """)
            // The view as v1 made it, restricted to tracks that are not missing.
            let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'library'")
            guard let definition, definition.hasSuffix("FROM tracks t LEFT JOIN overrides o ON o.track_id = t.id") else {
                throw SongboxError(.databaseFailed, "the library view is not the one this migration expects")
            }
            try db.execute(sql: "DROP VIEW library")
            try db.execute(sql: definition + " WHERE t.missing_since IS NULL")
        }
        migrator.registerMigration("v6: stickers") { db in
            // MPD clients' own values on songs (`sticker set`), kept with the track: a missing
            // track keeps them, a removed one loses them.
            try db.execute(sql: """
                CREATE TABLE stickers (
                  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                  name TEXT NOT NULL,
                  value TEXT NOT NULL,
                  PRIMARY KEY (track_id, name)
                ) WITHOUT ROWID;
                CREATE INDEX stickers_by_name ON stickers(name);
                """)
        }
        migrator.registerMigration("v7: audio features") { db in
            // What `songbox analyze` measured in a track's audio (SongboxAnalysis), with the file's
            // size and mtime then: the `library` view shows the features only while the file is
            // the one analyzed, and `analyze` does a changed file again. `version` is the
            // analyzer's (`TrackAnalyzer.version`): a newer one redoes older rows. `histogram`
            // holds the gated 400 ms blocks' loudness (`LoudnessHistogram.encoded`), which
            // summed over an album's tracks give its ReplayGain album gain.
            try db.execute(sql: """
                CREATE TABLE audio_features (
                  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                  size INTEGER NOT NULL,
                  mtime INTEGER NOT NULL,
                  version INTEGER NOT NULL,
                  analyzed INTEGER NOT NULL,             -- unix seconds
                  duration REAL NOT NULL,                -- seconds decoded
                  tempo REAL, tempo_alt REAL,            -- BPM; tempo_alt: a likely half or double
                  beat_strength REAL, beat_regularity REAL,
                  "key" TEXT, key_strength REAL,         -- "A minor"
                  loudness REAL, loudness_range REAL,    -- LUFS, LU (EBU R128)
                  true_peak REAL,                        -- dBTP
                  track_gain REAL, track_peak REAL,      -- ReplayGain 2.0: dB to -18 LUFS, linear peak
                  album_gain REAL,                       -- set once every track of the album is analyzed
                  energy REAL, danceability REAL, valence REAL,
                  brightness REAL,
                  vector BLOB,                           -- FeatureVector: little-endian Float32s
                  histogram BLOB NOT NULL
                );
                """)
            // The view as v5 made it, with the six features every reader sees.
            let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'library'")
            let join = "FROM tracks t LEFT JOIN overrides o ON o.track_id = t.id"
            guard let definition, definition.components(separatedBy: join).count == 2 else {
                throw SongboxError(.databaseFailed, "the library view is not the one this migration expects")
            }
            let features = ", f.tempo AS tempo, f.\"key\" AS \"key\", f.loudness AS loudness, f.energy AS energy, "
                + "f.danceability AS danceability, f.valence AS valence "
            let featureJoin = " LEFT JOIN audio_features f ON f.track_id = t.id AND f.size = t.size AND f.mtime = t.mtime"
            try db.execute(sql: "DROP VIEW library")
            try db.execute(sql: definition.replacingOccurrences(of: join, with: features + join + featureJoin))
        }
        migrator.registerMigration("v8: lyrics and art") { db in
            // Where a track's lyrics came from (`Lyrics.Source`: unsynced, synced, lrc) and its
            // timed lines as JSON (`[{"ms":..,"text":..}]`); `lyrics` and `lyrics_key` keep the
            // words for search. `lrc_mtime` is the `.lrc` file's modification time when one
            // was read, so a scan notices a new, changed or removed `.lrc`. Pictures are found
            // when asked for (`ArtLocator`): `has_picture` says a tag has one.
            try db.execute(sql: """
                ALTER TABLE tracks ADD COLUMN lyrics_source TEXT;
                ALTER TABLE tracks ADD COLUMN lyrics_lines TEXT;
                ALTER TABLE tracks ADD COLUMN lrc_mtime INTEGER;
                UPDATE tracks SET lyrics_source = 'unsynced' WHERE lyrics IS NOT NULL;
                """)
        }
        migrator.registerMigration("v9: moods") { db in
            // `language`: the user's word on a track's language (`songbox edit ID language=he`),
            // over the guess from the script of its title and artist. `mood_feedback`: how often
            // a track was skipped early while a mood played, per mood (docs/moods.md).
            try db.execute(sql: """
                ALTER TABLE overrides ADD COLUMN language TEXT;
                CREATE TABLE mood_feedback (
                  mood TEXT NOT NULL,
                  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                  skips INTEGER NOT NULL,
                  PRIMARY KEY (mood, track_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v10: remote tracks offline") { db in
            // A remote track (its `path` a URL, `songbox add-url`) kept for offline listening:
            // `pinned` is its `keep_offline` flag (never evicted); `file` the cache file's name
            // once the download is complete, and its `size`. A partial download has no row
            // with `complete = 1`: it is never played as if whole.
            try db.execute(sql: """
                CREATE TABLE offline (
                  track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                  pinned INTEGER NOT NULL DEFAULT 0,
                  complete INTEGER NOT NULL DEFAULT 0,
                  file TEXT,
                  size INTEGER NOT NULL DEFAULT 0,
                  cached_at INTEGER
                );
                """)
            // Every reader sees the two flags: `keep_offline` (pinned) and `cached` (a complete copy).
            let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'library'")
            let join = "FROM tracks t LEFT JOIN overrides o ON o.track_id = t.id"
            guard let definition, definition.components(separatedBy: join).count == 2 else {
                throw SongboxError(.databaseFailed, "the library view is not the one this migration expects")
            }
            let flags = ", coalesce(x.pinned, 0) AS keep_offline, coalesce(x.complete, 0) AS cached "
            try db.execute(sql: "DROP VIEW library")
            try db.execute(sql: definition.replacingOccurrences(of: join, with: flags + join + " LEFT JOIN offline x ON x.track_id = t.id"))
        }
        migrator.registerMigration("v11: present paths") { db in
            // The paths of the tracks that are there, in order: a folder's listing (MPD's
            // listall, lsinfo) reads this index alone, not each track's row for `missing_since`
            // (which the index holds so that SQLite takes it as covering).
            try db.execute(sql: "CREATE INDEX tracks_present_paths ON tracks(path, missing_since) WHERE missing_since IS NULL")
        }
        migrator.registerMigration("v12: bits per sample") { db in
            // A lossless file's bits per sample (MPD's `Format: 44100:16:2`); NULL for lossy ones.
            try db.execute(sql: "ALTER TABLE tracks ADD COLUMN bits INTEGER")
            let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'library'")
            let columns = "t.samplerate, t.channels,"
            guard let definition, definition.components(separatedBy: columns).count == 2 else {
                throw SongboxError(.databaseFailed, "the library view is not the one this migration expects")
            }
            try db.execute(sql: "DROP VIEW library")
            try db.execute(sql: definition.replacingOccurrences(of: columns, with: columns + " t.bits,"))
            // The lossless files scanned before are read again by the next scan, once, for their bits.
            try db.execute(sql: """
                UPDATE tracks SET mtime = -1
                WHERE lower(path) GLOB '*.flac' OR lower(path) GLOB '*.oga' OR lower(path) GLOB '*.ogg'
                   OR lower(path) GLOB '*.wav' OR lower(path) GLOB '*.wave' OR lower(path) GLOB '*.aif*'
                   OR lower(path) GLOB '*.m4a' OR lower(path) GLOB '*.m4b' OR lower(path) GLOB '*.mp4'
                """)
        }
        migrator.registerMigration("v13: MixRamp") { db in
            // Where a track's level rises at its start and falls at its end (`MixRamp.Ramp`
            // text, "dB seconds;..."): from the file's MIXRAMP_START and MIXRAMP_END tags on
            // `tracks`, from `analyze` on `audio_features`. The player reads them when a track
            // is queued, so placing a MixRamp crossfade costs nothing at play time.
            try db.execute(sql: """
                ALTER TABLE tracks ADD COLUMN mixramp_start TEXT;
                ALTER TABLE tracks ADD COLUMN mixramp_end TEXT;
                ALTER TABLE audio_features ADD COLUMN mixramp_start TEXT;
                ALTER TABLE audio_features ADD COLUMN mixramp_end TEXT;
                """)
        }
        return migrator
    }
}

/// The FTS5 trigram index over search keys (`track_search`).
enum SearchIndex {
    static let columns = ["title_key", "artist_key", "album_key", "albumartist_key"]

    /// SQL that re-indexes the tracks `ids` selects (one id expression, or `IN (...)` of many).
    static func refreshSQL(_ id: String, many: Bool = false) -> String {
        let match = many ? "IN (\(id))" : "= \(id)"
        let list = columns.joined(separator: ", ")
        return "DELETE FROM track_search WHERE rowid \(match); "
            + "INSERT INTO track_search (rowid, \(list)) SELECT id, \(list) FROM library WHERE id \(match);"
    }

    /// Runs `body` (a batch of track writes) with the per-row triggers off, then re-indexes the
    /// tracks it returns, all in the caller's transaction.
    static func deferred<T>(in db: Database, _ body: () throws -> (T, touched: [Int64])) throws -> T {
        try db.execute(sql: "UPDATE search_index_state SET live = 0")
        let (result, touched) = try body()
        if !touched.isEmpty {
            try db.execute(sql: refreshSQL(touched.map(String.init).joined(separator: ","), many: true))
        }
        try db.execute(sql: "UPDATE search_index_state SET live = 1")
        return result
    }

    /// Trigrams need three characters; shorter values are matched by a scan.
    static func canServe(_ folded: String) -> Bool { folded.unicodeScalars.count >= 3 }

    /// A GLOB pattern matching text that contains `folded`, which the trigram index answers
    /// (GLOB, case-sensitive like the folded keys; `*`, `?` and `[` in the value escaped).
    static func containsPattern(_ folded: String) -> String {
        var pattern = "*"
        for character in folded {
            switch character {
            case "*", "?", "[": pattern += "[\(character)]"
            default: pattern.append(character)
            }
        }
        return pattern + "*"
    }
}
