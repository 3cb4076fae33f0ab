import Foundation
@testable import SongboxAudio

/// Everything `decoder` gives from its position, read `chunk` frames at a time.
func decodeAll(_ decoder: MP3Decoder, chunk: Int = 1000) throws -> [Int16] {
    var pcm: [Int16] = []
    var buffer = [Int16](repeating: 0, count: chunk * AudioFormat.channels)
    while true {
        let frames = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        if frames == 0 { return pcm }
        pcm += buffer[0..<(frames * AudioFormat.channels)]
    }
}

/// The whole file as songbox decodes it (resampled to `rate` when given).
func decoded(_ path: String, rate: Int? = nil) throws -> [Int16] {
    try decodeAll(MP3Decoder(path: path, rate: rate), chunk: 4096)
}

/// Root mean square level of some samples.
func rms(_ samples: some Collection<Int16>) -> Double {
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(max(1, samples.count))).squareRoot()
}

/// Everything any decoder gives from its position, read `chunk` frames at a time.
func decodeAll(_ decoder: any TrackDecoder, chunk: Int = 1000) throws -> [Int16] {
    var pcm: [Int16] = []
    var buffer = [Int16](repeating: 0, count: chunk * AudioFormat.channels)
    while case .frames(let frames) = try buffer.withUnsafeMutableBufferPointer({ try decoder.decode(into: $0) }) {
        pcm += buffer[0..<(frames * AudioFormat.channels)]
    }
    return pcm
}
