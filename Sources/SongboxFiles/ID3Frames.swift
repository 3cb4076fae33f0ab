import Foundation

/// Where one ID3v2 frame's body lies in a file, so it can be read without loading the tag.
public struct ID3FrameLocation: Sendable, Equatable {
    /// The v2.3/v2.4 id; the v2.2 ids of the frames songbox looks for are promoted (`PIC` is `APIC`).
    public var id: String
    /// The tag's major version (2, 3 or 4): v2.2 pictures name an image format, not a MIME type.
    public var version: UInt8
    /// The file offset of the body's first raw byte (after any grouping byte and data length indicator).
    public var start: Int
    /// Raw bytes the body spans in the file, unsynchronisation bytes included.
    public var rawLength: Int
    /// Body bytes once unsynchronisation is undone; nil when only reading the body can tell (a
    /// v2.4 unsynchronised frame without a data length indicator).
    public var length: Int?
    /// The raw bytes carry unsynchronisation (the whole v2.2/v2.3 tag, or this v2.4 frame).
    public var unsynchronised: Bool
    /// The raw byte before `start` was an FF of the same unsynchronised stream.
    var startsAfterFF: Bool
}

/// The frames a scan found, and what was wrong with the tag.
public struct ID3FrameScan: Sendable, Equatable {
    public var frames: [ID3FrameLocation] = []
    /// Lying sizes, damaged headers, frames that could not be read: for the user, not fatal.
    public var warnings: [String] = []
}

/// Finds ID3v2 frames by id, reading only frame headers (and, in an unsynchronised v2.2/v2.3
/// tag, streaming over the bodies in bounded chunks to know where they end).
public enum ID3Frames {
    /// v2.2 ids of the frames songbox reads itself.
    static let promoted = ["ULT": "USLT", "SLT": "SYLT", "PIC": "APIC"]

    /// The frames with one of `ids` in the ID3v2 tag at the start of the file open at `fd`.
    public static func scan(fd: Int32, fileSize: Int, ids: Set<String>) -> ID3FrameScan {
        var scan = ID3FrameScan()
        guard let header = TagHeader(fd: fd) else { return scan }
        guard (2...4).contains(header.version), !(header.version == 2 && header.flags & 0x40 != 0) else {
            return scan
        }
        if 10 + header.size > fileSize {
            scan.warnings.append("ID3v2 tag declares \(header.size) bytes but the file holds only \(fileSize)")
        }
        let sizes = ID3v2Normaliser.sizeCoding(fd, header, fileSize)
        var walker = FrameWalker(header: header, sizes: sizes, fd: fd, fileSize: fileSize)
        if header.version >= 3, header.flags & 0x40 != 0, !walker.skipExtendedHeader() {
            scan.warnings.append("ID3v2 tag has a damaged extended header; its frames were not read")
            return scan
        }
        let tagUnsynchronised = walker.stream.unsynchronised
        while true {
            let next = walker.nextFrame()
            guard case .frame(let frameHeader, let idBytes, let size) = next else {
                if next == .invalid {
                    scan.warnings.append("ID3v2 tag: a frame with an invalid id or a size past the end of the tag "
                                         + "at byte \(walker.stream.offset); the frames after it were not read")
                }
                break
            }
            let rawID = String(decoding: idBytes, as: UTF8.self)
            let id = promoted[rawID] ?? rawID
            guard ids.contains(id) else {
                guard walker.stream.skip(size) else { break }
                continue
            }
            var location = ID3FrameLocation(id: id, version: header.version, start: walker.stream.offset, rawLength: 0,
                                            length: size, unsynchronised: tagUnsynchronised,
                                            startsAfterFF: walker.stream.isAfterFF)
            let format = header.version >= 3 ? frameHeader[9] : 0
            let (skipped, reason) = applyFormatFlags(format, version: header.version, size: size, to: &location, fd: fd)
            if let reason {
                scan.warnings.append("ID3v2 \(id) frame skipped: \(reason)")
            }
            guard walker.stream.skip(size) else {
                scan.warnings.append("ID3v2 \(id) frame runs past the end of the file")
                break
            }
            if skipped { continue }
            location.rawLength = walker.stream.offset - location.start
            scan.frames.append(location)
        }
        return scan
    }

