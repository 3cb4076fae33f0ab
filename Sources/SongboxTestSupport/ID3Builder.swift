// Builders for ID3v2 and ID3v1 tags, byte by byte, for tests of the tag reader.
//
// They write what they are told, including what a tag must not contain: raw Latin-1 bytes of
// another code page, invalid UTF-8 and UTF-16, sizes that lie. Layout references: id3.org
// "ID3 tag version 2" (v2.2), "id3v2.3.0", "id3v2.4.0-structure" and "id3v2.4.0-frames".

/// The text encoding byte of an ID3v2 text field, and how a Swift string is written in it.
public enum TextEncoding: Sendable, Equatable {
    /// Byte 0, ISO-8859-1. `encode` accepts only U+0000–U+00FF; write another code page's bytes
    /// (Windows-1255 Hebrew, say) with `ID3Frame.rawText` and `Fixtures.windows1255`.
    case latin1
    /// Byte 1, UTF-16 with a byte order mark before every string (little-endian `FF FE` by default).
    case utf16(bigEndian: Bool = false)
    /// Byte 2, UTF-16BE without a BOM. ID3v2.4 only.
    case utf16BE
    /// Byte 3, UTF-8. ID3v2.4 only.
    case utf8

    /// The byte written before the text.
    public var byte: UInt8 {
        switch self {
        case .latin1: 0
        case .utf16: 1
        case .utf16BE: 2
        case .utf8: 3
        }
    }

    /// The string terminator: one zero byte, or two for the UTF-16 encodings.
    public var terminator: [UInt8] {
        switch self {
        case .latin1, .utf8: [0]
        case .utf16, .utf16BE: [0, 0]
        }
    }

    /// `text` in this encoding, with a BOM for `.utf16`, without a terminator.
    public func encode(_ text: String) -> [UInt8] {
        switch self {
        case .latin1:
            return text.unicodeScalars.map { scalar in
                precondition(scalar.value <= 0xFF, "U+\(String(scalar.value, radix: 16)) is not Latin-1; use rawText")
                return UInt8(scalar.value)
            }
        case .utf16(let bigEndian):
            return (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) + Self.utf16Bytes(text, bigEndian: bigEndian)
        case .utf16BE:
            return Self.utf16Bytes(text, bigEndian: true)
        case .utf8:
            return Array(text.utf8)
        }
    }

    private static func utf16Bytes(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.utf16.flatMap { unit -> [UInt8] in
            let high = UInt8(unit >> 8), low = UInt8(unit & 0xFF)
            return bigEndian ? [high, low] : [low, high]
        }
    }
}

/// Text payloads a correct writer never produces, to feed the reader.
public enum BrokenText {
    /// For encoding 3: "Ab", a lead byte followed by a non-continuation byte (`C3 28`), and `FF`.
    public static let invalidUTF8: [UInt8] = [0x41, 0x62, 0xC3, 0x28, 0xFF]
    /// For encoding 1: BOM `FF FE`, "A", a lone high surrogate (D800), "B".
    public static let loneHighSurrogateUTF16: [UInt8] = [0xFF, 0xFE, 0x41, 0x00, 0x00, 0xD8, 0x42, 0x00]
    /// For encoding 1: BOM `FF FE`, "A", a lone low surrogate (DC00) at the end.
    public static let loneLowSurrogateUTF16: [UInt8] = [0xFF, 0xFE, 0x41, 0x00, 0x00, 0xDC]
    /// For encoding 1: BOM `FF FE`, "AB", then one stray byte.
    public static let oddLengthUTF16: [UInt8] = [0xFF, 0xFE, 0x41, 0x00, 0x42, 0x00, 0x43]
    /// For encoding 1: "AB" in UTF-16LE with no BOM, which encoding 1 requires.
    public static let utf16WithoutBOM: [UInt8] = [0x41, 0x00, 0x42, 0x00]
}

/// One ID3v2 frame: an id, a body, and how its header is written.
///
/// Give the ID3v2.3/2.4 id (`TIT2`, `APIC`); a v2.2 tag writes the 3-character id (`TT2`, `PIC`)
/// from a table of common frames, or give the 3-character id yourself. The body is written as
/// given; only `APIC` is rebuilt for v2.2 (`PIC` has a 3-letter image format instead of a MIME type).
public struct ID3Frame: Sendable, Equatable {
    enum Body: Sendable, Equatable {
        case bytes([UInt8])
        case picture(encoding: TextEncoding, mime: String, type: UInt8, description: String, data: [UInt8])
    }

