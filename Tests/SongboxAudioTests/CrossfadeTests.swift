import Foundation
import SongboxTestSupport
import Testing
@testable import SongboxAudio

@Suite struct CrossfadeTests {
    static let rate = 44_100

    /// A rig whose crossfades are `seconds` at a track's end and `manual` on a change, into
    /// and out of tracks of a second or more; a skip counts after 1 s, a play after 80%.
    func makeRig(seconds: Double = 1, manual: Double? = nil, minTrack: Double = 1,
             curve: CrossfadeCurve = .equalPower) throws -> Rig {
        let rig = try Rig()
        rig.engine.settings.crossfade = CrossfadeSettings(seconds: seconds, manualSeconds: manual,
                                                          minTrackSeconds: minTrack, curve: curve)
        rig.engine.settings.countRules = PlayCountRules(playFraction: 0.8, playSeconds: 240, skipAfterSeconds: 1)
        return rig
    }

    /// A rig with a 1 s crossfade that played `paths` (4 s each) to halfway through the first fade.
    func halfwayIntoAFade(_ paths: [String]) throws -> Rig {
        let rig = try makeRig(seconds: 1)
        rig.queue(paths, durations: paths.map { _ in 4 })
        rig.engine.play()
        rig.engine.run(seconds: 3.5)
        return rig
    }

    /// The largest difference, across a 1 s equal-power fade from frame `start` of `played`
    /// (left channel), from the mix of `outgoing`'s PCM from its frame `from` times `scale`
    /// along cos and `incoming`'s from its start times its `scale` along sin.
    func worstMixError(_ played: [Int16], at start: Int, outgoing: (pcm: [Int16], from: Int, scale: Double),
                       incoming: (pcm: [Int16], scale: Double)) -> Double {
        (0..<Self.rate).map { frame in
            let t = Double(frame) / Double(Self.rate)
            let out = outgoing.scale * Double(outgoing.pcm[(outgoing.from + frame) * 2])
            let mix = cos(t * .pi / 2) * out + sin(t * .pi / 2) * incoming.scale * Double(incoming.pcm[frame * 2])
            return abs(Double(played[(start + frame) * 2]) - mix)
        }.max() ?? 0
    }

    /// The level in dB of the left channel of `pcm` over 50 ms windows, between two seconds.
    func levels(_ pcm: [Int16], from: Double, to: Double) -> [Double] {
        let window = Self.rate / 20
        return stride(from: Int(from * Double(Self.rate)), to: Int(to * Double(Self.rate)) - window, by: window).map { start in
            let left = stride(from: start * 2, to: (start + window) * 2, by: 2).map { pcm[$0] }
            return 20 * log10(rms(left))
        }
    }

    /// The mix scales without libm's `round` (its cost, bench/player-run part 4) and rounds
    /// exactly as `rounded()` does: every 16-bit sample at gains with ties (0.5, 1.5), odd ones,
    /// one beyond the clamp and a negative one; and `add` is `apply` then a clamped sum.
    @Test func theMixRoundsEverySampleAsRoundedDoes() {
        for gain in [0.5, 1.5, 0.333_333_333, 0.707_106_781_186_547_6, 3.7, -0.5] {
            for value in Int(Int16.min)...Int(Int16.max) {
                let sample = Int16(value)
                let expected = Int16(max(-32768, min(32767, (Double(sample) * gain).rounded())))
                if Gain.scaled(sample, by: gain) != expected {
                    Issue.record("\(sample) x \(gain): \(Gain.scaled(sample, by: gain)), rounded() gives \(expected)")
                    return
                }
            }
        }
        var source: [Int16] = [1000, -1000, 32767, -32768, 12345, -7, 3, 30000]
        var target: [Int16] = [5, -5, 10, -10, 32767, -32768, 0, 30000]
        var applied = source
        applied.withUnsafeMutableBufferPointer { Gain.apply($0, from: 0.9, to: 0.3) }
        let expected = zip(target, applied).map { Int16(clamping: Int32($0) + Int32($1)) }
        source.withUnsafeMutableBufferPointer { source in
            target.withUnsafeMutableBufferPointer { Gain.add(UnsafeBufferPointer(source), into: $0, from: 0.9, to: 0.3) }
        }
        #expect(target == expected)
    }

