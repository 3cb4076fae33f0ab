import Foundation
import GRDB

/// What a scan reads from one MP3 file: its tags and its audio facts.
public struct FileTags: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    public var comment: String?
    public var lyrics: String?
    public var year: Int?
    /// The full recording date when the tag has more than a year (`1967-05-01`).
    public var date: String?
    public var track: Int?
    public var trackTotal: Int?
    public var disc: Int?
    public var discTotal: Int?
    public var hasPicture = false
    public var isrc: String?
    public var musicBrainzTrackID: String?
    public var musicBrainzAlbumID: String?
    public var musicBrainzArtistID: String?
    public var musicBrainzAlbumArtistID: String?
    public var musicBrainzReleaseGroupID: String?
    public var replayGainTrackGain: Double?
    public var replayGainTrackPeak: Double?
    public var replayGainAlbumGain: Double?
    public var replayGainAlbumPeak: Double?
    /// MPD's MixRamp tags (`MixRamp.Ramp` text: "dB seconds;..."), when the file has usable ones.
    public var mixRampStart: String?
    public var mixRampEnd: String?

    public init() {}
}

/// Audio facts of a file.
public struct AudioFacts: Equatable, Sendable {
    /// Seconds, exact: encoder delay and padding removed.
    public var duration: Double
    /// Average kbit/s over the audio data.
    public var bitrate: Int
    public var sampleRate: Int
    public var channels: Int
    /// Bits per sample of a lossless or PCM file (FLAC, WAV, AIFF, ALAC); nil for a lossy one
    /// or floating-point samples.
    public var bits: Int?

    public init(duration: Double, bitrate: Int, sampleRate: Int, channels: Int, bits: Int? = nil) {
        self.duration = duration
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.channels = channels
        self.bits = bits
    }
}

/// A track as every reader sees it: file tags with the user's overrides applied,
/// plus statistics. One row of the `library` view.
public struct Track: Equatable, Sendable, Codable, FetchableRecord {

    /// Decodes a row of the `library` view. Written out rather than derived from `Codable`,
    /// which costs a dynamic cast per column and dominated `songbox ls` on large results.
    public init(row: Row) {
        id = row["id"]
        path = row["path"]
        title = row["title"]
        artist = row["artist"]
        album = row["album"]
        albumArtist = row["albumartist"]
        genre = row["genre"]
        comment = row["comment"]
        lyrics = row["lyrics"]
        year = row["year"]
        date = row["date"]
        track = row["track"]
        trackTotal = row["tracktotal"]
        disc = row["disc"]
        discTotal = row["disctotal"]
        hasPicture = row["has_picture"] ?? false
        isrc = row["isrc"]
        musicBrainzTrackID = row["mb_trackid"]
        musicBrainzAlbumID = row["mb_albumid"]
        musicBrainzArtistID = row["mb_artistid"]
        musicBrainzAlbumArtistID = row["mb_albumartistid"]
        musicBrainzReleaseGroupID = row["mb_releasegroupid"]
        replayGainTrackGain = row["rg_track_gain"]
        replayGainTrackPeak = row["rg_track_peak"]
        replayGainAlbumGain = row["rg_album_gain"]
        replayGainAlbumPeak = row["rg_album_peak"]
        duration = row["duration"]
        bitrate = row["bitrate"]
        sampleRate = row["samplerate"]
        channels = row["channels"]
        bits = row["bits"]
        size = row["size"]
        added = row["added"]
        // Kept in nanoseconds; -1 asks the next scan to read the file again.
        modified = (row["mtime"] as Int64?).flatMap { $0 >= 0 ? $0 / 1_000_000_000 : nil }
        plays = row["plays"]
        skips = row["skips"]
        lastPlayed = row["last_played"]
        rating = row["rating"]
        liked = row["liked"] ?? false
        tempo = row["tempo"]
        key = row["key"]
        loudness = row["loudness"]
        energy = row["energy"]
        danceability = row["danceability"]
        valence = row["valence"]
        keepOffline = row["keep_offline"] ?? false
        cached = row["cached"] ?? false
    }

    public var id: Int64
    public var path: String
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    public var comment: String?
    public var lyrics: String?
    public var year: Int?
    public var date: String?
    public var track: Int?
    public var trackTotal: Int?
    public var disc: Int?
    public var discTotal: Int?
    public var hasPicture: Bool
    public var isrc: String?
    public var musicBrainzTrackID: String?
    public var musicBrainzAlbumID: String?
    public var musicBrainzArtistID: String?
    public var musicBrainzAlbumArtistID: String?
    public var musicBrainzReleaseGroupID: String?
    public var replayGainTrackGain: Double?
    public var replayGainTrackPeak: Double?
    public var replayGainAlbumGain: Double?
    public var replayGainAlbumPeak: Double?
    public var duration: Double
    public var bitrate: Int?
    public var sampleRate: Int?
    public var channels: Int?
    /// Bits per sample of a lossless file (`AudioFacts.bits`).
    public var bits: Int?
    public var size: Int64
    public var added: Int64
    /// When the file was last changed, Unix seconds (MPD's `Last-Modified`); nil when unknown.
    public var modified: Int64?
    public var plays: Int
    public var skips: Int
    public var lastPlayed: Int64?
    public var rating: Int?
    public var liked: Bool
    // From `songbox analyze` (nil until the file as it is now was analyzed): BPM, "A minor",
    // LUFS, and the three moods 0 ... 1 (docs/moods.md).
    public var tempo: Double?
    public var key: String?
    public var loudness: Double?
    public var energy: Double?
    public var danceability: Double?
    public var valence: Double?
    /// A remote track pinned for offline listening, and whether its copy is complete.
    public var keepOffline: Bool
    public var cached: Bool

    /// Names as in the `library` view, in `--json` output and in Lua.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case path
        case title
        case artist
        case album
        case albumArtist = "albumartist"
        case genre
        case comment
        case lyrics
        case year
        case date
        case track
        case trackTotal = "tracktotal"
        case disc
        case discTotal = "disctotal"
        case hasPicture = "has_picture"
        case isrc
        case musicBrainzTrackID = "mb_trackid"
        case musicBrainzAlbumID = "mb_albumid"
        case musicBrainzArtistID = "mb_artistid"
        case musicBrainzAlbumArtistID = "mb_albumartistid"
        case musicBrainzReleaseGroupID = "mb_releasegroupid"
        case replayGainTrackGain = "rg_track_gain"
        case replayGainTrackPeak = "rg_track_peak"
        case replayGainAlbumGain = "rg_album_gain"
        case replayGainAlbumPeak = "rg_album_peak"
        case duration
        case bitrate
        case sampleRate = "samplerate"
        case channels
        case bits
        case size
        case added
        case plays
        case skips
        case lastPlayed = "last_played"
        case rating
        case liked
        case tempo
        case key
        case loudness
        case energy
        case danceability
        case valence
        case keepOffline = "keep_offline"
        case cached
    }
}
