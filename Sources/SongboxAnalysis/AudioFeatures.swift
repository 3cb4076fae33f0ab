import Foundation

/// What the analysis says of one track. A field is nil when the track does not say (silence,
/// too short, no pitch); nothing here is NaN or infinite.
public struct AudioFeatures: Sendable, Equatable {
    /// Seconds analyzed.
    public var duration: Double
    /// Beats per minute, 40 ... 240.
    public var tempo: Double?
    /// Half or double `tempo`, when the rhythm supports it nearly as well.
    public var tempoAlternative: Double?
    /// 0 ... 1: how much of the onset envelope is pulses rather than a steady level.
    public var beatStrength: Double?
    /// 0 ... 1: how much the onset envelope repeats at the beat period.
    public var beatRegularity: Double?
    public var key: MusicalKey?
    /// Correlation of the chromagram with the key's profile, -1 ... 1.
    public var keyStrength: Double?
    /// EBU R128 integrated loudness, LUFS.
    public var loudness: Double?
    /// Loudness range, LU (from 400 ms blocks).
    public var loudnessRange: Double?
    /// True peak, dBTP (4x oversampled).
    public var truePeak: Double?
    /// ReplayGain 2.0 track gain, dB: what brings the track to -18 LUFS.
    public var trackGain: Double?
    /// Linear true peak (1 = full scale), as ReplayGain's peak tags hold it.
    public var trackPeak: Double?
    public var energy: Double?
    public var danceability: Double?
    public var valence: Double?
    /// Spectral centroid (Hz) and the share of energy above 1.5 kHz (0 ... 1).
    public var brightness: Double?
    public var centroid: Double?
    /// `FeatureVector.length` numbers for similarity (see `FeatureVector`).
    public var vector: [Float]?
    /// MixRamp: when the level first reaches each of `MixRampMeter.levels` (seconds from the
    /// start), and last holds it (seconds before the end); levels never reached are left out.
    public var mixRampStart: [LevelTime] = []
    public var mixRampEnd: [LevelTime] = []
    /// The gated blocks' loudness, for album gain (`AlbumLoudness`).
    public var histogram: LoudnessHistogram

    public static let referenceLoudness = -18.0

    init(duration: Double, loudness: Double?, truePeak: Double, histogram: LoudnessHistogram,
         tempo rhythm: TempoTracker.Estimate?, key tonality: (key: MusicalKey, strength: Double)?, timbre: Timbre.Summary?) {
        self.duration = duration
        self.histogram = histogram
        self.loudness = loudness.flatMap(Self.finite)
        // Silence has no tempo, key or timbre worth storing, whatever the detectors made of dither.
        guard let level = self.loudness else { return }
        loudnessRange = histogram.loudnessRange.flatMap(Self.finite)
        trackGain = Self.finite(Self.referenceLoudness - level)
        trackPeak = Self.finite(truePeak)
        self.truePeak = truePeak > 0 ? Self.finite(20 * log10(truePeak)) : nil
        if let rhythm {
            tempo = Self.finite(rhythm.bpm)
            tempoAlternative = rhythm.alternative.flatMap(Self.finite)
            beatStrength = Self.finite(rhythm.strength)
            beatRegularity = Self.finite(rhythm.regularity)
        }
        if let tonality, tonality.strength.isFinite {
            key = tonality.key
            keyStrength = tonality.strength
        }
        if let timbre {
            brightness = Self.finite(timbre.brightness)
            centroid = Self.finite(timbre.centroid)
        }
        energy = Moods.energy(loudness: level, brightness: brightness, beatStrength: beatStrength)
        danceability = Moods.danceability(tempo: tempo, regularity: beatRegularity, strength: beatStrength)
        valence = Moods.valence(key: key, keyStrength: keyStrength, tempo: tempo, brightness: brightness)
        if let timbre { vector = FeatureVector.make(self, timbre: timbre) }
    }

    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}

/// The three mood axes, each 0 ... 1, from the descriptors; docs/moods.md says what each is.
public enum Moods {
    static func clamp(_ value: Double) -> Double { value.isFinite ? min(1, max(0, value)) : 0.5 }

