import Foundation
import SongboxFiles

/// Reads MP4 audio files (`.m4a`: AAC or ALAC): tags from the iTunes `ilst` boxes, the exact
/// length from `MP4Movie` (the sound track less the encoder delay and padding, never more than
/// its sample tables hold: what the player plays), the cover from `covr`. Only the `moov` box
/// is read, never `mdat`.
enum MP4Reader {
    /// What the scanner needs from the sound track and the tags.
    struct Movie {
        var movie: MP4Movie
        var comments = VorbisCommentBlock()
        /// Where each `covr` picture's bytes are, and its data type (13 JPEG, 14 PNG).
        var covers: [(offset: Int, length: Int, type: Int)] = []
        var damaged = false
    }

    static func movie(_ file: FileBytes) -> Movie? {
        let read = { (offset: Int, count: Int) in file.readUpTo(at: offset, count: count) }
        guard let parsed = MP4Movie.read(size: file.size, read) else { return nil }
        var movie = Movie(movie: parsed, damaged: parsed.damaged)
        for box in MP4Box.children(from: parsed.moov.bodyOffset, to: parsed.moov.end, damaged: &movie.damaged, read: read)
            where box.type == "udta" {
            readUserData(file, box, into: &movie)
        }
        return movie
    }

    static func read(_ file: FileBytes, path: String) throws(SongboxError) -> ProbedFile {
        guard let movie = movie(file) else {
            throw SongboxError(.unreadableFile, "no MP4 movie atom (moov): not an MP4 file, or a damaged one", at: path)
        }
        guard let track = movie.movie.track, track.sampleRate > 0, track.channels > 0 else {
            throw SongboxError(.unreadableFile, "an MP4 file without an AAC or ALAC sound track", at: path)
        }
        // What the player plays: nothing when the sample tables are refused or hold no packet.
        guard track.table.count > 0 else {
            throw SongboxError(.unreadableFile, "an MP4 file whose sample tables do not play: \(track.problem ?? "no packets")", at: path)
        }
        var comments = movie.comments
        if !movie.covers.isEmpty { comments.tags.hasPicture = true }
        let duration = Double(movie.movie.trim(rate: track.sampleRate).frames) / Double(track.sampleRate)
        var warnings = movie.damaged ? ["an MP4 box claims more bytes than its parent holds: the boxes after it were not read"] : []
        if let problem = track.problem { warnings.append("the audio ends early: " + problem) }
        // ALAC is lossless: its bits per sample, from its configuration.
        var bits: Int?
        if case .alac(let config) = track.codec { bits = (try? ALACConfig(config))?.bitDepth }
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: file.size, sampleRate: track.sampleRate,
                                                                    channels: track.channels, bits: bits),
                                 path: path, warnings: warnings)
    }

    private static func readUserData(_ file: FileBytes, _ udta: MP4Box, into movie: inout Movie) {
        let read = { (offset: Int, count: Int) in file.readUpTo(at: offset, count: count) }
        guard let ilst = MP4Movie.itemList(udta, damaged: &movie.damaged, read: read) else { return }
        var multiple: [String: [String]] = [:]
        for item in MP4Box.children(from: ilst.bodyOffset, to: ilst.end, damaged: &movie.damaged, read: read) {
            let parts = MP4Box.children(from: item.bodyOffset, to: item.end, damaged: &movie.damaged, read: read)
            var name = item.type
            if item.type == "----" {
                // A freeform item: its name box (after 4 bytes of version and flags) says what it is.
                guard let freeform = MP4Movie.freeformName(parts, read: read) else { continue }
                name = "----:" + freeform
            }
            for data in parts where data.type == "data" && data.bodyLength >= 8 {
                guard let header = file.read(at: data.bodyOffset, count: 8) else { continue }
                let type = header.bigEndian(1, 3)
                let valueOffset = data.bodyOffset + 8, valueLength = data.bodyLength - 8
                if name == "covr" {
                    movie.covers.append((valueOffset, valueLength, type))
                    continue
                }
                guard valueLength <= VorbisComments.valueLimit, let value = file.read(at: valueOffset, count: valueLength) else { continue }
                switch name {
                case "trkn", "disk":
                    guard value.count >= 6 else { continue }
                    let number = value.bigEndian(2, 2), total = value.bigEndian(4, 2)
                    let key = name == "trkn" ? "TRACKNUMBER" : "DISCNUMBER"
                    multiple[key] = [total > 0 ? "\(number)/\(total)" : "\(number)"]
                case "gnre":
                    // An ID3v1 genre number, plus one.
                    guard value.count >= 2, let genre = ID3Genres.name(value.bigEndian(0, 2) - 1) else { continue }
                    multiple["GENRE"] = [genre]
                default:
                    guard let key = keys[name] else { continue }
                    let text = String(decoding: value, as: UTF8.self).trimmingSpaces
                    if !text.isEmpty { multiple[key, default: []].append(text) }
                }
            }
        }
        for (key, values) in multiple { VorbisComments.apply(key, values, to: &movie.comments) }
    }

    /// `ilst` items (and freeform `----` names, upper-cased) as the Vorbis comment keys they mean.
    private static let keys: [String: String] = [
        "\u{A9}nam": "TITLE", "\u{A9}ART": "ARTIST", "aART": "ALBUMARTIST", "\u{A9}alb": "ALBUM", "\u{A9}gen": "GENRE",
        "\u{A9}day": "DATE", "\u{A9}cmt": "COMMENT", "\u{A9}lyr": "LYRICS",
        "----:ISRC": "ISRC",
        "----:MUSICBRAINZ TRACK ID": "MUSICBRAINZ_TRACKID", "----:MUSICBRAINZ RELEASE TRACK ID": "MUSICBRAINZ_RELEASETRACKID",
        "----:MUSICBRAINZ ALBUM ID": "MUSICBRAINZ_ALBUMID", "----:MUSICBRAINZ ARTIST ID": "MUSICBRAINZ_ARTISTID",
        "----:MUSICBRAINZ ALBUM ARTIST ID": "MUSICBRAINZ_ALBUMARTISTID", "----:MUSICBRAINZ RELEASE GROUP ID": "MUSICBRAINZ_RELEASEGROUPID",
        "----:REPLAYGAIN_TRACK_GAIN": "REPLAYGAIN_TRACK_GAIN", "----:REPLAYGAIN_TRACK_PEAK": "REPLAYGAIN_TRACK_PEAK",
        "----:REPLAYGAIN_ALBUM_GAIN": "REPLAYGAIN_ALBUM_GAIN", "----:REPLAYGAIN_ALBUM_PEAK": "REPLAYGAIN_ALBUM_PEAK",
        "----:MIXRAMP_START": "MIXRAMP_START", "----:MIXRAMP_END": "MIXRAMP_END",
    ]
}
