import Foundation
import SongboxTestSupport
import Testing

@testable import SongboxAudio

/// A seeded few hundred mutants of the project's own fixtures in every kind songbox plays (bit
/// flips, truncations, lying and damaged ID3v2 sizes, zeroed and repeated blocks), scanned and played by the binary with
/// `--fast`: every file is accounted for (indexed or listed unreadable), nothing crashes or
/// hangs (each run under `timeout`), and every indexed file starts playing. A failure names its
/// seed: the mutants are the same on every machine.
@Suite struct MutationTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    static let seed: UInt64 = 18
    static let count = 300

    /// The originals, with the suffix each is named with: the committed MP3 fixtures, bare and
    /// behind an ID3v2.3 and a v2.4 tag; and a short tagged tone in every other kind songbox
    /// plays, made by Debian's encoders in `sources` (FLAC, FLAC in Ogg, Vorbis, Opus, WAV, AIFF,
    /// and ALAC and AAC in MP4 by ffmpeg, the movie first as iTunes writes it).
    static func originals(sources: String) throws -> [(bytes: [UInt8], suffix: String)] {
        let audio = try ["tone-mono-44k.mp3", "tone-stereo-48k-vbr.mp3", "tone-22k-nolame.mp3"].map(Fixtures.audio)
        let mp3s = audio + audio.flatMap { sound in
            [3, 4].map { version in
                Fixtures.mp3(v2: ID3v2Tag(version: version, frames: [.text("TIT2", "Mutant"), .text("TPE1", "Fixture")]), audio: sound)
            }
        }
        let wav = sources + "/tone.wav"
        try AudioFixtures.run("sox", ["-R", "-D", "-r", "44100", "-c", "2", "-n", "-b", "16", wav, "synth", "0.7", "sine", "440", "vol", "0.5"])
        let encodings: [(String, [String])] = [
            ("flac", ["flac", "-s", "-f", "-T", "TITLE=Mutant", wav, "-o"]),
            ("oga", ["flac", "-s", "-f", "--ogg", "-T", "TITLE=Mutant", wav, "-o"]),
            ("ogg", ["oggenc", "-Q", "-t", "Mutant", wav, "-o"]),
            ("opus", ["opusenc", "--quiet", "--title", "Mutant", wav]),
            ("aiff", ["sox", wav]),
            ("m4a", ["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "alac", "-metadata", "title=Mutant", "-movflags", "+faststart"]),
            ("mp4", ["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-metadata", "title=Mutant", "-movflags", "+faststart"]),
        ]
        var others = [(bytes: try Self.bytes(wav), suffix: "wav")]
        for (suffix, command) in encodings {
            let path = sources + "/tone." + suffix
            try AudioFixtures.run(command[0], Array(command.dropFirst()) + [path])
            others.append((try Self.bytes(path), suffix))
        }
        return mp3s.map { ($0, "mp3") } + others
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func mutate(_ original: [UInt8], using random: inout SeededRandom) -> [UInt8] {
        var bytes = original
        switch Int.random(in: 0..<6, using: &random) {
        case 0:  // bit flips anywhere
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            }
        case 1:  // truncated
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        case 2:  // an ID3v2 size that lies (more than the file, or less than the tag)
            let lie = UInt32.random(in: 0..<(1 << 28), using: &random)
            let tag: [UInt8] = [0x49, 0x44, 0x33, 3, 0, 0] + [21, 14, 7, 0].map { UInt8((lie >> UInt32($0)) & 0x7F) }
            bytes = tag + bytes
        case 3:  // a zeroed block
            let start = Int.random(in: 0..<bytes.count, using: &random)
            for index in start..<min(bytes.count, start + Int.random(in: 1...4096, using: &random)) { bytes[index] = 0 }
        case 4:  // a block repeated
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let block = bytes[start..<min(bytes.count, start + Int.random(in: 1...2048, using: &random))]
            bytes.insert(contentsOf: block, at: Int.random(in: 0...bytes.count, using: &random))
        default:  // random bytes over the header region
            for index in 0..<min(bytes.count, Int.random(in: 4...64, using: &random)) { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        }
        return bytes
    }

    /// `songbox ARGUMENTS` under `timeout`: a hang fails the test (status 124), never the suite.
    func run(_ arguments: [String], seconds: Int) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/timeout", ["\(seconds)", SongboxRunner.executable, "--db", songbox.database] + arguments)
    }

    @Test func mutantsAreAccountedForNeverCrashAndWhatIsIndexedPlays() throws {
        let mutants = folder + "/mutants"
        try FileManager.default.createDirectory(atPath: mutants, withIntermediateDirectories: true)
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        var random = SeededRandom(seed: Self.seed)
        let originals = try Self.originals(sources: sources)
        for index in 0..<Self.count {
            let original = originals[index % originals.count]
            let bytes = Self.mutate(original.bytes, using: &random)
            try Data(bytes).write(to: URL(fileURLWithPath: mutants + String(format: "/m%03d.", index) + original.suffix))
        }

        let scan = try run(["scan", mutants], seconds: 300)
        #expect([0, 1].contains(scan.status), "scan status \(scan.status) (seed \(Self.seed)): \(scan.stderr)")
        let summary = try #require(scan.lines.last { $0.hasPrefix("Scanned ") }, "\(scan.stdout)")
        func number(before word: String) -> Int {
            guard let range = summary.range(of: " " + word) else { return -1 }
            return Int(summary[..<range.lowerBound].split(separator: " ").last ?? "") ?? -1
        }
        let added = number(before: "added"), unreadable = number(before: "unreadable")
        #expect(added + unreadable == Self.count, "every file accounted for (seed \(Self.seed)): \(summary)")
        #expect(scan.lines.filter { $0.hasPrefix("unreadable: ") }.count == unreadable)
        #expect(added > Self.count / 2, "most mutants still hold audio: \(summary)")

        let play = try run(["play", "path:/mutants/", "sort:path", "--output", "null", "--fast"], seconds: 600)
        #expect([0, 1].contains(play.status), "play status \(play.status) (seed \(Self.seed)): \(play.stderr.suffix(2000))")
        // Every indexed file starts: none is "indexed but cannot play" (no audio where the
        // scanner found some, a missing file, ...).
        let failures = play.stderr.split(separator: "\n").filter { $0.contains("cannot play") }
        #expect(play.lines.count == added, "\(added) indexed, \(play.lines.count) started (seed \(Self.seed)); among the failures: \(failures.prefix(8))")
        #expect(play.stderr.contains("Played \(added) tracks"), "\(play.stderr.suffix(500))")
    }
}
