import Foundation

/// MP3 fixtures made at test time with sox and lame, and reference decodes by the `mpg123`
/// command: an independent decoder to check songbox's own use of libmpg123 against.
/// `scripts/install-deps.sh --test` installs all three. Everything is deterministic: sox runs
/// repeatable (`-R`) without dither (`-D`), and lame writes no ID3 tag unless asked.
public enum AudioFixtures {
    /// Frames in each part of `gaplessAlbum`: none is a multiple of 1152 (one MPEG-1 frame),
    /// so every join falls inside a frame and only the LAME header's padding can place it.
    public static let gaplessAlbumParts = [88_201, 100_003, 76_396]

    /// The un-split signal of `gaplessAlbum`, a WAV of `gaplessAlbumParts.reduce(0, +)` frames.
    public static func gaplessAlbumSource(in folder: String) -> String { folder + "/album.wav" }

    /// A 6 s 44.1 kHz stereo sine sweep (left 1 → 4 kHz, right 1.5 → 5 kHz, phase continuous),
    /// written to `gaplessAlbumSource(in:)`, cut into three parts and each encoded by lame
    /// with its Info/LAME header (CBR, VBR, CBR). Returns the three mp3 paths, in order.
    public static func gaplessAlbum(in folder: String) throws -> [String] {
        let source = gaplessAlbumSource(in: folder)
        let total = gaplessAlbumParts.reduce(0, +)
        try run("sox", ["-R", "-D", "-r", "44100", "-c", "2", "-n", "-b", "16", source,
                        "synth", "\(total)s", "sine", "1000:4000", "sine", "1500:5000", "vol", "0.5"])
        let encodings = [["-b", "128"], ["-V", "4"], ["-b", "160"]]
        var start = 0
        return try gaplessAlbumParts.enumerated().map { index, frames in
            let wav = folder + "/album-\(index + 1).wav", mp3 = folder + "/album-\(index + 1).mp3"
            try run("sox", [source, wav, "trim", "\(start)s", "\(frames)s"])
            try run("lame", ["--quiet", "--resample", "44.1"] + encodings[index] + [wav, mp3])
            start += frames
            return mp3
        }
    }

    /// Encodes a sine tone of `seconds` (rounded to whole frames) at `rate` with lame, as
    /// `<folder>/<name>.mp3` (its source stays as `<name>.wav`), and returns the mp3's path.
    /// The default CBR bitrate is high enough for the Info/LAME header to fit in a frame.
    public static func tone(in folder: String, name: String, seconds: Double, rate: Int = 44_100,
                            channels: Int = 2, frequency: Double = 440, lameOptions: [String]? = nil) throws -> String {
        let wav = folder + "/" + name + ".wav", mp3 = folder + "/" + name + ".mp3"
        // Rate and channels before `-n` are the synth's own: no resampling by sox.
        try run("sox", ["-R", "-D", "-r", "\(rate)", "-c", "\(channels)", "-n", "-b", "16", wav,
                        "synth", "\(Int((seconds * Double(rate)).rounded()))s", "sine", "\(frequency)", "vol", "0.5"])
        // --resample keeps lame from lowering the rate at low bitrates.
        try run("lame", ["--quiet", "--resample", "\(Double(rate) / 1000)"]
                + (lameOptions ?? ["-b", channels == 1 ? "64" : "128"]) + [wav, mp3])
        return mp3
    }

    /// A metronome: a 30 ms burst of pink noise every beat at `bpm` for `beats` beats, at
    /// `dB` (sox's gain, 0 = its full-scale noise), as `<folder>/<name>.mp3` (CBR 128 kbit/s).
    @discardableResult
    public static func clicks(in folder: String, name: String, bpm: Double, beats: Int, dB: Double = -6) throws -> String {
        let wav = folder + "/" + name + ".wav", mp3 = folder + "/" + name + ".mp3"
        let rest = 60 / bpm - 0.03
        try run("sox", ["-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "0.03", "pinknoise",
                        "fade", "0", "0.03", "0.025", "pad", "0", String(format: "%.6f", rest), "repeat", "\(beats - 1)", "gain", "\(dB)"])
        try run("lame", ["--quiet", "-b", "128", wav, mp3])
        try FileManager.default.removeItem(atPath: wav)
        return mp3
    }

    /// `seconds` of a 1 kHz sine at `dBFS` (peak) on both channels, 48 kHz, as `<folder>/<name>.mp3`
    /// (CBR 320 kbit/s, so the encoding moves its loudness by hundredths of a LU).
    @discardableResult
    public static func calibratedSine(in folder: String, name: String, dBFS: Double, seconds: Double) throws -> String {
        let wav = folder + "/" + name + ".wav", mp3 = folder + "/" + name + ".mp3"
        try run("sox", ["-R", "-D", "-n", "-r", "48000", "-c", "2", "-b", "16", wav, "synth", "\(seconds)", "sine", "1000",
                        "vol", "\(dBFS)dB"])
        try run("lame", ["--quiet", "-b", "320", "--resample", "48", wav, mp3])
        try FileManager.default.removeItem(atPath: wav)
        return mp3
    }