    public var id: String
    var body: Body
    /// The size the header declares, when it should not be the body's size.
    public var sizeOverride: Int?
    /// Raw status and format flags (v2.3 and v2.4 only), such as 0x4000 "discard on file change".
    /// The unsynchronisation and data length indicator bits are set from the properties below.
    public var flags: UInt16 = 0
    /// ID3v2.4: unsynchronise this frame's body and set its format flag (0x0002).
    public var unsynchronised = false
    /// ID3v2.4: start the body with a 4-byte synchsafe length of the original body (flag 0x0001).
    public var dataLengthIndicator = false

    init(id: String, body: Body, sizeOverride: Int? = nil) {
        self.id = id
        self.body = body
        self.sizeOverride = sizeOverride
    }

    /// A frame whose body is exactly `body`: anything, including nothing (a zero-size frame).
    public static func raw(_ id: String, body: [UInt8], sizeOverride: Int? = nil) -> ID3Frame {
        ID3Frame(id: id, body: .bytes(body), sizeOverride: sizeOverride)
    }

    /// A text frame (`TIT2`, `TPE1`, `TCON` "(13)" or "13", `TRCK` "3/12", `TDRC`…): the encoding
    /// byte and the text, without a terminator.
    public static func text(_ id: String, _ value: String, encoding: TextEncoding = .utf8) -> ID3Frame {
        rawText(id, encoding: encoding.byte, payload: encoding.encode(value))
    }

    /// A v2.4 multi-value text frame: the values separated by terminators (each with its own BOM).
    public static func text(_ id: String, values: [String], encoding: TextEncoding = .utf8) -> ID3Frame {
        let payload = values.map(encoding.encode).joined(separator: encoding.terminator)
        return rawText(id, encoding: encoding.byte, payload: Array(payload))
    }

    /// A text frame with any encoding byte and any payload: Windows-1255 bytes under encoding 0,
    /// `BrokenText` samples, a missing or doubled terminator.
    public static func rawText(_ id: String, encoding byte: UInt8, payload: [UInt8]) -> ID3Frame {
        raw(id, body: [byte] + payload)
    }

    /// `COMM`: encoding, language (3 ASCII letters such as "eng"), description, terminator, text.
    public static func comment(_ text: String, description: String = "", language: String = "eng",
                               encoding: TextEncoding = .utf8) -> ID3Frame {
        raw("COMM", body: languageTextBody(language, description, text, encoding))
    }

    /// `USLT`: unsynchronised lyrics, laid out like `COMM`.
    public static func lyrics(_ text: String, description: String = "", language: String = "eng",
                              encoding: TextEncoding = .utf8) -> ID3Frame {
        raw("USLT", body: languageTextBody(language, description, text, encoding))
    }

    /// `SYLT`: encoding, language, time stamp format (2 = milliseconds, 1 = MPEG frames),
    /// content type (1 = lyrics), description, then each text, terminated, and its 4-byte time.
    public static func syncedLyrics(_ entries: [(text: String, time: Int)], encoding: TextEncoding = .utf8,
                                    timeFormat: UInt8 = 2, language: String = "eng", description: String = "") -> ID3Frame {
        precondition(language.utf8.count == 3, "a language code is 3 bytes, got \"\(language)\"")
        var body = [encoding.byte] + Array(language.utf8) + [timeFormat, 1] + encoding.encode(description) + encoding.terminator
        for entry in entries { body += encoding.encode(entry.text) + encoding.terminator + ID3Bytes.plain32(entry.time) }
        return raw("SYLT", body: body)
    }

    /// `SYLT` entries of raw text bytes (Windows-1255 Hebrew under encoding 0, say).
    public static func rawSyncedLyrics(_ entries: [(text: [UInt8], time: Int)], encoding byte: UInt8, terminator: [UInt8] = [0]) -> ID3Frame {
        var body = [byte] + Array("heb".utf8) + [2, 1] + terminator
        for entry in entries { body += entry.text + terminator + ID3Bytes.plain32(entry.time) }
        return raw("SYLT", body: body)
    }

