import Foundation
import SongboxFiles
import Synchronization

/// A track's picture: where it is and what it is, known without loading or decoding it.
public struct ArtFacts: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// A picture in the track's tags: an ID3 `APIC` frame, a FLAC PICTURE block, an Ogg
        /// `METADATA_BLOCK_PICTURE`, an MP4 `covr`.
        case embedded
        /// A picture file beside the track (`cover.jpg`, ...).
        case file
    }

    public var source: Source
    /// The file holding the bytes: the track, or the picture file.
    public var path: String
    public var mime: String
    /// The ID3 picture type (3 is the front cover); nil for a picture file.
    public var pictureType: Int?
    /// The picture's description in the tag, when it has one.
    public var description: String?
    /// Pixels, from the PNG, JPEG or GIF header; nil when the header does not say.
    public var width: Int?
    public var height: Int?
    /// Bytes of the picture.
    public var size: Int

    /// Where the picture's bytes are: an `APIC` body and the offset of the image in it, the
    /// bytes themselves (a picture decoded from an Ogg comment), or a file from an offset.
    let frame: ID3BodyReader?
    let dataOffset: Int
    var inline: [UInt8]? = nil

    /// The ID3 name of `pictureType` ("front cover"), when it is one of the 21.
    public var pictureTypeName: String? {
        pictureType.flatMap { ArtLocator.pictureTypeNames.indices.contains($0) ? ArtLocator.pictureTypeNames[$0] : nil }
    }
}

/// What a search for a track's picture found, and what was wrong on the way (a damaged tag).
public struct ArtLookup: Sendable, Equatable {
    public var facts: ArtFacts?
    public var warnings: [String] = []
}

/// Finds a track's picture (an embedded `APIC` frame, front cover first; or a picture file
/// beside the track) and reads it piece by piece. Nothing here holds a picture in memory: a
/// 50 MB frame is read by offset, its unsynchronisation undone as it is read.
public enum ArtLocator {
    /// Where to look.
    public enum Place: Sendable {
        /// The embedded picture, else a file beside the track.
        case any
        case embedded
        case file
    }

    /// Picture file names, in order of preference, any case.
    public static let fileNames = ["cover", "folder", "front", "album"]
    public static let fileExtensions = ["jpg", "jpeg", "png"]
    /// The most one `read` returns.
    public static let readLimit = 8 << 20

    /// The picture types of ID3v2 `APIC`, by number.
    public static let pictureTypeNames = [
        "other", "file icon", "other file icon", "front cover", "back cover", "leaflet page", "media",
        "lead artist", "artist", "conductor", "band", "composer", "lyricist", "recording location",
        "during recording", "during performance", "video capture", "bright coloured fish", "illustration",
        "band logotype", "publisher logotype",
    ]

    /// The picture of the track at `path`.
    public static func find(_ path: String, in place: Place = .any) throws(SongboxError) -> ArtLookup {
        var lookup = ArtLookup()
        if place != .file {
            lookup = try embedded(path)
        }
        if lookup.facts == nil, place != .embedded {
            lookup.facts = beside(path)
        }
        return lookup
    }

    /// Up to `length` bytes of the picture from `offset` (fewer at its end; at most `readLimit`).
    public static func read(_ facts: ArtFacts, offset: Int, length: Int) throws(SongboxError) -> [UInt8] {
        guard offset >= 0, length >= 0 else {
            throw SongboxError(.invalidArgument, "the offset and length of a picture read cannot be negative")
        }
        guard offset <= facts.size else {
            throw SongboxError(.invalidArgument, "offset \(offset) is past the end of the \(facts.size)-byte picture")
        }
        let count = min(length, readLimit, facts.size - offset)
        let fd = FileName.open(facts.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SongboxError(.unreadableFile, Message(verbatim: String(cString: strerror(errno))), at: facts.path) }
        defer { close(fd) }
        let bytes = facts.inline.map { Array($0[offset..<(offset + count)]) }
            ?? facts.frame.map { $0.read(fd: fd, from: facts.dataOffset + offset, count: count) }
            ?? readFile(fd, from: facts.dataOffset + offset, count: count)
        guard let bytes, bytes.count == count else {
            throw SongboxError(.unreadableFile, "the picture could not be read (the file changed or is damaged)", at: facts.path)
        }
        return bytes
    }

