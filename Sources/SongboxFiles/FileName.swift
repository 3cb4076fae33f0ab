#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names are bytes on Linux; the library keeps paths as text. A name that is not valid
/// UTF-8 (a Latin-1 `café.mp3` from an old FAT copy, a stray byte) keeps each byte that does not
/// decode as one private-use character, U+10FF00 + byte (U+10FF80 ... U+10FFFF), so the path
/// text turns back into exactly the bytes it came from. (A name that really holds one of those
/// rare characters escapes its bytes the same way, so the round trip stays exact.)
///
/// Every call that hands a library path to the system goes through `withSystemPath`, and
/// every path shown to a person through `display`.
public enum FileName {
    private static let escapeBase: UInt32 = 0x10FF00

    /// The text for a name's bytes.
    public static func string<Bytes: Collection<UInt8>>(fromBytes bytes: Bytes) -> String {
        // The common case: valid UTF-8 that cannot hold an escape (those start with 0xF4).
        if !bytes.contains(0xF4), let text = String(validating: bytes, as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        let bytes = Array(bytes)
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeOne(bytes, at: index), !isEscape(scalar) {
                scalars.append(scalar)
                index += length
            } else {
                let byte = bytes[index]
                scalars.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(escapeBase + UInt32(byte))!)
                index += 1
            }
        }
        return String(scalars)
    }

    /// The text for the NUL-terminated name in `bytes` (a `readdir` entry's `d_name`). Not
    /// generic: called from another module, the generic `string(fromBytes:)` ran unspecialised,
    /// some 40,000 instructions a name, most of a rescan's time.
    public static func string(nulTerminated bytes: UnsafeRawBufferPointer) -> String {
        let name = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return string(fromBytes: UnsafeBufferPointer(rebasing: name[..<(name.firstIndex(of: 0) ?? name.count)]))
    }

    /// The bytes a path's text stands for.
    public static func bytes(_ path: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Runs `body` with the path as the system knows it (NUL-terminated bytes).
    public static func withSystemPath<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        guard mayHoldEscapes(path) else { return try path.withCString(body) }
        let bytes = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The path for a person to read: each byte that was not UTF-8 shown as U+FFFD.
    public static func display(_ path: String) -> String {
        guard mayHoldEscapes(path) else { return path }
        return String(String.UnicodeScalarView(path.unicodeScalars.map { isEscape($0) ? "\u{FFFD}" : $0 }))
    }

    /// `open(2)` of a library path.
    public static func open(_ path: String, _ flags: Int32) -> Int32 {
        withSystemPath(path) { Glibc.open($0, flags) }
    }

    /// `stat(2)` of a library path.
    public static func status(_ path: String, _ info: inout Glibc.stat) -> Int32 {
        withSystemPath(path) { fstatat(AT_FDCWD, $0, &info, 0) }
    }

    /// `realpath(3)` of a library path; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        withSystemPath(path) { pointer in
            guard let resolved = realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return string(fromBytes: UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self),
                                                         count: strlen(resolved)))
        }
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= escapeBase + 0x80 }

    /// Whether `path` holds an escaped byte: its UTF-8 bytes are looked at first (an escape's
    /// start with 0xF4), which costs far less than decoding every scalar of every path.
    private static func mayHoldEscapes(_ path: String) -> Bool {
        path.utf8.contains(0xF4) && path.unicodeScalars.contains(where: isEscape)
    }

    /// One well-formed UTF-8 scalar at `index` and its length, or nil.
    private static func decodeOne(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let (length, minimum, initial): (Int, UInt32, UInt32) = switch lead {
        case 0x00...0x7F: (1, 0, UInt32(lead))
        case 0xC2...0xDF: (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (4, 0x10000, UInt32(lead & 0x07))
        default: (0, 0, 0)
        }
        guard length > 0, index + length <= bytes.count else { return nil }
        var value = initial
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