    @Test func atATracksEndTheTwoOverlapForTheCrossfadeAndTheirPowerStaysEven() throws {
        let tones = try Tones.get()
        let rig = try halfwayIntoAFade([tones.fadeA, tones.fadeB])
        #expect(rig.started == ["a.mp3", "b.mp3"], "the next track started under the last second")
        #expect(rig.ended.isEmpty, "the outgoing track has not ended: its audio plays on")
        rig.engine.run(seconds: 0.6)
        #expect(rig.ended.map(\.reason) == [.finished])
        #expect(abs((rig.ended.first?.played ?? 0) - 4) < 0.001, "all of it was heard")
        #expect(rig.ended.first?.counted == .play)
        rig.engine.run()
        let played = try rig.captured()
        #expect(abs(played.count / 2 - 7 * Self.rate) < 4, "4 s + 4 s overlapping for 1 s")
        // Before the fade, the one tone; across it, the two summed at an even power.
        let reference = levels(played, from: 2, to: 2.9)
        let before = reference.reduce(0, +) / Double(reference.count)
        let across = levels(played, from: 3, to: 4)
        #expect(across.count >= 18)
        #expect(across.allSatisfy { abs($0 - before) <= 1 }, "equal power: within 1 dB of \(before): \(across)")
        // The tail is the incoming track alone, sample for sample.
        let incoming = try decoded(tones.fadeB)
        #expect(difference(Array(played[(4 * Self.rate * 2)...]), Array(incoming[(1 * Self.rate * 2)...])) == nil)
    }

