/// What a music file is, told by its first bytes: the one sniffing of both the scanner and the
/// player, so what one indexes the other opens the same way.
public enum AudioContainer: Equatable, Sendable {
    /// Native FLAC, its `fLaC` marker at `start` (after an ID3v2 tag some taggers put in front).
    case flac(start: Int)
    case oggFLAC, oggVorbis, oggOpus
    /// An Ogg stream of a codec songbox does not play.
    case oggOther
    case wav, aiff
    /// A RIFF or IFF file that is neither WAV nor AIFF.
    case otherRIFF
    case mp4
    /// None of these: MPEG audio (which has no signature: libmpg123 looks for frames) or nothing.
    case other

    /// Sniffs a file through `read(offset, count)`, which gives up to `count` bytes from
    /// `offset` (fewer at the end of the file).
    public static func sniff(_ read: (Int, Int) -> [UInt8]) -> AudioContainer {
        let head = read(0, 64)
        func text(_ range: Range<Int>) -> String {
            range.upperBound <= head.count ? String(decoding: head[range], as: UTF8.self) : ""
        }
        if head.starts(with: Array("ID3".utf8)), head.count >= 10, head[6..<10].allSatisfy({ $0 < 0x80 }) {
            // A syncsafe size, plus a footer when the flags say so.
            let size = head[6..<10].reduce(0) { $0 << 7 | Int($1) } + (head[5] & 0x10 != 0 ? 20 : 10)
            return read(size, 4) == Array("fLaC".utf8) ? .flac(start: size) : .other
        }
        switch text(0..<4) {
        case "fLaC": return .flac(start: 0)
        case "RIFF" where text(8..<12) == "WAVE": return .wav
        case "FORM" where ["AIFF", "AIFC"].contains(text(8..<12)): return .aiff
        case "RIFF", "RF64", "FORM": return .otherRIFF
        case "OggS":
            // The first page's first packet names the codec: after the 27-byte page header and
            // its segment table.
            guard head.count > 26 else { return .oggOther }
            let packet = read(27 + Int(head[26]), 8)
            if packet.starts(with: [0x7F] + Array("FLAC".utf8)) { return .oggFLAC }
            if packet.starts(with: [0x01] + Array("vorbis".utf8)) { return .oggVorbis }
            if packet.starts(with: Array("OpusHead".utf8)) { return .oggOpus }
            return .oggOther
        default:
            return text(4..<8) == "ftyp" ? .mp4 : .other
        }
    }

    /// An 80-bit IEEE extended number (AIFF's sample rate) when it is a whole number from 1 to
    /// `limit`; nil otherwise.
    public static func extendedInteger(_ bytes: [UInt8], limit: Int) -> Int? {
        guard bytes.count == 10, bytes[0] & 0x80 == 0 else { return nil }
        let exponent = (Int(bytes[0]) << 8 | Int(bytes[1])) - 16_383
        let mantissa = bytes[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // The value is mantissa * 2^(exponent - 63): a whole number below 2^31 needs 0...30.
        guard (0...30).contains(exponent), mantissa & ((1 << UInt64(63 - exponent)) - 1) == 0 else { return nil }
        let value = Int(mantissa >> UInt64(63 - exponent))
        return (1...limit).contains(value) ? value : nil
    }
}

/// One chunk of a RIFF (WAV) or IFF (AIFF) file: its id and where its data lies.
public struct IFFChunk: Sendable, Equatable {
    public var id: String
    public var offset: Int
    /// The size it states, cut to what the file holds (`claimed` keeps what it said).
    public var length: Int
    public var claimed: Int

    public init(id: String, offset: Int, length: Int, claimed: Int) {
        self.id = id
        self.offset = offset
        self.length = length
        self.claimed = claimed
    }

    /// Walks the chunks of a file of `size` bytes from `start` (12: after the RIFF or FORM
    /// header), read through `read(offset, count)`, handing each to `visit` until it says it has
    /// all it needs (true). Returns false when `limit` chunks went by first: a file made of tiny
    /// chunks is not walked for ever.
    public static func walk(size: Int, bigEndian: Bool, from start: Int = 12, limit: Int,
                            read: (Int, Int) -> [UInt8], visit: (IFFChunk) throws -> Bool) rethrows -> Bool {
        var offset = start
        for _ in 0..<limit {
            let header = read(offset, 8)
            guard header.count == 8 else { return true }
            let ordered = bigEndian ? Array(header[4..<8]) : header[4..<8].reversed()
            let claimed = ordered.reduce(0) { $0 << 8 | Int($1) }
            let data = offset + 8
            let length = min(claimed, size - data)
            let id = String(String.UnicodeScalarView(header[0..<4].map { Unicode.Scalar($0) }))
            if try visit(IFFChunk(id: id, offset: data, length: length, claimed: claimed)) { return true }
            // Chunks are padded to an even size.
            offset = data + length + (length & 1)
        }
        return false
    }
}
