import Foundation
import SongboxTestSupport
import Testing
@testable import SongboxAudio

/// Audio made once for every test in this file (sox + lame).
enum Tones {
    struct Set: Sendable {
        let folder: String
        /// 3 s, 44.1 kHz stereo.
        let three: String
        /// 2 s, 44.1 kHz mono.
        let twoMono: String
        /// 2 s, 48 kHz stereo.
        let two48k: String
        /// 30 s, 44.1 kHz mono: long enough for skips after 10 s.
        let thirty: String
        /// A gapless album of three parts.
        let album: [String]
        let corrupt: String
        /// Steady 4 s tones for crossfades, 44.1 kHz stereo: 440, 660 and 880 Hz; and 550 Hz at 48 kHz.
        let fadeA: String, fadeB: String, fadeC: String, fade48k: String
    }

    static let shared: Result<Set, any Error> = Result {
        let folder = try Fixtures.temporaryDirectory()
        return Set(folder: folder,
                   three: try AudioFixtures.tone(in: folder, name: "three", seconds: 3),
                   twoMono: try AudioFixtures.tone(in: folder, name: "two-mono", seconds: 2, channels: 1, frequency: 330),
                   two48k: try AudioFixtures.tone(in: folder, name: "two-48k", seconds: 2, rate: 48_000, frequency: 550),
                   thirty: try AudioFixtures.tone(in: folder, name: "thirty", seconds: 30, channels: 1, frequency: 220),
                   album: try AudioFixtures.gaplessAlbum(in: folder),
                   corrupt: try AudioFixtures.corrupt(in: folder),
                   fadeA: try AudioFixtures.tone(in: folder, name: "a", seconds: 4, frequency: 440),
                   fadeB: try AudioFixtures.tone(in: folder, name: "b", seconds: 4, frequency: 660),
                   fadeC: try AudioFixtures.tone(in: folder, name: "c", seconds: 4, frequency: 880),
                   fade48k: try AudioFixtures.tone(in: folder, name: "d", seconds: 4, rate: 48_000, frequency: 550))
    }

    static func get() throws -> Set { try shared.get() }
}

/// An engine writing to a WAV file, driven by hand.
final class Rig {
    let folder: String
    let wav: String
    let engine: PlayerEngine
    private(set) var events: [PlayerEvent] = []

    init(transitionFade: Double = 0, sleepFade: Double = 0, seed: UInt64 = 1) throws {
        folder = try Fixtures.temporaryDirectory()
        wav = folder + "/out.wav"
        var settings = PlayerSettings()
        settings.transitionFade = transitionFade
        settings.sleepFade = sleepFade
        engine = PlayerEngine(output: WAVOutput(path: wav), settings: settings, seed: seed)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    @discardableResult
    func queue(_ paths: [String], durations: [Double]? = nil, highlights: [HighlightRange?]? = nil) -> [Int] {
        engine.add(paths.enumerated().map { index, path in
            PlayableTrack(trackID: Int64(index + 1), path: path, duration: durations?[index] ?? 0,
                          highlight: highlights?[index])
        })
    }

    /// Events since the last call.
    func take() -> [PlayerEvent] {
        let new = engine.takeEvents()
        events += new
        return new
    }

    /// What the output got so far.
    func captured() throws -> [Int16] {
        engine.output.drain()
        return try AudioFixtures.pcm(ofWAV: wav)
    }

    var ended: [(path: String, reason: EndReason, played: Double, counted: PlayVerdict?)] {
        _ = take()
        return events.compactMap {
            if case .trackEnded(let item, let reason, let played, _, let counted) = $0 {
                return ((item.track.path as NSString).lastPathComponent, reason, played, counted)
            }
            return nil
        }
    }

    var started: [String] {
        _ = take()
        return events.compactMap {
            if case .trackStarted(let item, _, _) = $0 { return (item.track.path as NSString).lastPathComponent }
            return nil
        }
    }
}

@Suite struct PlayerEngineTests {
    @Test func aGaplessAlbumPlaysAsOneUnbrokenSignal() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue(tones.album)
        rig.engine.play()
        #expect(rig.engine.run() == .idle)
        let expected = try tones.album.flatMap { try AudioFixtures.referencePCM(of: $0) }
        let played = try rig.captured()
        #expect(played.count == expected.count)
        #expect(difference(played, expected) == nil, "the rendered PCM is each track's decoded PCM, end to end")
        #expect(played.count / 2 == AudioFixtures.gaplessAlbumParts.reduce(0, +), "not one sample of gap or padding")
        #expect(rig.ended.map(\.reason) == [.finished, .finished, .finished])
        #expect(rig.ended.map(\.counted) == [.play, .play, .play])
        #expect(rig.engine.state == .stopped && rig.events.last == .stopped)
    }

