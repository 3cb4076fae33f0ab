import Foundation

/// One field of a track as songbox shows it outside Swift: in `--json` output and as a Lua
/// table. Both read the same list, so a field has one name and one form everywhere.
public enum FieldValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    /// No value: `null` in JSON, absent in Lua.
    case missing

    init(_ text: String?) { self = text.map { .text($0) } ?? .missing }
    init(_ number: Int?) { self = number.map { .integer(Int64($0)) } ?? .missing }
    init(_ number: Double?) { self = number.map { .number($0) } ?? .missing }
    /// Unix seconds as an ISO 8601 date (UTC).
    public init(date seconds: Int64?) { self = seconds.map { .text(Self.isoDate($0)) } ?? .missing }

    /// Seconds as shown: rounded to the millisecond.
    public static func duration(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// Unix seconds as ISO 8601 (UTC), the one form dates take in JSON and in Lua:
    /// `2026-11-22T10:00:00Z`, exactly as `Date.formatted(.iso8601)` writes it.
    public static func isoDate(_ seconds: Int64) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: isoDateLength) { buffer in
            guard writeISODate(seconds, into: buffer) else {
                return Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
            }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// The length of an ISO date written by `writeISODate`.
    public static let isoDateLength = 20

    /// Writes `isoDate(seconds)` into `buffer` (`isoDateLength` bytes) without Foundation, for the
    /// years 1583 to 9999; false outside them (Foundation's calendar is Julian before October
    /// 1582, and its years stop having four digits after 9999: use `isoDate` there).
    public static func writeISODate(_ seconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        // 1583-01-01T00:00:00Z ... 9999-12-31T23:59:59Z
        guard seconds >= -12_212_553_600, seconds <= 253_402_300_799, buffer.count >= isoDateLength else { return false }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = Int(seconds - days * 86_400)
        // Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097                                                    // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)      // 0...365, from March 1
        let shiftedMonth = (5 * dayOfYear + 2) / 153                                        // 0...11, March = 0
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)

        func put(_ value: Int, _ digits: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                buffer[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        put(year, 4, at: 0); buffer[4] = UInt8(ascii: "-")
        put(month, 2, at: 5); buffer[7] = UInt8(ascii: "-")
        put(day, 2, at: 8); buffer[10] = UInt8(ascii: "T")
        put(second / 3600, 2, at: 11); buffer[13] = UInt8(ascii: ":")
        put(second / 60 % 60, 2, at: 14); buffer[16] = UInt8(ascii: ":")
        put(second % 60, 2, at: 17); buffer[19] = UInt8(ascii: "Z")
        return true
    }
}

/// A field of a track as scripts and `--json` see it. The one list of them (`TrackField.all`)
/// makes both `Track.allFields` and the tables the Lua library API builds straight from SQLite
/// rows, so a field has one name and one form on every path.
public struct TrackField: Sendable {
    /// How the field's column of the `library` view becomes its value.
    public enum Kind: Sendable, Equatable {
        /// Text; NULL is missing.
        case text
        /// An integer; NULL is missing.
        case integer
        /// A float; NULL is missing.
        case number
        /// 0 or 1; NULL is false.
        case boolean
        /// Unix seconds shown as an ISO 8601 date (`FieldValue.isoDate`); NULL is missing.
        case date
        /// Seconds as a float rounded to the millisecond (`FieldValue.duration`).
        case duration
    }

    /// The name in `--json` output and in Lua, which is also the column's name in the `library` view.
    public let name: String
    public let kind: Kind
    /// The field's value for a decoded track, in the form `kind` says.
    public let value: @Sendable (Track) -> FieldValue

    /// The column of the `library` view the field shows.
    public var column: String { name }

    init(_ name: String, _ kind: Kind, _ value: @escaping @Sendable (Track) -> FieldValue) {
        self.name = name
        self.kind = kind
        self.value = value
    }

    /// The fields of `songbox ls --json`, in order; scripts depend on these names.
    public static let listing: [TrackField] = [
        TrackField("id", .integer) { .integer($0.id) },
        TrackField("path", .text) { .text($0.path) },
        TrackField("title", .text) { FieldValue($0.title) },
        TrackField("artist", .text) { FieldValue($0.artist) },
        TrackField("album", .text) { FieldValue($0.album) },
        TrackField("albumartist", .text) { FieldValue($0.albumArtist) },
        TrackField("genre", .text) { FieldValue($0.genre) },
        TrackField("year", .integer) { FieldValue($0.year) },
        TrackField("track", .integer) { FieldValue($0.track) },
        TrackField("disc", .integer) { FieldValue($0.disc) },
        TrackField("duration", .duration) { .number(FieldValue.duration($0.duration)) },
        TrackField("plays", .integer) { .integer(Int64($0.plays)) },
        TrackField("skips", .integer) { .integer(Int64($0.skips)) },
        TrackField("last_played", .date) { FieldValue(date: $0.lastPlayed) },
        TrackField("added", .date) { FieldValue(date: $0.added) },
        TrackField("rating", .integer) { FieldValue($0.rating) },
        TrackField("liked", .boolean) { .boolean($0.liked) },
        TrackField("tempo", .number) { FieldValue($0.tempo) },
        TrackField("key", .text) { FieldValue($0.key) },
        TrackField("loudness", .number) { FieldValue($0.loudness) },
        TrackField("energy", .number) { FieldValue($0.energy) },
        TrackField("danceability", .number) { FieldValue($0.danceability) },
        TrackField("valence", .number) { FieldValue($0.valence) },
    ]

    /// Every field (`songbox show`, Lua track tables): the listing fields, then the rest.
    public static let all: [TrackField] = listing + [
        TrackField("tracktotal", .integer) { FieldValue($0.trackTotal) },
        TrackField("disctotal", .integer) { FieldValue($0.discTotal) },
        TrackField("date", .text) { FieldValue($0.date) },
        TrackField("comment", .text) { FieldValue($0.comment) },
        TrackField("has_picture", .boolean) { .boolean($0.hasPicture) },
        TrackField("isrc", .text) { FieldValue($0.isrc) },
        TrackField("mb_trackid", .text) { FieldValue($0.musicBrainzTrackID) },
        TrackField("mb_albumid", .text) { FieldValue($0.musicBrainzAlbumID) },
        TrackField("mb_artistid", .text) { FieldValue($0.musicBrainzArtistID) },
        TrackField("mb_albumartistid", .text) { FieldValue($0.musicBrainzAlbumArtistID) },
        TrackField("mb_releasegroupid", .text) { FieldValue($0.musicBrainzReleaseGroupID) },
        TrackField("rg_track_gain", .number) { FieldValue($0.replayGainTrackGain) },
        TrackField("rg_track_peak", .number) { FieldValue($0.replayGainTrackPeak) },
        TrackField("rg_album_gain", .number) { FieldValue($0.replayGainAlbumGain) },
        TrackField("rg_album_peak", .number) { FieldValue($0.replayGainAlbumPeak) },
        TrackField("bitrate", .integer) { FieldValue($0.bitrate) },
        TrackField("samplerate", .integer) { FieldValue($0.sampleRate) },
        TrackField("channels", .integer) { FieldValue($0.channels) },
        TrackField("bits", .integer) { FieldValue($0.bits) },
        TrackField("size", .integer) { .integer($0.size) },
        TrackField("lyrics", .text) { FieldValue($0.lyrics) },
        TrackField("keep_offline", .boolean) { .boolean($0.keepOffline) },
        TrackField("cached", .boolean) { .boolean($0.cached) },
    ]
}

extension Track {
    /// The fields of `songbox ls --json`, in order; scripts depend on these names.
    public var listingFields: [(name: String, value: FieldValue)] {
        TrackField.listing.map { ($0.name, $0.value(self)) }
    }

    /// Every field (`songbox show`, Lua track tables): the listing fields, then the rest.
    public var allFields: [(name: String, value: FieldValue)] {
        TrackField.all.map { ($0.name, $0.value(self)) }
    }
}