    /// Reads the extra bytes the format flags put before a body into `location`. Returns true
    /// (and why) for a frame that cannot be read: compressed or encrypted.
    private static func applyFormatFlags(_ format: UInt8, version: UInt8, size: Int,
                                         to location: inout ID3FrameLocation, fd: Int32) -> (Bool, String?) {
        switch version {
        case 3:
            if format & 0x80 != 0 { return (true, "compressed frames are not supported") }
            if format & 0x40 != 0 { return (true, "the frame is encrypted") }
            if format & 0x20 != 0 {
                // A group id byte before the body (not unsynchronisation-aware: it is never FF in practice).
                guard size >= 1 else { return (true, "a grouped frame without its group byte") }
                location.start += 1
                location.length = size - 1
            }
        case 4:
            if format & 0x08 != 0 { return (true, "compressed frames are not supported") }
            if format & 0x04 != 0 { return (true, "the frame is encrypted") }
            var extra = 0
            if format & 0x40 != 0 { extra += 1 }
            if format & 0x02 != 0 {
                location.unsynchronised = true
                location.startsAfterFF = false
                location.length = nil
            }
            if format & 0x01 != 0 {
                guard size >= extra + 4 else { return (true, "a data length indicator that does not fit the frame") }
                var bytes = [UInt8](repeating: 0, count: 4)
                guard pread(fd, &bytes, 4, off_t(location.start + extra)) == 4, bytes.allSatisfy({ $0 & 0x80 == 0 }) else {
                    return (true, "a damaged data length indicator")
                }
                extra += 4
                location.length = bytes.reduce(0) { $0 << 7 | Int($1) }
            }
            guard size >= extra else { return (true, "a frame shorter than its own header fields") }
            location.start += extra
            if !location.unsynchronised { location.length = size - extra }
        default:
            break
        }
        return (false, nil)
    }

    /// The body of `frame` with unsynchronisation undone, when it is at most `limit` bytes.
    public static func body(fd: Int32, frame: ID3FrameLocation, limit: Int) -> [UInt8]? {
        if let length = frame.length, length > limit { return nil }
        var stream = frame.stream(fd: fd)
        let body = stream.take(upTo: min(frame.length ?? limit + 1, limit + 1))
        guard body.count <= limit, frame.length.map({ body.count == $0 }) ?? true else { return nil }
        return body
    }
}

extension ID3Frames {
    /// The first `count` bytes of the body of `frame` (fewer when it is shorter), unsynchronisation undone.
    public static func prefix(fd: Int32, frame: ID3FrameLocation, count: Int) -> [UInt8] {
        var stream = frame.stream(fd: fd)
        return stream.take(upTo: min(count, frame.length ?? count))
    }
}

extension ID3FrameLocation {
    /// The raw bytes of the body, unsynchronisation undone as they are taken.
    func stream(fd: Int32) -> TagStream {
        TagStream(fd: fd, start: start, end: start + rawLength, unsynchronised: unsynchronised, afterFF: startsAfterFF)
    }
}

/// Reads pieces of a (large) frame body by their offset in the body as unsynchronisation-free
/// bytes, without holding the body: a plain body is read where it lies; an unsynchronised one
/// from the nearest of the checkpoints taken every `checkpointSpacing` bytes when it was opened.
public struct ID3BodyReader: Sendable, Equatable {
    static let checkpointSpacing = 1 << 20

    struct Checkpoint: Sendable, Equatable {
        var offset: Int
        var raw: Int
        var afterFF: Bool
    }

    public let frame: ID3FrameLocation
    /// Body bytes once unsynchronisation is undone.
    public let length: Int
    private let checkpoints: [Checkpoint]

    /// Opens `frame` of the file open at `fd`. An unsynchronised body is streamed over once, in
    /// bounded chunks, to place the checkpoints (and to count it when its length is unknown).
    public init(fd: Int32, frame: ID3FrameLocation) {
        self.frame = frame
        guard frame.unsynchronised else {
            length = frame.length ?? frame.rawLength
            checkpoints = []
            return
        }
        var stream = frame.stream(fd: fd)
        var marks = [Checkpoint(offset: 0, raw: frame.start, afterFF: frame.startsAfterFF)]
        var counted = 0
        let limit = frame.length ?? Int.max
        while counted < limit {
            let stepped = stream.skip(upTo: min(Self.checkpointSpacing, limit - counted))
            counted += stepped
            guard stepped == Self.checkpointSpacing else { break }
            marks.append(Checkpoint(offset: counted, raw: stream.offset, afterFF: stream.isAfterFF))
        }
        length = counted
        checkpoints = marks
    }

    /// Up to `count` body bytes from `offset` (fewer at the end of the body); nil on a read error.
    public func read(fd: Int32, from offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= length else { return nil }
        let wanted = min(count, length - offset)
        guard wanted > 0 else { return [] }
        if !frame.unsynchronised {
            var bytes = [UInt8](repeating: 0, count: wanted)
            var got = 0
            while got < wanted {
                let n = bytes.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress! + got, wanted - got, off_t(frame.start + offset + got))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                got += n
            }
            return bytes
        }
        let mark = checkpoints.last { $0.offset <= offset } ?? checkpoints[0]
        var stream = TagStream(fd: fd, start: mark.raw, end: frame.start + frame.rawLength,
                               unsynchronised: true, afterFF: mark.afterFF)
        guard stream.skip(offset - mark.offset) else { return nil }
        return stream.take(wanted)
    }
}