    @Test func aLinearCrossfadeDipsByThreeDecibelsInTheMiddle() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 1, curve: .linear)
        rig.queue([tones.fadeA, tones.fadeB], durations: [4, 4])
        rig.engine.play()
        rig.engine.run()
        let played = try rig.captured()
        let steady = levels(played, from: 2, to: 2.9)
        let before = steady.reduce(0, +) / Double(steady.count)
        let middle = levels(played, from: 3.45, to: 3.6).first ?? 0
        #expect(abs(middle - before + 3) < 0.5, "linear: two halves of unrelated tones sum to half the power: \(middle - before) dB")
    }

    @Test func anAlbumInTrackOrderStaysSampleExactWithCrossfadeOn() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 1, minTrack: 0)
        let ids = rig.engine.add(tones.album.enumerated().map { index, path in
            PlayableTrack(trackID: Int64(index + 1), path: path, duration: 2,
                          album: AlbumPlace(album: "Sweep", disc: 1, number: index + 1))
        })
        #expect(ids.count == 3)
        rig.engine.play()
        #expect(rig.engine.run() == .idle)
        let expected = try tones.album.flatMap { try AudioFixtures.referencePCM(of: $0) }
        let played = try rig.captured()
        #expect(played.count == expected.count)
        #expect(difference(played, expected) == nil, "the join of an album in order is gapless, not crossfaded")
        #expect(rig.ended.map(\.reason) == [.finished, .finished, .finished])

        // The same files without an album are crossfaded: the rule, not the lengths, kept them whole.
        let other = try makeRig(seconds: 1, minTrack: 0)
        other.queue(tones.album, durations: [2, 2, 2])
        other.engine.play()
        other.engine.run()
        #expect(try other.captured().count / 2 < expected.count / 2 - Self.rate, "two crossfades of 1 s")
    }

    @Test func eachTracksReplayGainAppliesInsideTheMixAndTheVolumeToTheMix() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 1)
        rig.engine.setReplayGain(.track)
        rig.engine.setVolume(50)
        let halved = ReplayGain.choose(tags: ReplayGain.Readings(trackGain: -20 * log10(2)), analysis: ReplayGain.Readings())
        rig.engine.add([PlayableTrack(trackID: 1, path: tones.fadeA, duration: 4, replayGain: halved),
                        PlayableTrack(trackID: 2, path: tones.fadeB, duration: 4)])
        rig.engine.play()
        rig.engine.run()
        let played = try rig.captured()
        let a = try decoded(tones.fadeA), b = try decoded(tones.fadeB)
        let fade = 3 * Self.rate
        // a: its gain (a half) and the volume (a half); b: no gain, the volume.
        let before = zip(played[0..<(fade * 2)], a[0..<(fade * 2)]).map { abs(Double($0) - Double($1) / 4) }.max() ?? .infinity
        let after = zip(played[((fade + Self.rate) * 2)...], b[(Self.rate * 2)...]).map { abs(Double($0) - Double($1) / 2) }.max() ?? .infinity
        #expect(before <= 0.5 && after <= 0.5, "\(before) \(after)")
        let worst = worstMixError(played, at: fade, outgoing: (a, fade, 0.25), incoming: (b, 0.5))
        #expect(worst < 12, "within the fade too, each track at its own gain: \(worst)")
    }

    @Test func aShortTrackGetsNoCrossfade() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 1, manual: 1, minTrack: 5)
        rig.queue([tones.fadeA, tones.fadeB, tones.fadeC], durations: [4, 4, 4])
        rig.engine.play()
        rig.engine.run(seconds: 4.5)
        rig.engine.next()
        rig.engine.run()
        let played = try rig.captured()
        let expected = try decoded(tones.fadeA) + Array(decoded(tones.fadeB)[0..<(Self.rate / 2 * 2)]) + decoded(tones.fadeC)
        #expect(difference(played, expected) == nil, "tracks of 4 s, the bound 5 s: joined and cut as without crossfade")
    }

    @Test func aSkipMidTrackCrossfadesFromWhereItWas() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 0, manual: 1)
        rig.queue([tones.fadeA, tones.fadeB], durations: [4, 4])
        rig.engine.play()
        rig.engine.run(seconds: 1.5)
        rig.engine.next()
        #expect(rig.started == ["a.mp3", "b.mp3"])
        #expect(rig.engine.elapsed == 0 && rig.engine.currentItem?.track.path == tones.fadeB)
        rig.engine.run(seconds: 0.5)
        #expect(rig.ended.isEmpty, "the skipped track fades out for the crossfade")
        rig.engine.run()
        #expect(rig.ended.map(\.path) == ["a.mp3", "b.mp3"])
        #expect(rig.ended.map(\.reason) == [.skipped, .finished])
        #expect(abs((rig.ended.first?.played ?? 0) - 2.5) < 0.001, "1.5 s before the skip, 1 s of fade")
        #expect(rig.ended.map(\.counted) == [.skip, .play])
        let played = try rig.captured()
        let outgoing = try decoded(tones.fadeA), incoming = try decoded(tones.fadeB)
        let skip = 3 * Self.rate / 2
        #expect(played.count / 2 == skip + 4 * Self.rate, "A up to 1.5 s, then B whole, the first second over A's fade")
        #expect(difference(Array(played[0..<(skip * 2)]), Array(outgoing[0..<(skip * 2)])) == nil)
        // Across the fade: A from 1.5 s going down along cos, B from 0 going up along sin.
        let worst = worstMixError(played, at: skip, outgoing: (outgoing, skip, 1), incoming: (incoming, 1))
        #expect(worst < 24, "the mix follows the curves (within 24 of 16384): \(worst)")
        #expect(difference(Array(played[((skip + Self.rate) * 2)...]), Array(incoming[(Self.rate * 2)...])) == nil)
    }

    @Test func playNAndPreviousCrossfadeAsNextDoes() throws {
        let tones = try Tones.get()
        let rig = try makeRig(seconds: 0, manual: 1)
        let ids = rig.queue([tones.fadeA, tones.fadeB, tones.fadeC], durations: [4, 4, 4])
        rig.engine.play()
        rig.engine.run(seconds: 1.5)
        rig.engine.play(id: ids[2])
        rig.engine.run(seconds: 1.2)
        // 1.2 s into c: previous goes to the item before it, crossfaded too; c follows b.
        rig.engine.previous()
        rig.engine.run()
        #expect(rig.started == ["a.mp3", "c.mp3", "b.mp3", "c.mp3"])
        #expect(rig.ended.map(\.path) == ["a.mp3", "c.mp3", "b.mp3", "c.mp3"])
        #expect(rig.ended.map(\.reason) == [.skipped, .skipped, .finished, .finished])
        #expect(abs(rig.ended[0].played - 2.5) < 0.001 && abs(rig.ended[1].played - 2.2) < 0.001)
        #expect(rig.ended.map(\.counted) == [.skip, .skip, .play, .play])
        #expect(try rig.captured().count / 2 == 3 * Self.rate / 2 + 6 * Self.rate / 5 + 8 * Self.rate)
    }

    @Test func nextDuringACrossfadeMovesToTheSongAfterTheOneFadingIn() throws {
        let tones = try Tones.get()
        let rig = try halfwayIntoAFade([tones.fadeA, tones.fadeB, tones.fadeC])
        rig.engine.next()
        #expect(rig.engine.currentItem?.track.path == tones.fadeC, "not b again (MPD #683)")
        rig.engine.run()
        #expect(rig.started == ["a.mp3", "b.mp3", "c.mp3"])
        #expect(rig.ended.map(\.path) == ["a.mp3", "b.mp3", "c.mp3"])
        // a was cut by the skip after 3.5 s of 4 (a play); b, current when next came, a skip
        // (0.5 s, then its 1 s fade).
        #expect(rig.ended.map(\.reason) == [.finished, .skipped, .finished])
        #expect(abs(rig.ended[0].played - 3.5) < 0.001 && abs(rig.ended[1].played - 1.5) < 0.001)
        #expect(rig.ended.map(\.counted) == [.play, .skip, .play])
        let frames = try rig.captured().count / 2
        #expect(abs(frames - 15 * Self.rate / 2) < 4)
    }

    @Test func pauseDuringACrossfadePausesBothAndStopEndsBoth() throws {
        let tones = try Tones.get()
        let rig = try halfwayIntoAFade([tones.fadeA, tones.fadeB])
        rig.engine.pause()
        #expect(rig.engine.run(seconds: 1) == .idle)
        #expect(rig.ended.isEmpty, "both wait")
        rig.engine.play()
        rig.engine.run(seconds: 0.2)
        rig.engine.stop()
        #expect(rig.ended.map(\.path) == ["a.mp3", "b.mp3"])
        #expect(rig.ended.map(\.reason) == [.stopped, .stopped])
        #expect(abs(rig.ended[0].played - 3.7) < 0.001 && abs(rig.ended[1].played - 0.7) < 0.001)
        #expect(rig.ended.map(\.counted) == [.play, nil], "a heard past 80%; b 0.7 s, stopped: nothing")
        #expect(rig.events.last == .stopped)
    }

    @Test func theSleepTimerDuringACrossfadeStopsBoth() throws {
        let tones = try Tones.get()
        let rig = try halfwayIntoAFade([tones.fadeA, tones.fadeB])
        rig.engine.setSleepTimer(.after(seconds: 0.2))
        rig.engine.run()
        #expect(rig.ended.map(\.path) == ["a.mp3", "b.mp3"])
        #expect(rig.ended.map(\.reason) == [.stopped, .stopped])
        #expect(abs(rig.ended[0].played - 3.7) < 0.001 && abs(rig.ended[1].played - 0.7) < 0.001)
    }

    @Test func seekDuringACrossfadeMovesTheIncomingTrack() throws {
        let tones = try Tones.get()
        let rig = try halfwayIntoAFade([tones.fadeA, tones.fadeB])
        rig.engine.seek(to: 2)
        #expect(rig.engine.currentItem?.track.path == tones.fadeB && rig.engine.elapsed == 2)
        rig.engine.run()
        // a fades out to its end as it would have; b goes on from 2 s: 3.5 s + 2 s left of b.
        #expect(rig.ended.map(\.path) == ["a.mp3", "b.mp3"])
        #expect(rig.ended.map(\.reason) == [.finished, .finished] && abs(rig.ended[0].played - 4) < 0.001)
        let played = try rig.captured()
        #expect(played.count / 2 == 3 * Self.rate + Self.rate / 2 + 2 * Self.rate)
        let incoming = try decoded(tones.fadeB)
        #expect(difference(Array(played[(4 * Self.rate * 2)...]), Array(incoming[(5 * Self.rate / 2 * 2)...])) == nil,
                "after the fade, b from 2.5 s: the seek moved it")
    }

    /// Plays `tracks` to their end on a null output (which follows each track's rate) with a
    /// 1 s crossfade into and out of tracks of any length: the rates it played at, in order,
    /// and the frames written.
    func ratesPlaying(_ tracks: [PlayableTrack]) -> (rates: [Int], frames: Int) {
        let output = NullOutput()
        var settings = PlayerSettings()
        settings.crossfade = CrossfadeSettings(seconds: 1, minTrackSeconds: 0)
        let engine = PlayerEngine(output: output, settings: settings)
        engine.add(tracks)
        engine.play()
        var rates: [Int] = []
        while case .rendered = engine.render() {
            if let rate = engine.status.format?.sampleRate, rates.last != rate { rates.append(rate) }
        }
        return (rates, output.framesWritten)
    }

    @Test func twoSampleRatesAreMixedAtTheOutputsRate() throws {
        let tones = try Tones.get()
        let (rates, frames) = ratesPlaying([PlayableTrack(trackID: 1, path: tones.fadeA, duration: 4),
                                            PlayableTrack(trackID: 2, path: tones.fade48k, duration: 4)])
        #expect(rates == [44_100], "the 48 kHz track came in at the output's 44.1 kHz")
        #expect(abs(frames - 7 * 44_100) < 8)
    }

    @Test func anAlbumEnteredByACrossfadeAtAnotherRateStaysAtThatRate() throws {
        // On an output that follows the track's rate, the album's first track came in at the
        // 48 kHz of the one before: its next tracks stay there, so no join reopens the output.
        let tones = try Tones.get()
        let (rates, frames) = ratesPlaying([PlayableTrack(trackID: 1, path: tones.fade48k, duration: 4)]
            + tones.album.enumerated().map { index, path in
                PlayableTrack(trackID: Int64(index + 2), path: path, duration: 2, album: AlbumPlace(album: "Sweep", number: index + 1))
            })
        #expect(rates == [48_000])
        let album = Double(AudioFixtures.gaplessAlbumParts.reduce(0, +)) / 44_100
        #expect(abs(Double(frames) - (3 + album) * 48_000) < 16, "one crossfade, then the album at 48 kHz (each file rounded up)")
    }

    @Test func theCrossfadeIsBoundedAndSaidInStatus() throws {
        let engine = PlayerEngine(output: NullOutput())
        engine.setCrossfade(5)
        #expect(engine.status.crossfade == 5)
        #expect(engine.takeEvents().contains { if case .optionsChanged = $0 { true } else { false } })
        for wild in [Double.nan, -3, .infinity, 1e300] {
            engine.setCrossfade(wild)
            #expect(CrossfadeSettings.range.contains(engine.status.crossfade))
        }
        try PlayerCommand.crossfade(2).apply(to: engine)
        #expect(engine.settings.crossfade.seconds == 2 && engine.settings.crossfade.length(manual: true) == 2)
    }
}
