import Foundation

/// The metadata blocks of a FLAC stream (native, or the header packets of FLAC in Ogg).
struct FLACStreamInfo: Equatable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// Samples per channel; 0 when the encoder did not know (a stream piped into it).
    var totalSamples: Int
    /// The largest block size, which every frame but the last has in a fixed-block-size stream.
    var fixedBlockSize: Int

    /// From the 34 bytes of a STREAMINFO block; nil when they cannot be audio.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 34 else { return nil }
        fixedBlockSize = bytes.bigEndian(2, 2)
        sampleRate = bytes.bigEndian(10, 3) >> 4
        channels = (Int(bytes[12]) >> 1 & 0x07) + 1
        bitsPerSample = ((Int(bytes[12]) & 0x01) << 4 | Int(bytes[13]) >> 4) + 1
        totalSamples = (Int(bytes[13]) & 0x0F) << 32 | bytes.bigEndian(14, 4)
        guard sampleRate > 0 else { return nil }
    }
}

/// The header of a FLAC audio frame: which samples it holds.
struct FLACFrameHeader {
    /// The first sample it holds, and how many.
    var firstSample: Int
    var blockSize: Int

    /// The header starting at `bytes[0]` (at least 16 bytes, fewer at the end of a file), when
    /// its sync code, reserved bits and CRC-8 agree. `fixedBlockSize` turns a frame number into
    /// a sample number.
    init?(_ bytes: ArraySlice<UInt8>, fixedBlockSize: Int) {
        let bytes = Array(bytes.prefix(16))
        guard bytes.count >= 6, bytes[0] == 0xFF, bytes[1] & 0xFE == 0xF8, bytes[3] & 0x01 == 0 else { return nil }
        let variable = bytes[1] & 0x01 != 0
        let sizeCode = Int(bytes[2] >> 4), rateCode = Int(bytes[2] & 0x0F)
        guard sizeCode != 0, rateCode != 15, bytes[3] >> 4 < 11, (bytes[3] >> 1) & 0x07 != 3 else { return nil }
        // The frame or sample number, UTF-8 coded (up to 7 bytes, 36 bits).
        let lead = bytes[4]
        let extra = lead < 0x80 ? 0 : lead >= 0xFE ? 6 : lead >= 0xFC ? 5 : lead >= 0xF8 ? 4 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1
        guard extra >= 0, bytes.count >= 5 + extra + 3 else { return nil }
        var number = extra == 0 ? Int(lead) : Int(lead) & (0x3F >> extra)
        for index in 0..<extra {
            let byte = bytes[5 + index]
            guard byte & 0xC0 == 0x80 else { return nil }
            number = number << 6 | Int(byte & 0x3F)
        }
        var index = 5 + extra
        switch sizeCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << (sizeCode - 2)
        case 6: blockSize = Int(bytes[index]) + 1; index += 1
        case 7: blockSize = bytes.bigEndian(index, 2) + 1; index += 2
        default: blockSize = 256 << (sizeCode - 8)
        }
        index += rateCode == 12 ? 1 : rateCode == 13 || rateCode == 14 ? 2 : 0
        guard index < bytes.count, Self.crc8(bytes[..<index]) == bytes[index] else { return nil }
        firstSample = variable ? number : number * fixedBlockSize
    }

    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
        }
        return crc
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

    /// The metadata blocks after the `fLaC` at `start`, where the audio begins, and whether a
    /// block runs past the end of the file (the blocks before it are kept).
    static func blocks(_ file: FileBytes, start: Int) -> (blocks: [Block], audioStart: Int, cutShort: Bool) {
        var blocks: [Block] = []
        var offset = start + 4
        while let header = file.read(at: offset, count: 4) {
            let length = header.bigEndian(1, 3)
            guard length <= file.size - offset - 4 else { return (blocks, offset, true) }
            blocks.append(Block(type: Int(header[0] & 0x7F), offset: offset + 4, length: length))
            offset += 4 + length
            if header[0] & 0x80 != 0 { break }
        }
        return (blocks, offset, false)
    }

    /// The samples up to the end of the last frame, found by searching back from the end of the
    /// file (its last 128 KB: a frame is rarely over 64 KB).
    static func lastFrameEnd(_ file: FileBytes, after audioStart: Int, info: FLACStreamInfo) -> Int? {
        let window = 1 << 17
        let start = max(audioStart, file.size - window)
        let bytes = file.readUpTo(at: start, count: file.size - start)
        var index = bytes.count - 6
        while index >= 0 {
            if bytes[index] == 0xFF, let header = FLACFrameHeader(bytes[index...], fixedBlockSize: info.fixedBlockSize) {
                return header.firstSample + header.blockSize
            }
            index -= 1
        }
        return nil
    }

    static func read(_ file: FileBytes, path: String, start: Int) throws(SongboxError) -> ProbedFile {
        let (blocks, audioStart, cutShort) = blocks(file, start: start)
        // A block running past the end leaves no audio, and libFLAC will not start.
        guard !cutShort else {
            throw SongboxError(.unreadableFile, "its metadata runs past the end of the file: cut short, no audio", at: path)
        }
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
        // An encoder writing to a pipe cannot go back to fill in the count: the last frame tells.
        guard let samples = info.totalSamples > 0 ? info.totalSamples : lastFrameEnd(file, after: audioStart, info: info) else {
            throw SongboxError(.unreadableFile, "the FLAC header does not give the length, and no whole frame ends the file", at: path)
        }
        let duration = Double(samples) / Double(info.sampleRate)
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: file.size - audioStart, sampleRate: info.sampleRate,
                                                         channels: info.channels, bits: info.bitsPerSample),
                                 path: path, warnings: comments.warnings)
    }
}