    @Test func throughRealALSAAGaplessAlbumArrivesSampleForSample() throws {
        // ALSA's `file` plugin writes what the device was given into a file.
        let tones = try Tones.get()
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let capture = folder + "/capture.raw"
        let engine = PlayerEngine(output: ALSAOutput(device: "file:'\(capture)',raw"))
        engine.add(tones.album.map { PlayableTrack(trackID: 1, path: $0, duration: 0) })
        engine.play()
        #expect(engine.run() == .idle)
        let bytes = try #require(FileManager.default.contents(atPath: capture))
        let played = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let expected = try tones.album.flatMap { try AudioFixtures.referencePCM(of: $0) }
        #expect(difference(played, expected) == nil)
    }

    @Test func aQueueOfMixedRatesIsResampledForAFixedRateOutput() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.three, tones.two48k, tones.twoMono])
        rig.engine.play()
        rig.engine.run()
        let played = try rig.captured()
        let expected = try decoded(tones.three) + decoded(tones.two48k, rate: 44_100) + decoded(tones.twoMono)
        #expect(difference(played, expected) == nil)
        #expect(abs(played.count / 2 - 7 * 44_100) < 4, "7 s at 44.1 kHz, the 48 kHz track resampled")
    }

    @Test func anOutputThatFollowsTheTrackIsReopenedAtEachRate() throws {
        let tones = try Tones.get()
        let output = NullOutput()
        let engine = PlayerEngine(output: output)
        engine.add([tones.three, tones.two48k].map { PlayableTrack(trackID: 1, path: $0, duration: 0) })
        engine.play()
        var rates: [Int] = []
        while case .rendered = engine.render() {
            if let rate = engine.status.format?.sampleRate, rates.last != rate { rates.append(rate) }
        }
        #expect(rates == [44_100, 48_000])
        #expect(output.framesWritten == 3 * 44_100 + 2 * 48_000)
    }

    @Test(arguments: [0.0, 0.5, 2.0, 2.9])
    func seekingIsSampleAccurate(to target: Double) throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.three])
        rig.engine.play()
        rig.engine.run(seconds: 1)
        let before = try rig.captured().count / 2
        rig.engine.seek(to: target)
        #expect(rig.engine.elapsed == target)
        rig.engine.run()
        let reference = try decoded(tones.three)
        let start = Int(target * 44_100)
        #expect(difference(try rig.captured(), Array(reference[0..<before * 2] + reference[(start * 2)...])) == nil)
        #expect(rig.take().contains { if case .seeked(_, _, let to) = $0 { to == target } else { false } })
    }

    @Test func relativeSeeksAreClampedToTheTrack() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.thirty])
        rig.engine.play()
        rig.engine.seek(by: 15)
        #expect(rig.engine.elapsed == 15)
        rig.engine.seek(by: -20)
        #expect(rig.engine.elapsed == 0)
        rig.engine.seek(by: 60)
        #expect(rig.engine.elapsed < 30 && rig.engine.elapsed > 29.9)
    }

    @Test func everyEndReasonAndWhatItCounts() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        let ids = rig.queue([tones.thirty, tones.thirty, tones.thirty, tones.thirty, tones.thirty])
        rig.engine.play()
        rig.engine.run(seconds: 12)
        rig.engine.next()                      // skipped after 12 s: a skip
        rig.engine.run(seconds: 5)
        rig.engine.next()                      // skipped after 5 s: nothing
        rig.engine.run(seconds: 16)
        rig.engine.stop()                      // stopped after 16 s of 30: a play
        rig.engine.play(id: ids[3])
        rig.engine.run(seconds: 11)
        rig.engine.remove(ids: [ids[3]])       // replaced after 11 s: a skip; the next one plays
        #expect(rig.engine.currentID == ids[4])
        rig.engine.run()                       // finished: a play
        let ended = rig.ended
        #expect(ended.map(\.reason) == [.skipped, .skipped, .stopped, .replaced, .finished])
        #expect(ended.map(\.counted) == [.skip, nil, .play, .skip, .play])
        #expect(ended.map { ($0.played * 10).rounded() / 10 } == [12, 5, 16, 11, 30])
    }

    @Test func repeatingOneTrackCountsEveryTime() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.twoMono])
        rig.engine.setModes(PlaybackModes(repeat: true, single: .on))
        rig.engine.play()
        rig.engine.run(seconds: 6.5)
        #expect(rig.ended.map(\.counted) == [.play, .play, .play])
        #expect(rig.started.count == 4)
    }

    @Test func badFilesAreSkippedWithADecodeErrorAndNeverCounted() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.corrupt, tones.twoMono, rig.folder + "/gone.mp3", tones.twoMono])
        rig.engine.play()
        rig.engine.run()
        _ = rig.take()
        let errors = rig.events.compactMap { if case .decodeError(let item, let message) = $0 { (item.track.path, message) } else { nil } }
        #expect(errors.map(\.0) == [tones.corrupt, rig.folder + "/gone.mp3"])
        #expect(errors.allSatisfy { !$0.1.isEmpty })
        #expect(rig.ended.map(\.counted) == [.play, .play], "only the two good files count")
        #expect(try rig.captured().count == 2 * 2 * 2 * 44_100)
    }

    @Test func aQueueOfOnlyBadFilesStopsInsteadOfLooping() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.corrupt, tones.corrupt])
        rig.engine.setModes(PlaybackModes(repeat: true))
        rig.engine.play()
        #expect(rig.engine.run() == .idle)
        #expect(rig.engine.state == .stopped)
        // Played from stopped, every track failing: still one `stopped` to end the wait on.
        #expect(rig.take().filter { $0 == .stopped }.count == 1)
    }

    @Test func previousRestartsATrackAfterThreeSeconds() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        let ids = rig.queue([tones.thirty, tones.thirty])
        rig.engine.play(id: ids[1])
        rig.engine.run(seconds: 4)
        rig.engine.previous()
        #expect(rig.engine.currentID == ids[1] && rig.engine.elapsed == 0)
        rig.engine.run(seconds: 1)
        rig.engine.previous()
        #expect(rig.engine.currentID == ids[0])
    }

    @Test func repeatSingleConsumeAndOneshot() throws {
        let tones = try Tones.get()
        // repeat: the queue starts over.
        var rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.setModes(PlaybackModes(repeat: true))
        rig.engine.play()
        rig.engine.run(seconds: 6)
        #expect(rig.started == ["two-mono.mp3", "three.mp3", "two-mono.mp3"])
        // single: after the track, the next one waits paused at its start (as MPD).
        rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.setModes(PlaybackModes(single: .on))
        rig.engine.play()
        rig.engine.run(seconds: 4)
        #expect(rig.started == ["two-mono.mp3", "three.mp3"])
        #expect(rig.engine.state == .paused && rig.engine.currentItem?.track.path.hasSuffix("three.mp3") == true)
        #expect(rig.engine.elapsed == 0)
        // consume: played items leave the queue.
        rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.setModes(PlaybackModes(consume: .on))
        rig.engine.play()
        rig.engine.run()
        #expect(rig.engine.queue.isEmpty && rig.started.count == 2)
        // oneshot: single once, then off.
        rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.setModes(PlaybackModes(single: .oneshot, consume: .oneshot))
        rig.engine.play()
        rig.engine.run(seconds: 4)
        #expect(rig.started == ["two-mono.mp3", "three.mp3"] && rig.engine.state == .paused)
        #expect(rig.engine.modes == PlaybackModes())
        #expect(rig.engine.queue.count == 1, "the one track was consumed")
    }

    @Test func randomPlaysEachItemOnceThenStops() throws {
        let tones = try Tones.get()
        let rig = try Rig(seed: 42)
        rig.queue(Array(repeating: tones.twoMono, count: 5))
        rig.engine.setModes(PlaybackModes(random: true))
        rig.engine.play()
        rig.engine.run()
        _ = rig.take()
        let order = rig.events.compactMap { if case .trackStarted(let item, _, _) = $0 { item.id } else { nil } }
        #expect(order.count == 5 && Set(order) == Set(1...5))
    }

    @Test func volumeScalesSamplesAndFadesFollowTheirCurve() throws {
        let tones = try Tones.get()
        for curve in [FadeCurve.linear, .logarithmic] {
            let rig = try Rig()
            rig.queue([tones.thirty])
            rig.engine.setVolume(50)
            rig.engine.play()
            rig.engine.run(seconds: 1)
            rig.engine.fade(to: 100, over: 4, curve: curve)
            rig.engine.run(seconds: 5)
            rig.engine.stop()
            let played = try rig.captured(), reference = try decoded(tones.thirty)
            // Level of each 0.1 s window against the reference's: the gain applied there.
            let window = 4410
            for index in 0..<60 {
                let range = (index * window * 2)..<((index + 1) * window * 2)
                let gain = rms(played[range]) / rms(reference[range])
                let t = (Double(index) + 0.5) / 10
                let volume = t < 1 ? 50 : Gain.volume(from: 50, to: 100, fraction: (t - 1) / 4, curve: curve)
                #expect(abs(gain - volume / 100) < 0.01, "\(curve) at \(t) s: gain \(gain), expected \(volume / 100)")
            }
            #expect(rig.engine.volume == 100)
            #expect(rig.take().contains(.volumeChanged(volume: 100)))
        }
    }

    @Test func anHourLongFadeMovesByTheMinute() throws {
        let tones = try Tones.get()
        let engine = PlayerEngine(output: NullOutput())
        engine.add([PlayableTrack(trackID: 1, path: tones.thirty, duration: 30)])
        engine.setModes(PlaybackModes(repeat: true, single: .on))
        engine.setVolume(0)
        engine.play()
        engine.fade(to: 100, over: 3600, curve: .linear)
        engine.run(seconds: 90)
        #expect(abs(engine.currentVolume - 2.5) < 1e-9, "90 s of an hour from 0 to 100")
        #expect(engine.volume == 0 && engine.snapshot.volume == 100, "saved as where it is going")
    }

    @Test func whilePauseOrSkipFadeOutStatusSaysWhereItIsGoingAndASeekLandsThere() throws {
        let tones = try Tones.get()
        let rig = try Rig(transitionFade: 0.5)
        let ids = rig.queue([tones.thirty, tones.thirty])
        rig.engine.play()
        rig.engine.run(seconds: 1)
        rig.engine.pause()
        #expect(rig.engine.state == .playing && rig.engine.status.heading == .paused)
        rig.engine.resume()
        #expect(rig.engine.status.heading == .playing, "a pause still fading out is called off")
        rig.engine.run(seconds: 0.6)
        #expect(rig.engine.state == .playing)
        rig.engine.next()
        #expect(rig.engine.currentID == ids[0] && rig.engine.status.headingID == ids[1])
        rig.engine.seek(to: 10)
        #expect(rig.engine.currentID == ids[1] && abs(rig.engine.elapsed - 10) < 0.01, "the seek is in the next track")
        #expect(rig.started == ["thirty.mp3", "thirty.mp3"])
    }

    @Test func aPauseAskedForInATracksLastMomentsIsNotLost() throws {
        let tones = try Tones.get()
        let rig = try Rig(transitionFade: 0.5)
        let ids = rig.queue([tones.three, tones.three, tones.three])
        rig.engine.play()
        rig.engine.run(seconds: 2.8)
        rig.engine.pause()          // 0.2 s left, the fade is 0.5 s
        rig.engine.run(seconds: 1)
        #expect(rig.engine.state == .paused && rig.engine.currentID == ids[1], "paused at the start of the next track")
        rig.engine.resume()
        rig.engine.run(seconds: 2.8)
        rig.engine.play(id: ids[0])  // a skip in the last moments lands where it was asked
        rig.engine.run(seconds: 0.6)
        #expect(rig.engine.currentID == ids[0] && rig.engine.state == .playing)
    }

    @Test func pauseStopAndSkipFadeOutBriefly() throws {
        let tones = try Tones.get()
        let rig = try Rig(transitionFade: 0.5)
        let ids = rig.queue([tones.thirty, tones.thirty])
        rig.engine.play()
        rig.engine.run(seconds: 1)
        rig.engine.pause()
        #expect(rig.engine.state == .playing, "still fading out")
        rig.engine.run()
        #expect(rig.engine.state == .paused && abs(rig.engine.elapsed - 1.5) < 0.01)
        let played = try rig.captured(), reference = try decoded(tones.thirty)
        #expect(played.count == 66_150 * 2)
        let tail = played.suffix(2 * 441), head = played[(44_100 * 2)..<(44_100 * 2 + 882)]
        #expect(rms(tail) < 0.02 * rms(reference[0..<882]), "silent by the end of the fade")
        #expect(abs(rms(head) / rms(reference[(44_100 * 2)..<(44_100 * 2 + 882)]) - 1) < 0.05)
        rig.engine.resume()
        rig.engine.run(seconds: 1)
        rig.engine.next()
        rig.engine.run(seconds: 0.25)
        #expect(rig.engine.currentID == ids[0], "the skip waits for its fade")
        rig.engine.run(seconds: 0.3)
        #expect(rig.engine.currentID == ids[1])
    }

    @Test func sleepTimerAfterSecondsFadesOutAndStops() throws {
        let tones = try Tones.get()
        let rig = try Rig(sleepFade: 2)
        rig.queue([tones.thirty])
        rig.engine.play()
        rig.engine.run(seconds: 1)
        rig.engine.setSleepTimer(.after(seconds: 5))
        rig.engine.run()
        #expect(rig.engine.state == .stopped)
        let played = try rig.captured(), reference = try decoded(tones.thirty)
        #expect(abs(played.count / 2 - 6 * 44_100) < 4096)
        let window = { (second: Double) in Int(second * 44_100) * 2..<Int(second * 44_100 + 4410) * 2 }
        #expect(abs(rms(played[window(3.5)]) / rms(reference[window(3.5)]) - 1) < 0.02, "full volume before the fade")
        #expect(abs(rms(played[window(5)]) / rms(reference[window(5)]) - 0.475) < 0.03, "halfway through the fade")
        #expect(rig.ended.map(\.reason) == [.stopped])
        #expect(rig.engine.sleepTimer == nil)
    }

    @Test func sleepTimerAtTheEndOfTheTrackOrQueueAndCancelled() throws {
        let tones = try Tones.get()
        var rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.play()
        rig.engine.setSleepTimer(.endOfTrack)
        rig.engine.run()
        #expect(rig.started.count == 1 && rig.ended.map(\.reason) == [.finished])
        rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.setModes(PlaybackModes(repeat: true))
        rig.engine.setSleepTimer(.endOfQueue)
        rig.engine.play()
        rig.engine.run(seconds: 30)
        #expect(rig.started.count == 2, "stops at the end of the queue even with repeat on")
        rig = try Rig()
        rig.queue([tones.twoMono, tones.three])
        rig.engine.play()
        rig.engine.setSleepTimer(.after(seconds: 1))
        rig.engine.setSleepTimer(nil)
        rig.engine.run()
        #expect(rig.started.count == 2)
    }

    @Test func highlightsModePlaysOnlyTheRangesOneAfterAnother() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.queue([tones.thirty, tones.three, tones.twoMono, tones.thirty],
                  highlights: [HighlightRange(start: 10, end: 12), nil, HighlightRange(start: 1, end: 2),
                               HighlightRange(start: 29, end: 30)])
        rig.engine.setHighlights(true)
        rig.engine.play()
        rig.engine.run()
        let thirty = try decoded(tones.thirty), two = try decoded(tones.twoMono)
        let slice = { (pcm: [Int16], from: Double, to: Double) in Array(pcm[Int(from * 44_100) * 2..<Int(to * 44_100) * 2]) }
        let played = try rig.captured()
        let expected = slice(thirty, 10, 12) + slice(two, 1, 2) + slice(thirty, 29, 30)
        #expect(difference(played, expected) == nil)
        #expect(rig.started == ["thirty.mp3", "two-mono.mp3", "thirty.mp3"], "the track without a highlight is passed over")
        #expect(rig.ended.map(\.reason) == [.finished, .finished, .finished], "a range that ends with its track ends once")
        #expect(rig.ended.allSatisfy { $0.counted == nil }, "a highlight is not a play")
    }

    @Test func aSavedStateRestoresQueuePositionModesAndVolume() throws {
        let tones = try Tones.get()
        let first = try Rig()
        first.queue([tones.twoMono, tones.three])
        first.engine.setModes(PlaybackModes(repeat: true, consume: .oneshot))
        first.engine.setVolume(80)
        first.engine.play()
        first.engine.run(seconds: 3)
        let saved = try JSONDecoder().decode(PlayerSnapshot.self, from: JSONEncoder().encode(first.engine.snapshot))
        #expect(saved.current == 2 && abs(saved.elapsed - 1) < 0.1)

        let second = try Rig()
        second.engine.restore(saved)
        #expect(second.engine.queue == first.engine.queue && second.engine.modes == first.engine.modes)
        #expect(second.engine.volume == 80 && second.engine.state == .stopped)
        second.engine.setVolume(100)
        second.engine.play()
        #expect(second.take().contains { if case .trackStarted(_, _, .restored) = $0 { true } else { false } })
        second.engine.run(seconds: 1)
        let reference = try decoded(tones.three)
        let from = Int((saved.elapsed * 44_100).rounded()) * 2
        #expect(difference(try second.captured(), Array(reference[from..<(from + 44_100 * 2)])) == nil)
    }

    @Test func removingOrClearingAroundThePlayingItem() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        let ids = rig.queue([tones.thirty, tones.thirty, tones.thirty])
        rig.engine.play()
        rig.engine.run(seconds: 1)
        rig.engine.remove(ids: [ids[2]])
        #expect(rig.engine.currentID == ids[0], "removing another item leaves playback alone")
        rig.engine.move(id: ids[1], to: 0)
        #expect(rig.engine.queue.items.map(\.id) == [ids[1], ids[0]])
        rig.engine.clear()
        #expect(rig.engine.state == .stopped && rig.engine.queue.isEmpty)
        #expect(rig.ended.map(\.reason) == [.replaced])
        _ = rig.take()
        let versions = rig.events.compactMap { if case .queueChanged(let version) = $0 { version } else { nil } }
        #expect(versions == versions.sorted() && Set(versions).count == 4)
    }
}