    /// `TXXX`: encoding, description, terminator, value; for example "MusicBrainz Album Id" or
    /// "replaygain_track_gain" = "-6.50 dB".
    public static func userText(description: String, value: String, encoding: TextEncoding = .utf8) -> ID3Frame {
        raw("TXXX", body: [encoding.byte] + encoding.encode(description) + encoding.terminator + encoding.encode(value))
    }

    /// `APIC`: encoding, MIME type, picture type (3 = front cover), description, image bytes.
    public static func picture(_ data: [UInt8], mime: String = "image/png", type: UInt8 = 3,
                               description: String = "", encoding: TextEncoding = .latin1) -> ID3Frame {
        ID3Frame(id: "APIC", body: .picture(encoding: encoding, mime: mime, type: type,
                                             description: description, data: data))
    }

    /// `UFID`: owner (Latin-1, such as "http://musicbrainz.org"), terminator, identifier bytes.
    public static func ufid(owner: String, identifier: [UInt8]) -> ID3Frame {
        raw("UFID", body: TextEncoding.latin1.encode(owner) + [0] + identifier)
    }

    private static func languageTextBody(_ language: String, _ description: String, _ text: String,
                                         _ encoding: TextEncoding) -> [UInt8] {
        precondition(language.utf8.count == 3, "a language code is 3 bytes, got \"\(language)\"")
        return [encoding.byte] + Array(language.utf8) + encoding.encode(description) + encoding.terminator
            + encoding.encode(text)
    }

    /// The body as a tag of `version` stores it, before any unsynchronisation.
    func bodyBytes(version: Int) -> [UInt8] {
        switch body {
        case .bytes(let bytes):
            return bytes
        case .picture(let encoding, let mime, let type, let description, let data):
            let text = encoding.encode(description) + encoding.terminator + data
            if version == 2 {
                return [encoding.byte] + Self.imageFormat(mime) + [type] + text
            }
            return [encoding.byte] + TextEncoding.latin1.encode(mime) + [0, type] + text
        }
    }

    /// ID3v2.2 `PIC` image format: "JPG" for image/jpeg, else the subtype's first 3 letters, upper case.
    private static func imageFormat(_ mime: String) -> [UInt8] {
        let subtype = mime.split(separator: "/").last.map(String.init) ?? mime
        let format = subtype.lowercased() == "jpeg" ? "JPG" : subtype.uppercased()
        return Array((format + "   ").utf8.prefix(3))
    }

    /// The id as written by a tag of `version`: 3 bytes for v2.2, 4 otherwise.
    func idBytes(version: Int) -> [UInt8] {
        let length = version == 2 ? 3 : 4
        var written = id
        if version == 2, id.utf8.count == 4 {
            guard let short = Self.v22IDs[id] else {
                preconditionFailure("no ID3v2.2 id for \(id); give the 3-character id")
            }
            written = short
        }
        precondition(written.utf8.count == length,
                     "frame id \"\(written)\" must be \(length) bytes in ID3v2.\(version)")
        return Array(written.utf8)
    }

    /// ID3v2.3/2.4 ids and their ID3v2.2 equivalents.
    static let v22IDs: [String: String] = [
        "TIT1": "TT1", "TIT2": "TT2", "TIT3": "TT3", "TPE1": "TP1", "TPE2": "TP2", "TPE3": "TP3",
        "TPE4": "TP4", "TALB": "TAL", "TCON": "TCO", "TYER": "TYE", "TDAT": "TDA", "TRCK": "TRK",
        "TPOS": "TPA", "TSRC": "TRC", "TCOM": "TCM", "TEXT": "TXT", "TLEN": "TLE", "TBPM": "TBP",
        "TCOP": "TCR", "TENC": "TEN", "TPUB": "TPB", "TKEY": "TKE", "TLAN": "TLA", "TSSE": "TSS",
        "TCMP": "TCP", "TSO2": "TS2", "TSOA": "TSA", "TSOP": "TSP", "TSOT": "TST", "TSOC": "TSC",
        "COMM": "COM", "USLT": "ULT", "TXXX": "TXX", "APIC": "PIC", "UFID": "UFI", "PCNT": "CNT",
        "POPM": "POP", "WXXX": "WXX", "PRIV": "PRV", "GEOB": "GEO",
    ]
}

