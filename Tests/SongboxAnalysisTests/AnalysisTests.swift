import Foundation
import Testing
@testable import SongboxAnalysis

private func analyze(_ samples: [Int16], rate: Int = 44_100) -> AudioFeatures {
    let analyzer = TrackAnalyzer(sampleRate: rate)
    analyzer.feed(samples)
    return analyzer.finish()
}

/// Every number the analysis gives is finite, and the moods are 0 ... 1.
private func expectSane(_ features: AudioFeatures) {
    let numbers = [features.tempo, features.tempoAlternative, features.beatStrength, features.beatRegularity, features.keyStrength,
                   features.loudness, features.loudnessRange, features.truePeak, features.trackGain, features.trackPeak,
                   features.energy, features.danceability, features.valence, features.brightness, features.centroid]
    for number in numbers.compactMap({ $0 }) { #expect(number.isFinite) }
    for mood in [features.energy, features.danceability, features.valence].compactMap({ $0 }) { #expect((0...1).contains(mood)) }
    for value in features.vector ?? [] { #expect(value.isFinite) }
}

@Suite struct TempoTests {
    let signals = Signals(rate: 44_100)

    @Test(arguments: [60.0, 75, 90, 120, 140, 180])
    func clickTrack(bpm: Double) throws {
        let features = analyze(signals.stereo(signals.clicks(bpm: bpm, seconds: 30)))
        let tempo = try #require(features.tempo)
        #expect(abs(tempo - bpm) / bpm < 0.02, "\(tempo) for \(bpm)")
        expectSane(features)
    }

    @Test(arguments: [70.0, 100, 128, 165])
    func drumLoop(bpm: Double) throws {
        let features = analyze(signals.stereo(signals.drums(bpm: bpm, seconds: 30)))
        let tempo = try #require(features.tempo)
        #expect(abs(tempo - bpm) / bpm < 0.02, "\(tempo) for \(bpm)")
    }

    /// This loop repeats more strongly every half bar than every beat (the extra kick), so the
    /// half tempo wins; the true one must then be the alternative it reports.
    @Test func syncopatedLoopGivesTheTempoOrItsHalfWithTheTempoAsAlternative() throws {
        let features = analyze(signals.stereo(signals.drums(bpm: 128, seconds: 30, syncopated: true)))
        let tempo = try #require(features.tempo)
        let candidates = [tempo] + (features.tempoAlternative.map { [$0] } ?? [])
        #expect(candidates.contains { abs($0 - 128) / 128 < 0.02 }, "\(candidates)")
    }

    @Test func aSteadyToneHasNoTempo() throws {
        let features = analyze(signals.stereo(signals.sine(frequency: 440, dBFS: -10, seconds: 15)))
        #expect(features.loudness != nil)
        #expect(features.tempo == nil && features.danceability == nil)
    }

    @Test func quietClicksUnderNoise() throws {
        let features = analyze(signals.stereo(signals.clicks(bpm: 110, seconds: 30, dBFS: -30, noiseDBFS: -45)))
        let tempo = try #require(features.tempo)
        #expect(abs(tempo - 110) / 110 < 0.02, "\(tempo)")
    }

    @Test func aRegularBeatIsStrongerAndMoreDanceableThanNoise() throws {
        let beat = analyze(signals.stereo(signals.drums(bpm: 120, seconds: 20)))
        var noise = Signals.Noise()
        let hiss = analyze(signals.stereo((0..<20 * 44_100).map { _ in 0.3 * noise.next() }))
        expectSane(hiss)
        #expect(try #require(beat.beatRegularity) > (hiss.beatRegularity ?? 0))
        #expect(try #require(beat.danceability) > (hiss.danceability ?? 0))
    }
}

@Suite struct KeyTests {
    let signals = Signals(rate: 44_100)

    @Test func cMajorScale() {
        let scale = [60, 62, 64, 65, 67, 69, 71, 72, 71, 69, 67, 65, 64, 62, 60].map { [$0] }
        let features = analyze(signals.stereo(signals.notes(scale, seconds: 0.5)))
        #expect(features.key == MusicalKey(tonic: 0, mode: .major))
    }

    @Test func aMinorProgression() {
        // Am - Dm - E - Am, twice.
        let progression = [[57, 60, 64], [62, 65, 69], [56, 59, 64], [57, 60, 64]]
        let features = analyze(signals.stereo(signals.notes(progression + progression, seconds: 1)))
        #expect(features.key == MusicalKey(tonic: 9, mode: .minor))
        #expect(features.key?.description == "A minor")
    }

    @Test func dMajorChords() {
        // D - G - A - D
        let progression = [[62, 66, 69], [55, 59, 62], [57, 61, 64], [62, 66, 69]]
        let features = analyze(signals.stereo(signals.notes(progression + progression, seconds: 1)))
        #expect(features.key == MusicalKey(tonic: 2, mode: .major))
    }

    @Test func keyNamesReadBack() {
        for tonic in 0..<12 {
            for mode in [MusicalKey.Mode.major, .minor] {
                let key = MusicalKey(tonic: tonic, mode: mode)
                #expect(MusicalKey(key.description) == key)
            }
        }
        #expect(MusicalKey("H major") == nil)
    }
}

@Suite struct LoudnessTests {
    @Test(arguments: [44_100, 48_000])
    func calibratedSine(rate: Int) throws {
        // EBU Tech 3341 case 1: a 1 kHz sine at -23 dBFS on both channels reads -23.0 LUFS.
        let signals = Signals(rate: rate)
        let features = analyze(signals.stereo(signals.sine(frequency: 1000, dBFS: -23, seconds: 20)), rate: rate)
        let loudness = try #require(features.loudness)
        #expect(abs(loudness - -23) <= 0.1, "\(loudness)")
        #expect(abs(try #require(features.trackGain) - 5) <= 0.1)
        #expect(abs(try #require(features.truePeak) - -23) <= 0.2)
    }

    @Test func aMonoFileIsMeasuredOnOneChannel() throws {
        // Tech 3341's sine on one channel reads 3 LU under the same on two.
        let signals = Signals(rate: 48_000)
        let analyzer = TrackAnalyzer(sampleRate: 48_000, mono: true)
        analyzer.feed(signals.stereo(signals.sine(frequency: 1000, dBFS: -23, seconds: 10)))
        let loudness = try #require(analyzer.finish().loudness)
        #expect(abs(loudness - (-23 - 10 * log10(2.0))) <= 0.1, "\(loudness)")
    }

    @Test func gatingLeavesTheQuietPartsOut() throws {
        // Tech 3341 case 3 shortened: -36, -23, -36 dBFS; the quiet parts fall under the
        // relative gate, so the whole reads as the middle does.
        let signals = Signals(rate: 48_000)
        let signal = signals.sine(frequency: 1000, dBFS: -36, seconds: 4) + signals.sine(frequency: 1000, dBFS: -23, seconds: 16)
            + signals.sine(frequency: 1000, dBFS: -36, seconds: 4)
        let loudness = try #require(analyze(signals.stereo(signal), rate: 48_000).loudness)
        #expect(abs(loudness - -23) <= 0.1, "\(loudness)")
    }

    @Test func truePeakBetweenSamples() throws {
        // A sine at a quarter of the rate, 45° off: every sample is at 0.707 of the peak, which
        // falls between them (-9 dBFS samples, -6 dBTP).
        let signals = Signals(rate: 48_000)
        let features = analyze(signals.stereo(signals.sine(frequency: 12_000, dBFS: -6.02, seconds: 2, phase: .pi / 4)), rate: 48_000)
        let peak = try #require(features.truePeak)
        #expect(abs(peak - -6.02) <= 0.3, "\(peak)")
    }

    @Test func albumLoudnessFromStoredHistograms() throws {
        let signals = Signals(rate: 44_100)
        let loud = analyze(signals.stereo(signals.sine(frequency: 1000, dBFS: -20, seconds: 10)))
        let quiet = analyze(signals.stereo(signals.sine(frequency: 1000, dBFS: -26, seconds: 10)))
        let stored = try [loud, quiet].map { try #require(LoudnessHistogram(encoded: $0.histogram.encoded)) }
        #expect(stored == [loud.histogram, quiet.histogram])
        // Both halves pass the relative gate (-10 LU under their mean): the energy mean of -20 and -26.
        let expected = 10 * log10((pow(10, -2.0) + pow(10, -2.6)) / 2)
        let album = try #require(AlbumLoudness.loudness(stored))
        #expect(abs(album - expected) <= 0.1, "\(album) \(expected)")
        #expect(abs(try #require(AlbumLoudness.gain(stored)) - (-18 - album)) < 1e-9)
        #expect(AlbumLoudness.loudness([LoudnessHistogram()]) == nil)
    }

    @Test func blocksOutsideTheHistogramAreCountedAtItsEdgesOrLeftOut() {
        #expect(LoudnessHistogram.bin(-70.05) == nil)
        #expect(LoudnessHistogram.bin(.nan) == nil && LoudnessHistogram.bin(-.infinity) == nil)
        #expect(LoudnessHistogram.bin(-70) == 0)
        #expect(LoudnessHistogram.bin(1e300) == LoudnessHistogram.binCount - 1)
        #expect(LoudnessHistogram.bin(.infinity) == nil)
    }

    @Test func damagedHistogramIsRefused() {
        #expect(LoudnessHistogram(encoded: [0x80]) == nil)
        #expect(LoudnessHistogram(encoded: [0xFF, 0x7F, 1]) == nil)
        #expect(LoudnessHistogram(encoded: []) == LoudnessHistogram())
    }
}

@Suite struct FFTTests {
    /// The power spectrum against a direct DFT, on a frame of noise and tones.
    @Test(arguments: [4, 16, 1024])
    func powerSpectrumIsTheDFTs(size: Int) {
        var noise = Signals.Noise(seed: UInt64(size))
        let frame = (0..<size).map { Float(noise.next() + sin(2 * .pi * 3 * Double($0) / Double(size))) }
        var power = [Float](repeating: 0, count: size / 2 + 1)
        frame.withUnsafeBufferPointer { RealFFT(size: size).powerSpectrum($0, into: &power) }
        for bin in 0...size / 2 {
            var re = 0.0, im = 0.0
            for (index, value) in frame.enumerated() {
                let angle = -2 * Double.pi * Double(bin * index) / Double(size)
                re += Double(value) * cos(angle)
                im += Double(value) * sin(angle)
            }
            let expected = re * re + im * im
            #expect(abs(Double(power[bin]) - expected) <= 1e-3 * max(1, expected), "bin \(bin): \(power[bin]) vs \(expected)")
        }
    }
}

@Suite struct EdgeCaseTests {
    @Test func silenceSaysNothing() {
        let features = analyze(Array(repeating: 0, count: 2 * 44_100 * 10))
        #expect(features.loudness == nil && features.tempo == nil && features.key == nil && features.energy == nil)
        #expect(features.vector == nil && features.trackGain == nil)
        #expect(abs(features.duration - 10) < 1e-9)
    }

    @Test func tooShortToSayAnything() {
        let features = analyze(Signals(rate: 44_100).stereo(Signals(rate: 44_100).sine(frequency: 440, dBFS: -10, seconds: 0.1)))
        #expect(features.loudness == nil && features.tempo == nil && features.danceability == nil)
        #expect(analyze([]).loudness == nil)
        #expect(analyze([1]).duration == 0)
    }

    @Test func fullScaleSquareAndNoiseStayFinite() {
        let square = (0..<44_100 * 12).flatMap { index -> [Int16] in index / 50 % 2 == 0 ? [.max, .max] : [.min, .min] }
        let features = analyze(square)
        expectSane(features)
        #expect(features.loudness != nil)
        var noise = Signals.Noise()
        expectSane(analyze((0..<44_100 * 12 * 2).map { _ in Int16(truncatingIfNeeded: Int(noise.next() * 40_000)) }))
    }

    @Test func chunkSizeDoesNotMatter() {
        let signals = Signals(rate: 44_100)
        let samples = signals.stereo(signals.drums(bpm: 96, seconds: 12))
        let whole = analyze(samples)
        let analyzer = TrackAnalyzer(sampleRate: 44_100)
        var start = 0, size = 1
        while start < samples.count {
            let end = min(samples.count, start + size * 2)
            samples[start..<end].withUnsafeBufferPointer { analyzer.feed($0) }
            start = end
            size = size * 3 % 4099 + 1
        }
        #expect(analyzer.finish() == whole)
        #expect(whole.vector?.count == FeatureVector.length)
    }

    @Test func unusualRatesAreClamped() {
        #expect(TrackAnalyzer(sampleRate: 0).sampleRate == 8000)
        #expect(TrackAnalyzer(sampleRate: .max).sampleRate == 192_000)
    }
}

/// MixRamp's points: where a generated track first reaches a level and where its tail falls
/// below it, within 50 ms of where the signal was made to cross it.
@Suite struct MixRampPointTests {
    let signals = Signals(rate: 44_100)

    /// The seconds of `points` at `level`, interpolated between the two levels around it.
    func seconds(_ points: [LevelTime], at level: Double) -> Double? {
        guard let above = points.firstIndex(where: { $0.level >= level }) else { return nil }
        guard above > 0 else { return points[0].seconds }
        let low = points[above - 1], high = points[above]
        return low.seconds + (high.seconds - low.seconds) * (level - low.level) / (high.level - low.level)
    }

    @Test func theStartIsWhereTheLevelIsFirstReachedAndTheEndWhereTheTailFallsBelowIt() throws {
        let rate = 44_100.0
        let lead = Array(repeating: 0.0, count: Int(1.3 * rate))
        let body = signals.sine(frequency: 440, dBFS: -6, seconds: 8)
        // The tail decays by 20 dB a second: its RMS (3 dB under the peak, -9 dBFS at first)
        // is at -17 dB 0.4 s in, 2.6 s before the end.
        let tail = (0..<Int(3 * rate)).map { index in
            let t = Double(index) / rate
            return pow(10, (-6 - 20 * t) / 20) * sin(2 * .pi * 440 * (8 + t))
        }
        let features = analyze(signals.stereo(lead + body + tail))
        let start = try #require(seconds(features.mixRampStart, at: -17))
        let end = try #require(seconds(features.mixRampEnd, at: -17))
        #expect(abs(start - 1.3) <= 0.05, "reached at \(start) s")
        let crossing = 3 - (17 - 6 - 10 * log10(2.0)) / 20  // a sine's RMS is its peak less 3.01 dB
        #expect(abs(end - crossing) <= 0.05, "falls below \(end) s before the end, made to at \(crossing)")
        // The levels rise, the times too: louder is reached later from the start, earlier from the end.
        #expect(features.mixRampStart.map(\.seconds) == features.mixRampStart.map(\.seconds).sorted())
        #expect(features.mixRampEnd.map(\.seconds) == features.mixRampEnd.map(\.seconds).sorted())
        #expect(features.mixRampStart.last?.level ?? 0 < -6, "never louder than the tone")
    }

    @Test func silenceHasNoPoints() {
        let features = analyze(Array(repeating: 0, count: 44_100 * 2))
        #expect(features.mixRampStart.isEmpty && features.mixRampEnd.isEmpty)
    }
}
