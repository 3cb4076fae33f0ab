import Foundation

/// One second-order IIR section (direct form I), in Double: the loudness filters must not drift
/// over an hour of audio.
struct Biquad {
    var b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x
        y2 = y1; y1 = y
        return y
    }

    /// The two stages of ITU-R BS.1770's K-weighting (a high shelf, then a high-pass), made for any
    /// rate from the analog prototype as libebur128 does (at 48 kHz they are the standard's
    /// published coefficients).
    static func kWeighting(rate: Double) -> (shelf: Biquad, highPass: Biquad) {
        var f0 = 1681.974450955533, q = 0.7071752369554196
        let gain = 3.999843853973347
        var k = tan(Double.pi * f0 / rate)
        let vh = pow(10, gain / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        let shelf = Biquad(b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                           a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / rate)
        a0 = 1 + k / q + k * k
        let highPass = Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        return (shelf, highPass)
    }

    /// A Butterworth low-pass section (Q = 1/√2) at `cutoff` Hz: two in a row keep what a
    /// decimation would fold back out of the band.
    static func lowPass(cutoff: Double, rate: Double) -> Biquad {
        let omega = 2 * Double.pi * min(cutoff, rate * 0.45) / rate
        let alpha = sin(omega) / (2 * 0.7071067811865476)
        let cosine = cos(omega)
        let a0 = 1 + alpha
        return Biquad(b0: (1 - cosine) / 2 / a0, b1: (1 - cosine) / a0, b2: (1 - cosine) / 2 / a0,
                      a1: -2 * cosine / a0, a2: (1 - alpha) / a0)
    }
}
