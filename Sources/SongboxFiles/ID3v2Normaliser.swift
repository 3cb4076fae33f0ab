import Foundation

/// What MP3Reader hands libmpg123 in place of a file's ID3v2 tag.
public struct ID3v2Plan: Equatable, Sendable {
    /// The tag to read instead of the file's, or nil to hand libmpg123 the file as it is. Empty
    /// when no frame could be kept: libmpg123 then sees no ID3v2 tag at all.
    public var replacement: [UInt8]?
    /// Where the file goes on after its ID3v2 tag (and v2.4 footer): 0 without a tag, never past
    /// the end of the file.
    public var audioStart: Int
    /// A picture frame was dropped: the file has a picture that libmpg123 will not see.
    public var droppedPicture = false
    /// Things worth telling the user, such as frames that were dropped.
    public var warnings: [String] = []
}

/// Rewrites the ID3v2 tags that libmpg123 1.31 cannot be handed as they are:
///
/// - tags over `maximumTagSize` (libmpg123 holds the whole tag in memory),
/// - tags that claim more bytes than the file holds,
/// - ID3v2.2 and v2.3 tags with whole-tag unsynchronisation (libmpg123 counts v2.3 frame sizes
///   after unsynchronisation, the standard before),
/// - ID3v2.4 tags with plain instead of synchsafe frame sizes (an old iTunes bug that makes
///   libmpg123 drop every frame).
///
/// Any other tag is left to libmpg123 untouched. The tag is read from the file in bounded
/// chunks, frame header by frame header; a frame body is read only when it is kept, and a kept
/// body is at most `frameLimit` bytes, so a tag's declared sizes never decide how much memory
/// is used. The replacement has the same version, no unsynchronisation (v2.4 keeps its
/// per-frame flags, which libmpg123 reads right), synchsafe sizes in v2.4, no extended header
/// and no padding.
public enum ID3v2Normaliser {
    /// Tags declaring more than this (header not counted) are rewritten rather than handed to
    /// libmpg123, which would read them into memory whole.
    static let maximumTagSize = 16 << 20
    /// A frame body larger than this is dropped from a rewritten tag.
    static let frameLimit = 1 << 20
    /// Kept frames of a rewritten tag stop at this many bytes in all.
    static let replacementLimit = 4 << 20
    /// Dropped frames named one by one in warnings; the rest are counted.
    static let namedDrops = 3

    /// What to hand libmpg123 for the file open at `fd`, `fileSize` bytes long.
    public static func plan(fd: Int32, fileSize: Int) -> ID3v2Plan {
        guard let header = TagHeader(fd: fd) else { return ID3v2Plan(audioStart: 0) }
        let declaredEnd = 10 + header.size + header.footerSize
        let asIs = ID3v2Plan(audioStart: min(declaredEnd, fileSize))
        // libmpg123 skips these tags without reading them into memory: nothing to do.
        guard header.isParsedByLibmpg123 else { return asIs }

        let oversized = header.size + header.footerSize > maximumTagSize
        let pastTheEnd = declaredEnd > fileSize
        let wholeTagUnsync = header.version < 4 && header.flags & 0x80 != 0
        let sizes = sizeCoding(fd, header, fileSize)
        let plainV24Sizes = header.version == 4 && sizes == .plain
        guard oversized || pastTheEnd || wholeTagUnsync || plainV24Sizes else { return asIs }

        var plan = asIs
        let walk = walk(fd, header, fileSize, sizes: sizes, keeping: true)
        if pastTheEnd {
            plan.warnings.append("ID3v2 tag declares \(header.size) bytes but the file holds only \(fileSize); "
                + "its frames were read up to where they stop")
            // The declared end is a lie: the audio starts where the frames stop.
            plan.audioStart = walk.stop
        }
        guard walk.readable else {
            // The last resort: libmpg123 is shown no ID3v2 tag.
            plan.replacement = []
            plan.warnings.append("ID3v2 tag of \(header.size) bytes could not be read (\(walk.failure ?? "damaged")); "
                + "its frames were skipped")
            return plan
        }
        if let failure = walk.failure {
            plan.warnings.append("ID3v2 tag: \(failure) after \(walk.stop) bytes; the frames before it were read")
        }
        plan.replacement = walk.frames.isEmpty ? [] : header.replacement(frames: walk.frames)
        plan.droppedPicture = walk.dropped.contains { $0.id == "APIC" || $0.id == "PIC" }
        for drop in walk.dropped.prefix(namedDrops) {
            let reason = drop.size > frameLimit
                ? "over \(frameLimit >> 20) MiB"
                : "the tag's kept frames reached \(replacementLimit >> 20) MiB"
            plan.warnings.append("dropped a \(drop.size)-byte \(drop.id) frame (\(reason))")
        }
        if walk.dropped.count > namedDrops {
            plan.warnings.append("dropped \(walk.dropped.count - namedDrops) more oversized ID3v2 frames")
        }
        return plan
    }

