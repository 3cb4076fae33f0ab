import Foundation

/// A temporary folder holding a `music` folder of generated tones and a library database, for
/// tests that run the built `songbox` on real audio.
public struct ToneLibrary: Sendable {
    public let folder: String
    public let music: String
    /// Runs the binary with `--db` this library.
    public let songbox: SongboxRunner

    public init() throws {
        folder = try Fixtures.temporaryDirectory()
        music = folder + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: false)
        songbox = SongboxRunner(database: folder + "/library.db")
    }

    /// Untagged tones `<name>.mp3` of these lengths in seconds (so songbox shows the file name),
    /// each at its own pitch, without their WAV sources; then scans the music folder. Returns
    /// the paths, in the order given.
    @discardableResult
    public func add(_ tones: [(name: String, seconds: Double)]) throws -> [String] {
        let paths = try tones.enumerated().map { index, tone in
            try AudioFixtures.tone(in: music, name: tone.name, seconds: tone.seconds, frequency: 330 + 110 * Double(index))
        }
        for tone in tones { try FileManager.default.removeItem(atPath: music + "/" + tone.name + ".wav") }
        try scan()
        return paths
    }

    /// Scans the music folder; throws with songbox's message when it fails.
    public func scan() throws {
        let scan = try songbox.run(["scan", music])
        guard scan.status == 0 else { throw FixtureError("songbox scan failed: \(scan.stderr)") }
    }
}
