/// One MP4 box (atom): its type and where its body lies in the file.
public struct MP4Box: Sendable, Equatable {
    public var type: String
    public var bodyOffset: Int
    public var bodyLength: Int
    public var end: Int { bodyOffset + bodyLength }

    /// The boxes from `offset` to `end`, each checked to lie inside it, read through
    /// `read(offset, count)` (up to `count` bytes: fewer at the end of the file). A size that
    /// runs past the end stops the walk (what came before is kept), with `damaged` set.
    public static func children(from offset: Int, to end: Int, damaged: inout Bool, read: (Int, Int) -> [UInt8]) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var position = offset
        while position + 8 <= end, boxes.count < 4096 {
            let header = read(position, 8)
            guard header.count == 8 else { damaged = true; break }
            var size = header.bigEndian(0, 4)
            var headerLength = 8
            if size == 1 {
                let large = read(position + 8, 8)
                guard large.count == 8, large[0] & 0x80 == 0 else { damaged = true; break }
                size = large.bigEndian(0, 8)
                headerLength = 16
            } else if size == 0 {
                size = end - position
            }
            guard size >= headerLength, size <= end - position else {
                damaged = true
                break
            }
            boxes.append(MP4Box(type: header.fourCC(4), bodyOffset: position + headerLength, bodyLength: size - headerLength))
            position += size
        }
        return boxes
    }
}

/// What the scanner and the player take from an MP4 file's `moov`: the first sound track of
/// AAC or ALAC, its sample tables checked against the file, and the encoder delay and padding
/// (`iTunSMPB`, else the edit list). The one reading of both, so that what the scanner indexes
/// (and how long it says it is) is what the player plays. `mdat` is never read here.
public struct MP4Movie: Sendable {
    public var moov: MP4Box
    public var movieTimeScale = 0
    public var track: MP4SoundTrack?
    /// `iTunSMPB`: encoder delay, padding, original samples.
    public var gapless: (delay: Int, padding: Int, samples: Int)?
    /// A box claimed more bytes than its parent holds: the boxes after it were not read.
    public var damaged = false

    /// The largest `moov` read: beyond it a file is not taken as music.
    public static let movieLimit = 64 << 20

    /// The movie of a file of `size` bytes read through `read(offset, count)`; nil when it has
    /// no `moov` (or one larger than `movieLimit`).
    public static func read(size: Int, _ read: (Int, Int) -> [UInt8]) -> MP4Movie? {
        var damaged = false
        guard let moov = MP4Box.children(from: 0, to: size, damaged: &damaged, read: read).first(where: { $0.type == "moov" }),
              moov.bodyLength <= movieLimit else { return nil }
        var movie = MP4Movie(moov: moov)
        movie.damaged = damaged
        for box in MP4Box.children(from: moov.bodyOffset, to: moov.end, damaged: &movie.damaged, read: read) {
            switch box.type {
            case "mvhd":
                let header = read(box.bodyOffset, 32)
                guard header.count == 32 else { continue }
                movie.movieTimeScale = header[0] == 1 ? header.bigEndian(20, 4) : header.bigEndian(12, 4)
            case "trak" where movie.track == nil:
                movie.track = MP4SoundTrack(trak: box, fileSize: size, damaged: &movie.damaged, read: read)
            case "udta": movie.gapless = Self.iTunSMPB(box, damaged: &movie.damaged, read: read)
            default: break
            }
        }
        return movie
    }

    /// The `ilst` of a `udta` (through its `meta`), for the tags.
    public static func itemList(_ udta: MP4Box, damaged: inout Bool, read: (Int, Int) -> [UInt8]) -> MP4Box? {
        guard let meta = MP4Box.children(from: udta.bodyOffset, to: udta.end, damaged: &damaged, read: read)
            .first(where: { $0.type == "meta" }) else { return nil }
        // `meta` is a full box (4 bytes of version and flags) in iTunes files, not in QuickTime ones.
        let fullBox = read(meta.bodyOffset + 4, 4) != Array("hdlr".utf8)
        let start = meta.bodyOffset + (fullBox ? 4 : 0)
        return MP4Box.children(from: start, to: meta.end, damaged: &damaged, read: read).first { $0.type == "ilst" }
    }