    // MARK: Embedded pictures

    /// Lookups of unsynchronised frames, which cost a pass over the frame to open: a client
    /// reading a picture in many pieces pays it once. Keyed by path, size and modification time.
    private static let recent = Mutex<[(key: String, lookup: ArtLookup)]>([])
    private static let recentCount = 4

    private static func embedded(_ path: String) throws(SongboxError) -> ArtLookup {
        let fd = FileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SongboxError(.unreadableFile, Message(verbatim: String(cString: strerror(errno))), at: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SongboxError(.unreadableFile, Message(verbatim: String(cString: strerror(errno))), at: path) }
        let key = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(path)"
        if let known = recent.withLock({ $0.first { $0.key == key }?.lookup }) { return known }

        let file = FileBytes(fd: fd, size: Int(info.st_size))
        // The comment packet of an Ogg stream starts with its codec's marker: 7 bytes for
        // Vorbis, 8 for Opus (FLAC in Ogg keeps its pictures in blocks of their own, not read here).
        switch AudioContainer.sniff({ file.readUpTo(at: $0, count: $1) }) {
        case .flac(let start): return flacPicture(file, path: path, start: start)
        case .oggVorbis: return oggPicture(file, path: path, marker: 7)
        case .oggOpus: return oggPicture(file, path: path, marker: 8)
        case .oggFLAC, .oggOther: return ArtLookup()
        case .mp4: return mp4Picture(file, path: path)
        case .wav, .aiff, .otherRIFF, .other: break
        }
        let scan = ID3Frames.scan(fd: fd, fileSize: Int(info.st_size), ids: ["APIC"])
        var lookup = ArtLookup(warnings: scan.warnings)
        var chosen: (ID3FrameLocation, PictureHeader)?
        for frame in scan.frames {
            guard let header = PictureHeader(ID3Frames.prefix(fd: fd, frame: frame, count: PictureHeader.limit),
                                             version: frame.version) else {
                lookup.warnings.append("an APIC frame with a damaged header was skipped")
                continue
            }
            if chosen == nil || header.type == 3 { chosen = (frame, header) }
            if header.type == 3 { break }
        }
        if let (frame, header) = chosen {
            let body = ID3BodyReader(fd: fd, frame: frame)
            let size = max(body.length - header.length, 0)
            let image = ImageHeader.inspect(size: size) { offset, count in
                body.read(fd: fd, from: header.length + offset, count: count)
            }
            lookup.facts = ArtFacts(source: .embedded, path: path, mime: header.mime ?? image.mime ?? "application/octet-stream",
                                    pictureType: header.type, description: header.description,
                                    width: image.width, height: image.height, size: size,
                                    frame: body, dataOffset: header.length)
            if frame.unsynchronised {
                recent.withLock { entries in
                    entries.insert((key, lookup), at: 0)
                    if entries.count > recentCount { entries.removeLast() }
                }
            }
        }
        return lookup
    }

    /// The PICTURE block of a FLAC file: the front cover, else the first. Its image lies whole
    /// in the file, read from there.
    private static func flacPicture(_ file: FileBytes, path: String, start: Int) -> ArtLookup {
        var lookup = ArtLookup()
        for block in FLACReader.blocks(file, start: start).blocks where block.type == FLACReader.BlockType.picture.rawValue {
            var stretch = FileStretch(file, from: block.offset, count: block.length)
            guard let header = FLACPictureHeader(&stretch, blockLength: block.length) else {
                lookup.warnings.append("a FLAC PICTURE block with a damaged header was skipped")
                continue
            }
            if lookup.facts == nil || header.type == 3 {
                lookup.facts = flacFacts(header, path: path, dataOffset: block.offset + header.dataOffset) { offset, count in
                    file.read(at: block.offset + header.dataOffset + offset, count: count)
                }
            }
            if header.type == 3 { break }
        }
        return lookup
    }