    /// Loud, bright and punchy: 50 % loudness (-35 LUFS is 0, -8 is 1), 25 % brightness (the share
    /// of energy above 1.5 kHz, 0.4 counts as full), 25 % beat strength.
    static func energy(loudness: Double, brightness: Double?, beatStrength: Double?) -> Double {
        let level = clamp((loudness + 35) / 27)
        let bright = clamp((brightness ?? 0.2) / 0.4)
        return clamp(0.5 * level + 0.25 * bright + 0.25 * (beatStrength ?? 0.5))
    }

    /// A steady, clear beat near a walking-to-dancing tempo: 40 % regularity, 30 % beat strength,
    /// 30 % how close the tempo is to 118 BPM (a log-normal of half an octave). Nil with no tempo.
    static func danceability(tempo: Double?, regularity: Double?, strength: Double?) -> Double? {
        guard let tempo, let regularity, let strength else { return nil }
        let octaves = log2(tempo / 118) / 0.5
        let fit = exp(-0.5 * octaves * octaves)
        return clamp(0.4 * regularity + 0.3 * strength + 0.3 * fit)
    }

    /// Bright-sounding and major, a rough guess: 45 % mode (major above 0.5, minor below, by the
    /// key's strength), 30 % tempo (60 BPM is 0, 180 is 1), 25 % brightness.
    static func valence(key: MusicalKey?, keyStrength: Double?, tempo: Double?, brightness: Double?) -> Double {
        let certainty = clamp(keyStrength ?? 0)
        let mode = key.map { $0.mode == .major ? 0.5 + 0.5 * certainty : 0.5 - 0.5 * certainty } ?? 0.5
        let pace = tempo.map { clamp(($0 - 60) / 120) } ?? 0.5
        let bright = clamp((brightness ?? 0.2) / 0.4)
        return clamp(0.45 * mode + 0.3 * pace + 0.25 * bright)
    }
}

/// A fixed-length description for similarity, each number scaled to about -1 ... 1:
/// 0-11 the mean MFCCs 1-12 (/ 20), 12 log2 of the centroid over 1 kHz, 13 the centroid's spread
/// (/ 2 kHz), 14 the roll-off (/ 10 kHz), 15 flatness, 16 brightness, 17 log2 of the tempo over
/// 120, 18 beat strength, 19 beat regularity, 20 loudness ((LUFS + 23) / 10), 21 loudness range
/// (/ 20 LU), 22 mode (+key strength major, - minor), 23 crest ((true peak - loudness) / 20 dB).
/// Missing descriptors are 0.
public enum FeatureVector {
    public static let length = 24

    static func make(_ features: AudioFeatures, timbre: Timbre.Summary) -> [Float] {
        var vector = timbre.cepstrum.map { $0 / 20 }
        vector += [log2(max(timbre.centroid, 20) / 1000), timbre.centroidSpread / 2000, timbre.rolloff / 10000,
                   timbre.flatness, timbre.brightness]
        vector.append(features.tempo.map { log2($0 / 120) } ?? 0)
        vector.append(features.beatStrength ?? 0)
        vector.append(features.beatRegularity ?? 0)
        vector.append(features.loudness.map { ($0 + 23) / 10 } ?? 0)
        vector.append((features.loudnessRange ?? 0) / 20)
        let strength = max(0, features.keyStrength ?? 0)
        vector.append(features.key.map { $0.mode == .major ? strength : -strength } ?? 0)
        vector.append(features.truePeak.flatMap { peak in features.loudness.map { (peak - $0) / 20 } } ?? 0)
        return vector.map { $0.isFinite ? Float(max(-10, min(10, $0))) : 0 }
    }
}

/// Album loudness and gain from the tracks' stored histograms.
public enum AlbumLoudness {
    /// The integrated loudness of the tracks together (LUFS); nil when none has a gated block.
    public static func loudness(_ histograms: [LoudnessHistogram]) -> Double? {
        var album = LoudnessHistogram()
        for histogram in histograms { album.merge(histogram) }
        return album.integratedLoudness
    }

    /// ReplayGain 2.0 album gain (dB, to -18 LUFS).
    public static func gain(_ histograms: [LoudnessHistogram]) -> Double? {
        loudness(histograms).map { AudioFeatures.referenceLoudness - $0 }
    }
}