    /// The file at `path` with `count` bytes from its middle zeroed, size kept: libmpg123 decodes
    /// the first half, then finds no frame within its resync limit and fails.
    public static func brokenHalfWay(_ path: String, count: Int = 60_000) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = bytes.count / 2
        for index in start..<min(bytes.count, start + count) { bytes[index] = 0 }
        _ = try write(bytes, to: path)
    }

    /// `count` pseudo-random bytes (fixed seed) named `<name>.mp3`: not MPEG audio.
    public static func corrupt(in folder: String, name: String = "corrupt", count: Int = 16_384) throws -> String {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try write(bytes, to: folder + "/" + name + ".mp3")
    }

    /// The first half of the mp3 at `path`, as `<folder>/<name>.mp3`: a download cut short.
    public static func truncated(_ path: String, in folder: String, name: String = "truncated") throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return try write([UInt8](bytes.prefix(bytes.count / 2)), to: folder + "/" + name + ".mp3")
    }

    /// An empty `<folder>/<name>.mp3`.
    public static func empty(in folder: String, name: String = "empty") throws -> String {
        try write([], to: folder + "/" + name + ".mp3")
    }

    /// Interleaved 16-bit stereo PCM of `path` as the `mpg123` command decodes it: gapless,
    /// mono as two channels, resampled to `rate` by libmpg123's NtoM synth when given.
    public static func referencePCM(of path: String, rate: Int? = nil) throws -> [Int16] {
        let raw = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let resample = rate.map { ["-r", "\($0)", "--resample", "NtoM"] } ?? []
        try run("mpg123", ["-q", "--gapless", "-e", "s16", "--stereo"] + resample + ["-O", raw + "/pcm", path])
        return try samples(ofRaw: raw + "/pcm")
    }

    /// Interleaved 16-bit stereo PCM of a 16-bit stereo WAV file.
    public static func pcm(ofWAV path: String) throws -> [Int16] {
        let raw = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try run("sox", [path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-c", "2", raw + "/pcm"])
        return try samples(ofRaw: raw + "/pcm")
    }

    /// Runs `tool` (found on PATH); throws with its stderr when it fails.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        let output = try SongboxRunner.run(executable: "/usr/bin/env", [tool] + arguments)
        guard output.status == 0 else {
            throw FixtureError("\(tool) \(arguments.joined(separator: " ")) failed (\(output.status)): \(output.stderr)")
        }
    }

    /// Native-endian 16-bit samples of a raw file; none when it is missing (mpg123 creates no
    /// output file when it decodes nothing).
    private static func samples(ofRaw path: String) throws -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var samples = [Int16](repeating: 0, count: data.count / 2)
        _ = samples.withUnsafeMutableBytes { data.copyBytes(to: $0) }
        return samples
    }

    private static func write(_ bytes: [UInt8], to path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Nil when two renders are equal, else where they part (in frames): a test expects it nil, so
/// a failure neither prints a million samples nor has the test library diff them (minutes).
public func difference(_ a: [Int16], _ b: [Int16]) -> String? {
    if a == b { return nil }
    let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    return "\(a.count / 2) vs \(b.count / 2) frames, first difference at frame \(first / 2)"
}

/// Speech for the tests of spoken announcements: espeak-ng's own rendering, and where it is heard.
public enum SpeechFixtures {
    /// `text` as the `espeak-ng` command says it with `voice`, resampled by sox to 44.1 kHz
    /// stereo: what a spoken announcement adds to the output.
    public static func said(_ text: String, voice: String) throws -> [Int16] {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AudioFixtures.run("espeak-ng", ["-b", "1", "-v", voice, "-w", folder + "/said.wav", "--", text])
        try AudioFixtures.run("sox", [folder + "/said.wav", "-r", "44100", "-c", "2", "-b", "16", folder + "/said44.wav"])
        return try AudioFixtures.pcm(ofWAV: folder + "/said44.wav")
    }

    /// Where `reference` (interleaved stereo) lines up best with `heard` (one channel, one value
    /// a frame) within `search` frames of `near`, and how alike the two are there: the
    /// normalized correlation of the left channel (1: the same waveform, at any level). Searched
    /// coarsely (every 8th frame), then frame by frame around the best.
    public static func likeness(of reference: [Int16], in heard: [Double], near: Int, search: Int) -> (correlation: Double, frame: Int) {
        let left = stride(from: 0, to: reference.count, by: 2).map { Double(reference[$0]) }
        func correlation(at start: Int, step: Int) -> Double {
            guard start >= 0, start + left.count <= heard.count else { return -1 }
            var product = 0.0, a = 0.0, b = 0.0
            heard.withUnsafeBufferPointer { heard in
                left.withUnsafeBufferPointer { left in
                    for index in stride(from: 0, to: left.count, by: step) {
                        let x = heard[start + index], y = left[index]
                        product += x * y
                        a += x * x
                        b += y * y
                    }
                }
            }
            return a > 0 && b > 0 ? product / (a * b).squareRoot() : 0
        }
        let coarse = stride(from: near - search, through: near + search, by: 8).max { correlation(at: $0, step: 8) < correlation(at: $1, step: 8) } ?? near
        let best = ((coarse - 8)...(coarse + 8)).max { correlation(at: $0, step: 1) < correlation(at: $1, step: 1) } ?? coarse
        return (correlation(at: best, step: 1), best)
    }
}
