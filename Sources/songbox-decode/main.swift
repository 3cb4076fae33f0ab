// songbox-decode FILE [--rate HZ] [--raw]: decodes FILE as the player does (AudioFile.decoder)
// and drops the PCM, or with --raw writes it to standard output as 16-bit little-endian stereo.
// For bench/decoders-run: the decoders' throughput and memory without the library around them.
import Foundation
import SongboxAudio

var arguments = Array(CommandLine.arguments.dropFirst())
let raw = arguments.contains("--raw")
arguments.removeAll { $0 == "--raw" }
var rate: Int?
if let index = arguments.firstIndex(of: "--rate"), index + 1 < arguments.count {
    rate = Int(arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 1 else {
    FileHandle.standardError.write(Data("usage: songbox-decode FILE [--rate HZ] [--raw]\n".utf8))
    exit(2)
}
do {
    let decoder = try AudioFile.decoder(path: arguments[0], rate: rate)
    var buffer = [Int16](repeating: 0, count: 4096 * AudioFormat.channels)
    var frames = 0
    while case .frames(let count) = try buffer.withUnsafeMutableBufferPointer({ try decoder.decode(into: $0) }) {
        frames += count
        if raw { buffer.withUnsafeBytes { FileHandle.standardOutput.write(Data($0.prefix(count * AudioFormat.bytesPerFrame))) } }
    }
    FileHandle.standardError.write(Data("\(frames) frames at \(decoder.format.sampleRate) Hz\n".utf8))
} catch {
    FileHandle.standardError.write(Data("songbox-decode: \(error)\n".utf8))
    exit(1)
}