/// An ID3v2 tag: header, optional extended header, frames, padding and (v2.4) footer.
public struct ID3v2Tag: Sendable, Equatable {
    /// The major version byte: 2, 3 or 4. Frames are laid out as v2.2 for 2, v2.3 for 3 and
    /// v2.4 for anything else (so an unknown version such as 5 can be written too).
    public var version: Int
    public var frames: [ID3Frame]
    /// v2.2/v2.3: unsynchronise everything after the header (header flag 0x80). v2.4: set the
    /// header flag and unsynchronise every frame (each frame gets its own flag).
    public var unsynchronised = false
    /// A minimal extended header (flag 0x40): v2.3 size 6, no CRC, padding size; v2.4 size 6, no flags.
    public var extendedHeader = false
    /// Zero bytes after the frames.
    public var padding = 0
    /// v2.4: "3DI" footer after the tag (flag 0x10).
    public var footer = false
    /// The tag size the header (and footer) declares, instead of the real one.
    public var declaredSizeOverride: Int?
    /// v2.4 frames with plain (v2.3-style) sizes instead of synchsafe ones, as old iTunes wrote.
    public var plainFrameSizes = false

    public init(version: Int, frames: [ID3Frame] = [], unsynchronised: Bool = false, extendedHeader: Bool = false,
                padding: Int = 0, footer: Bool = false, declaredSizeOverride: Int? = nil,
                plainFrameSizes: Bool = false) {
        precondition((0...255).contains(version), "the version is one byte")
        self.version = version
        self.frames = frames
        self.unsynchronised = unsynchronised
        self.extendedHeader = extendedHeader
        self.padding = padding
        self.footer = footer
        self.declaredSizeOverride = declaredSizeOverride
        self.plainFrameSizes = plainFrameSizes
    }

    /// The whole tag.
    public func bytes() -> [UInt8] {
        let perFrameUnsync = version >= 4
        var body: [UInt8] = []
        if extendedHeader {
            precondition(version != 2, "ID3v2.2 has no extended header (its flag 0x40 means compression)")
            body += version == 3
                ? ID3Bytes.plain32(6) + [0, 0] + ID3Bytes.plain32(padding)  // size, flags, padding size
                : ID3Bytes.synchsafe32(6) + [1, 0]  // size, one flag byte, no flags
        }
        for frame in frames {
            body += frameBytes(frame, unsynchroniseFrame: perFrameUnsync && unsynchronised)
        }
        if unsynchronised && !perFrameUnsync {
            body = ID3Bytes.unsynchronise(body)
        }
        body += [UInt8](repeating: 0, count: padding)

        let size = declaredSizeOverride ?? body.count
        let flags: UInt8 = (unsynchronised ? 0x80 : 0) | (extendedHeader ? 0x40 : 0) | (footer ? 0x10 : 0)
        let header = Array("ID3".utf8) + [UInt8(version), 0, flags] + ID3Bytes.synchsafe32(size)
        let trailer = footer ? Array("3DI".utf8) + header.dropFirst(3) : []
        return header + body + trailer
    }

    /// One frame: id, size, flags (v2.3+), body.
    func frameBytes(_ frame: ID3Frame, unsynchroniseFrame: Bool) -> [UInt8] {
        var body = frame.bodyBytes(version: version)
        let id = frame.idBytes(version: version)
        if version == 2 {
            return id + ID3Bytes.plain24(frame.sizeOverride ?? body.count) + body
        }
        var flags = frame.flags
        if version >= 4 {
            let original = body.count
            if frame.unsynchronised || unsynchroniseFrame {
                body = ID3Bytes.unsynchronise(body)
                flags |= 0x0002
            }
            if frame.dataLengthIndicator {
                body = ID3Bytes.synchsafe32(original) + body
                flags |= 0x0001
            }
        } else {
            precondition(!frame.unsynchronised && !frame.dataLengthIndicator,
                         "per-frame unsynchronisation is ID3v2.4; set ID3v2Tag.unsynchronised")
        }
        let size = frame.sizeOverride ?? body.count
        let sizeBytes = version == 3 || plainFrameSizes ? ID3Bytes.plain32(size) : ID3Bytes.synchsafe32(size)
        return id + sizeBytes + [UInt8(flags >> 8), UInt8(flags & 0xFF)] + body
    }
}

