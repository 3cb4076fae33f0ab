import Foundation

/// One MP4 atom (box): its type and where its body lies in the file.
struct MP4Atom {
    var type: String
    var bodyOffset: Int
    var bodyLength: Int
    var end: Int { bodyOffset + bodyLength }

    /// The atoms from `offset` to `end`, each checked to lie inside it; a size that runs past the
    /// end stops the walk (what came before is kept), with `damaged` set.
    static func children(_ file: FileBytes, from offset: Int, to end: Int, damaged: inout Bool) -> [MP4Atom] {
        var atoms: [MP4Atom] = []
        var position = offset
        while position + 8 <= end, atoms.count < 4096, let header = file.read(at: position, count: 8) {
            var size = header.bigEndian(0, 4)
            var headerLength = 8
            if size == 1 {
                guard let large = file.read(at: position + 8, count: 8) else { damaged = true; break }
                size = large.bigEndian(0, 8)
                headerLength = 16
            } else if size == 0 {
                size = end - position
            }
            guard size >= headerLength, size <= end - position else {
                damaged = true
                break
            }
            atoms.append(MP4Atom(type: header.fourCC(4), bodyOffset: position + headerLength, bodyLength: size - headerLength))
            position += size
        }
        return atoms
    }
}

/// Reads MP4 audio files (`.m4a`: AAC or ALAC): tags from the iTunes `ilst` atoms, the exact
/// length from the sound track's media header less the encoder delay and padding (`iTunSMPB`,
/// else the edit list), the cover from `covr`. Only the `moov` atom is read, never `mdat`.
enum MP4Reader {
    /// What the scanner needs from the sound track and the tags.
    struct Movie {
        var codec: String?
        var sampleRate = 0
        var channels = 0
        /// The media's length in its own time scale, and that scale.
        var mediaDuration = 0
        var mediaTimeScale = 0
        var movieTimeScale = 0
        /// The edit list's one segment: its length (movie time scale) and where it starts in the media.
        var editDuration: Int?
        var editMediaTime: Int?
        var comments = VorbisCommentBlock()
        /// `iTunSMPB`: encoder delay, padding, original samples.
        var gapless: (delay: Int, padding: Int, samples: Int)?
        /// Where each `covr` picture's bytes are, and its data type (13 JPEG, 14 PNG).
        var covers: [(offset: Int, length: Int, type: Int)] = []
        var damaged = false
    }

    /// The largest `moov` read: beyond it a file is not taken as music.
    static let movieLimit = 64 << 20

    static func movie(_ file: FileBytes) -> Movie? {
        var movie = Movie()
        guard let moov = MP4Atom.children(file, from: 0, to: file.size, damaged: &movie.damaged).first(where: { $0.type == "moov" }),
              moov.bodyLength <= movieLimit else { return nil }
        for atom in MP4Atom.children(file, from: moov.bodyOffset, to: moov.end, damaged: &movie.damaged) {
            switch atom.type {
            case "mvhd":
                guard let header = file.read(at: atom.bodyOffset, count: 32) else { continue }
                movie.movieTimeScale = header[0] == 1 ? header.bigEndian(20, 4) : header.bigEndian(12, 4)
            case "trak" where movie.codec == nil: readTrack(file, atom, into: &movie)
            case "udta": readUserData(file, atom, into: &movie)
            default: break
            }
        }
        return movie
    }