    /// The name of a freeform `----` item (`com.apple.iTunes`'s `iTunSMPB`, `replaygain_track_gain`...),
    /// upper-cased, with its parts.
    public static func freeformName(_ parts: [MP4Box], read: (Int, Int) -> [UInt8]) -> String? {
        guard let name = parts.first(where: { $0.type == "name" }), name.bodyLength >= 4, name.bodyLength <= 256 + 4 else { return nil }
        let bytes = read(name.bodyOffset + 4, name.bodyLength - 4)
        guard bytes.count == name.bodyLength - 4 else { return nil }
        return String(decoding: bytes, as: UTF8.self).uppercased()
    }

    private static func iTunSMPB(_ udta: MP4Box, damaged: inout Bool, read: (Int, Int) -> [UInt8]) -> (Int, Int, Int)? {
        guard let ilst = itemList(udta, damaged: &damaged, read: read) else { return nil }
        for item in MP4Box.children(from: ilst.bodyOffset, to: ilst.end, damaged: &damaged, read: read) where item.type == "----" {
            let parts = MP4Box.children(from: item.bodyOffset, to: item.end, damaged: &damaged, read: read)
            guard freeformName(parts, read: read) == "ITUNSMPB",
                  let data = parts.first(where: { $0.type == "data" }), data.bodyLength >= 8, data.bodyLength <= 1024 else { continue }
            let value = read(data.bodyOffset + 8, data.bodyLength - 8)
            // " 00000000 00000840 000001CA 00000000003F9E16 ...": hex fields; 16 digits at most each.
            let fields = String(decoding: value, as: UTF8.self).split(separator: " ").map { Int($0.prefix(16), radix: 16) }
            guard fields.count >= 4, let delay = fields[1], let padding = fields[2], let samples = fields[3],
                  delay < 1 << 32, padding < 1 << 32, samples < 1 << 40 else { return nil }
            return (delay, padding, samples)
        }
        return nil
    }

    /// Where the track's audio starts and how long it is, in frames at `rate` (the decoder's
    /// output rate): `iTunSMPB`'s delay and samples, else the edit list's start and length,
    /// else the whole media; never more than the sample tables hold.
    public func trim(rate: Int) -> (start: Int, frames: Int) {
        guard let track, track.mediaTimeScale > 0, rate > 0 else { return (0, 0) }
        // Media time to frames at `rate` (the media time scale is the sample rate, in practice).
        let scale = Double(rate) / Double(track.mediaTimeScale)
        // Clamped: a header's huge number must not trap the conversion.
        func toFrames(_ media: Int, _ scale: Double) -> Int { Int(min(max(0, (Double(media) * scale).rounded()), 0x1_0000_0000_0000)) }
        let playable = toFrames(track.table.playableTime, scale)
        var start = 0, frames: Int
        if let gapless, gapless.samples > 0 {
            start = gapless.delay
            frames = gapless.samples
        } else {
            frames = toFrames(track.mediaDuration, scale)
            if let mediaStart = track.editMediaTime, mediaStart > 0 {
                start = toFrames(mediaStart, scale)
                frames -= start
            }
            // The edit's length is in the movie's time scale, often milliseconds (FFmpeg writes
            // 2267 for 100,003 samples): it cuts padding only where it is shorter by more than
            // its own rounding.
            if let length = track.editDuration, length > 0, movieTimeScale > 0 {
                let tick = Double(rate) / Double(movieTimeScale)
                let edited = toFrames(length, tick)
                if Double(frames - edited) > tick.rounded(.up) { frames = edited }
            }
        }
        start = min(max(start, 0), playable)
        return (start, max(0, min(frames, playable - start)))
    }
}

