import Foundation
import SongboxFiles

/// Reads WAV (RIFF) and AIFF/AIFF-C files: the format chunk for the exact length, text chunks
/// (RIFF `LIST`/`INFO`, AIFF `NAME`/`AUTH`/`ANNO`/`(c) `) for tags.
enum PCMFileReader {
    /// Chunks walked before giving up on a file made of tiny chunks.
    static let chunkLimit = 4096

    typealias Chunk = IFFChunk

    /// The chunks of a RIFF (`bigEndian` false) or FORM file, after the 12-byte header.
    static func chunks(_ file: FileBytes, bigEndian: Bool, from start: Int = 12) -> [Chunk] {
        var chunks: [Chunk] = []
        _ = IFFChunk.walk(size: file.size, bigEndian: bigEndian, from: start, limit: chunkLimit,
                          read: { file.readUpTo(at: $0, count: $1) }) { chunk in
            chunks.append(chunk)
            return false
        }
        return chunks
    }

    static func readWAV(_ file: FileBytes, path: String, id3: (([UInt8]) -> FileTags?)? = nil) throws(SongboxError) -> ProbedFile {
        let chunks = chunks(file, bigEndian: false)
        guard let format = chunks.first(where: { $0.id == "fmt " }), format.length >= 16,
              let fields = file.read(at: format.offset, count: 16) else {
            throw SongboxError(.unreadableFile, "a WAV file without its format chunk", at: path)
        }
        let channels = fields.littleEndian(2, 2), rate = fields.littleEndian(4, 4), blockAlign = fields.littleEndian(12, 2)
        // Integer samples: their bits (WAVE_FORMAT_EXTENSIBLE's valid bits when it says); float: none.
        var bits: Int? = fields.littleEndian(0, 2) == 3 ? nil : fields.littleEndian(14, 2)
        if fields.littleEndian(0, 2) == 0xFFFE, format.length >= 26, let extended = file.read(at: format.offset + 16, count: 10) {
            bits = extended.littleEndian(8, 2) == 3 ? nil : extended.littleEndian(2, 2) > 0 ? extended.littleEndian(2, 2) : bits
        }
        guard let data = chunks.first(where: { $0.id == "data" }) else {
            throw SongboxError(.unreadableFile, "a WAV file without a data chunk", at: path)
        }
        var comments = VorbisCommentBlock()
        for list in chunks where list.id == "LIST" {
            guard file.read(at: list.offset, count: 4)?.fourCC(0) == "INFO" else { continue }
            for entry in Self.chunks(file, bigEndian: false, from: list.offset + 4) where entry.offset + entry.length <= list.offset + list.length {
                guard let key = infoKeys[entry.id], entry.length <= VorbisComments.valueLimit,
                      let bytes = file.read(at: entry.offset, count: entry.length) else { continue }
                let value = LRCFile.text(Array(bytes.prefix { $0 != 0 })).trimmingSpaces
                if !value.isEmpty { VorbisComments.apply(key, [value], to: &comments) }
            }
        }
        return try probed(comments, file: file, chunks: chunks, data: data, rate: rate, channels: channels, bits: bits, frameBytes: blockAlign,
                          path: path, id3: id3)
    }

    static func readAIFF(_ file: FileBytes, path: String, id3: (([UInt8]) -> FileTags?)? = nil) throws(SongboxError) -> ProbedFile {
        let chunks = chunks(file, bigEndian: true)
        guard let common = chunks.first(where: { $0.id == "COMM" }), let fields = file.read(at: common.offset, count: 18) else {
            throw SongboxError(.unreadableFile, "an AIFF file without its COMM chunk", at: path)
        }
        let channels = fields.bigEndian(0, 2), frames = fields.bigEndian(2, 4), bits = fields.bigEndian(6, 2)
        guard let rate = AudioContainer.extendedInteger(Array(fields[8..<18]), limit: 768_000) else {
            throw SongboxError(.unreadableFile, "the AIFF COMM chunk gives no usable sample rate", at: path)
        }
        guard let sound = chunks.first(where: { $0.id == "SSND" }) else {
            throw SongboxError(.unreadableFile, "an AIFF file without a sound data chunk", at: path)
        }
        var comments = VorbisCommentBlock()
        for chunk in chunks {
            guard let key = aiffKeys[chunk.id], chunk.length <= VorbisComments.valueLimit,
                  let bytes = file.read(at: chunk.offset, count: chunk.length) else { continue }
            let value = LRCFile.text(Array(bytes.prefix { $0 != 0 })).trimmingSpaces
            if !value.isEmpty { VorbisComments.apply(key, [value], to: &comments) }
        }
        // The sound data starts 8 bytes in (offset and block size), plus the offset it states.
        let frameBytes = channels * ((bits + 7) / 8)
        var probe = try probed(comments, file: file, chunks: chunks, data: Chunk(id: "SSND", offset: sound.offset + 8, length: max(sound.length - 8, 0),
                                                                    claimed: max(sound.claimed - 8, 0)),
                               rate: rate, channels: channels, bits: bits, frameBytes: frameBytes, path: path, id3: id3)
        if frames > 0, frameBytes > 0, frames * frameBytes > sound.length {
            probe.warnings.append("the COMM chunk claims \(frames) frames, more than the sound data holds")
        }
        return probe
    }

    private static func probed(_ comments: VorbisCommentBlock, file: FileBytes, chunks: [Chunk], data: Chunk, rate: Int, channels: Int,
                               bits: Int?, frameBytes: Int, path: String, id3: (([UInt8]) -> FileTags?)?) throws(SongboxError) -> ProbedFile {
        guard rate > 0, rate <= 768_000, channels > 0, frameBytes > 0 else {
            throw SongboxError(.unreadableFile, "the format chunk gives no usable rate, channel count or frame size", at: path)
        }
        var warnings = comments.warnings
        if data.claimed > data.length {
            warnings.append("the data chunk claims \(data.claimed) bytes but the file holds \(data.length): indexed as far as it goes")
        }
        // An ID3 chunk (Picard, foobar2000 and Mp3tag write one) comes before the text chunks.
        var comments = comments
        if let chunk = chunks.first(where: { $0.id == "id3 " || $0.id == "ID3 " }), let id3 {
            if chunk.length > id3ChunkLimit {
                warnings.append("its ID3 chunk of \(chunk.length) bytes is over \(id3ChunkLimit >> 20) MiB: not read")
            } else if let tag = file.read(at: chunk.offset, count: chunk.length), let tags = id3(tag) {
                comments.tags = tags.merged(over: comments.tags)
            } else {
                warnings.append("its ID3 chunk holds no tag songbox can read")
            }
        }
        let duration = Double(data.length / frameBytes) / Double(rate)
        let usable = bits.flatMap { (1...64).contains($0) ? $0 : nil }
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: data.length, sampleRate: rate, channels: channels,
                                                                   bits: usable),
                                 path: path, warnings: warnings)
    }

    /// The largest ID3 chunk read (pictures included: it is read whole).
    static let id3ChunkLimit = 16 << 20

    /// RIFF INFO chunk ids, as the Vorbis comment keys they mean.
    private static let infoKeys = ["INAM": "TITLE", "IART": "ARTIST", "IPRD": "ALBUM", "ICRD": "DATE", "IGNR": "GENRE",
                                   "ICMT": "COMMENT", "ITRK": "TRACKNUMBER", "IPRT": "TRACKNUMBER", "ISRC": "ISRC"]
    private static let aiffKeys = ["NAME": "TITLE", "AUTH": "ARTIST", "ANNO": "COMMENT"]
}
