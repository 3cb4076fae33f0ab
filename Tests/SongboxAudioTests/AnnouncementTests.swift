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
        #expect(rig.engine.announce([PlayerEngine.Announcement(source: silence, duck: -15)]))
        #expect(rig.engine.announce([PlayerEngine.Announcement(source: bell, duck: -15)]))
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

    /// Text to speech with the real espeak-ng: the text said over the music ducked by 15 dB (the
    /// played samples less the ducked music are espeak-ng's own waveform, at its level), its file
    /// removed once opened; the queue, the place and the counts untouched.
    @Test func aTextSaidOverTheMusicDuckedBy15Decibels() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        let ids = rig.queue([tones.thirty], durations: [30])
        rig.engine.play()
        rig.engine.run(seconds: 2)
        let spoken = try PlayerEngine.Announcement.spoken("The doorbell rang", duck: -15)
        #expect(spoken.temporary && FileManager.default.fileExists(atPath: spoken.source))
        #expect(rig.engine.announce([spoken]))
        rig.engine.run(seconds: 6)
        #expect(!FileManager.default.fileExists(atPath: spoken.source), "removed once opened")
        #expect(rig.engine.announcementsPending == 0)
        #expect(rig.engine.queue.items.map(\.id) == ids && rig.engine.currentID == ids.first)
        #expect(abs(rig.engine.elapsed - 8) < 0.001, "the music's place went on")
        #expect(rig.started == ["thirty.mp3"] && rig.ended.isEmpty, "an announcement is not a play")

        let played = try rig.captured()
        let music = try AudioFixtures.referencePCM(of: tones.thirty)
        let said = try SpeechFixtures.said("The doorbell rang", voice: "en")
        // From 2.3 s (the music down) the music is held at its duck while the speech plays.
        let duck = pow(10, -15.0 / 20), from = Int(2.3 * Double(Self.rate))
        let heard = (from..<(8 * Self.rate)).map { Double(played[$0 * 2]) - duck * Double(music[$0 * 2]) }
        let (likeness, frame) = SpeechFixtures.likeness(of: said, in: heard, near: 2_000, search: 6_000)
        #expect(likeness > 0.9, "the speech's waveform, at frame \(from + frame): \(likeness)")
        let speech = heard[frame..<(frame + said.count / 2)]
        let reference = stride(from: 0, to: said.count, by: 2).map { Double(said[$0]) }
        let gain = 10 * log10(speech.reduce(0) { $0 + $1 * $1 } / reference.reduce(0) { $0 + $1 * $1 })
        #expect(abs(gain) < 1, "at its own level: \(gain) dB")
        // Before it, the music as it is.
        #expect(difference(Array(played[..<(2 * Self.rate * 2)]), Array(music[..<(2 * Self.rate * 2)])) == nil)
    }

    /// The voice follows the text: espeak-ng's Hebrew voice for a Hebrew text (the file is what
    /// `espeak-ng -v he` writes), English for the rest.
    @Test func aHebrewTextIsSaidWithTheHebrewVoice() throws {
        #expect(Speech.voice(for: "השעה שבע ועשרים") == "he")
        // By most of the letters: a Latin word in a Hebrew sentence, and the other way round.
        #expect(Speech.voice(for: "השעה 07:20, בוקר טוב OK") == "he" && Speech.voice(for: "Good morning, דני") == "en")
        #expect(Speech.voice(for: "It is 07:20") == "en" && Speech.voice(for: "12:00") == "en")
        let text = "השעה שבע ועשרים"
        let spoken = try PlayerEngine.Announcement.spoken(text)
        defer { spoken.discard() }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AudioFixtures.run("espeak-ng", ["-b", "1", "-v", "he", "-w", folder + "/he.wav", "--", text])
        let made = try Data(contentsOf: URL(fileURLWithPath: spoken.source))
        let espeak = try Data(contentsOf: URL(fileURLWithPath: folder + "/he.wav"))
        #expect(made.count > 20_000 && made == espeak)
        #expect(throws: SpeechError.self) { try PlayerEngine.Announcement.spoken("  ") }
        #expect(throws: SpeechError.self) { try PlayerEngine.Announcement.spoken(String(repeating: "a", count: Speech.longestText + 1)) }
    }

    @Test func nothingPlayingNothingIsAnnounced() throws {
        let rig = try Rig()
        #expect(!rig.engine.announce([PlayerEngine.Announcement(source: "/nowhere.wav")]))
        #expect(rig.engine.announcementsPending == 0)
        // A text said for nothing: its file goes at once.
        let spoken = try PlayerEngine.Announcement.spoken("Nobody hears this")
        #expect(!rig.engine.announce([spoken]))
        #expect(!FileManager.default.fileExists(atPath: spoken.source))
    }
}