/// A sound track of AAC (`mp4a` with an `esds` AudioSpecificConfig) or ALAC (`alac`).
public struct MP4SoundTrack: Sendable {
    public enum Codec: Sendable, Equatable {
        /// The AudioSpecificConfig from `esds`.
        case aac(config: [UInt8])
        /// The 24-byte ALACSpecificConfig.
        case alac(config: [UInt8])
    }

    public var codec: Codec
    /// From the sample entry (ALAC's own configuration for ALAC; the AudioSpecificConfig's for AAC).
    public var sampleRate: Int
    public var channels: Int
    public var mediaTimeScale = 0
    public var mediaDuration = 0
    /// The edit list's one segment: its length (movie time scale) and where it starts in the media.
    public var editDuration: Int?
    public var editMediaTime: Int?
    public var table: MP4SampleTable
    /// Why the sample tables were refused or cut short, for the scanner's warning or error.
    public var problem: String?

    /// Reads a `trak`; nil unless it is a sound track of AAC or ALAC with a time scale.
    init?(trak: MP4Box, fileSize: Int, damaged: inout Bool, read: (Int, Int) -> [UInt8]) {
        var isSound = false
        var codec: Codec?, rate = 0, channels = 0, timeScale = 0, duration = 0
        var edit: (Int, Int?)?
        var boxes: [String: MP4Box] = [:]
        // trak > mdia > minf > stbl is as deep as it goes: a file nesting boxes further (a
        // million `mdia`s in one another) is not followed down, so no stack can overflow.
        func walk(_ box: MP4Box, depth: Int, damaged: inout Bool) {
            for child in MP4Box.children(from: box.bodyOffset, to: box.end, damaged: &damaged, read: read) {
                switch child.type {
                case "mdia", "minf", "stbl", "edts":
                    if depth < 4 { walk(child, depth: depth + 1, damaged: &damaged) }
                case "hdlr": isSound = read(child.bodyOffset + 8, 4) == Array("soun".utf8)
                case "mdhd":
                    let header = read(child.bodyOffset, 32)
                    guard header.count == 32 else { continue }
                    let long = header[0] == 1
                    timeScale = long ? header.bigEndian(20, 4) : header.bigEndian(12, 4)
                    duration = long ? header.bigEndian(24, 8) & 0x7FFF_FFFF_FFFF : header.bigEndian(16, 4)
                case "elst":
                    let header = read(child.bodyOffset, 8)
                    guard header.count == 8, header.bigEndian(4, 4) == 1 else { continue }
                    let long = header[0] == 1
                    let entry = read(child.bodyOffset + 8, long ? 16 : 8)
                    guard entry.count == (long ? 16 : 8) else { continue }
                    // -1 (an empty edit) reads as a huge number: not a start.
                    let start = entry.bigEndian(long ? 8 : 4, long ? 8 : 4)
                    edit = (entry.bigEndian(0, long ? 8 : 4) & 0x7FFF_FFFF_FFFF, start < (long ? 1 << 47 : 0x8000_0000) ? start : nil)
                case "stsd":
                    if let entry = Self.sampleEntry(child, damaged: &damaged, read: read) { (codec, rate, channels) = entry }
                case "stsz", "stz2", "stco", "co64", "stsc", "stts": boxes[child.type] = child
                default: break
                }
            }
        }
        walk(trak, depth: 0, damaged: &damaged)
        guard isSound, let codec, timeScale > 0 else { return nil }
        self.codec = codec
        sampleRate = rate
        self.channels = channels
        mediaTimeScale = timeScale
        mediaDuration = duration
        editDuration = edit?.0
        editMediaTime = edit?.1
        do throws(MP4Refusal) {
            // A configuration the decoders refuse plays nothing: the scanner says so too.
            switch codec {
            case .alac(let config): _ = try ALACConfig(config)
            case .aac(let config):
                guard let core = AACConfig(config), [1, 2, 4, 17, 19, 23].contains(core.objectType), (1000...192_000).contains(core.sampleRate) else {
                    throw MP4Refusal("an AAC configuration songbox does not play (object type \(AACConfig(config)?.objectType ?? 0))")
                }
            }
            table = try MP4SampleTable(boxes, fileSize: fileSize, codec: codec, rate: rate, timeScale: timeScale, read: read)
            problem = table.cutShort
        } catch {
            table = MP4SampleTable()
            problem = error.reason
        }
    }