    /// How the tag's frame sizes are written: v2.4 sizes are synchsafe, unless walking the
    /// frames with synchsafe sizes fails and with plain sizes succeeds (as mutagen decides).
    /// Walking the frame headers costs one read for the usual tag of a few kilobytes.
    static func sizeCoding(_ fd: Int32, _ header: TagHeader, _ fileSize: Int) -> FrameWalker.SizeCoding {
        guard header.version == 4 else { return .plain }
        let plain = !walk(fd, header, fileSize, sizes: .synchsafe, keeping: false).clean
            && walk(fd, header, fileSize, sizes: .plain, keeping: false).clean
        return plain ? .plain : .synchsafe
    }

    private static func walk(_ fd: Int32, _ header: TagHeader, _ fileSize: Int,
                             sizes: FrameWalker.SizeCoding, keeping: Bool) -> FrameWalker.Walk {
        var walker = FrameWalker(header: header, sizes: sizes, fd: fd, fileSize: fileSize)
        return walker.walk(keeping: keeping)
    }
}

/// The 10-byte ID3v2 header at the start of a file.
struct TagHeader {
    var version: UInt8
    var revision: UInt8
    var flags: UInt8
    /// The declared size of everything after the header, footer not counted.
    var size: Int

    /// Nil when the file does not start with an ID3v2 header with a synchsafe size.
    init?(fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 10)
        guard pread(fd, &bytes, 10, 0) == 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33,
              bytes[6...9].allSatisfy({ $0 & 0x80 == 0 }) else { return nil }
        version = bytes[3]
        revision = bytes[4]
        flags = bytes[5]
        size = bytes[6...9].reduce(0) { $0 << 7 | Int($1) }
    }

    var footerSize: Int { version == 4 && flags & 0x10 != 0 ? 10 : 0 }

    /// libmpg123 1.31 skips (without storing) tags of other versions, with unknown flags,
    /// compressed v2.2 tags and tags under 10 bytes; it parses the rest.
    var isParsedByLibmpg123: Bool {
        (2...4).contains(version) && revision != 0xFF && flags & 0x0F == 0
            && !(version == 2 && flags & 0x40 != 0) && size >= 10
    }

    /// A tag of this version holding `frames` (already laid out for it): no extended header, no
    /// footer, no padding beyond the 10 bytes libmpg123 wants at least. A v2.4 tag keeps its
    /// unsynchronisation flag, which there means "every frame is unsynchronised".
    func replacement(frames: [UInt8]) -> [UInt8] {
        let padding = max(10 - frames.count, 0)
        let size = frames.count + padding
        let keptFlags: UInt8 = version == 4 ? flags & 0x80 : 0
        var tag: [UInt8] = [0x49, 0x44, 0x33, version, 0, keptFlags,
                            UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F),
                            UInt8(size & 0x7F)]
        tag.reserveCapacity(10 + size)
        tag += frames
        tag += repeatElement(0, count: padding)
        return tag
    }
}

/// Walks the frames of one tag, keeping the small ones laid out for the replacement tag.
///
/// The walk stops at padding (a zero where a frame id should be), at an invalid frame id, at a
/// v2.4 size that is not synchsafe (when reading synchsafe sizes) and at a frame that runs past
/// the tag. Zero-size frames are left out. v2.3 frame flags (compression, encryption, grouping)
/// and v2.4 ones (data length indicator, unsynchronisation) are kept with their frames:
/// libmpg123 decides about those.
struct FrameWalker {
    enum SizeCoding: Equatable { case plain, synchsafe }

    struct Walk {
        /// Frame headers and bodies for the replacement, in the tag's version.
        var frames: [UInt8] = []
        /// Frames that were too large to keep: id and body size.
        var dropped: [(id: String, size: Int)] = []
        /// The walk ended at the end of the tag or at padding (not at an invalid id, a size that
        /// is not synchsafe, or a frame running past the tag).
        var clean = true
        /// False when the tag could not be walked at all (a damaged extended header).
        var readable = true
        /// Why the walk could not go on: a damaged extended header or a read error.
        var failure: String?
        /// The file offset after the last frame walked.
        var stop = 10
    }

