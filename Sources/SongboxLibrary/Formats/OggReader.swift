import Foundation

/// One Ogg page's header: where its packets' bytes are.
struct OggPage {
    static let headerLength = 27
    var offset: Int
    var granule: Int
    var serial: Int
    var flags: UInt8
    /// Lacing values: a packet ends at a segment shorter than 255.
    var segments: [UInt8]
    var bodyOffset: Int { offset + Self.headerLength + segments.count }
    var bodyLength: Int { segments.reduce(0) { $0 + Int($1) } }
    var end: Int { bodyOffset + bodyLength }

    /// The page at `offset`, or nil when none starts there (or it runs past the end of the file).
    init?(_ file: FileBytes, at offset: Int) {
        guard let header = file.read(at: offset, count: Self.headerLength), header.fourCC(0) == "OggS", header[4] == 0,
              let segments = file.read(at: offset + Self.headerLength, count: Int(header[26])) else { return nil }
        self.offset = offset
        flags = header[5]
        granule = header.littleEndian(6, 8)
        serial = header.littleEndian(14, 4)
        self.segments = segments
        guard end <= file.size else { return nil }
    }

    /// Whether the page's bytes agree with its CRC: a page found by searching for `OggS` in the
    /// middle of a file is real only then.
    func checksumMatches(_ file: FileBytes) -> Bool {
        guard var bytes = file.read(at: offset, count: end - offset) else { return false }
        let stored = bytes.littleEndian(22, 4)
        for index in 22..<26 { bytes[index] = 0 }
        return OggPage.crc(bytes) == stored
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? value << 1 ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    static func crc(_ bytes: [UInt8]) -> Int {
        var crc: UInt32 = 0
        for byte in bytes { crc = crc << 8 ^ crcTable[Int(UInt8(crc >> 24) ^ byte)] }
        return Int(crc)
    }
}

/// The packets of the first logical stream of an Ogg file, read in order across pages; pages of
/// other streams (a multiplexed file) are passed over.
struct OggPackets: ByteSource {
    let file: FileBytes
    private(set) var serial: Int?
    private var page: OggPage?
    private var nextPageOffset = 0
    private var segment = 0
    /// Bytes of the current segment not read yet, and the file offset they start at.
    private var segmentLeft = 0
    private var position = 0
    /// Index of the packet the next byte belongs to.
    private(set) var packet = 0
    /// Pages read: a stream whose headers go on for ever is cut off.
    private var pagesRead = 0
    /// A page of the stream failed its CRC, or no page followed where one should: the packets
    /// stop there, as libogg drops such a page and the codec then finds its header damaged.
    private(set) var damaged = false
    static let pageLimit = 4096

    init(_ file: FileBytes) {
        self.file = file
    }

    /// Moves to the start of packet `index`; false when the stream ends first.
    mutating func seek(toPacket index: Int) -> Bool {
        while packet < index {
            if segmentLeft > 0 {
                position += segmentLeft
                segmentLeft = 0
            }
            guard advanceSegment() else { return false }
        }
        return true
    }

    mutating func read(_ count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(count, 1 << 16))
        while bytes.count < count {
            guard segmentLeft > 0 || advanceSegment() else { return nil }
            let take = min(segmentLeft, count - bytes.count)
            guard let piece = file.read(at: position, count: take) else { return nil }
            bytes += piece
            position += take
            segmentLeft -= take
        }
        return bytes
    }

    mutating func skip(_ count: Int) -> Bool {
        var left = count
        while left > 0 {
            guard segmentLeft > 0 || advanceSegment() else { return false }
            let take = min(segmentLeft, left)
            position += take
            segmentLeft -= take
            left -= take
        }
        return true
    }

    /// Moves to the next segment with bytes of this stream, counting packets as they end.
    private mutating func advanceSegment() -> Bool {
        while true {
            if let current = page, segment < current.segments.count {
                // The segment before this one ended a packet when it was shorter than 255.
                if segment > 0, current.segments[segment - 1] < 255 { packet += 1 }
                segmentLeft = Int(current.segments[segment])
                segment += 1
                if segmentLeft > 0 { return true }
                continue
            }
            if let current = page, let last = current.segments.last, last < 255 { packet += 1 }
            guard pagesRead < Self.pageLimit else { return false }
            var next: OggPage?
            while let candidate = OggPage(file, at: nextPageOffset) {
                nextPageOffset = candidate.end
                pagesRead += 1
                if serial == nil { serial = candidate.serial }
                if candidate.serial == serial {
                    next = candidate
                    break
                }
            }
            // The end of the file is a stream cut short; anything else where a page should be is damage.
            guard let found = next, found.checksumMatches(file) else {
                damaged = next != nil || nextPageOffset < file.size
                return false
            }
            page = found
            segment = 0
            position = found.bodyOffset
        }
    }
}

/// Reads Ogg files: Vorbis, Opus, or FLAC in Ogg. Tags come from the comment header packet,
/// the exact length from the last page's granule position.
enum OggReader {
    enum Codec: Equatable {
        case vorbis, opus, flac
    }