/// `lyric` events: each at the frame its line starts on, whatever splits or moves playback.
@Suite struct LyricEventTests {
    /// A lyric event as heard: which track and line, and the frame of the track it came at.
    struct Heard: Equatable, CustomStringConvertible {
        var track: Int64
        var index: Int
        var frame: Int
        var description: String { "track \(track) line \(index) at frame \(frame)" }
    }

    /// Renders an engine chunk by chunk, taking its events after every chunk (before the next
    /// is rendered) and noting the frame of the track each lyric event came at.
    final class Listener {
        let engine: PlayerEngine
        private(set) var heard: [Heard] = []
        private(set) var events: [PlayerEvent] = []

        init(_ engine: PlayerEngine) { self.engine = engine }

        /// Takes what the engine emitted, at the frame it is at now.
        func take() {
            let frame = Int((engine.elapsed * engine.frameRate).rounded())
            for event in engine.takeEvents() {
                events.append(event)
                if case .lyric(let item, let index, _) = event {
                    heard.append(Heard(track: item.track.trackID, index: index, frame: frame))
                }
            }
        }

        /// Plays `seconds` more (or to the end), in chunks of at most `chunk` frames.
        func play(seconds: Double = .infinity, chunk: Int = .max) {
            take()
            let until = engine.clock + seconds
            while engine.clock < until - 1e-9 {
                let limit = seconds.isFinite ? engine.frames(in: until - engine.clock) : .max
                guard case .rendered = engine.render(maxFrames: min(chunk, limit)) else { break }
                take()
            }
        }

