import Foundation

/// A fixture that could not be read or written.
public struct FixtureError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Test MP3 files: the committed tag-free audio, and files built from it with any tags.
public enum Fixtures {
    /// `<package root>/Tests/Fixtures/audio`, found from this source file, so it works from any
    /// working directory.
    public static let audioDirectory: String = packageRoot + "/Tests/Fixtures/audio"

    /// The package root, found from this source file.
    public static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Sources/SongboxTestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // package root
        .path

    /// The path of a committed audio fixture, such as "tone-mono-44k.mp3" (see its README.md).
    public static func audioPath(_ name: String) -> String {
        audioDirectory + "/" + name
    }

    /// The bytes of a committed audio fixture.
    public static func audio(_ name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: audioPath(name)) else {
            throw FixtureError("\(audioPath(name)): no such fixture; scripts/make-test-audio.sh makes them")
        }
        return [UInt8](data)
    }

    /// An MP3 file in memory: the ID3v2 tag, the audio, the ID3v1 tag.
    public static func mp3(v2: ID3v2Tag? = nil, v1: ID3v1Tag? = nil, audio: [UInt8]) -> [UInt8] {
        (v2?.bytes() ?? []) + audio + (v1?.bytes() ?? [])
    }

    /// Writes `mp3(v2:v1:audio:)` to `path`, replacing any file there.
    public static func writeMP3(to path: String, v2: ID3v2Tag? = nil, v1: ID3v1Tag? = nil, audio: [UInt8]) throws {
        try Data(mp3(v2: v2, v1: v1, audio: audio)).write(to: URL(fileURLWithPath: path))
    }

    /// Writes an MP3 whose ID3v2 tag holds one frame with a body of `frameSize` bytes, then the
    /// `after` frames, then `audio`, streaming the big body in 1 MiB chunks so that the writer
    /// never holds it in memory. An `APIC` body starts with a JPEG picture header and a `PRIV`
    /// body with an owner string; the rest is filler (0x55, so no false sync).
    ///
    /// The file is 10 (tag header) + 10 (frame header) + `frameSize` + the `after` frames +
    /// `audio.count` bytes. The tag size must fit in 28 bits (256 MiB).
    public static func writeHugeFrameMP3(
        to path: String, frameID: String = "APIC", frameSize: Int, version: Int = 3,
        after: [ID3Frame] = [.text("TIT2", "After the huge frame", encoding: .latin1)], audio: [UInt8]
    ) throws {
        precondition(version == 3 || version == 4, "the huge-frame writer writes ID3v2.3 or v2.4")
        let layout = ID3v2Tag(version: version, frames: after)
        let tail = after.flatMap { layout.frameBytes($0, unsynchroniseFrame: false) }
        let prefix: [UInt8] = switch frameID {
        case "APIC": [0] + Array("image/jpeg".utf8) + [0, 3, 0, 0xFF, 0xD8, 0xFF, 0xE0]
        case "PRIV": Array("songbox-test".utf8) + [0]
        default: []
        }
        precondition(frameSize >= prefix.count, "a \(frameID) body is at least \(prefix.count) bytes")
        let frameHeader = Array(frameID.utf8)
            + (version == 3 ? ID3Bytes.plain32(frameSize) : ID3Bytes.synchsafe32(frameSize)) + [0, 0]
        let tagHeader = Array("ID3".utf8) + [UInt8(version), 0, 0]
            + ID3Bytes.synchsafe32(frameHeader.count + frameSize + tail.count)

        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw FixtureError("\(path): cannot create the file")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: tagHeader + frameHeader + prefix)
        let chunk = Data(repeating: 0x55, count: 1 << 20)
        var remaining = frameSize - prefix.count
        while remaining > 0 {
            let count = min(remaining, chunk.count)
            try handle.write(contentsOf: chunk.prefix(count))
            remaining -= count
        }
        try handle.write(contentsOf: tail + audio)
    }

    /// A new empty directory under the system temporary directory. The caller removes it.
    public static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("songbox-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// Runs `body` with a new temporary directory and removes the directory afterwards.
    public static func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// `withTemporaryDirectory` for synchronous tests.
    public static func withTemporaryDirectorySync<T>(_ body: (String) throws -> T) throws -> T {
        let path = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// Windows-1255 bytes of `text`: Hebrew letters U+05D0–U+05EA to 0xE0–0xFA, ASCII to itself.
    /// Enough for fixtures; any other character is a test bug.
    public static func windows1255(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x00...0x7F: return UInt8(scalar.value)
            case 0x05D0...0x05EA: return UInt8(scalar.value - 0x05D0 + 0xE0)
            default: preconditionFailure("U+\(String(scalar.value, radix: 16)) has no Windows-1255 mapping here")
            }
        }
    }
}
