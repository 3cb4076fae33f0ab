import Foundation
import SongboxFiles

/// The one way the rest of songbox opens an audio file: the decoder is chosen by what the file
/// holds (its first bytes), not by its name, so a FLAC file called `.mp3` plays, and a file of
/// a kind songbox does not play says so.
public enum AudioFile {
    /// A kind of file songbox plays, as MPD's `decoders` lists its plugins.
    public struct Kind: Sendable, Hashable {
        /// The plugin name MPD gives the same kind (`flac`, `vorbis`...).
        public let plugin: String
        /// Said to people: "FLAC", "Ogg Vorbis"...
        public let name: String
        public let suffixes: [String]
        public let mimeTypes: [String]
    }

    public static let mp3 = Kind(plugin: "mpg123", name: "MP3", suffixes: ["mp3", "mp2"], mimeTypes: ["audio/mpeg"])
    public static let flac = Kind(plugin: "flac", name: "FLAC", suffixes: ["flac"],
                                  mimeTypes: ["application/flac", "application/x-flac", "audio/flac", "audio/x-flac"])
    public static let oggFLAC = Kind(plugin: "oggflac", name: "FLAC in Ogg", suffixes: ["ogg", "oga"],
                                     mimeTypes: ["application/ogg", "application/x-ogg", "audio/ogg", "audio/x-flac+ogg",
                                                 "audio/x-ogg"])
    public static let vorbis = Kind(plugin: "vorbis", name: "Ogg Vorbis", suffixes: ["ogg", "oga"],
                                    mimeTypes: ["application/ogg", "application/x-ogg", "audio/ogg", "audio/vorbis",
                                                "audio/vorbis+ogg", "audio/x-ogg", "audio/x-vorbis", "audio/x-vorbis+ogg"])
    public static let opus = Kind(plugin: "opus", name: "Opus", suffixes: ["opus", "ogg", "oga"],
                                  mimeTypes: ["audio/ogg", "audio/opus"])
    /// AAC (libfaad2) and ALAC (songbox's own decoder) in MP4: what MPD's Debian build plays
    /// through FFmpeg, listed under the suffixes and MIME types of MP4 audio.
    public static let mp4 = Kind(plugin: "mp4", name: "AAC or ALAC (MP4)", suffixes: ["m4a", "m4b", "mp4"],
                                 mimeTypes: ["audio/mp4", "audio/m4a", "audio/x-m4a", "audio/x-m4b", "audio/mp4a-latm"])
    public static let pcm = Kind(plugin: "pcm", name: "WAV or AIFF", suffixes: ["wav", "aiff", "aif", "aifc"],
                                 mimeTypes: ["audio/wav", "audio/wave", "audio/x-wav", "audio/aiff", "audio/x-aiff"])

    /// Every kind songbox plays, MP3 first (what a file of no other kind is tried as).
    public static let kinds: [Kind] = [mp3, flac, oggFLAC, vorbis, opus, mp4, pcm]

    /// A decoder for the file at `path`, at `rate` when given (resampled to it), else at the
    /// file's own rate.
    public static func decoder(path: String, rate: Int?) throws(DecodeError) -> any TrackDecoder {
        let bytes = try AudioFileBytes(path: path)
        switch try kind(of: bytes) {
        case flac: return try FLACDecoder(bytes: bytes, ogg: false, rate: rate)
        case oggFLAC: return try FLACDecoder(bytes: bytes, ogg: true, rate: rate)
        case vorbis: return try VorbisDecoder(bytes: bytes, rate: rate)
        case opus: return try OpusDecoder(bytes: bytes, rate: rate)
        case pcm: return try PCMFileDecoder(bytes: bytes, rate: rate)
        case mp4: return try MP4Decoder(bytes: bytes, rate: rate)
        default:
            do throws(DecodeError) {
                return try MP3Decoder(path: path, rate: rate)
            } catch where error.message.hasPrefix("no MPEG audio found") && !isMP3Name(path) {
                // Named as something else, it was never meant to be an MP3: say what songbox plays.
                throw DecodeError(path: path, message: "not a kind of audio songbox plays (MP3, FLAC, Ogg Vorbis, Opus, AAC, ALAC, WAV or AIFF)")
            }
        }
    }

    /// What the file's first bytes say it is; MP3 for anything else (MPEG audio has no
    /// signature of its own: libmpg123 looks for frames); an error for the kinds songbox knows
    /// it does not play.
    static func kind(of bytes: AudioFileBytes) throws(DecodeError) -> Kind {
        switch AudioContainer.sniff({ bytes.bytes(at: $0, count: $1) }) {
        case .flac: return flac
        case .oggFLAC: return oggFLAC
        case .oggVorbis: return vorbis
        case .oggOpus: return opus
        case .wav, .aiff: return pcm
        case .oggOther: throw unknown(bytes.path, "an Ogg stream of a codec it does not know (not Vorbis, Opus or FLAC)")
        case .otherRIFF: throw unknown(bytes.path, "a RIFF or IFF file that is not WAV or AIFF")
        case .mp4: return mp4
        case .other: return mp3
        }
    }

    private static func unknown(_ path: String, _ what: String) -> DecodeError {
        DecodeError(path: path, message: "not a kind of audio songbox plays: \(what)")
    }

    private static func isMP3Name(_ path: String) -> Bool {
        ["mp3", "mp2", "mp1", "mpga"].contains((path as NSString).pathExtension.lowercased())
    }
}