        /// What was heard since the last call.
        func takeHeard() -> [Heard] {
            take()
            defer { heard = [] }
            return heard
        }
    }

    static func times(_ milliseconds: [Int]) throws -> LyricTimes { try #require(LyricTimes(milliseconds)) }

    /// The frame of `milliseconds` at `rate`: its time × rate, to the nearest frame.
    static func frame(_ milliseconds: Int, _ rate: Int = 44_100) -> Int { (milliseconds * rate + 500) / 1000 }

    static func engine(_ tracks: [(path: String, lines: [Int]?)], highlights: [HighlightRange?]? = nil) throws -> PlayerEngine {
        let engine = PlayerEngine(output: NullOutput())
        engine.add(try tracks.enumerated().map { index, track in
            PlayableTrack(trackID: Int64(index + 1), path: track.path, duration: 0, highlight: highlights?[index],
                          lyricTimes: try track.lines.map(times))
        })
        return engine
    }

    // 1234 ms is inside a 4096-frame chunk; 5005 ms twice (a repeated line); 29,999 ms is in
    // the last chunk of the track.
    static let lines = [0, 1234, 5005, 5005, 12_345, 29_999]

    @Test(arguments: [Int.max, 1000, 1])
    func eachLineIsAnnouncedOnTheFrameItStartsOn(chunk: Int) throws {
        let tones = try Tones.get()
        let engine = try Self.engine([(tones.thirty, Self.lines)])
        let listener = Listener(engine)
        engine.play()
        listener.play(chunk: chunk == 1 ? 7 : chunk)
        let expected = Self.lines.enumerated().map { Heard(track: 1, index: $0.offset, frame: Self.frame($0.element)) }
        #expect(listener.heard == expected)
        #expect(listener.events.first { if case .lyric = $0 { true } else { false } }
                == .lyric(item: engine.queue.items[0], index: 0, milliseconds: 0), "the line at 0 comes as the track starts")
    }

