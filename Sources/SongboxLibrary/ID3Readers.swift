import CMPG123
import SongboxFiles

/// Fills `FileTags` from the ID3v2 frames libmpg123 parsed (v2.2 frame names are already
/// promoted to their v2.3 names; text is already UTF-8).
enum ID3v2Reader {
    static func apply(_ tag: mpg123_id3v2, to tags: inout FileTags) {
        for field in UnsafeBufferPointer(start: tag.text, count: tag.texts) {
            let id = frameID(field)
            // USLT carries lyrics; the rest are plain text frames.
            if id == "USLT" {
                if let lyrics = text(field.text) { tags.lyrics = lyrics }
                continue
            }
            guard let value = text(field.text) else { continue }
            applyTextFrame(id, value, to: &tags)
        }
        for comment in UnsafeBufferPointer(start: tag.comment_list, count: tag.comments) {
            // Comments with a description are machine data (iTunNORM, iTunSMPB ...).
            guard text(comment.description) == nil, let value = text(comment.text) else { continue }
            tags.comment = value
        }
        for extra in UnsafeBufferPointer(start: tag.extra, count: tag.extras) {
            guard let description = text(extra.description), let value = text(extra.text) else { continue }
            applyUserText(description, value, to: &tags)
        }
        if tag.pictures > 0 { tags.hasPicture = true }
    }

    static func applyTextFrame(_ id: String, _ value: String, to tags: inout FileTags) {
        switch id {
        case "TIT2": tags.title = value
        case "TPE1": tags.artist = value
        case "TALB": tags.album = value
        case "TPE2": tags.albumArtist = value
        case "TCON": tags.genre = ID3Genres.resolve(value)
        case "TRCK": (tags.track, tags.trackTotal) = numberPair(value)
        case "TPOS": (tags.disc, tags.discTotal) = numberPair(value)
        case "TSRC": tags.isrc = value
        case "TYER":
            if tags.year == nil { tags.year = leadingYear(value) }
        case "TDRC":
            tags.year = leadingYear(value) ?? tags.year
            if value.count >= 7 { tags.date = String(value.prefix(10)) }
        default: break
        }
    }

    static func applyUserText(_ description: String, _ value: String, to tags: inout FileTags) {
        switch description.lowercased() {
        case "musicbrainz album id": tags.musicBrainzAlbumID = value
        case "musicbrainz artist id": tags.musicBrainzArtistID = value
        case "musicbrainz album artist id": tags.musicBrainzAlbumArtistID = value
        case "musicbrainz release group id": tags.musicBrainzReleaseGroupID = value
        case "musicbrainz release track id", "musicbrainz track id": tags.musicBrainzTrackID = value
        case "replaygain_track_gain": tags.replayGainTrackGain = decibels(value)
        case "replaygain_track_peak": tags.replayGainTrackPeak = Double(value.trimmingSpaces)
        case "replaygain_album_gain": tags.replayGainAlbumGain = decibels(value)
        case "replaygain_album_peak": tags.replayGainAlbumPeak = Double(value.trimmingSpaces)
        default: break
        }
    }

    /// Text of an mpg123 string: values of a multi-value frame (NUL-separated) joined with "; ",
    /// Latin-1 text checked for legacy Hebrew, invalid UTF-8 replaced. Nil when empty.
    static func text(_ string: mpg123_string) -> String? {
        guard let start = string.p, string.fill > 1 else { return nil }
        let bytes = UnsafeRawBufferPointer(start: start, count: string.fill - 1)
        let values = bytes.split(separator: 0).map { value -> String in
            LegacyText.redecode(latin1Text: String(decoding: value, as: UTF8.self)).trimmingSpaces
        }.filter { !$0.isEmpty }
        return values.isEmpty ? nil : values.joined(separator: "; ")
    }

    private static func frameID(_ field: mpg123_text) -> String {
        withUnsafeBytes(of: field.id) { String(decoding: $0, as: UTF8.self) }
    }
}

/// Fills `FileTags` from an ID3v1 or v1.1 tag, for the fields ID3v2 left empty.
enum ID3v1Reader {
    static func apply(_ tag: mpg123_id3v1, to tags: inout FileTags) {
        func field<T>(_ value: T) -> String? {
            withUnsafeBytes(of: value) { raw in
                let bytes = raw.prefix { $0 != 0 }
                let text = LegacyText.decode(bytes).trimmingSpaces
                return text.isEmpty ? nil : text
            }
        }
        tags.title = tags.title ?? field(tag.title)
        tags.artist = tags.artist ?? field(tag.artist)
        tags.album = tags.album ?? field(tag.album)
        tags.year = tags.year ?? field(tag.year).flatMap { Int($0) }
        tags.comment = tags.comment ?? field(tag.comment)
        tags.genre = tags.genre ?? ID3Genres.name(Int(tag.genre))
        // ID3v1.1: a zero at comment[28] and the track number at comment[29].
        let track = withUnsafeBytes(of: tag.comment) { $0[28] == 0 && $0[29] != 0 ? Int($0[29]) : nil }
        tags.track = tags.track ?? track
    }
}

/// "3/12" -> (3, 12); "3" -> (3, nil); junk -> (nil, nil).
func numberPair(_ text: String) -> (Int?, Int?) {
    let parts = text.split(separator: "/", maxSplits: 1).map { Int($0.trimmingSpaces) }
    return (parts.first ?? nil, parts.count > 1 ? parts[1] : nil)
}

/// The year at the start of "1967", "1967-05-01", "1967-05-01T20:00".
func leadingYear(_ text: String) -> Int? {
    let digits = text.trimmingSpaces.prefix(4)
    guard digits.count == 4, let year = Int(digits), year > 0 else { return nil }
    return year
}

/// "-6.50 dB" -> -6.5
func decibels(_ text: String) -> Double? {
    var value = text.trimmingSpaces
    if value.lowercased().hasSuffix("db") { value = String(value.dropLast(2)).trimmingSpaces }
    return Double(value)
}

extension StringProtocol {
    var trimmingSpaces: String {
        let text = String(self)
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        // Most values have nothing to trim; the rest are copied as bytes, not scalar by scalar.
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return text }
        return String(Substring(scalars[first...last]))
    }
}
