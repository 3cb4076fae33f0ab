import Foundation

/// A radix-2 FFT of real frames, with its tables made once. Not thread-safe: one per analyzer.
final class RealFFT {
    let size: Int
    private let half: Int
    private let levels: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]
    private var real: [Float]
    private var imaginary: [Float]

    /// `size` must be a power of two, at least 4.
    init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        half = size / 2
        levels = size.trailingZeroBitCount
        cosines = (0..<size / 2).map { Float(cos(2 * Double.pi * Double($0) / Double(size))) }
        sines = (0..<size / 2).map { Float(-sin(2 * Double.pi * Double($0) / Double(size))) }
        reversed = (0..<size).map { index in
            var value = index, result = 0
            for _ in 0..<size.trailingZeroBitCount {
                result = (result << 1) | (value & 1)
                value >>= 1
            }
            return result
        }
        real = Array(repeating: 0, count: size)
        imaginary = Array(repeating: 0, count: size)
    }

    /// The power spectrum |X[k]|² for k in 0...size/2 of `frame` (already windowed), into `power`.
    func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, into power: inout [Float]) {
        precondition(frame.count == size && power.count == half + 1)
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                for index in 0..<size {
                    re[reversed[index]] = frame[index]
                    im[index] = 0
                }
                transform(re, im)
                power.withUnsafeMutableBufferPointer { out in
                    for bin in 0...half { out[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                }
            }
        }
    }

    /// In-place iterative Cooley-Tukey on bit-reversed input.
    private func transform(_ re: UnsafeMutableBufferPointer<Float>, _ im: UnsafeMutableBufferPointer<Float>) {
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                var span = 1
                while span < size {
                    let step = size / (span * 2)
                    var start = 0
                    while start < size {
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
