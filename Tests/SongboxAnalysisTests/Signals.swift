import Foundation

/// Generated test signals as interleaved stereo Int16, the form the decoder gives.
struct Signals {
    let rate: Int

    /// A deterministic noise source (xorshift), so every run hears the same noise.
    struct Noise {
        private var state: UInt64
        init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) { state = seed }
        /// Uniform in -1 ... 1.
        mutating func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(1 << 52) - 1
        }
    }

    /// Mono samples (full scale ±1) to stereo Int16, both channels equal.
    func stereo(_ mono: [Double]) -> [Int16] {
        var samples = [Int16]()
        samples.reserveCapacity(mono.count * 2)
        for value in mono {
            let sample = Int16(max(-32768, min(32767, (value * 32768).rounded())))
            samples.append(sample)
            samples.append(sample)
        }
        return samples
    }

    func sine(frequency: Double, dBFS: Double, seconds: Double, phase: Double = 0) -> [Double] {
        let amplitude = pow(10, dBFS / 20)
        return (0..<Int(seconds * Double(rate))).map { amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate) + phase) }
    }

    /// Short decaying noise bursts every beat (a metronome), optionally with noise under them.
    func clicks(bpm: Double, seconds: Double, dBFS: Double = -6, noiseDBFS: Double? = nil) -> [Double] {
        var noise = Noise()
        var signal = Array(repeating: 0.0, count: Int(seconds * Double(rate)))
        let period = 60 / bpm * Double(rate)
        let amplitude = pow(10, dBFS / 20)
        var beat = 0.0
        while Int(beat) < signal.count {
            let start = Int(beat)
            for offset in 0..<min(Int(0.03 * Double(rate)), signal.count - start) {
                let decay = exp(-Double(offset) / (0.005 * Double(rate)))
                signal[start + offset] += amplitude * decay * (0.6 * sin(2 * .pi * 2000 * Double(offset) / Double(rate)) + 0.4 * noise.next())
            }
            beat += period
        }
        if let noiseDBFS { add(noise: noiseDBFS, to: &signal, noise: &noise) }
        return signal
    }

    /// A drum loop: kick on beats 1 and 3, snare on 2 and 4, closed hi-hat on eighths; with
    /// `syncopated`, an extra kick on the "and" of 2 and the hat on the off-beats only.
    func drums(bpm: Double, seconds: Double, dBFS: Double = -6, syncopated: Bool = false, noiseDBFS: Double? = nil) -> [Double] {
        var noise = Noise(seed: 42)
        var signal = Array(repeating: 0.0, count: Int(seconds * Double(rate)))
        let eighth = 60 / bpm / 2 * Double(rate)
        let amplitude = pow(10, dBFS / 20)
        var step = 0
        while Int(Double(step) * eighth) < signal.count {
            let start = Int(Double(step) * eighth)
            let position = step % 8   // eighths in a 4/4 bar
            if position == 0 || position == 4 || (syncopated && position == 3) { kick(at: start, amplitude * 0.9, into: &signal) }
            if position == 2 || position == 6 { burst(at: start, amplitude * 0.7, decay: 0.08, into: &signal, noise: &noise) }
            if !syncopated || position % 2 == 1 { burst(at: start, amplitude * 0.25, decay: 0.015, into: &signal, noise: &noise) }
            step += 1
        }
        if let noiseDBFS { add(noise: noiseDBFS, to: &signal, noise: &noise) }
        return signal
    }

    private func kick(at start: Int, _ amplitude: Double, into signal: inout [Double]) {
        var phase = 0.0
        for offset in 0..<min(Int(0.25 * Double(rate)), signal.count - start) {
            let t = Double(offset) / Double(rate)
            phase += 2 * .pi * (50 + 100 * exp(-t * 30)) / Double(rate)
            signal[start + offset] += amplitude * exp(-t * 12) * sin(phase)
        }
    }

    private func burst(at start: Int, _ amplitude: Double, decay: Double, into signal: inout [Double], noise: inout Noise) {
        for offset in 0..<min(Int(decay * 4 * Double(rate)), signal.count - start) {
            signal[start + offset] += amplitude * exp(-Double(offset) / (decay * Double(rate))) * noise.next()
        }
    }

    private func add(noise level: Double, to signal: inout [Double], noise: inout Noise) {
        let amplitude = pow(10, level / 20) * 3.0.squareRoot()  // uniform noise: RMS = amplitude / √3
        for index in signal.indices { signal[index] += amplitude * noise.next() }
    }

    /// Notes given as MIDI numbers, each `seconds` long, each a tone with a few harmonics.
    /// A chord is several notes at once.
    func notes(_ chords: [[Int]], seconds: Double, dBFS: Double = -12) -> [Double] {
        let length = Int(seconds * Double(rate))
        var signal: [Double] = []
        signal.reserveCapacity(length * chords.count)
        let amplitude = pow(10, dBFS / 20)
        for chord in chords {
            let frequencies = chord.map { 440 * pow(2, Double($0 - 69) / 12) }
            for index in 0..<length {
                let t = Double(index) / Double(rate)
                let envelope = min(1, t / 0.01) * min(1, Double(length - index) / (0.01 * Double(rate)))
                var value = 0.0
                for frequency in frequencies {
                    for harmonic in 1...4 { value += sin(2 * .pi * frequency * Double(harmonic) * t) / Double(harmonic * harmonic) }
                }
                signal.append(amplitude * envelope * value / Double(frequencies.count) / 1.5)
            }
        }
        return signal
    }
}
