import Foundation

/// A radix-2 FFT of real frames, with its tables made once. Not thread-safe: one per analyzer.
///
/// A real frame of `size` points is transformed as a complex one of `size / 2` (even samples the
/// real parts, odd ones the imaginary), then untangled: half the work of a complex FFT of `size`.
final class RealFFT {
    let size: Int
    /// The complex transform's length, `size / 2`.
    private let half: Int
    /// Twiddles of the half-length complex FFT: e^(-2πik/half).
    private let cosines: [Float]
    private let sines: [Float]
    /// Twiddles of the untangling step: e^(-2πik/size), k < half.
    private let untangleCosines: [Float]
    private let untangleSines: [Float]
    private let reversed: [Int]
    private var real: [Float]
    private var imaginary: [Float]

    /// `size` must be a power of two, at least 4.
    init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        half = size / 2
        let half = size / 2
        cosines = (0..<half / 2).map { Float(cos(2 * Double.pi * Double($0) / Double(half))) }
        sines = (0..<half / 2).map { Float(-sin(2 * Double.pi * Double($0) / Double(half))) }
        untangleCosines = (0..<half).map { Float(cos(2 * Double.pi * Double($0) / Double(size))) }
        untangleSines = (0..<half).map { Float(sin(2 * Double.pi * Double($0) / Double(size))) }
        let bits = half.trailingZeroBitCount
        reversed = (0..<half).map { index in
            var value = index, result = 0
            for _ in 0..<bits {
                result = (result << 1) | (value & 1)
                value >>= 1
            }
            return result
        }
        real = Array(repeating: 0, count: half)
        imaginary = Array(repeating: 0, count: half)
    }

    /// The power spectrum |X[k]|² for k in 0...size/2 of `frame` (already windowed), into `power`.
    func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, into power: inout [Float]) {
        precondition(frame.count == size && power.count == half + 1)
        let half = self.half
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                for index in 0..<half {
                    re[reversed[index]] = frame[2 * index]
                    im[reversed[index]] = frame[2 * index + 1]
                }
                transform(re, im)
                untangleCosines.withUnsafeBufferPointer { cosines in
                    untangleSines.withUnsafeBufferPointer { sines in
                        power.withUnsafeMutableBufferPointer { out in
                            // X[k] = E[k] + e^(-2πik/size) O[k], from Z[k] and Z[half - k].
                            let dc = re[0] + im[0], nyquist = re[0] - im[0]
                            out[0] = dc * dc
                            out[half] = nyquist * nyquist
                            for k in 1..<half {
                                let (a, b) = (re[k], im[k]), (c, d) = (re[half - k], im[half - k])
                                let evenReal = (a + c) / 2, evenImaginary = (b - d) / 2
                                let oddReal = (b + d) / 2, oddImaginary = (c - a) / 2
                                let cosine = cosines[k], sine = sines[k]
                                let xr = evenReal + cosine * oddReal + sine * oddImaginary
                                let xi = evenImaginary + cosine * oddImaginary - sine * oddReal
                                out[k] = xr * xr + xi * xi
                            }
                        }
                    }
                }
            }
        }
    }

    /// In-place iterative Cooley-Tukey of length `half` on bit-reversed input.
    private func transform(_ re: UnsafeMutableBufferPointer<Float>, _ im: UnsafeMutableBufferPointer<Float>) {
        let count = half
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                var span = 1
                while span < count {
                    let step = count / (span * 2)
                    var start = 0
                    while start < count {
                        for offset in 0..<span {
                            let wr = cosines[offset * step], wi = sines[offset * step]
                            let a = start + offset, b = a + span
                            let tr = re[b] * wr - im[b] * wi
                            let ti = re[b] * wi + im[b] * wr
                            re[b] = re[a] - tr
                            im[b] = im[a] - ti
                            re[a] += tr
                            im[a] += ti
                        }
                        start += span * 2
                    }
                    span *= 2
                }
            }
        }
    }

    /// A periodic Hann window of `size` points.
    static func hann(_ size: Int) -> [Float] {
        (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
    }
}
