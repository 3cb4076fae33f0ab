import Foundation
import SongboxFiles

/// Bytes read in order from somewhere bounded: a block of a file, or packets spread over Ogg pages.
protocol ByteSource {
    /// The next `count` bytes, or nil when fewer are left.
    mutating func read(_ count: Int) -> [UInt8]?
    /// Passes over `count` bytes without keeping them; false when fewer are left.
    mutating func skip(_ count: Int) -> Bool
}

/// A stretch of a file read in order.
struct FileStretch: ByteSource {
    let file: FileBytes
    private(set) var offset: Int
    let end: Int

    init(_ file: FileBytes, from offset: Int, count: Int) {
        self.file = file
        self.offset = offset
        end = min(file.size, offset + max(count, 0))
    }

    mutating func read(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= end - offset, let bytes = file.read(at: offset, count: count) else { return nil }
        offset += count
        return bytes
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= end - offset else { return false }
        offset += count
        return true
    }
}

/// Bytes held in memory, read in order.
struct InlineBytes: ByteSource {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func read(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - offset else { return false }
        offset += count
        return true
    }
}

/// What a Vorbis comment block holds (FLAC, Ogg Vorbis, Opus and FLAC in Ogg all carry one).
struct VorbisCommentBlock {
    var tags = FileTags()
    /// Unsynchronised lyrics (`LYRICS`, `UNSYNCEDLYRICS`), which may be LRC text with times.
    var lyrics: String?
    /// `R128_TRACK_GAIN`/`R128_ALBUM_GAIN` (Opus): dB relative to −23 LUFS, Q7.8.
    var r128TrackGain: Int?
    var r128AlbumGain: Int?
    var warnings: [String] = []
}

/// Reads Vorbis comments (`KEY=value`, keys in any case) onto the fields the ID3 reader fills.
///
/// Only what songbox keeps is held in memory: a value too large to be a tag (a picture in
/// `METADATA_BLOCK_PICTURE`, a claimed 4 GB) is passed over, never allocated, and a count or
/// length the data cannot hold ends the block with a warning.
enum VorbisComments {
    /// Values longer than this are passed over (lyrics are the longest text songbox keeps).
    static let valueLimit = LyricsReader.sizeLimit
    /// Bytes of an entry read to find its key.
    static let keyLimit = 64

    static func read(_ source: inout some ByteSource) -> VorbisCommentBlock {
        var block = VorbisCommentBlock()
        var multiple: [String: [String]] = [:]
        var hasPicture = false
        block.warnings = entries(&source, limit: valueLimit) { key in
            if key == "METADATA_BLOCK_PICTURE" || key == "COVERART" { hasPicture = true }
            return isKept(key)
        } found: { key, value in
            let text = String(decoding: value, as: UTF8.self).trimmingSpaces
            if !text.isEmpty { multiple[key, default: []].append(text) }
            return true
        }
        for (key, values) in multiple { apply(key, values, to: &block) }
        block.tags.hasPicture = hasPicture
        return block
    }

    /// The pictures of `METADATA_BLOCK_PICTURE` comments, decoded (FLAC PICTURE block bodies),
    /// up to the first front cover; pictures over `limit` bytes of base64 are passed over.
    static func pictures(_ source: inout some ByteSource, limit: Int) -> [[UInt8]] {
        var found: [[UInt8]] = []
        _ = entries(&source, limit: limit) { $0 == "METADATA_BLOCK_PICTURE" } found: { _, value in
            guard let block = Data(base64Encoded: Data(value), options: .ignoreUnknownCharacters) else { return true }
            found.append([UInt8](block))
            // The picture type is the block's first four bytes: 3 is the front cover.
            return !(block.count >= 4 && block.prefix(4).elementsEqual([0, 0, 0, 3]))
        }
        return found
    }

    /// Walks the comments of a block: `wanted(key)` says whether a value is read (when it is at
    /// most `limit` bytes), `found(key, value)` gets it and says whether to go on. Returns what
    /// was wrong with the block.
    private static func entries(_ source: inout some ByteSource, limit: Int, wanted: (String) -> Bool,
                                found: (String, [UInt8]) -> Bool) -> [String] {
        guard let vendorLength = source.read(4)?.littleEndian(0, 4), source.skip(vendorLength),
              let count = source.read(4)?.littleEndian(0, 4) else {
            return ["the Vorbis comment block is cut short"]
        }
        for index in 0..<count {
            guard let length = source.read(4)?.littleEndian(0, 4) else {
                return ["the Vorbis comment block ends after \(index) of the \(count) comments it claims"]
            }
            guard let head = source.read(min(length, keyLimit)) else {
                return ["a Vorbis comment claims \(length) bytes, more than the file holds"]
            }
            let rest = length - head.count
            guard let equals = head.firstIndex(of: UInt8(ascii: "=")) else {
                guard source.skip(rest) else { return ["a Vorbis comment claims \(length) bytes, more than the file holds"] }
                continue
            }
            let key = String(decoding: head[..<equals], as: UTF8.self).uppercased()
            guard length - equals - 1 <= limit, wanted(key), let tail = source.read(rest) else {
                guard source.skip(rest) else { return ["a Vorbis comment claims \(length) bytes, more than the file holds"] }
                continue
            }
            guard found(key, Array(head[(equals + 1)...]) + tail) else { return [] }
        }
        return []
    }

