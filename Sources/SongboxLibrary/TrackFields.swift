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

    /// Unix seconds as ISO 8601 (UTC), the one form dates take in JSON and in Lua.
    public static func isoDate(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}

extension Track {
    /// The fields of `songbox ls --json`, in order; scripts depend on these names.
    public var listingFields: [(name: String, value: FieldValue)] {
        [
            ("id", .integer(id)), ("path", .text(path)), ("title", FieldValue(title)),
            ("artist", FieldValue(artist)), ("album", FieldValue(album)),
            ("albumartist", FieldValue(albumArtist)), ("genre", FieldValue(genre)),
            ("year", FieldValue(year)), ("track", FieldValue(track)), ("disc", FieldValue(disc)),
            ("duration", .number((duration * 1000).rounded() / 1000)),
            ("plays", .integer(Int64(plays))), ("skips", .integer(Int64(skips))),
            ("last_played", FieldValue(date: lastPlayed)), ("added", FieldValue(date: added)),
            ("rating", FieldValue(rating)), ("liked", .boolean(liked)),
        ]
    }

    /// Every field (`songbox show`, Lua track tables): the listing fields, then the rest.
    public var allFields: [(name: String, value: FieldValue)] {
        listingFields + [
            ("tracktotal", FieldValue(trackTotal)), ("disctotal", FieldValue(discTotal)),
            ("date", FieldValue(date)), ("comment", FieldValue(comment)),
            ("has_picture", .boolean(hasPicture)), ("isrc", FieldValue(isrc)),
            ("mb_trackid", FieldValue(musicBrainzTrackID)), ("mb_albumid", FieldValue(musicBrainzAlbumID)),
            ("mb_artistid", FieldValue(musicBrainzArtistID)),
            ("mb_albumartistid", FieldValue(musicBrainzAlbumArtistID)),
            ("mb_releasegroupid", FieldValue(musicBrainzReleaseGroupID)),
            ("rg_track_gain", FieldValue(replayGainTrackGain)), ("rg_track_peak", FieldValue(replayGainTrackPeak)),
            ("rg_album_gain", FieldValue(replayGainAlbumGain)), ("rg_album_peak", FieldValue(replayGainAlbumPeak)),
            ("bitrate", FieldValue(bitrate)), ("samplerate", FieldValue(sampleRate)),
            ("channels", FieldValue(channels)), ("size", .integer(size)),
            ("lyrics", FieldValue(lyrics)),
        ]
    }
}