/// An ID3v1 or v1.1 tag from raw bytes: the last 128 bytes of a file.
public struct ID3v1Tag: Sendable, Equatable {
    /// Up to 30 bytes each, zero-filled.
    public var title: [UInt8]
    public var artist: [UInt8]
    public var album: [UInt8]
    /// Up to 4 bytes, such as "1967".
    public var year: [UInt8]
    /// Up to 30 bytes, or 28 when there is a track number.
    public var comment: [UInt8]
    /// ID3v1.1: byte 125 is zero and byte 126 is the track number.
    public var track: UInt8?
    /// An index into the ID3v1 genre list; 255 is "none".
    public var genre: UInt8

    public init(title: [UInt8] = [], artist: [UInt8] = [], album: [UInt8] = [], year: [UInt8] = [],
                comment: [UInt8] = [], track: UInt8? = nil, genre: UInt8 = 255) {
        self.title = title
        self.artist = artist
        self.album = album
        self.year = year
        self.comment = comment
        self.track = track
        self.genre = genre
    }

    /// "TAG", the fields at their fixed offsets, the genre byte: 128 bytes.
    public func bytes() -> [UInt8] {
        var tag = Array("TAG".utf8)
        tag += Self.field(title, 30, "title") + Self.field(artist, 30, "artist") + Self.field(album, 30, "album")
        tag += Self.field(year, 4, "year")
        if let track {
            tag += Self.field(comment, 28, "comment") + [0, track]
        } else {
            tag += Self.field(comment, 30, "comment")
        }
        return tag + [genre]
    }

    private static func field(_ bytes: [UInt8], _ length: Int, _ name: String) -> [UInt8] {
        precondition(bytes.count <= length, "ID3v1 \(name) is at most \(length) bytes, got \(bytes.count)")
        return bytes + [UInt8](repeating: 0, count: length - bytes.count)
    }
}

/// Size encodings and unsynchronisation.
public enum ID3Bytes {
    /// 28 bits in 4 bytes of 7 bits each, most significant first (tag sizes; v2.4 frame sizes).
    public static func synchsafe32(_ value: Int) -> [UInt8] {
        precondition((0..<(1 << 28)).contains(value), "\(value) does not fit in a synchsafe integer")
        return [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    /// A big-endian 32-bit size (v2.3 frame sizes).
    public static func plain32(_ value: Int) -> [UInt8] {
        precondition((0...Int(UInt32.max)).contains(value), "\(value) does not fit in 32 bits")
        return [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A big-endian 24-bit size (v2.2 frame sizes).
    public static func plain24(_ value: Int) -> [UInt8] {
        precondition((0..<(1 << 24)).contains(value), "\(value) does not fit in 24 bits")
        return [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The ID3v2 unsynchronisation scheme: a zero byte after every `FF` that is followed by
    /// `111xxxxx` or `00`, or that ends the data.
    public static func unsynchronise(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 64)
        for (index, byte) in bytes.enumerated() {
            out.append(byte)
            guard byte == 0xFF else { continue }
            if index + 1 < bytes.count, case let next = bytes[index + 1], next != 0x00, next < 0xE0 {
                continue
            }
            out.append(0)
        }
        return out
    }
}

/// Image headers for picture fixtures: enough for songbox to know the format and the pixel
/// size, followed by filler bytes (not a decodable image).
public enum ImageFixtures {
    /// A PNG signature and IHDR chunk for `width` x `height`, then `filler` bytes that
    /// include FF so unsynchronisation has work to do.
    public static func png(width: Int, height: Int, filler: Int = 64) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + ID3Bytes.plain32(width) + ID3Bytes.plain32(height) + [8, 6, 0, 0, 0, 0, 0, 0, 0]
            + (0..<filler).map { $0 % 5 == 0 ? 0xFF : UInt8(truncatingIfNeeded: $0) }
    }

    /// A JPEG start, an APP0 segment of `appBytes` bytes, then a baseline frame header for
    /// `width` x `height`, then `filler` bytes.
    public static func jpeg(width: Int, height: Int, appBytes: Int = 16, filler: Int = 64) -> [UInt8] {
        let app = [0xFF, 0xE0, UInt8((appBytes + 2) >> 8), UInt8((appBytes + 2) & 0xFF)] + [UInt8](repeating: 0xFF, count: appBytes)
        let frame: [UInt8] = [0xFF, 0xC0, 0, 17, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
            + [UInt8](repeating: 1, count: 9)
        return [0xFF, 0xD8] + app + frame + (0..<filler).map { $0 % 3 == 0 ? 0xFF : 0x00 }
    }
}