    static func read(_ file: FileBytes, path: String) throws(SongboxError) -> ProbedFile {
        var packets = OggPackets(file)
        guard let head = packets.read(19) else {
            throw SongboxError(.unreadableFile, "no Ogg stream header: not an Ogg file, or a damaged one", at: path)
        }
        let serial = packets.serial ?? 0
        var comments: VorbisCommentBlock
        var rate: Int
        let channels: Int
        var preSkip = 0
        var totalSamples = 0
        var bits: Int?
        if head.starts(with: [0x01] + Array("vorbis".utf8)) {
            channels = Int(head[11])
            rate = head.littleEndian(12, 4)
            guard packets.seek(toPacket: 1), let marker = packets.read(7), marker == [0x03] + Array("vorbis".utf8) else {
                throw SongboxError(.unreadableFile, "the Vorbis comment header is missing or damaged", at: path)
            }
            comments = VorbisComments.read(&packets)
            // The setup header (codebooks) must be whole too, or libvorbis cannot start.
            guard packets.seek(toPacket: 3) else { throw damagedHeader(packets, path: path) }
        } else if head.starts(with: Array("OpusHead".utf8)) {
            channels = Int(head[9])
            preSkip = head.littleEndian(10, 2)
            // Opus always decodes at 48 kHz; the input rate in the header is only informative.
            rate = 48_000
            guard packets.seek(toPacket: 1), let marker = packets.read(8), marker == Array("OpusTags".utf8) else {
                throw SongboxError(.unreadableFile, "the OpusTags header is missing or damaged", at: path)
            }
            comments = VorbisComments.read(&packets)
            comments.applyR128Gains()
            guard packets.seek(toPacket: 2) else { throw damagedHeader(packets, path: path) }
        } else if head.starts(with: [0x7F] + Array("FLAC".utf8)), let rest = packets.read(51 - 19),
                  let info = FLACStreamInfo(Array((head + rest)[17...])) {
            // 0x7F "FLAC", version, header count, "fLaC", then a STREAMINFO block (4 + 34 bytes).
            channels = info.channels
            rate = info.sampleRate
            totalSamples = info.totalSamples
            comments = VorbisCommentBlock()
            // The other header packets are metadata blocks: the comment is usually the next.
            var index = 1, hasPicture = false
            bits = info.bitsPerSample
            while packets.seek(toPacket: index), let header = packets.read(4), index < 64 {
                if Int(header[0] & 0x7F) == FLACReader.BlockType.vorbisComment.rawValue {
                    comments = VorbisComments.read(&packets)
                } else if Int(header[0] & 0x7F) == FLACReader.BlockType.picture.rawValue {
                    hasPicture = true
                }
                if header[0] & 0x80 != 0 { break }
                index += 1
            }
            // A PICTURE block may come before the comment block, which would not know of it.
            comments.tags.hasPicture = comments.tags.hasPicture || hasPicture
            guard packets.seek(toPacket: index + 1) else { throw damagedHeader(packets, path: path) }
        } else {
            throw SongboxError(.unreadableFile, "an Ogg stream of a kind songbox does not play (not Vorbis, Opus or FLAC)", at: path)
        }
        if packets.damaged { throw damagedHeader(packets, path: path) }
        guard rate > 0, rate <= 768_000, channels > 0 else {
            throw SongboxError(.unreadableFile, "the Ogg stream header gives no usable rate or channel count", at: path)
        }
        // Header pages have position 0: a stream of headers alone has no audio.
        guard let last = lastGranule(file, serial: serial), last > 0 else {
            throw SongboxError(.unreadableFile, "no Ogg page with a position found at the end of the file: cut short or damaged", at: path)
        }
        let samples = totalSamples > 0 ? totalSamples : max(last - preSkip, 0)
        let duration = Double(samples) / Double(rate)
        return TagFormats.probed(comments, audio: TagFormats.Audio(duration: duration, bytes: file.size, sampleRate: rate, channels: channels,
                                                                   bits: bits),
                                 path: path, warnings: comments.warnings)
    }

    /// Why the headers could not be read whole.
    private static func damagedHeader(_ packets: OggPackets, path: String) -> SongboxError {
        packets.damaged ? SongboxError(.unreadableFile, "its stream headers are damaged (an Ogg page's checksum does not match)", at: path)
            : SongboxError(.unreadableFile, "its stream headers are cut short: no audio follows them", at: path)
    }

    /// The granule position of the last page of stream `serial` that has one, searched for from
    /// the end of the file (a page is at most 65,307 bytes) and checked by its CRC.
    static func lastGranule(_ file: FileBytes, serial: Int) -> Int? {
        let window = 65_307 * 2
        var end = file.size
        // Looks back one window, then another, past a damaged tail; bounded.
        for _ in 0..<4 where end > 0 {
            let start = max(0, end - window)
            let bytes = file.readUpTo(at: start, count: end - start)
            var index = bytes.count - 4
            while index >= 0 {
                if bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67, bytes[index + 3] == 0x53,
                   let page = OggPage(file, at: start + index), page.serial == serial, page.granule >= 0,
                   page.checksumMatches(file) {
                    return page.granule
                }
                index -= 1
            }
            end = start
        }
        return nil
    }
}