    let header: TagHeader
    let sizes: SizeCoding
    var stream: TagStream

    /// A walker at the first byte after the tag header of the file open at `fd`.
    init(header: TagHeader, sizes: SizeCoding, fd: Int32, fileSize: Int) {
        self.header = header
        self.sizes = sizes
        stream = TagStream(fd: fd, start: 10, end: min(10 + header.size, fileSize),
                           unsynchronised: header.version < 4 && header.flags & 0x80 != 0)
    }

    /// Walks the frames. Without `keeping`, only the frame headers are read.
    mutating func walk(keeping: Bool) -> Walk {
        var walk = Walk()
        let version = header.version
        if version >= 3, header.flags & 0x40 != 0, !skipExtendedHeader() {
            walk.readable = false
            walk.clean = false
            walk.failure = "a damaged extended header"
            return walk
        }
        walk.stop = stream.offset
        let headerLength = version == 2 ? 6 : 10
        while true {
            let next = nextFrame()
            guard case .frame(let frameHeader, let id, let size) = next else {
                if next == .invalid { walk.clean = false }
                break
            }
            let idText = String(decoding: id, as: UTF8.self)
            let keep = keeping && size > 0 && size <= ID3v2Normaliser.frameLimit
                && walk.frames.count + headerLength + size <= ID3v2Normaliser.replacementLimit
            if keep {
                guard let body = stream.take(size) else {
                    walk.clean = false
                    break
                }
                walk.frames += id
                switch version {
                case 2: walk.frames += [UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                case 3: walk.frames += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF),
                                        UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                default: walk.frames += [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F),
                                         UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
                }
                if version > 2 { walk.frames += frameHeader[8..<10] }
                walk.frames += body
            } else {
                guard stream.skip(size) else {
                    walk.clean = false
                    break
                }
                if keeping && size > 0 { walk.dropped.append((idText, size)) }
            }
            walk.stop = stream.offset
        }
        if stream.failed {
            // Keep what was read before the error.
            walk.clean = false
            walk.failure = "a read error"
        }
        return walk
    }

    /// What comes next in the tag.
    enum Next: Equatable {
        /// A frame header (the raw header bytes, the id bytes, the body size); the stream is at its body.
        case frame(header: [UInt8], id: ArraySlice<UInt8>, size: Int)
        /// The end of the tag, or padding.
        case end
        /// An invalid frame id, a v2.4 size that is not synchsafe (when reading synchsafe
        /// sizes), or a frame that runs past the tag: the frames stop here.
        case invalid
    }

    /// Reads the next frame header.
    mutating func nextFrame() -> Next {
        let idLength = header.version == 2 ? 3 : 4
        guard let frameHeader = stream.take(header.version == 2 ? 6 : 10) else { return .end }
        // A zero where an id should be: padding.
        if frameHeader[0] == 0 { return .end }
        let id = frameHeader[0..<idLength]
        guard id.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else { return .invalid }
        let sizeBytes = frameHeader[idLength..<2 * idLength]
        let size: Int
        if sizes == .synchsafe {
            guard sizeBytes.allSatisfy({ $0 & 0x80 == 0 }) else { return .invalid }
            size = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        } else {
            size = sizeBytes.reduce(0) { $0 << 8 | Int($1) }
        }
        // Unsynchronisation only ever adds bytes, so a body longer than the raw bytes left
        // cannot fit.
        guard size <= stream.remaining else { return .invalid }
        return .frame(header: frameHeader, id: id, size: size)
    }

    /// Steps over a v2.3 or v2.4 extended header; false when its size is impossible.
    mutating func skipExtendedHeader() -> Bool {
        guard let sizeBytes = stream.take(4) else { return false }
        if header.version == 3 {
            // v2.3: a plain size that does not count its own 4 bytes (6 or 10).
            let size = sizeBytes.reduce(0) { $0 << 8 | Int($1) }
            return size >= 6 && size < stream.remaining && stream.skip(size)
        }
        // v2.4: a synchsafe size that counts itself, at least 6.
        guard sizeBytes.allSatisfy({ $0 & 0x80 == 0 }) else { return false }
        let size = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        return size >= 6 && size - 4 < stream.remaining && stream.skip(size - 4)
    }
}

