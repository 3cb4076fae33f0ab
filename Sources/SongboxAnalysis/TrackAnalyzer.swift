import Foundation

/// Analyzes one track as it is decoded: feed it interleaved stereo 16-bit PCM in chunks of any
/// size, then `finish()`. Memory is fixed (a few hundred KB) whatever the track's length.
/// One analyzer per track and per thread: its state is touched per sample, so its properties
/// skip the run-time exclusivity checks (`@exclusivity(unchecked)`; they were a tenth of the time).
public final class TrackAnalyzer {
    /// The version of the analysis: a stored row of another version is analyzed again.
    public static let version = 2

    public let sampleRate: Int
    @exclusivity(unchecked) private var frames = 0
    @exclusivity(unchecked) private var loudness: LoudnessMeter
    @exclusivity(unchecked) private var mixRamp: MixRampMeter

    // Rhythm and key work on mono, low-passed and decimated to about 11 kHz.
    private let decimation: Int
    private let lowRate: Double
    @exclusivity(unchecked) private var antiAlias: (Biquad, Biquad)
    @exclusivity(unchecked) private var decimationPhase = 0
    /// The last `ringSize` samples of the decimated mono, a ring.
    private static let ringSize = 4096
    @exclusivity(unchecked) private var ring = Array(repeating: Float(0), count: ringSize)
    @exclusivity(unchecked) private var ringCursor = 0
    @exclusivity(unchecked) private var sinceHop = 0
    @exclusivity(unchecked) private var hops = 0
    static let onsetSize = 1024, hop = 128
    /// Every 8th hop, a 4096-point frame for the chromagram.
    static let chromaEvery = 8

    private let onsetFFT = RealFFT(size: onsetSize)
    private let chromaFFT = RealFFT(size: ringSize)
    private let onsetWindow = RealFFT.hann(onsetSize)
    private let chromaWindow = RealFFT.hann(ringSize)
    @exclusivity(unchecked) private var frameBuffer = Array(repeating: Float(0), count: ringSize)
    @exclusivity(unchecked) private var onsetPower = Array(repeating: Float(0), count: onsetSize / 2 + 1)
    @exclusivity(unchecked) private var chromaPower = Array(repeating: Float(0), count: ringSize / 2 + 1)
    @exclusivity(unchecked) private var onsetBands: OnsetBands
    @exclusivity(unchecked) private var tempo: TempoTracker
    @exclusivity(unchecked) private var key: KeyDetector

    // Timbre works on the full-rate mono, a 2048-point frame every fifth of a second.
    private static let timbreSize = 2048
    @exclusivity(unchecked) private var timbreRing = Array(repeating: Float(0), count: timbreSize)
    @exclusivity(unchecked) private var timbreCursor = 0
    @exclusivity(unchecked) private var sinceTimbre = 0
    private let timbreHop: Int
    private let timbreFFT = RealFFT(size: timbreSize)
    private let timbreWindow = RealFFT.hann(timbreSize)
    @exclusivity(unchecked) private var timbrePower = Array(repeating: Float(0), count: timbreSize / 2 + 1)
    @exclusivity(unchecked) private var timbre: Timbre

    /// `sampleRate`: the PCM's rate, in Hz (8 kHz ... 192 kHz; other values are clamped to that).
    /// `mono`: the file has one channel, decoded to two equal ones; its loudness is measured on
    /// one, as BS.1770 measures a mono file (and ffmpeg, pyloudnorm, libebur128 by default).
    public init(sampleRate: Int, mono: Bool = false) {
        let rate = min(192_000, max(8000, sampleRate))
        self.sampleRate = rate
        loudness = LoudnessMeter(rate: rate, mono: mono)
        mixRamp = MixRampMeter(rate: rate)
        decimation = max(1, Int((Double(rate) / 11025).rounded()))
        lowRate = Double(rate) / Double(decimation)
        let filter = Biquad.lowPass(cutoff: lowRate * 0.42, rate: Double(rate))
        antiAlias = (filter, filter)
        onsetBands = OnsetBands(fftSize: Self.onsetSize, rate: lowRate)
        tempo = TempoTracker(frameRate: lowRate / Double(Self.hop))
        key = KeyDetector(fftSize: Self.ringSize, rate: lowRate)
        timbreHop = rate / 5
        timbre = Timbre(fftSize: Self.timbreSize, rate: Double(rate))
    }

    /// Seconds fed so far.
    public var duration: Double { Double(frames) / Double(sampleRate) }

    /// Adds interleaved stereo frames (left, right, left, ...); an odd last sample is ignored.
    public func feed(_ samples: UnsafeBufferPointer<Int16>) {
        let count = samples.count / 2
        frames += count
        for frame in 0..<count {
            let left = Double(samples[2 * frame]) / 32768, right = Double(samples[2 * frame + 1]) / 32768
            loudness.add(left, right)
            let mono = (left + right) / 2
            mixRamp.add(mono)
            addTimbreSample(Float(mono))
            let filtered = antiAlias.1.process(antiAlias.0.process(mono))
            decimationPhase += 1
            if decimationPhase == decimation {
                decimationPhase = 0
                addLowSample(Float(filtered))
            }
        }
    }

