import Foundation

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
    public static let pcm = Kind(plugin: "pcm", name: "WAV or AIFF", suffixes: ["wav", "aiff", "aif", "aifc"],
                                 mimeTypes: ["audio/wav", "audio/wave", "audio/x-wav", "audio/aiff", "audio/x-aiff"])

    /// Every kind songbox plays, MP3 first (what a file of no other kind is tried as).
    public static let kinds: [Kind] = [mp3, flac, oggFLAC, vorbis, opus, pcm]

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
        default:
            do throws(DecodeError) {
                return try MP3Decoder(path: path, rate: rate)
            } catch where error.message.hasPrefix("no MPEG audio found") && !isMP3Name(path) {
                // Named as something else, it was never meant to be an MP3: say what songbox plays.
                throw DecodeError(path: path, message: "not a kind of audio songbox plays (MP3, FLAC, Ogg Vorbis, Opus, WAV or AIFF)")
            }
        }
    }

    /// What the file's first bytes say it is; MP3 for anything else (MPEG audio has no
    /// signature of its own: libmpg123 looks for frames); an error for the kinds songbox knows
    /// it does not play.
    static func kind(of bytes: AudioFileBytes) throws(DecodeError) -> Kind {
        var head = bytes.bytes(at: 0, count: 64)
        // A FLAC file may start with an ID3v2 tag (libFLAC skips it): look after it.
        if head.starts(with: Array("ID3".utf8)), head.count >= 10, head[6..<10].allSatisfy({ $0 < 0x80 }) {
            let size = head[6..<10].reduce(0) { $0 << 7 | Int($1) } + (head[5] & 0x10 != 0 ? 20 : 10)
            if bytes.bytes(at: size, count: 4) == Array("fLaC".utf8) { return flac }
        }
        func text(_ range: Range<Int>) -> String {
            range.upperBound <= head.count ? String(decoding: head[range], as: UTF8.self) : ""
        }
        switch text(0..<4) {
        case "fLaC": return flac
        case "RIFF" where text(8..<12) == "WAVE": return pcm
        case "FORM" where ["AIFF", "AIFC"].contains(text(8..<12)): return pcm
        case "OggS":
            // The first page's first packet names the codec: after the 27-byte page header and
            // its segment table.
            let packet = 27 + (head.count > 26 ? Int(head[26]) : 0)
            if head.count < packet + 8 { head = bytes.bytes(at: 0, count: packet + 8) }
            let start = Array(head.dropFirst(packet).prefix(8))
            if start.starts(with: [0x7F] + Array("FLAC".utf8)) { return oggFLAC }
            if start.starts(with: [0x01] + Array("vorbis".utf8)) { return vorbis }
            if start.starts(with: Array("OpusHead".utf8)) { return opus }
            throw unknown(bytes.path, "an Ogg stream of a codec it does not know (not Vorbis, Opus or FLAC)")
        case "RIFF", "RF64", "FORM": throw unknown(bytes.path, "a RIFF or IFF file that is not WAV or AIFF")
        default:
            if text(4..<8) == "ftyp" { throw unknown(bytes.path, "an MP4 file (AAC or ALAC are not played yet)") }
            return mp3
        }
    }

    private static func unknown(_ path: String, _ what: String) -> DecodeError {
        DecodeError(path: path, message: "not a kind of audio songbox plays: \(what)")
    }

    private static func isMP3Name(_ path: String) -> Bool {
        ["mp3", "mp2", "mp1", "mpga"].contains((path as NSString).pathExtension.lowercased())
    }
}