    /// The first sample entry: `mp4a` (AAC, with its `esds`) or `alac`, with its rate and channels.
    private static func sampleEntry(_ stsd: MP4Box, damaged: inout Bool, read: (Int, Int) -> [UInt8]) -> (Codec, Int, Int)? {
        guard let entry = MP4Box.children(from: stsd.bodyOffset + 8, to: stsd.end, damaged: &damaged, read: read).first,
              entry.type == "mp4a" || entry.type == "alac" else { return nil }
        let fields = read(entry.bodyOffset, 28)
        guard fields.count == 28 else { return nil }
        // Version 1 and 2 sound entries (QuickTime) carry 16 or 36 more bytes before their boxes.
        let version = fields.bigEndian(8, 2)
        let boxesStart = entry.bodyOffset + 28 + (version == 1 ? 16 : version == 2 ? 36 : 0)
        let children = MP4Box.children(from: boxesStart, to: entry.end, damaged: &damaged, read: read)
        if entry.type == "alac" {
            // ALAC's own configuration has the real rate (the entry's is 16 bits) and channels.
            guard let box = children.first(where: { $0.type == "alac" }), box.bodyLength >= 28 else { return nil }
            let config = read(box.bodyOffset + 4, 24)
            guard config.count == 24 else { return nil }
            return (.alac(config: config), config.bigEndian(20, 4), Int(config[9]))
        }
        guard let esds = children.first(where: { $0.type == "esds" }), esds.bodyLength <= 4096,
              let config = audioSpecificConfig(read(esds.bodyOffset + 4, esds.bodyLength - 4)) else { return nil }
        let core = AACConfig(config)
        return (.aac(config: config), core?.outputRate ?? fields.bigEndian(24, 2), (core?.channels).flatMap { $0 > 0 ? $0 : nil } ?? fields.bigEndian(16, 2))
    }

    /// The DecoderSpecificInfo inside an ES_Descriptor: tag 3 (ES), tag 4 (DecoderConfig), tag 5.
    static func audioSpecificConfig(_ bytes: [UInt8]) -> [UInt8]? {
        var position = 0
        func descriptor() -> (tag: UInt8, length: Int)? {
            guard position < bytes.count else { return nil }
            let tag = bytes[position]
            position += 1
            var length = 0
            // A length of up to four 7-bit groups, the high bit saying another follows.
            for _ in 0..<4 {
                guard position < bytes.count else { return nil }
                let byte = bytes[position]
                position += 1
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let es = descriptor(), es.tag == 3, position + 3 <= bytes.count else { return nil }
        let flags = bytes[position + 2]
        position += 3
        if flags & 0x80 != 0 { position += 2 }
        if flags & 0x40 != 0 {
            guard position < bytes.count else { return nil }
            position += 1 + Int(bytes[position])
        }
        if flags & 0x20 != 0 { position += 2 }
        guard let config = descriptor(), config.tag == 4 else { return nil }
        position += 13
        guard let specific = descriptor(), specific.tag == 5, specific.length > 0, specific.length <= 64,
              position + specific.length <= bytes.count else { return nil }
        return Array(bytes[position..<(position + specific.length)])
    }
}

/// What an AudioSpecificConfig says of the AAC core: its object type, rate, channels and frame
/// length (1024, or 960), and whether SBR (HE-AAC) is signalled in it, with the rate it makes.
public struct AACConfig: Sendable, Equatable {
    public var objectType: Int
    /// The core's rate, and the output's (twice it with SBR, in practice).
    public var sampleRate: Int
    public var outputRate: Int
    public var channels: Int
    public var frameLength: Int
    public var sbr: Bool

    static let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8000, 7350]

    public init?(_ bytes: [UInt8]) {
        var bit = 0
        func take(_ count: Int) -> Int? {
            guard bit + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }
        func readObjectType() -> Int? {
            guard let type = take(5) else { return nil }
            return type == 31 ? take(6).map { 32 + $0 } : type
        }
        func readRate() -> Int? {
            guard let index = take(4) else { return nil }
            return index == 15 ? take(24) : index < Self.rates.count ? Self.rates[index] : nil
        }
        guard var type = readObjectType(), let rate = readRate(), let channels = take(4) else { return nil }
        sbr = false
        outputRate = rate
        if type == 5 || type == 29 {
            // Explicit SBR (and PS): the output rate, then the core's object type.
            sbr = true
            guard let output = readRate(), let core = readObjectType() else { return nil }
            outputRate = output
            type = core
        }
        objectType = type
        sampleRate = rate
        self.channels = channels == 7 ? 8 : channels
        // GASpecificConfig's frameLengthFlag: 960 samples a frame instead of 1024.
        frameLength = [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23].contains(type) && take(1) == 1 ? 960 : 1024
    }
}

/// The 24-byte ALACSpecificConfig: frame length, compatible version, bit depth, the Rice
/// parameters pb, mb and kb, channels, max run, max frame bytes, average bit rate, rate. Only
/// what songbox's decoder plays is taken (nil otherwise, with `refusal` saying why).
public struct ALACConfig: Sendable, Equatable {
    public var frameLength: Int
    public var bitDepth: Int
    public var pb: Int, mb: Int, kb: Int
    public var channels: Int
    public var sampleRate: Int