    @Test func splittingChunksAtLinesChangesNoSample() throws {
        let tones = try Tones.get()
        let rig = try Rig()
        rig.engine.add([PlayableTrack(trackID: 1, path: tones.three, duration: 0, lyricTimes: try Self.times([1, 700, 701, 2999]))])
        rig.engine.play()
        #expect(rig.engine.run() == .idle)
        #expect(difference(try rig.captured(), try decoded(tones.three)) == nil)
        #expect(rig.take().filter { if case .lyric = $0 { true } else { false } }.count == 4)
    }

    @Test func aLineOnAChunkBoundaryIsAnnouncedOnce() throws {
        // 256 ms at 48 kHz is frame 12,288: the end of the third 4096-frame chunk.
        let tones = try Tones.get()
        let engine = try Self.engine([(tones.two48k, [256, 512])])
        let listener = Listener(engine)
        engine.play()
        listener.play()
        #expect(Self.frame(256, 48_000) == 3 * 4096)
        #expect(listener.heard == [Heard(track: 1, index: 0, frame: 12_288), Heard(track: 1, index: 1, frame: 24_576)])
    }

    @Test func aSeekAnnouncesTheLineInEffectOnceThenTheNextOnItsFrame() throws {
        let tones = try Tones.get()
        let engine = try Self.engine([(tones.thirty, Self.lines)])
        let listener = Listener(engine)
        engine.play()
        listener.play(seconds: 1)
        #expect(listener.takeHeard() == [Heard(track: 1, index: 0, frame: 0)])

        // Forward over lines 1 to 3: only 3 (in effect at 8 s), not a burst of the others.
        engine.seek(to: 8)
        #expect(listener.takeHeard() == [Heard(track: 1, index: 3, frame: 8 * 44_100)])
        listener.play(seconds: 5)
        #expect(listener.takeHeard() == [Heard(track: 1, index: 4, frame: Self.frame(12_345))])

        // Back into line 1: it is in effect again, and lines 2 and 3 follow on their frames.
        engine.seek(to: 2)
        listener.play(seconds: 4)
        #expect(listener.takeHeard() == [Heard(track: 1, index: 1, frame: 2 * 44_100), Heard(track: 1, index: 2, frame: Self.frame(5005)),
                                         Heard(track: 1, index: 3, frame: Self.frame(5005))])

        // Onto a line's first frame: the lines starting there, each once.
        engine.seek(to: 5.005)
        #expect(listener.takeHeard() == [Heard(track: 1, index: 2, frame: Self.frame(5005)), Heard(track: 1, index: 3, frame: Self.frame(5005))])
        listener.play(seconds: 1)
        #expect(listener.takeHeard().isEmpty)

        // Before the first line there is none in effect.
        let late = try Self.engine([(tones.thirty, [20_000])])
        let lateListener = Listener(late)
        late.play()
        late.seek(to: 10)
        #expect(lateListener.takeHeard().isEmpty)
    }

    @Test func pauseAndResumeRepeatNothing() throws {
        let tones = try Tones.get()
        let engine = try Self.engine([(tones.thirty, Self.lines)])
        let listener = Listener(engine)
        engine.play()
        listener.play(seconds: 2)
        engine.pause()
        listener.play(seconds: 1)
        engine.resume()
        listener.play(seconds: 4)
        #expect(listener.takeHeard().map(\.index) == [0, 1, 2, 3])
        #expect(listener.heard.isEmpty)
    }

    @Test func aGaplessTransitionStartsTheNextTracksLinesOnItsFrames() throws {
        let tones = try Tones.get()
        let parts = AudioFixtures.gaplessAlbumParts
        // The first part's last line is on its very last frames; the second part's first at its first frame.
        let engine = try Self.engine([(tones.album[0], [1999]), (tones.album[1], [0, 1000]), (tones.album[2], nil)])
        let listener = Listener(engine)
        engine.play()
        listener.play()
        #expect(listener.heard == [Heard(track: 1, index: 0, frame: Self.frame(1999)), Heard(track: 2, index: 0, frame: 0),
                                   Heard(track: 2, index: 1, frame: 44_100)])
        #expect(Self.frame(1999) < parts[0])
        // The second part's line 0 comes after the first part ended and the second started.
        let names = listener.events.map(\.name)
        let started = names.indices.filter { names[$0] == "track_started" }
        #expect(started.count == 3 && names[started[1] + 1] == "lyric")
    }

    @Test func aTrackStartedMidWayAnnouncesTheLineInEffect() throws {
        let tones = try Tones.get()
        // A restored place: 6 s into the track.
        let first = try Self.engine([(tones.thirty, Self.lines)])
        var saved = first.snapshot
        saved.current = first.queue.items[0].id
        saved.elapsed = 6
        let engine = PlayerEngine(output: NullOutput())
        engine.restore(saved)
        let listener = Listener(engine)
        engine.play()
        listener.play(seconds: 7)
        #expect(listener.heard == [Heard(track: 1, index: 3, frame: 6 * 44_100), Heard(track: 1, index: 4, frame: Self.frame(12_345))])

        // Highlights: from 10 s to 13 s, the chorus line of 5 s is in effect; 29,999 ms is not reached.
        let highlighted = try Self.engine([(tones.thirty, Self.lines)], highlights: [HighlightRange(start: 10, end: 13)])
        highlighted.setHighlights(true)
        let highlightListener = Listener(highlighted)
        highlighted.play()
        highlightListener.play()
        #expect(highlightListener.heard == [Heard(track: 1, index: 3, frame: 10 * 44_100), Heard(track: 1, index: 4, frame: Self.frame(12_345))])
    }

    @Test func aTrackWithoutLinesOrWithOnlyLinesPastItsEndAnnouncesNothing() throws {
        let tones = try Tones.get()
        let engine = try Self.engine([(tones.three, nil), (tones.three, [3_000_000, 4_000_000_000])])
        let listener = Listener(engine)
        engine.play()
        listener.play()
        #expect(listener.heard.isEmpty)
        #expect(listener.events.filter { $0.name == "track_ended" }.count == 2)
    }

    @Test func timesAreCheckedBeforeAnyArithmetic() throws {
        #expect(LyricTimes([]) == nil)
        #expect(LyricTimes([-1, 5]) == nil, "a negative time ends the list at once")
        #expect(LyricTimes([5, 10, 7, 20])?.milliseconds == [5, 10], "out of order: the lines before it are kept")
        #expect(LyricTimes([5, Int(UInt32.max) + 1])?.milliseconds == [5], "past 2^32 ms: no track reaches it")
        let last = try Self.times([Int(UInt32.max)])
        #expect(last.frame(of: 0, rate: 384_000) == (Int(UInt32.max) * 384_000 + 500) / 1000)
    }

    @Test func aHundredThousandLinesCostTheQueueFourBytesEach() throws {
        let tones = try Tones.get()
        // A line every millisecond for 100 s: the 3 s track reaches 3000 of them, each on its frame.
        let many = Array(0..<100_000)
        let times = try Self.times(many)
        #expect(times.milliseconds.count == 100_000 && MemoryLayout<UInt32>.stride == 4)
        let engine = try Self.engine([(tones.three, many)])
        let listener = Listener(engine)
        engine.play()
        listener.play()
        let lastFrame = try decoded(tones.three).count / 2
        let reached = many.filter { Self.frame($0) <= lastFrame }
        // Compared compactly: a failure names the first line out of place, not 3000 of them.
        let heard = listener.heard.map(\.index)
        #expect(heard.count == reached.count)
        #expect(zip(heard, reached).first { $0 != $1 } == nil)
        #expect(listener.heard.first { $0.frame != Self.frame($0.index) } == nil)
    }
}