/// The bytes of a tag, read from the file in chunks of at most `chunkSize` bytes, with
/// ID3v2.2/2.3 whole-tag unsynchronisation undone on the way (an `FF 00` pair is `FF`, also when
/// the pair crosses a chunk boundary).
struct TagStream {
    static let chunkSize = 64 << 10

    let fd: Int32
    /// The file offset after the last raw byte taken.
    private(set) var offset: Int
    /// The file offset where the tag ends (already clamped to the file size).
    let end: Int
    let unsynchronised: Bool
    /// A read of the file failed (not just ended early).
    private(set) var failed = false

    private var buffer: [UInt8] = []
    /// The file offset of `buffer[0]`.
    private var bufferStart = 0
    /// The last byte taken was FF, so a 00 right after it is an unsynchronisation byte.
    private var afterFF = false

    /// `afterFF`: the raw byte before `start` was an FF of the same unsynchronised stream, so
    /// a 00 at `start` is an unsynchronisation byte.
    init(fd: Int32, start: Int, end: Int, unsynchronised: Bool, afterFF: Bool = false) {
        self.fd = fd
        self.offset = start
        self.end = max(end, start)
        self.unsynchronised = unsynchronised
        self.afterFF = unsynchronised && afterFF
    }

    /// The last byte taken was an FF (of an unsynchronised stream).
    var isAfterFF: Bool { afterFF }

    /// Raw bytes left in the tag.
    var remaining: Int { end - offset }

    /// The next `count` bytes, or nil when the tag (or the file) ends first.
    mutating func take(_ count: Int) -> [UInt8]? {
        var out: [UInt8]? = []
        out?.reserveCapacity(count)
        return consume(count, into: &out) == count ? out : nil
    }

    /// Up to `count` bytes: fewer when the tag (or the file) ends first.
    mutating func take(upTo count: Int) -> [UInt8] {
        var out: [UInt8]? = []
        _ = consume(count, into: &out)
        return out ?? []
    }

    /// Steps over the next `count` bytes; false when the tag (or the file) ends first.
    mutating func skip(_ count: Int) -> Bool {
        skip(upTo: count) == count
    }

    /// Steps over up to `count` bytes; returns how many there were before the end.
    mutating func skip(upTo count: Int) -> Int {
        if !unsynchronised {
            let stepped = min(count, remaining)
            offset += stepped
            return stepped
        }
        var none: [UInt8]?
        return consume(count, into: &none)
    }

    /// Takes up to `count` bytes (after undoing unsynchronisation), appending them to `out` when
    /// given; returns how many it took.
    private mutating func consume(_ count: Int, into out: inout [UInt8]?) -> Int {
        var left = count
        while left > 0 {
            guard fill() else { break }
            let chunk = buffer
            var index = offset - bufferStart
            var afterFF = self.afterFF
            let unsynchronised = self.unsynchronised
            chunk.withUnsafeBufferPointer { bytes in
                while index < bytes.count && left > 0 {
                    // A zero after FF is the unsynchronisation byte: dropped.
                    if afterFF {
                        afterFF = false
                        if bytes[index] == 0 {
                            index += 1
                            continue
                        }
                    }
                    let span = min(left, bytes.count - index)
                    var length = span
                    if unsynchronised {
                        // Up to and including the next FF.
                        let base = UnsafeRawPointer(bytes.baseAddress! + index)
                        if let found = memchr(base, 0xFF, span) {
                            length = base.distance(to: UnsafeRawPointer(found)) + 1
                            afterFF = true
                        }
                    }
                    out?.append(contentsOf: bytes[index..<index + length])
                    index += length
                    left -= length
                }
            }
            self.afterFF = afterFF
            offset = bufferStart + index
        }
        return count - left
    }

    /// Makes the buffer hold the byte at `offset`; false at the end of the tag or on a read error.
    private mutating func fill() -> Bool {
        guard offset < end else { return false }
        if offset >= bufferStart && offset < bufferStart + buffer.count { return true }
        let count = min(Self.chunkSize, end - offset)
        var chunk = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = chunk.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + got, count - got, off_t(offset + got))
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failed = true }
            if n <= 0 { break }
            got += n
        }
        guard got > 0 else { return false }
        chunk.removeLast(count - got)
        buffer = chunk
        bufferStart = offset
        return true
    }
}