    /// Convenience for tests and tools: a whole array.
    public func feed(_ samples: [Int16]) { samples.withUnsafeBufferPointer { feed($0) } }

    private func addLowSample(_ sample: Float) {
        ring[ringCursor] = sample
        ringCursor = (ringCursor + 1) & (Self.ringSize - 1)
        sinceHop += 1
        guard sinceHop == Self.hop else { return }
        sinceHop = 0
        hops += 1
        copyLast(Self.onsetSize, window: onsetWindow)
        frameBuffer.withUnsafeBufferPointer { frame in
            onsetFFT.powerSpectrum(UnsafeBufferPointer(rebasing: frame[0..<Self.onsetSize]), into: &onsetPower)
        }
        let onset = onsetBands.flux(onsetPower)
        tempo.add(onset.rise, level: onset.level)
        if hops % Self.chromaEvery == 0, hops * Self.hop >= Self.ringSize {
            copyLast(Self.ringSize, window: chromaWindow)
            frameBuffer.withUnsafeBufferPointer { chromaFFT.powerSpectrum($0, into: &chromaPower) }
            key.add(power: chromaPower)
        }
    }

    /// The ring's last `count` samples, oldest first, windowed, into `frameBuffer`.
    private func copyLast(_ count: Int, window: [Float]) {
        var index = (ringCursor - count + Self.ringSize) & (Self.ringSize - 1)
        for offset in 0..<count {
            frameBuffer[offset] = ring[index] * window[offset]
            index = (index + 1) & (Self.ringSize - 1)
        }
    }

    private func addTimbreSample(_ sample: Float) {
        timbreRing[timbreCursor] = sample
        timbreCursor = (timbreCursor + 1) & (Self.timbreSize - 1)
        sinceTimbre += 1
        guard sinceTimbre >= timbreHop, frames >= Self.timbreSize else { return }
        sinceTimbre = 0
        var index = timbreCursor
        for offset in 0..<Self.timbreSize {
            frameBuffer[offset] = timbreRing[index] * timbreWindow[offset]
            index = (index + 1) & (Self.timbreSize - 1)
        }
        frameBuffer.withUnsafeBufferPointer { frame in
            timbreFFT.powerSpectrum(UnsafeBufferPointer(rebasing: frame[0..<Self.timbreSize]), into: &timbrePower)
        }
        timbre.add(power: timbrePower)
    }

    /// The features of everything fed.
    public func finish() -> AudioFeatures {
        var features = AudioFeatures(duration: duration, loudness: loudness.integratedLoudness, truePeak: loudness.peak,
                                     histogram: loudness.histogram, tempo: tempo.estimate(), key: key.estimate(), timbre: timbre.summary)
        features.mixRampStart = mixRamp.start
        features.mixRampEnd = mixRamp.end(frames: frames)
        return features
    }
}

/// The onset strength of a frame: spectral flux over 36 log-spaced bands from 60 Hz to 5 kHz,
/// each band's rise in magnitude since the last frame summed. Magnitude rather than decibels,
/// so a loud kick counts more than a soft hi-hat (in decibels every onset rises alike and the
/// eighths drown the beat); a quiet track's envelope is only scaled, which the autocorrelation
/// does not mind.
struct OnsetBands {
    static let count = 36
    private let bandOfBin: [Int?]
    private var previous = Array(repeating: 0.0, count: count)
    private var current = Array(repeating: 0.0, count: count)
    /// The first frame has nothing to rise from.
    private var started = false

    init(fftSize: Int, rate: Double) {
        let low = 60.0, high = min(5000, rate / 2 * 0.95)
        bandOfBin = (0...fftSize / 2).map { bin in
            let frequency = Double(bin) * rate / Double(fftSize)
            guard frequency >= low, frequency < high else { return nil }
            return min(Self.count - 1, Int(Double(Self.count) * log(frequency / low) / log(high / low)))
        }
    }

    /// The frame's rise, and its level (the bands' magnitudes summed).
    mutating func flux(_ power: [Float]) -> (rise: Double, level: Double) {
        for band in 0..<Self.count { current[band] = 0 }
        for (bin, value) in power.enumerated() {
            if let band = bandOfBin[bin] { current[band] += Double(value) }
        }
        var rise = 0.0, level = 0.0
        for band in 0..<Self.count {
            let magnitude = current[band].squareRoot()
            if started { rise += max(0, magnitude - previous[band]) }
            previous[band] = magnitude
            level += magnitude
        }
        started = true
        return (rise, level)
    }
}
