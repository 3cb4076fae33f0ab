import Foundation

/// The metadata blocks of a FLAC stream (native, or the header packets of FLAC in Ogg).
struct FLACStreamInfo: Equatable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// Samples per channel; 0 when the encoder did not know (a stream piped into it).
    var totalSamples: Int

    /// From the 34 bytes of a STREAMINFO block; nil when they cannot be audio.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 34 else { return nil }
        sampleRate = bytes.bigEndian(10, 3) >> 4
        channels = (Int(bytes[12]) >> 1 & 0x07) + 1
        bitsPerSample = ((Int(bytes[12]) & 0x01) << 4 | Int(bytes[13]) >> 4) + 1
        totalSamples = (Int(bytes[13]) & 0x0F) << 32 | bytes.bigEndian(14, 4)
        guard sampleRate > 0 else { return nil }
    }
}

/// Where a FLAC picture's parts are (a PICTURE block, or a decoded METADATA_BLOCK_PICTURE).
struct FLACPictureHeader: Equatable {
    var type: Int
    var mime: String
    var description: String?
    var width: Int?
    var height: Int?
    /// Where the image starts, counted from the start of the block's body, and its length.
    var dataOffset: Int
    var dataLength: Int

    /// Reads the fields before the image from `source`, the body of a block `blockLength` long.
    init?(_ source: inout some ByteSource, blockLength: Int) {
        guard let typeBytes = source.read(4), let mimeLength = source.read(4)?.bigEndian(0, 4),
              mimeLength <= 256, let mime = source.read(mimeLength),
              let descriptionLength = source.read(4)?.bigEndian(0, 4), descriptionLength <= 64 << 10,
              let description = source.read(descriptionLength), let sizes = source.read(16),
              let length = source.read(4)?.bigEndian(0, 4) else { return nil }
        type = typeBytes.bigEndian(0, 4)
        self.mime = String(decoding: mime, as: UTF8.self)
        let text = String(decoding: description, as: UTF8.self)
        self.description = text.isEmpty ? nil : text
        width = sizes.bigEndian(0, 4) > 0 ? sizes.bigEndian(0, 4) : nil
        height = sizes.bigEndian(4, 4) > 0 ? sizes.bigEndian(4, 4) : nil
        dataOffset = 32 + mimeLength + descriptionLength
        guard length <= blockLength - dataOffset else { return nil }
        dataLength = length
    }
}

/// Reads a native FLAC file's metadata blocks: STREAMINFO for the exact length, the Vorbis
/// comment for tags and lyrics, PICTURE blocks for art. Audio frames are not read.
enum FLACReader {
    enum BlockType: Int {
        case streamInfo = 0, vorbisComment = 4, picture = 6
    }

    struct Block {
        var type: Int
        /// The body's file offset and length.
        var offset: Int
        var length: Int
    }

    /// The metadata blocks after the `fLaC` at `start`, and where the audio begins; warnings for a
    /// block that runs past the end of the file.
    static func blocks(_ file: FileBytes, start: Int) -> (blocks: [Block], audioStart: Int, warnings: [String]) {
        var blocks: [Block] = []
        var offset = start + 4
        while let header = file.read(at: offset, count: 4) {
            let length = header.bigEndian(1, 3)
            guard length <= file.size - offset - 4 else {
                return (blocks, offset, ["a FLAC metadata block claims \(length) bytes, more than the file holds"])
            }
            blocks.append(Block(type: Int(header[0] & 0x7F), offset: offset + 4, length: length))
            offset += 4 + length
            if header[0] & 0x80 != 0 { break }
        }
        return (blocks, offset, [])
    }

    static func read(_ file: FileBytes, path: String, start: Int) throws(SongboxError) -> ProbedFile {
        let (blocks, audioStart, warnings) = blocks(file, start: start)
        guard let first = blocks.first, first.type == BlockType.streamInfo.rawValue,
              let info = file.read(at: first.offset, count: 34).flatMap(FLACStreamInfo.init) else {
            throw SongboxError(.unreadableFile, "no FLAC STREAMINFO block: not a FLAC file, or a damaged one", at: path)
        }
        var comments = VorbisCommentBlock()
        if let block = blocks.first(where: { $0.type == BlockType.vorbisComment.rawValue }) {
            var stretch = FileStretch(file, from: block.offset, count: block.length)
            comments = VorbisComments.read(&stretch)
        }
        if blocks.contains(where: { $0.type == BlockType.picture.rawValue }) { comments.tags.hasPicture = true }
        var probeWarnings = warnings + comments.warnings
        let duration: Double
        if info.totalSamples > 0 {
            duration = Double(info.totalSamples) / Double(info.sampleRate)
        } else {
            // Rare (an encoder fed from a pipe): the length is estimated from the bytes.
            duration = Double(file.size - audioStart) / Double(info.sampleRate * info.channels * info.bitsPerSample / 8) * 1.8
            probeWarnings.append("the FLAC header does not give the length: estimated")
        }
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: file.size - audioStart, sampleRate: info.sampleRate,
                                                         channels: info.channels), path: path, warnings: probeWarnings)
    }
}
