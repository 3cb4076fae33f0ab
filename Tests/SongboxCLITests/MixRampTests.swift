import Foundation
import SongboxTestSupport
import Testing

/// MixRamp on the WAV output of the built `songbox`: the points `analyze` stores place the
/// overlap where the outgoing track goes quiet and the incoming one is first heard.
@Suite struct MixRampTests: TestLibrarySuite {
    let library: TestLibrary
    static let rate = 44_100

    init() throws {
        library = try TestLibrary()
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
    }

    /// `1-out.wav`: 3 s of 440 Hz, then 1.5 s of silence; `2-in.wav`: 1 s of silence, then
    /// 3 s of 660 Hz (both at half scale). With MixRamp, the second starts 2 s into the first's
    /// last 2.5 s, so that its tone starts where the first's ends: 3 s + 3 s, no gap, no overlap.
    @Test func theOverlapIsPlacedWhereTheOutgoingTrackGoesQuietByTheAnalysis() throws {
        let out = music + "/1-out.wav", incoming = music + "/2-in.wav"
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", out,
                                      "synth", "3", "sine", "440", "vol", "0.5", "pad", "0", "1.5"])
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", incoming,
                                      "synth", "3", "sine", "660", "vol", "0.5", "pad", "1", "0"])
        try library.scan()
        let analyzed = try songbox.run(["analyze"], environment: ["SONGBOX_CONFIG": "/dev/null"])
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        let config = folder + "/config", wav = folder + "/mixramp.wav"
        try """
            crossfade = 5
            crossfade_curve = mixramp
            crossfade_min_track = 0
            fade = 0
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let played = try songbox.run(["play", "sort:path", "--output", "wav:" + wav, "--fast"], environment: ["SONGBOX_CONFIG": config])
        #expect(played.status == 0, "\(played.stderr)")
        let pcm = try AudioFixtures.pcm(ofWAV: wav)
        let a = try AudioFixtures.pcm(ofWAV: out), b = try AudioFixtures.pcm(ofWAV: incoming)
        let frames = pcm.count / 2
        #expect(abs(frames - 6 * Self.rate) <= Self.rate / 20, "6 s within 50 ms: \(Double(frames) / Double(Self.rate)) s")
        // Up to 50 ms before the join the first track alone, from 50 ms after it the second.
        let head = Int(2.95 * Double(Self.rate)) * 2, tail = Int(2.95 * Double(Self.rate)) * 2
        #expect(difference(Array(pcm[..<head]), Array(a[..<head])) == nil)
        #expect(difference(Array(pcm.suffix(tail)), Array(b.suffix(tail))) == nil)
        // No gap at the join: every 10 ms from 0.1 s to 5.9 s is near the tones' level.
        let window = Self.rate / 100
        let quiet = stride(from: Self.rate / 10, to: frames - Self.rate / 10 - window, by: window).filter { start in
            let power = (start..<(start + window)).reduce(0.0) { $0 + Double(pcm[$1 * 2]) * Double(pcm[$1 * 2]) } / Double(window)
            return 10 * log10(max(power, 1e-9) / (32768.0 * 32768.0)) < -20
        }
        #expect(quiet.isEmpty, "quiet windows at \(quiet.map { Double($0) / Double(Self.rate) })")
    }
}
