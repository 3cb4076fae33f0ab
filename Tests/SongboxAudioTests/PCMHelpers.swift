import Foundation
import Testing
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

/// Feeds `bytes` to a decoder of network bytes in pieces of `piece`, reading what each piece
/// makes, then finishes it (unless not `finishing`): the PCM, the titles the stream said, and
/// how often it asked for more.
func feedInPieces(_ decoder: any FedDecoder, _ bytes: [UInt8], piece: Int,
                  finishing: Bool = true) throws -> (pcm: [Int16], titles: [String], starved: Int) {
    var pcm: [Int16] = [], titles: [String] = [], buffer = [Int16](repeating: 0, count: 4096 * 2), starved = 0
    let start = decoder.position
    func drain() throws -> FeedDecoder.Result {
        while true {
            let result = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if let title = decoder.takeTitle() { titles.append(title) }
            guard case .frames(let frames) = result else { return result }
            pcm += buffer[0..<(frames * 2)]
        }
    }
    for start in stride(from: 0, to: bytes.count, by: piece) {
        try bytes[start..<min(start + piece, bytes.count)].withUnsafeBytes { try decoder.feed($0) }
        if try drain() == .needsMore { starved += 1 }
    }
    guard finishing else { return (pcm, titles, starved) }
    decoder.finish()
    #expect(try drain() == .ended)
    #expect((decoder.position - start) * 2 == pcm.count)
    return (pcm, titles, starved)
}