    /// The `METADATA_BLOCK_PICTURE` of an Ogg file's comments: base64 of a FLAC PICTURE block,
    /// so decoded and held (at most `inlineLimit` bytes).
    private static func oggPicture(_ file: FileBytes, path: String, marker: Int) -> ArtLookup {
        var lookup = ArtLookup()
        var packets = OggPackets(file)
        guard packets.seek(toPacket: 1), packets.skip(marker) else { return lookup }
        let blocks = VorbisComments.pictures(&packets, limit: inlineLimit * 4 / 3 + 4)
        for block in blocks {
            var source = InlineBytes(bytes: block)
            guard let header = FLACPictureHeader(&source, blockLength: block.count) else {
                lookup.warnings.append("a METADATA_BLOCK_PICTURE comment with a damaged header was skipped")
                continue
            }
            if lookup.facts == nil || header.type == 3 {
                let image = Array(block[header.dataOffset..<(header.dataOffset + header.dataLength)])
                lookup.facts = flacFacts(header, path: path, dataOffset: 0) { offset, count in
                    offset + count <= image.count ? Array(image[offset..<(offset + count)]) : nil
                }
                lookup.facts?.inline = image
            }
        }
        return lookup
    }

    /// The first `covr` picture of an MP4 file (MP4 has no picture types: the first is the
    /// front cover), read from where its bytes lie in the file.
    private static func mp4Picture(_ file: FileBytes, path: String) -> ArtLookup {
        guard let cover = MP4Reader.movie(file)?.covers.first else { return ArtLookup() }
        let read = { (offset: Int, count: Int) in file.read(at: cover.offset + offset, count: count) }
        let image = ImageHeader.inspect(size: cover.length, read: read)
        let mime = cover.type == 14 ? "image/png" : cover.type == 13 ? "image/jpeg" : image.mime ?? "application/octet-stream"
        return ArtLookup(facts: ArtFacts(source: .embedded, path: path, mime: mime, pictureType: 3, description: nil,
                                         width: image.width, height: image.height, size: cover.length, frame: nil,
                                         dataOffset: cover.offset))
    }

    /// The largest picture held in memory (decoded from an Ogg comment).
    static let inlineLimit = 16 << 20

    private static func flacFacts(_ header: FLACPictureHeader, path: String, dataOffset: Int,
                                  read: (Int, Int) -> [UInt8]?) -> ArtFacts {
        let image = ImageHeader.inspect(size: header.dataLength, read: read)
        return ArtFacts(source: .embedded, path: path, mime: header.mime.isEmpty ? image.mime ?? "application/octet-stream" : header.mime,
                        pictureType: header.type, description: header.description,
                        width: image.width ?? header.width, height: image.height ?? header.height, size: header.dataLength,
                        frame: nil, dataOffset: dataOffset)
    }

    // MARK: Picture files

