import Foundation
import SongboxFiles

/// The kinds of music file the scanner reads itself, told apart by their first bytes (MP3,
/// which has no signature, is read through libmpg123).
enum AudioFileKind: Equatable {
    case flac, ogg, wav, aiff
    /// MP4 audio (AAC, ALAC).
    case mp4

    /// File name suffixes the scanner looks at, lower case.
    static let suffixes = ["mp3", "mp2", "flac", "ogg", "oga", "opus", "wav", "wave", "aif", "aiff", "aifc", "m4a", "m4b", "mp4"]
    /// Suffixes of audio songbox does not play, reported by a scan rather than passed over in silence.
    static let unplayedSuffixes = ["aac", "alac", "wma", "ape", "wv", "mpc", "ac3", "dts",
                                   "dsf", "dff", "tta", "spx", "mka", "webm", "caf", "amr", "mid", "midi"]
}

/// Reads a music file of any kind songbox indexes: MP3 with libmpg123 (`MP3Reader`), the others
/// with the readers of their containers. Owns one libmpg123 handle: one per thread.
final class TrackFileReader {
    private let mp3: MP3Reader

    init() throws(SongboxError) {
        mp3 = try MP3Reader()
    }

    func read(path: String) throws(SongboxError) -> ProbedFile {
        let file = try FileBytes.open(path)
        defer { close(file.fd) }
        guard file.size > 0 else { throw SongboxError(.unreadableFile, "empty file", at: path) }
        let (kind, start) = Self.kind(of: file)
        switch kind {
        case .flac: return try FLACReader.read(file, path: path, start: start)
        case .ogg: return try OggReader.read(file, path: path)
        case .wav: return try PCMFileReader.readWAV(file, path: path, id3: mp3.tags(ofID3:))
        case .aiff: return try PCMFileReader.readAIFF(file, path: path, id3: mp3.tags(ofID3:))
        case .mp4: return try MP4Reader.read(file, path: path)
        case nil:
            // A file named as another kind is not handed to libmpg123, which finds "frames" in
            // anything; one without a music suffix (a download in the offline cache) is.
            let suffix = Self.suffix(path)
            guard suffix == "mp3" || suffix == "mp2" || !AudioFileKind.suffixes.contains(suffix) else {
                throw SongboxError(.unreadableFile, "not a \(suffix.uppercased()) file: its first bytes are of no kind songbox plays", at: path)
            }
            return try mp3.read(path: path, file: file)
        }
    }

    /// What the file holds, by its first bytes (`AudioContainer`, as the player tells), and
    /// where that starts; nil for none of the kinds the scanner reads (MPEG audio, or nothing).
    static func kind(of file: FileBytes) -> (AudioFileKind?, Int) {
        switch AudioContainer.sniff({ file.readUpTo(at: $0, count: $1) }) {
        case .flac(let start): return (.flac, start)
        case .oggFLAC, .oggVorbis, .oggOpus, .oggOther: return (.ogg, 0)
        case .wav: return (.wav, 0)
        case .aiff: return (.aiff, 0)
        case .mp4: return (.mp4, 0)
        case .otherRIFF, .other: return (nil, 0)
        }
    }

    static func suffix(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return path[path.index(after: dot)...].lowercased()
    }
}

/// What every non-MP3 reader ends with: the tags as `ProbedFile`, lyrics included.
enum TagFormats {
    struct Audio {
        var duration: Double
        /// Bytes of audio data, for the average bitrate.
        var bytes: Int
        var sampleRate: Int
        var channels: Int
        /// Bits per sample, for lossless and PCM files.
        var bits: Int? = nil
    }

    static func probed(_ comments: VorbisCommentBlock, audio: Audio, path: String, warnings: [String]) -> ProbedFile {
        let bitrate = audio.duration > 0 ? Int((Double(audio.bytes) * 8 / audio.duration / 1000).rounded()) : 0
        let facts = AudioFacts(duration: audio.duration, bitrate: bitrate, sampleRate: audio.sampleRate, channels: audio.channels, bits: audio.bits)
        var tags = comments.tags
        let lyrics = LyricsReader.read(path: path, embedded: comments.lyrics)
        tags.lyrics = lyrics.lyrics?.text ?? comments.lyrics
        return ProbedFile(tags: tags, audio: facts, warnings: warnings + lyrics.warnings, lyrics: lyrics.lyrics, lrcMtime: lyrics.lrcMtime)
    }
}

extension FileTags {
    /// These tags, with the fields they lack taken from `other`.
    func merged(over other: FileTags) -> FileTags {
        var merged = self
        func fill<T>(_ field: WritableKeyPath<FileTags, T?>) {
            if merged[keyPath: field] == nil { merged[keyPath: field] = other[keyPath: field] }
        }
        fill(\.title); fill(\.artist); fill(\.album); fill(\.albumArtist); fill(\.genre); fill(\.comment); fill(\.lyrics)
        fill(\.year); fill(\.date); fill(\.track); fill(\.trackTotal); fill(\.disc); fill(\.discTotal); fill(\.isrc)
        merged.hasPicture = hasPicture || other.hasPicture
        return merged
    }
}
