import Foundation
import SongboxTestSupport
import Testing
@testable import SongboxAudio

/// Announcements over ducked music on the WAV output: the music down by the duck while one
/// plays (mixed on top, at the output's rate whatever its own), back after the last one, the
/// queue, the place and the counts untouched.
@Suite struct AnnouncementTests {
    static let rate = 44_100

    /// The level in dB of the left channel of `pcm` between two seconds.
    func level(_ pcm: [Int16], from: Double, to: Double) -> Double {
        let samples = stride(from: Int(from * Double(Self.rate)) * 2, to: Int(to * Double(Self.rate)) * 2, by: 2).map { Double(pcm[$0]) }
        return 10 * log10(samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count))
    }

    @Test func twoAnnouncementsInOrderOverTheMusicDuckedBy15Decibels() throws {
        let tones = try Tones.get()
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A second of silence at 44.1 kHz, then a second of a quiet 1 kHz tone at 48 kHz.
        let silence = folder + "/silence.wav", bell = folder + "/bell.wav"
        try AudioFixtures.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", silence, "trim", "0", "1"])
        try AudioFixtures.run("sox", ["-R", "-D", "-n", "-r", "48000", "-c", "1", "-b", "16", bell, "synth", "1", "sine", "1000", "vol", "0.1"])
        let rig = try Rig()
        let ids = rig.queue([tones.thirty], durations: [30])
        rig.engine.play()
        rig.engine.run(seconds: 2)
        #expect(rig.engine.announce(PlayerEngine.Announcement(source: silence, duck: -15)))
        #expect(rig.engine.announce(PlayerEngine.Announcement(source: bell, duck: -15)))
        rig.engine.run(seconds: 8)
        #expect(rig.engine.announcementsPending == 0)
        #expect(rig.engine.queue.items.map(\.id) == ids && rig.engine.currentID == ids.first)
        #expect(abs(rig.engine.elapsed - 10) < 0.001, "the music's place went on")
        #expect(rig.started == ["thirty.mp3"] && rig.ended.isEmpty, "an announcement is not a play")
        rig.engine.stop()
        rig.engine.run()
        #expect(rig.ended.map(\.reason) == [.stopped] && abs((rig.ended.first?.played ?? 0) - 10) < 0.01)

        let played = try rig.captured()
        let music = try AudioFixtures.referencePCM(of: tones.thirty)
        let before = level(played, from: 1, to: 1.95)
        // Down by 15 dB over 0.3 s, held while the silence plays: the music alone, ducked.
        let ducked = level(played, from: 2.35, to: 3.25)
        #expect(abs(ducked - before + 15) <= 1, "ducked by \(before - ducked) dB")
        // Under the bell: the ducked music and the bell summed (the bell 14 dB under the music).
        let mixed = level(played, from: 3.4, to: 4.2)
        let expected = before + 10 * log10(pow(10, -1.5) + pow(10, -1.4))
        #expect(abs(mixed - expected) <= 1, "\(mixed) dB, the two summed: \(expected)")
        // Back within 0.5 s of the bell's end (4.3 s, a chunk at most later): the music as it is.
        let back = Int(4.85 * Double(Self.rate)) * 2
        #expect(difference(Array(played[back..<(10 * Self.rate * 2)]), Array(music[back..<(10 * Self.rate * 2)])) == nil)
        #expect(difference(Array(played[..<(2 * Self.rate * 2)]), Array(music[..<(2 * Self.rate * 2)])) == nil)
    }

    @Test func nothingPlayingNothingIsAnnounced() throws {
        let rig = try Rig()
        #expect(!rig.engine.announce(PlayerEngine.Announcement(source: "/nowhere.wav")))
        #expect(rig.engine.announcementsPending == 0)
    }
}