    /// Keys songbox reads; the rest are passed over unread.
    static func isKept(_ key: String) -> Bool { fields.contains(key) }

    private static let fields: Set<String> = [
        "TITLE", "ARTIST", "ALBUM", "ALBUMARTIST", "ALBUM ARTIST", "GENRE", "COMMENT", "DESCRIPTION", "DATE", "YEAR",
        "TRACKNUMBER", "TRACKTOTAL", "TOTALTRACKS", "DISCNUMBER", "DISCTOTAL", "TOTALDISCS", "ISRC",
        "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_RELEASEGROUPID",
        "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK",
        "R128_TRACK_GAIN", "R128_ALBUM_GAIN", "LYRICS", "UNSYNCEDLYRICS", "MIXRAMP_START", "MIXRAMP_END",
    ]

    /// Sets the field of `key` from its values: several values of a text field are joined as the
    /// ID3 reader joins a multi-value frame ("; "); a number takes the first.
    static func apply(_ key: String, _ values: [String], to block: inout VorbisCommentBlock) {
        let joined = values.joined(separator: "; ")
        let first = values[0]
        switch key {
        case "TITLE": block.tags.title = joined
        case "ARTIST": block.tags.artist = joined
        case "ALBUM": block.tags.album = joined
        case "ALBUMARTIST", "ALBUM ARTIST": block.tags.albumArtist = block.tags.albumArtist ?? joined
        case "GENRE": block.tags.genre = joined
        case "COMMENT", "DESCRIPTION": block.tags.comment = block.tags.comment ?? joined
        case "DATE", "YEAR":
            block.tags.year = block.tags.year ?? leadingYear(first)
            if key == "DATE", first.count >= 7 { block.tags.date = String(first.prefix(10)) }
        case "TRACKNUMBER":
            let (number, total) = numberPair(first)
            block.tags.track = number
            block.tags.trackTotal = block.tags.trackTotal ?? total
        case "TRACKTOTAL", "TOTALTRACKS": block.tags.trackTotal = Int(first.trimmingSpaces) ?? block.tags.trackTotal
        case "DISCNUMBER":
            let (number, total) = numberPair(first)
            block.tags.disc = number
            block.tags.discTotal = block.tags.discTotal ?? total
        case "DISCTOTAL", "TOTALDISCS": block.tags.discTotal = Int(first.trimmingSpaces) ?? block.tags.discTotal
        case "ISRC": block.tags.isrc = first
        // MPD's MUSICBRAINZ_TRACKID is the recording's id, as Picard writes it here.
        case "MUSICBRAINZ_TRACKID": block.tags.musicBrainzTrackID = first
        case "MUSICBRAINZ_RELEASETRACKID": block.tags.musicBrainzTrackID = block.tags.musicBrainzTrackID ?? first
        case "MUSICBRAINZ_ALBUMID": block.tags.musicBrainzAlbumID = first
        case "MUSICBRAINZ_ARTISTID": block.tags.musicBrainzArtistID = first
        case "MUSICBRAINZ_ALBUMARTISTID": block.tags.musicBrainzAlbumArtistID = first
        case "MUSICBRAINZ_RELEASEGROUPID": block.tags.musicBrainzReleaseGroupID = first
        case "REPLAYGAIN_TRACK_GAIN": block.tags.replayGainTrackGain = decibels(first)
        case "REPLAYGAIN_TRACK_PEAK": block.tags.replayGainTrackPeak = Double(first)
        case "REPLAYGAIN_ALBUM_GAIN": block.tags.replayGainAlbumGain = decibels(first)
        case "REPLAYGAIN_ALBUM_PEAK": block.tags.replayGainAlbumPeak = Double(first)
        case "MIXRAMP_START": block.tags.mixRampStart = MixRamp.Ramp(parsing: first)?.text
        case "MIXRAMP_END": block.tags.mixRampEnd = MixRamp.Ramp(parsing: first)?.text
        case "R128_TRACK_GAIN": block.r128TrackGain = Int(first)
        case "R128_ALBUM_GAIN": block.r128AlbumGain = Int(first)
        case "LYRICS", "UNSYNCEDLYRICS": block.lyrics = block.lyrics ?? values.joined(separator: "\n")
        default: break
        }
    }
}

extension VorbisCommentBlock {
    /// Opus gains (RFC 7845: Q7.8 dB towards −23 LUFS) as ReplayGain (towards −18 LUFS: 5 dB
    /// more), where the file has no ReplayGain of its own.
    mutating func applyR128Gains() {
        if tags.replayGainTrackGain == nil, let gain = r128TrackGain { tags.replayGainTrackGain = Double(gain) / 256 + 5 }
        if tags.replayGainAlbumGain == nil, let gain = r128AlbumGain { tags.replayGainAlbumGain = Double(gain) / 256 + 5 }
    }
}
