/// A field a query can name: `artist:`, `year:`, `sort:-plays`. The one table of them.
struct QueryField: Sendable, Equatable {
    /// What values a field takes, and so which operators and value forms it accepts.
    enum Kind: Sendable, Equatable {
        /// Searched through its folded twin: substring with `:`, whole value with `:=`.
        case text
        /// Integers or decimals: equality, ranges and comparisons.
        case number
        /// Unix seconds: absolute days, months and years, or relative to now (`-30d`).
        case date
        /// Seconds, written `90`, `3:30`, `1:02:03` or `1h30m`; compared in whole seconds.
        case duration
        /// 0 or 1, written true/false, yes/no, 1/0.
        case bool
        /// The tag's ISO text date (`1967`, `1967-05`, `1967-05-01`), compared as text.
        case tagDate
        /// Membership in a playlist (saved or smart), by name.
        case playlist
    }

    let name: String
    let kind: Kind
    /// The `library` column (or SQL expression) holding the value.
    let column: String
    /// The SQL expression that text matching and sorting compare, for text fields.
    let key: String?

    /// What `sort:` orders by: the folded key for text, else the column.
    var sortExpression: String { key ?? column }

    private init(_ name: String, _ kind: Kind, column: String? = nil, key: String? = nil) {
        self.name = name
        self.kind = kind
        self.column = column ?? name
        self.key = key
    }

    /// A tag searched through its `*_key` column of `SearchKey.fold` values.
    private static func folded(_ name: String) -> QueryField {
        QueryField(name, .text, key: name + "_key")
    }

    /// An identifier (ISRC, MusicBrainz id): ASCII, so lowercasing is its folding.
    private static func identifier(_ name: String) -> QueryField {
        QueryField(name, .text, key: "lower(\(name))")
    }

    static let all: [QueryField] = [
        folded("title"), folded("artist"), folded("album"), folded("albumartist"),
        folded("genre"), folded("comment"), folded("lyrics"), folded("path"),
        QueryField("year", .number), QueryField("date", .tagDate),
        QueryField("track", .number), QueryField("tracktotal", .number),
        QueryField("disc", .number), QueryField("disctotal", .number),
        QueryField("duration", .duration),
        QueryField("bitrate", .number), QueryField("samplerate", .number), QueryField("bits", .number),
        QueryField("channels", .number), QueryField("size", .number),
        QueryField("plays", .number), QueryField("skips", .number),
        QueryField("last_played", .date), QueryField("added", .date),
        QueryField("rating", .number), QueryField("liked", .bool), QueryField("has_picture", .bool),
        identifier("isrc"), identifier("mb_trackid"), identifier("mb_albumid"),
        identifier("mb_artistid"), identifier("mb_albumartistid"), identifier("mb_releasegroupid"),
        QueryField("id", .number),
        // From `songbox analyze`; a track not analyzed has none (docs/moods.md).
        QueryField("tempo", .number), QueryField("loudness", .number), QueryField("energy", .number),
        QueryField("danceability", .number), QueryField("valence", .number),
        QueryField("key", .text, column: "\"key\"", key: "lower(\"key\")"),
        // Remote tracks, and their copies kept for offline listening (docs/remote.md).
        QueryField("remote", .bool, column: "(path GLOB 'http://*' OR path GLOB 'https://*')"),
        QueryField("cached", .bool), QueryField("keep_offline", .bool),
        QueryField("playlist", .playlist, column: "id"),
    ]

    /// Other spellings of a field name.
    static let aliases = ["album_artist": "albumartist", "picture": "has_picture", "length": "duration", "bpm": "tempo"]

    /// Words that look like a field but steer the whole query.
    static let directives = ["sort", "limit"]

    /// The field called `name` (any case, aliases included).
    static func named(_ name: String) -> QueryField? {
        let name = name.lowercased()
        let canonical = aliases[name] ?? name
        return all.first { $0.name == canonical }
    }

    /// Known names close to a misspelt `name`, closest first: for "did you mean".
    static func suggestions(for name: String) -> [String] {
        let name = name.lowercased()
        let candidates = all.map(\.name) + aliases.keys.sorted() + directives
        let scored = candidates.compactMap { candidate -> (String, Int)? in
            let distance = Suggestions.distance(Array(name), Array(candidate))
            let related = candidate.hasPrefix(name) || name.hasPrefix(candidate)
            guard distance <= (name.count <= 3 ? 1 : 2) || (related && name.count >= 2) else { return nil }
            return (candidate, distance)
        }
        return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }
}
