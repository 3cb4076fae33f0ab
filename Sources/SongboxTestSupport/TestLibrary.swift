import Foundation
import SongboxLibrary

/// A new, empty library database (`library.db`) in a new temporary folder, opened in-process.
public func temporaryStore() throws -> (folder: String, store: LibraryStore) {
    let folder = try Fixtures.temporaryDirectory()
    return (folder, try LibraryStore(path: folder + "/library.db"))
}

/// A temporary folder holding a library database and a `music` folder, for tests that run the
/// built `songbox`: on the bundled example library, or on generated tones.
public struct TestLibrary: Sendable {
    public let folder: String
    public let music: String
    /// Runs the binary with `--db` this library.
    public let songbox: SongboxRunner

    public init() throws {
        folder = try Fixtures.temporaryDirectory()
        music = folder + "/music"  // made by the first `add`
        songbox = SongboxRunner(database: folder + "/library.db")
    }

    /// Untagged tones `<name>.mp3` of these lengths in seconds (so songbox shows the file name),
    /// each at its own pitch, without their WAV sources; then scans the music folder. Returns
    /// the paths, in the order given.
    @discardableResult
    public func add(_ tones: [(name: String, seconds: Double)]) throws -> [String] {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let paths = try tones.enumerated().map { index, tone in
            try AudioFixtures.tone(in: music, name: tone.name, seconds: tone.seconds, frequency: 330 + 110 * Double(index))
        }
        for tone in tones { try FileManager.default.removeItem(atPath: music + "/" + tone.name + ".wav") }
        try scan()
        return paths
    }

    /// The bundled example library (examples/music).
    public static let examples = Fixtures.packageRoot + "/examples/music"

    /// Scans `folder` (default: the music folder); throws with songbox's message when it fails.
    public func scan(_ folder: String? = nil) throws {
        let scan = try songbox.run(["scan", folder ?? music])
        guard scan.status == 0 else { throw FixtureError("songbox scan failed: \(scan.stderr)") }
    }

    /// Scans the bundled example library.
    public func scanExamples() throws {
        try scan(Self.examples)
    }
}

/// A test suite on a `TestLibrary`: its folder, music folder and runner at hand.
public protocol TestLibrarySuite {
    var library: TestLibrary { get }
}

extension TestLibrarySuite {
    public var folder: String { library.folder }
    public var music: String { library.music }
    public var songbox: SongboxRunner { library.songbox }
}