    /// The first picture file beside the track at `path`, by the names' order of preference.
    public static func beside(_ path: String) -> ArtFacts? {
        let folder = (path as NSString).deletingLastPathComponent
        guard let picture = pictureFile(in: folder.isEmpty ? "." : folder) else { return nil }
        let fd = FileName.open(picture, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let image = ImageHeader.inspect(size: size) { offset, count in readFile(fd, from: offset, count: count) }
        let suffix = (picture as NSString).pathExtension.lowercased()
        return ArtFacts(source: .file, path: picture, mime: image.mime ?? (suffix == "png" ? "image/png" : "image/jpeg"),
                        width: image.width, height: image.height, size: size, frame: nil, dataOffset: 0)
    }

    /// The first picture file in `folder`, by the names' order of preference.
    public static func pictureFile(in folder: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var byKey: [String: String] = [:]
        for name in names.sorted() where byKey[name.lowercased()] == nil { byKey[name.lowercased()] = name }
        for base in fileNames {
            for suffix in fileExtensions {
                if let name = byKey[base + "." + suffix] { return folder + "/" + name }
            }
        }
        return nil
    }

    /// `count` bytes of the file open at `fd` from `offset`, fewer at its end; nil on an error.
    static func readFile(_ fd: Int32, from offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { raw in pread(fd, raw.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            got += n
        }
        return Array(bytes[..<got])
    }
}

/// The fields of an `APIC` (v2.3/v2.4) or `PIC` (v2.2) body before the image.
struct PictureHeader: Equatable {
    /// Bytes of the body read to find the header: descriptions are short.
    static let limit = 64 << 10

    var mime: String?
    var type: Int
    var description: String?
    /// Where the image starts in the body.
    var length: Int

    init?(_ body: [UInt8], version: UInt8) {
        guard body.count >= 4 else { return nil }
        let encoding = body[0]
        var index = 1
        if version == 2 {
            let format = String(decoding: body[1..<4], as: UTF8.self).uppercased()
            mime = format == "JPG" ? "image/jpeg" : format == "PNG" ? "image/png" : nil
            index = 4
        } else {
            guard let end = body[1...].firstIndex(of: 0) else { return nil }
            let text = String(decoding: body[1..<end], as: UTF8.self).lowercased()
            // A MIME type of "-->" means the picture is a URL, not bytes: not a picture here.
            guard text != "-->" else { return nil }
            mime = text.isEmpty ? nil : text.contains("/") ? text : "image/" + (text == "jpg" ? "jpeg" : text)
            index = end + 1
        }
        guard index < body.count else { return nil }
        type = Int(body[index])
        index += 1
        var reader = ID3TextReader(encoding: encoding, bytes: body[index...])
        // The description must end inside what was read, or the image start is unknown.
        guard let text = reader.next(), index + reader.consumed <= body.count,
              body.count < Self.limit || index + reader.consumed < body.count else { return nil }
        description = text.isEmpty ? nil : text
        length = index + reader.consumed
    }
}

/// Pixel sizes and the format from the first bytes of a PNG, JPEG or GIF: no decoding.
enum ImageHeader {
    struct Facts: Equatable {
        var mime: String?
        var width: Int?
        var height: Int?
    }

    /// Most JPEG segments stepped over before giving up on finding the frame header.
    static let segmentLimit = 1000

    /// Inspects an image of `size` bytes that `read(offset, count)` reads.
    static func inspect(size: Int, read: (Int, Int) -> [UInt8]?) -> Facts {
        guard let head = read(0, min(size, 32)), head.count >= 10 else { return Facts() }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard head.count >= 24, head[12..<16].elementsEqual("IHDR".utf8) else { return Facts(mime: "image/png") }
            return Facts(mime: "image/png", width: bigEndian(head[16..<20]), height: bigEndian(head[20..<24]))
        }
        if head.starts(with: Array("GIF8".utf8)) {
            return Facts(mime: "image/gif", width: Int(head[6]) | Int(head[7]) << 8, height: Int(head[8]) | Int(head[9]) << 8)
        }
        if head.starts(with: [0xFF, 0xD8]) {
            var facts = Facts(mime: "image/jpeg")
            (facts.width, facts.height) = jpegSize(size: size, read: read) ?? (nil, nil)
            return facts
        }
        return Facts()
    }

    /// Steps from segment to segment to the first start-of-frame marker.
    private static func jpegSize(size: Int, read: (Int, Int) -> [UInt8]?) -> (Int, Int)? {
        var position = 2
        for _ in 0..<segmentLimit {
            guard position <= size - 4, let marker = read(position, 9), marker.count >= 4, marker[0] == 0xFF else { return nil }
            switch marker[1] {
            case 0xFF: position += 1  // fill byte
            case 0x01, 0xD0...0xD7: position += 2  // markers without a length
            case 0xD9, 0xDA: return nil  // end of image, start of scan: no frame header came
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard marker.count >= 9 else { return nil }
                return (Int(marker[7]) << 8 | Int(marker[8]), Int(marker[5]) << 8 | Int(marker[6]))
            default:
                let length = Int(marker[2]) << 8 | Int(marker[3])
                guard length >= 2 else { return nil }
                position += 2 + length
            }
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