    static func read(_ file: FileBytes, path: String) throws(SongboxError) -> ProbedFile {
        guard let movie = movie(file) else {
            throw SongboxError(.unreadableFile, "no MP4 movie atom (moov): not an MP4 file, or a damaged one", at: path)
        }
        guard movie.codec != nil, movie.sampleRate > 0, movie.channels > 0, movie.mediaTimeScale > 0 else {
            throw SongboxError(.unreadableFile, "an MP4 file without an AAC or ALAC sound track", at: path)
        }
        var comments = movie.comments
        if !movie.covers.isEmpty { comments.tags.hasPicture = true }
        let samples = exactSamples(movie)
        let duration = Double(samples) / Double(movie.sampleRate)
        let warnings = movie.damaged ? ["an MP4 atom claims more bytes than its parent holds: the atoms after it were not read"] : []
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: file.size, sampleRate: movie.sampleRate,
                                                                    channels: movie.channels), path: path, warnings: warnings)
    }

    /// The samples a decoder gives once the encoder's delay and padding are cut: what `iTunSMPB`
    /// says, else the media less the edit list's start (and no more than the edit's length),
    /// else the whole media.
    static func exactSamples(_ movie: Movie) -> Int {
        if let gapless = movie.gapless, gapless.samples > 0 { return gapless.samples }
        // In samples: the media time scale is the sample rate for AAC and ALAC.
        let scale = Double(movie.sampleRate) / Double(movie.mediaTimeScale)
        var samples = Int((Double(movie.mediaDuration) * scale).rounded())
        if let start = movie.editMediaTime, start > 0 { samples -= Int((Double(start) * scale).rounded()) }
        // The edit's length is in the movie's time scale, often milliseconds (FFmpeg writes
        // 2267 for 100,003 samples): it cuts padding only where it is shorter by more than its
        // own rounding.
        if let length = movie.editDuration, length > 0, movie.movieTimeScale > 0 {
            let tick = Double(movie.sampleRate) / Double(movie.movieTimeScale)
            let edited = Int((Double(length) * tick).rounded())
            if Double(samples - edited) > tick.rounded(.up) { samples = edited }
        }
        return max(samples, 0)
    }

    private static func readTrack(_ file: FileBytes, _ trak: MP4Atom, into movie: inout Movie) {
        var found = Movie()
        var isSound = false
        func walk(_ atom: MP4Atom) {
            for child in MP4Atom.children(file, from: atom.bodyOffset, to: atom.end, damaged: &movie.damaged) {
                switch child.type {
                case "mdia", "minf", "stbl", "edts": walk(child)
                case "hdlr": isSound = file.read(at: child.bodyOffset + 8, count: 4)?.fourCC(0) == "soun"
                case "mdhd":
                    guard let header = file.read(at: child.bodyOffset, count: 32) else { continue }
                    let long = header[0] == 1
                    found.mediaTimeScale = long ? header.bigEndian(20, 4) : header.bigEndian(12, 4)
                    found.mediaDuration = long ? header.bigEndian(24, 8) : header.bigEndian(16, 4)
                case "elst":
                    guard let header = file.read(at: child.bodyOffset, count: 8), header.bigEndian(4, 4) == 1,
                          let entry = file.read(at: child.bodyOffset + 8, count: header[0] == 1 ? 16 : 8) else { continue }
                    let long = header[0] == 1
                    found.editDuration = entry.bigEndian(0, long ? 8 : 4)
                    // -1 (an empty edit) reads as a huge number: not a start.
                    let start = entry.bigEndian(long ? 8 : 4, long ? 8 : 4)
                    found.editMediaTime = start < (long ? Int.max : 0x8000_0000) ? start : nil
                case "stsd": readSampleEntry(file, child, into: &found)
                default: break
                }
            }
        }
        walk(trak)
        guard isSound, found.codec != nil else { return }
        movie.codec = found.codec
        movie.sampleRate = found.sampleRate
        movie.channels = found.channels
        movie.mediaDuration = found.mediaDuration
        movie.mediaTimeScale = found.mediaTimeScale
        movie.editDuration = found.editDuration
        movie.editMediaTime = found.editMediaTime
    }

    /// The first sample entry: `mp4a` (AAC) or `alac`, with its rate and channels.
    private static func readSampleEntry(_ file: FileBytes, _ stsd: MP4Atom, into movie: inout Movie) {
        guard let entry = MP4Atom.children(file, from: stsd.bodyOffset + 8, to: stsd.end, damaged: &movie.damaged).first,
              entry.type == "mp4a" || entry.type == "alac", let fields = file.read(at: entry.bodyOffset, count: 28) else { return }
        movie.codec = entry.type
        movie.channels = fields.bigEndian(16, 2)
        movie.sampleRate = fields.bigEndian(24, 2)
        // ALAC's own configuration has the real rate (the entry's is 16 bits) and channels.
        if entry.type == "alac",
           let config = MP4Atom.children(file, from: entry.bodyOffset + 28, to: entry.end, damaged: &movie.damaged).first(where: { $0.type == "alac" }),
           let specific = file.read(at: config.bodyOffset + 4, count: 24) {
            movie.channels = Int(specific[9])
            movie.sampleRate = specific.bigEndian(20, 4)
        }
    }

    private static func readUserData(_ file: FileBytes, _ udta: MP4Atom, into movie: inout Movie) {
        guard let meta = MP4Atom.children(file, from: udta.bodyOffset, to: udta.end, damaged: &movie.damaged).first(where: { $0.type == "meta" }) else { return }
        // `meta` is a full atom (4 bytes of version and flags) in iTunes files, not in QuickTime ones.
        let fullAtom = file.read(at: meta.bodyOffset + 4, count: 4)?.fourCC(0) != "hdlr"
        let start = meta.bodyOffset + (fullAtom ? 4 : 0)
        guard let ilst = MP4Atom.children(file, from: start, to: meta.end, damaged: &movie.damaged).first(where: { $0.type == "ilst" }) else { return }
        var multiple: [String: [String]] = [:]
        for item in MP4Atom.children(file, from: ilst.bodyOffset, to: ilst.end, damaged: &movie.damaged) {
            let parts = MP4Atom.children(file, from: item.bodyOffset, to: item.end, damaged: &movie.damaged)
            var name = item.type
            if item.type == "----" {
                // A freeform item: its name atom (after 4 bytes of version and flags) says what it is.
                guard let nameAtom = parts.first(where: { $0.type == "name" }), nameAtom.bodyLength <= 256 + 4,
                      let bytes = file.read(at: nameAtom.bodyOffset + 4, count: nameAtom.bodyLength - 4) else { continue }
                name = "----:" + String(decoding: bytes, as: UTF8.self).uppercased()
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
                case "----:ITUNSMPB":
                    let fields = String(decoding: value, as: UTF8.self).split(separator: " ").compactMap { Int($0, radix: 16) }
                    if fields.count >= 4 { movie.gapless = (fields[1], fields[2], fields[3]) }
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
    ]
}
