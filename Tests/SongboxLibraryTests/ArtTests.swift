import Foundation
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// Embedded pictures and picture files, found and read by `ArtLocator`.
@Suite struct ArtTests {
    let directory: String

    init() throws { directory = try Fixtures.temporaryDirectory() }

    /// Writes an MP3 with this tag into `folder` (default: the suite's) and returns its path.
    func track(_ v2: ID3v2Tag?, in folder: String? = nil) throws -> String {
        let path = (folder ?? directory) + "/\(UUID().uuidString).mp3"
        try Fixtures.writeMP3(to: path, v2: v2, audio: try Fixtures.audio("tone-mono-44k.mp3"))
        return path
    }

    /// The whole picture, read in pieces of `piece` bytes.
    func readAll(_ facts: ArtFacts, piece: Int = 100_000) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < facts.size { bytes += try ArtLocator.read(facts, offset: bytes.count, length: piece) }
        return bytes
    }

    @Test(arguments: 0...20) func everyPictureTypeIsFoundWithItsFacts(type: Int) throws {
        let png = ImageFixtures.png(width: 40 + type, height: 30)
        let path = try track(ID3v2Tag(version: 3, frames: [.picture(png, mime: "image/png", type: UInt8(type), description: "d")]))
        let facts = try #require(try ArtLocator.find(path).facts)
        #expect(facts.source == .embedded && facts.path == path)
        #expect(facts.pictureType == type && facts.pictureTypeName == ArtLocator.pictureTypeNames[type])
        #expect(facts.mime == "image/png" && facts.description == "d")
        #expect(facts.width == 40 + type && facts.height == 30)
        #expect(facts.size == png.count)
        #expect(try readAll(facts, piece: 7) == png)
    }

    @Test func theFrontCoverComesFirstElseTheFirstPicture() throws {
        let back = ImageFixtures.jpeg(width: 10, height: 20), front = ImageFixtures.png(width: 300, height: 300)
        let both = try track(ID3v2Tag(version: 4, frames: [
            .picture(back, mime: "image/jpeg", type: 4), .picture(front, mime: "image/png", type: 3, encoding: .utf16()),
        ]))
        let facts = try #require(try ArtLocator.find(both).facts)
        #expect(facts.pictureType == 3 && facts.width == 300)
        #expect(try readAll(facts) == front)
        let noFront = try track(ID3v2Tag(version: 4, frames: [
            .picture(back, mime: "", type: 4), .picture(front, mime: "image/png", type: 8),
        ]))
        let first = try #require(try ArtLocator.find(noFront).facts)
        // No MIME type in the tag: known from the bytes.
        #expect(first.pictureType == 4 && first.mime == "image/jpeg" && first.width == 10 && first.height == 20)
    }

    /// A picture over the reader's checkpoint spacing, full of FF bytes, in every kind of
    /// unsynchronised tag: read back exactly, from any offset.
    @Test(arguments: [(2, false, false), (3, false, false), (4, false, false), (4, true, false), (4, true, true)])
    func unsynchronisedPicturesReadBackExactly(version: Int, perFrame: Bool, dataLength: Bool) throws {
        var picture = ImageFixtures.jpeg(width: 640, height: 480, appBytes: 3000, filler: 3 << 20)
        picture[picture.count - 1] = 0xFF
        var frame = ID3Frame.picture(picture, mime: "image/jpeg", type: 3)
        frame.unsynchronised = perFrame
        frame.dataLengthIndicator = dataLength
        let tag = ID3v2Tag(version: version, frames: [.text("TIT2", "x", encoding: .latin1), frame, .text("TPE1", "y", encoding: .latin1)],
                           unsynchronised: !perFrame)
        let facts = try #require(try ArtLocator.find(try track(tag)).facts)
        #expect(facts.size == picture.count)
        #expect(facts.width == 640 && facts.height == 480 && facts.mime == "image/jpeg")
        #expect(try readAll(facts, piece: 1 << 20) == picture)
        for offset in [0, 1, (1 << 20) - 1, 1 << 20, (2 << 20) + 12_345, picture.count - 5] {
            #expect(try ArtLocator.read(facts, offset: offset, length: 9) == Array(picture[offset..<min(offset + 9, picture.count)]))
        }
        #expect(try ArtLocator.read(facts, offset: picture.count, length: 10) == [])
        #expect(throws: SongboxError.self) { try ArtLocator.read(facts, offset: picture.count + 1, length: 1) }
        #expect(throws: SongboxError.self) { try ArtLocator.read(facts, offset: -1, length: 1) }
    }

    @Test func pictureFilesBesideTheTrackInAnyCaseByPreference() throws {
        let folder = directory + "/album"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = try track(nil, in: folder)
        #expect(try ArtLocator.find(path).facts == nil)
        let jpeg = ImageFixtures.jpeg(width: 500, height: 400)
        try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/Album.JPEG"))
        #expect(try ArtLocator.find(path).facts?.path == folder + "/Album.JPEG")
        try Data(ImageFixtures.png(width: 1, height: 1)).write(to: URL(fileURLWithPath: folder + "/FOLDER.png"))
        try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/cover.Jpg"))
        let facts = try #require(try ArtLocator.find(path).facts)
        #expect(facts.source == .file && facts.path == folder + "/cover.Jpg")
        #expect(facts.mime == "image/jpeg" && facts.width == 500 && facts.height == 400 && facts.pictureType == nil)
        #expect(try readAll(facts) == jpeg)
        // An embedded picture comes first, unless a file is asked for.
        let embedded = try track(ID3v2Tag(version: 3, frames: [.picture(ImageFixtures.png(width: 2, height: 2))]), in: folder)
        #expect(try ArtLocator.find(embedded).facts?.source == .embedded)
        #expect(try ArtLocator.find(embedded, in: .file).facts?.path == folder + "/cover.Jpg")
        #expect(try ArtLocator.find(path, in: .embedded).facts == nil)
    }

    @Test func lyingFrameSizesAreReportedNotFatal() throws {
        let png = ImageFixtures.png(width: 9, height: 9)
        // A picture declaring more than the tag holds: the frames stop there, with a warning.
        let pastTheTag = try track(ID3v2Tag(version: 3, frames: [.picture(png, type: 3), .raw("APIC", body: [0, 0], sizeOverride: 5_000_000)]))
        let lookup = try ArtLocator.find(pastTheTag)
        #expect(lookup.facts?.width == 9)
        #expect(lookup.warnings.contains { $0.contains("size past the end of the tag") }, "\(lookup.warnings)")
        // A picture whose size is short of its bytes: what follows is not a frame.
        var short = ID3Frame.picture(png, type: 3)
        short.sizeOverride = 20
        let cut = try ArtLocator.find(try track(ID3v2Tag(version: 4, frames: [short, .text("TIT2", "after")])))
        // Encoding, "image/png" and its terminator, type, empty description: 13 bytes before the image.
        #expect(cut.facts?.size == 20 - 13)
        #expect(!cut.warnings.isEmpty)
        // A tag that claims more bytes than the file has.
        let claims = try track(ID3v2Tag(version: 3, frames: [.picture(png)], declaredSizeOverride: 40_000_000))
        let lying = try ArtLocator.find(claims)
        #expect(lying.warnings.first?.contains("declares 40000000 bytes") == true, "\(lying.warnings)")
        // A picture frame with nothing but an encoding byte.
        let empty = try ArtLocator.find(try track(ID3v2Tag(version: 3, frames: [.raw("APIC", body: [0])])))
        #expect(empty.facts == nil && empty.warnings == ["an APIC frame with a damaged header was skipped"])
    }
}