    public init(_ bytes: [UInt8]) throws(MP4Refusal) {
        guard bytes.count == 24 else { throw MP4Refusal("an ALAC configuration of \(bytes.count) bytes, not 24") }
        frameLength = bytes.bigEndian(0, 4)
        bitDepth = Int(bytes[5])
        pb = Int(bytes[6])
        mb = Int(bytes[7])
        kb = Int(bytes[8])
        channels = Int(bytes[9])
        sampleRate = bytes.bigEndian(20, 4)
        guard (1...65_536).contains(frameLength), [16, 20, 24, 32].contains(bitDepth), (1...8).contains(channels),
              (1...31).contains(kb), (1000...1_048_575).contains(sampleRate) else {
            throw MP4Refusal("an ALAC configuration songbox does not play: \(frameLength) frames a packet, \(bitDepth) bits, "
                             + "\(channels) channels, \(sampleRate) Hz, kb \(kb)")
        }
    }
}

/// Why an MP4 track does not play.
public struct MP4Refusal: Error, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// An MP4 track's packets: where each lies in the file and how big it is, checked against the
/// file before anything is allocated (`stsz`/`stz2`, `stco`/`co64`, `stsc`; `stts` for the
/// media time they cover). Kept compact: 4 bytes a packet for the sizes, 8 a chunk.
public struct MP4SampleTable: Sendable {
    typealias Refusal = MP4Refusal

    /// Each packet's size, or empty when all are `constantSize`.
    private var sizes: [UInt32] = []
    private var constantSize = 0
    /// Each chunk's file offset and its first packet.
    private var chunkOffsets: [Int] = []
    private var chunkFirst: [Int] = []
    /// Packets that lie whole inside the file, in order: the playable ones.
    public private(set) var count = 0
    /// The media time the playable packets cover.
    public private(set) var playableTime = 0
    /// Why fewer packets play than the tables list.
    public private(set) var cutShort: String?

    init() {}

    public func size(_ index: Int) -> Int { sizes.isEmpty ? constantSize : Int(sizes[index]) }

    /// Where reading stands: a packet, its offset and its chunk.
    public struct Cursor: Sendable {
        public fileprivate(set) var index: Int
        public fileprivate(set) var offset: Int
        fileprivate var chunk: Int
    }

