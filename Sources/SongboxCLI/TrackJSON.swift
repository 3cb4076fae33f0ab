import Foundation
import SongboxLibrary

/// A JSON value. Objects keep their keys in order (Foundation's encoder does not), so output
/// reads in a stable, documented order.
indirect enum JSONValue {
    case string(String), number(Double), integer(Int64), bool(Bool), null
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(_ text: String?) { self = text.map { .string($0) } ?? .null }
    init(_ number: Int?) { self = number.map { .integer(Int64($0)) } ?? .null }
    init(_ number: Double?) { self = number.map { .number($0) } ?? .null }
    /// Unix seconds as an ISO 8601 date (UTC).
    init(date seconds: Int64?) {
        self = seconds.map { .string(Date(timeIntervalSince1970: TimeInterval($0)).formatted(.iso8601)) } ?? .null
    }

    /// How the value reads in `songbox show`.
    var display: String {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "yes" : "no"
        case .null: "-"
        default: json(indent: nil)
        }
    }

    /// JSON text; pretty-printed with two-space indents unless `indent` is nil.
    func json(indent: Int? = 0) -> String {
        let newline = indent == nil ? "" : "\n"
        let inner = indent.map { String(repeating: "  ", count: $0 + 1) } ?? ""
        let outer = indent.map { String(repeating: "  ", count: $0) } ?? ""
        let separator = indent == nil ? ":" : ": "
        switch self {
        case .string(let value): return JSONText.quoted(value)
        case .number(let value): return value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)) : "null"
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[" + newline + items.map { inner + $0.json(indent: indent.map { $0 + 1 }) }
                .joined(separator: "," + newline) + newline + outer + "]"
        case .object(let fields):
            guard !fields.isEmpty else { return "{}" }
            return "{" + newline + fields.map { inner + JSONText.quoted($0.0) + separator + $0.1.json(indent: indent.map { $0 + 1 }) }
                .joined(separator: "," + newline) + newline + outer + "}"
        }
    }
}

/// A track as `songbox ls --json` prints it; scripts depend on these keys.
enum TrackJSON {
    static func listing(_ track: Track) -> [(String, JSONValue)] {
        [
            ("id", .integer(track.id)), ("path", .string(track.path)), ("title", JSONValue(track.title)),
            ("artist", JSONValue(track.artist)), ("album", JSONValue(track.album)),
            ("albumartist", JSONValue(track.albumArtist)), ("genre", JSONValue(track.genre)),
            ("year", JSONValue(track.year)), ("track", JSONValue(track.track)), ("disc", JSONValue(track.disc)),
            ("duration", .number((track.duration * 1000).rounded() / 1000)),
            ("plays", .integer(Int64(track.plays))), ("skips", .integer(Int64(track.skips))),
            ("last_played", JSONValue(date: track.lastPlayed)), ("added", JSONValue(date: track.added)),
            ("rating", JSONValue(track.rating)), ("liked", .bool(track.liked)),
        ]
    }

    /// Every field, for `songbox show`.
    static func allFields(_ track: Track) -> [(String, JSONValue)] {
        listing(track) + [
            ("tracktotal", JSONValue(track.trackTotal)), ("disctotal", JSONValue(track.discTotal)),
            ("date", JSONValue(track.date)), ("comment", JSONValue(track.comment)),
            ("has_picture", .bool(track.hasPicture)), ("isrc", JSONValue(track.isrc)),
            ("mb_trackid", JSONValue(track.musicBrainzTrackID)), ("mb_albumid", JSONValue(track.musicBrainzAlbumID)),
            ("mb_artistid", JSONValue(track.musicBrainzArtistID)),
            ("mb_albumartistid", JSONValue(track.musicBrainzAlbumArtistID)),
            ("mb_releasegroupid", JSONValue(track.musicBrainzReleaseGroupID)),
            ("rg_track_gain", JSONValue(track.replayGainTrackGain)), ("rg_track_peak", JSONValue(track.replayGainTrackPeak)),
            ("rg_album_gain", JSONValue(track.replayGainAlbumGain)), ("rg_album_peak", JSONValue(track.replayGainAlbumPeak)),
            ("bitrate", JSONValue(track.bitrate)), ("samplerate", JSONValue(track.sampleRate)),
            ("channels", JSONValue(track.channels)), ("size", .integer(track.size)),
            ("lyrics", JSONValue(track.lyrics)),
        ]
    }
}