    /// The cursor at packet `index` (at most `count`).
    public func cursor(at index: Int) -> Cursor {
        guard index < count else { return Cursor(index: count, offset: 0, chunk: chunkFirst.count) }
        // The chunk: the last whose first packet is at or before `index`.
        var low = 0, high = chunkFirst.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunkFirst[middle] <= index { low = middle } else { high = middle - 1 }
        }
        var offset = chunkOffsets[low]
        for earlier in chunkFirst[low]..<index { offset += size(earlier) }
        return Cursor(index: index, offset: offset, chunk: low)
    }

    /// Moves `cursor` to the next packet.
    public func advance(_ cursor: inout Cursor) {
        guard cursor.index < count else { return }
        cursor.offset += size(cursor.index)
        cursor.index += 1
        if cursor.chunk + 1 < chunkFirst.count, chunkFirst[cursor.chunk + 1] == cursor.index {
            cursor.chunk += 1
            cursor.offset = chunkOffsets[cursor.chunk]
        }
    }

    /// The largest packet: a codec frame is never this big (ALAC's 8 channels of 32-bit at 4096
    /// samples a packet are 128 KB).
    public static let packetLimit = 1 << 22

    init(_ boxes: [String: MP4Box], fileSize: Int, codec: MP4SoundTrack.Codec, rate: Int, timeScale: Int,
         read: (Int, Int) -> [UInt8]) throws(Refusal) {
        /// A full box's entry count and its entries' bytes, checked to fit the box (so the file).
        func entries(_ type: String, header extra: Int = 0, entryBits: Int) throws(Refusal) -> (count: Int, bytes: [UInt8], header: [UInt8]) {
            guard let box = boxes[type] else { throw Refusal("no \(type) table") }
            let header = read(box.bodyOffset, 8 + extra)
            guard header.count == 8 + extra else { throw Refusal("the \(type) table is cut short") }
            let count = header.bigEndian(4 + extra, 4)
            let available = (box.bodyLength - 8 - extra) * 8 / entryBits
            guard count <= available else {
                throw Refusal("the \(type) table claims \(count) entries but its \(box.bodyLength) bytes hold \(max(0, available))")
            }
            let length = (count * entryBits + 7) / 8
            let bytes = read(box.bodyOffset + 8 + extra, length)
            guard bytes.count == length else { throw Refusal("the \(type) table is cut short") }
            return (count, bytes, header)
        }

        // Packet sizes: `stsz` (a constant size, or one per packet), or `stz2` (4, 8 or 16 bits).
        var packets: Int
        if boxes["stsz"] != nil {
            let header = read(boxes["stsz"]!.bodyOffset, 12)
            guard header.count == 12 else { throw Refusal("the stsz table is cut short") }
            constantSize = header.bigEndian(4, 4)
            if constantSize == 0 {
                let table = try entries("stsz", header: 4, entryBits: 32)
                packets = table.count
                sizes = [UInt32](repeating: 0, count: packets)
                for index in 0..<packets { sizes[index] = UInt32(table.bytes.bigEndian(index * 4, 4)) }
            } else {
                packets = header.bigEndian(8, 4)
                // As many packets as the file could hold at that size.
                guard constantSize <= Self.packetLimit, packets <= fileSize / constantSize else {
                    throw Refusal("the stsz table claims \(packets) packets of \(constantSize) bytes in a file of \(fileSize)")
                }
            }
        } else {
            guard let compact = boxes["stz2"] else { throw Refusal("no stsz table") }
            let header = read(compact.bodyOffset + 4, 4)
            let bits = header.count == 4 ? Int(header[3]) : 0
            guard [4, 8, 16].contains(bits) else { throw Refusal("an stz2 table of \(bits)-bit sizes") }
            let table = try entries("stz2", header: 4, entryBits: bits)
            packets = table.count
            sizes = (0..<packets).map { index in
                switch bits {
                case 4: UInt32(table.bytes[index / 2] >> (index % 2 == 0 ? 4 : 0) & 0xF)
                case 8: UInt32(table.bytes[index])
                default: UInt32(table.bytes.bigEndian(index * 2, 2))
                }
            }
        }

        // Chunk offsets: 32 or 64-bit.
        let long = boxes["co64"] != nil
        let offsets = try entries(long ? "co64" : "stco", entryBits: long ? 64 : 32)
        chunkOffsets = (0..<offsets.count).map { offsets.bytes.bigEndian($0 * (long ? 8 : 4), long ? 8 : 4) }

        // Packets per chunk: runs of (first chunk, packets per chunk, sample description).
        let runs = try entries("stsc", entryBits: 96)
        chunkFirst.reserveCapacity(chunkOffsets.count)
        var first = 0
        for run in 0..<runs.count {
            guard first < packets, chunkFirst.count < chunkOffsets.count else { break }
            let chunk = runs.bytes.bigEndian(run * 12, 4) - 1
            let perChunk = runs.bytes.bigEndian(run * 12 + 4, 4)
            let next = run + 1 < runs.count ? runs.bytes.bigEndian(run * 12 + 12, 4) - 1 : chunkOffsets.count
            guard chunk == chunkFirst.count, next > chunk, perChunk > 0 else {
                throw Refusal("the stsc table's runs are out of order")
            }
            for _ in chunk..<min(next, chunkOffsets.count) {
                guard first < packets else { break }
                chunkFirst.append(first)
                first += min(perChunk, packets - first)
            }
        }
        chunkOffsets = Array(chunkOffsets.prefix(chunkFirst.count))
        if first < packets {
            cutShort = "the chunk tables hold \(first) of the \(packets) packets stsz lists"
            packets = first
        }

        // Each packet whole inside the file and of a sane size; the first that is not ends the track.
        count = packets
        outer: for chunk in 0..<chunkFirst.count {
            var offset = chunkOffsets[chunk]
            let end = chunk + 1 < chunkFirst.count ? chunkFirst[chunk + 1] : packets
            for index in chunkFirst[chunk]..<end {
                let size = size(index)
                guard size > 0, size <= Self.packetLimit, offset >= 0, offset <= fileSize - size else {
                    count = index
                    cutShort = size > Self.packetLimit || size == 0 ? "packet \(index + 1) claims \(size) bytes"
                        : "packet \(index + 1) lies past the end of the file (cut short?)"
                    break outer
                }
                offset += size
            }
        }

        // The media time of the playable packets, from `stts` (without one: a codec frame each).
        // (At most 2^20 media units, so that no sum below can overflow.)
        let frame: Int
        switch codec {
        case .aac(let config):
            let core = AACConfig(config)
            frame = min((core?.frameLength ?? 1024) * timeScale / max(1, core?.sampleRate ?? timeScale), 1 << 20)
        case .alac(let config): frame = min(config.bigEndian(0, 4), 1 << 20)
        }
        if let times = try? entries("stts", entryBits: 64) {
            var left = count
            for run in 0..<times.count where left > 0 {
                let packets = min(times.bytes.bigEndian(run * 8, 4), left)
                // A packet's duration is at most a few codec frames: a larger one is a lie.
                let delta = min(times.bytes.bigEndian(run * 8 + 4, 4), max(frame, 1) * 4)
                playableTime += packets * delta
                left -= packets
            }
            playableTime += left * frame
        } else {
            playableTime = count * frame
        }
    }
}

extension Collection where Element == UInt8, Index == Int {
    /// The unsigned integer of `count` bytes (at most 8) at `offset`, most significant first;
    /// read only where the caller checked the bounds.
    public func bigEndian(_ offset: Int, _ count: Int) -> Int {
        var value = 0
        for index in offset..<(offset + count) { value = value << 8 | Int(self[startIndex + index]) }
        return value
    }

    public func littleEndian(_ offset: Int, _ count: Int) -> Int {
        var value = 0
        for index in (offset..<(offset + count)).reversed() { value = value << 8 | Int(self[startIndex + index]) }
        return value
    }

    /// The four bytes at `offset` as Latin-1 (a chunk or box name; MP4's start with `©`, 0xA9).
    public func fourCC(_ offset: Int) -> String {
        String(String.UnicodeScalarView(self[(startIndex + offset)..<(startIndex + offset + 4)].map { Unicode.Scalar($0) }))
    }
}
