import Foundation
import Testing
@testable import SongboxAudio
import SongboxTestSupport

/// MP3Decoder against real libmpg123 and real files: the committed fixtures, files sox and lame
/// make at test time, and the `mpg123` command's decode of each as the reference.
@Suite struct DecoderTests {
    /// Reads up to `frames` frames (less at the end of the file).
    static func read(_ decoder: MP3Decoder, frames: Int) throws -> [Int16] {
        var buffer = [Int16](repeating: 0, count: frames * AudioFormat.channels)
        let got = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        return Array(buffer[0..<(got * AudioFormat.channels)])
    }

    // MARK: Length and samples

    /// A file whose rate changes inside it (44.1 kHz, then 48 kHz for half a second, then 44.1
    /// again: spliced streams, or what a damaged frame header reads as) plays to its end at the
    /// rate it opened with, the odd frames resampled, as `mpg123 -r 44100` decodes it (within
    /// an MPEG frame). It used to end the track with "the sample rate changes inside the file".
    @Test func aRateChangeInsideTheFileIsResampledNotTheEnd() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let first = try AudioFixtures.tone(in: folder, name: "first", seconds: 1, rate: 44_100)
            let odd = try AudioFixtures.tone(in: folder, name: "odd", seconds: 0.5, rate: 48_000, frequency: 660)
            let spliced = folder + "/spliced.mp3"
            let bytes = try [first, odd, first].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }.reduce(Data(), +)
            try bytes.write(to: URL(fileURLWithPath: spliced))
            let decoder = try MP3Decoder(path: spliced)
            let pcm = try decodeAll(decoder)
            #expect(decoder.format.sampleRate == 44_100)
            let reference = try AudioFixtures.referencePCM(of: spliced, rate: 44_100)
            #expect(abs(pcm.count - reference.count) <= 1152 * 2, "\(pcm.count) vs \(reference.count) samples")
            #expect(pcm.count > Int(2.4 * 44_100) * 2)  // both 44.1 kHz parts and the resampled one
        }
    }

    /// The README's `mpg123 --gapless` counts. The 22 kHz file has no LAME header: nothing to
    /// trim, and the length comes from a scan of every frame.
    @Test(arguments: [("tone-mono-44k.mp3", 44_100, 44_100), ("tone-stereo-48k-vbr.mp3", 48_000, 96_000),
                      ("tone-22k-nolame.mp3", 22_050, 34_560)])
    func committedFixtureDecodesToItsGaplessLengthAndToWhatMpg123Decodes(name: String, rate: Int, frames: Int) throws {
        let path = Fixtures.audioPath(name)
        let decoder = try MP3Decoder(path: path)
        #expect(decoder.format == AudioFormat(sampleRate: rate))
        #expect(decoder.sourceRate == rate)
        #expect(decoder.length == frames)
        let pcm = try decodeAll(decoder)
        #expect(pcm.count == frames * 2)
        #expect(decoder.position == frames)
        #expect(difference(pcm, try AudioFixtures.referencePCM(of: path)) == nil)
    }

    /// Odd lengths at other rates, mono and stereo, CBR and VBR: lame's header makes the
    /// gapless length the source's exactly.
    @Test(arguments: [(48_000, 1, ["-b", "64"]), (48_000, 2, ["-V", "5"]), (22_050, 1, ["-b", "64"]),
                      (22_050, 2, ["-V", "6"]), (32_000, 2, ["-b", "96"]), (44_100, 2, ["-V", "2"])])
    func generatedToneDecodesToItsSourceLength(rate: Int, channels: Int, lame: [String]) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let path = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1.2345, rate: rate,
                                              channels: channels, lameOptions: lame)
            let decoder = try MP3Decoder(path: path)
            let frames = Int((1.2345 * Double(rate)).rounded())
            #expect(decoder.length == frames)
            #expect(decoder.format.sampleRate == rate)
            let pcm = try decodeAll(decoder, chunk: 777)
            #expect(pcm.count == frames * 2)
            #expect(difference(pcm, try AudioFixtures.referencePCM(of: path)) == nil)
        }
    }

    @Test func gaplessAlbumJoinsWithoutAGapOrPadding() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let parts = try AudioFixtures.gaplessAlbum(in: folder)
            let source = try AudioFixtures.pcm(ofWAV: AudioFixtures.gaplessAlbumSource(in: folder))
            #expect(source.count == 2 * AudioFixtures.gaplessAlbumParts.reduce(0, +))
            var start = 0
            for (path, frames) in zip(parts, AudioFixtures.gaplessAlbumParts) {
                let decoder = try MP3Decoder(path: path)
                #expect(decoder.length == frames)
                let pcm = try decodeAll(decoder, chunk: 1152)
                #expect(pcm.count == frames * 2, "\(path)")
                #expect(difference(pcm, try AudioFixtures.referencePCM(of: path)) == nil, "\(path)")
                // Lossy but in place: each part measures 26 dB or more against its slice of the
                // source, and 12 dB or less one sample early or late.
                let slice = Array(source[(start * 2)..<min((start + frames) * 2, source.count)])
                let aligned = Self.snr(pcm, slice)
                #expect(aligned > 20, "\(path)")
                #expect(aligned > Self.snr(Array(pcm.dropFirst(2)), slice) + 10, "\(path) is late")
                #expect(aligned > Self.snr(pcm, Array(slice.dropFirst(2))) + 10, "\(path) is early")
                start += frames
            }
            #expect(start * 2 == source.count)
        }
    }

    /// Signal-to-noise ratio in dB of `decoded` against `reference`.
    static func snr(_ decoded: [Int16], _ reference: [Int16]) -> Double {
        var signal = 0.0, noise = 0.0
        for (d, r) in zip(decoded, reference) {
            signal += Double(r) * Double(r)
            noise += (Double(d) - Double(r)) * (Double(d) - Double(r))
        }
        return 10 * log10(signal / max(noise, 1))
    }

    @Test(arguments: ["tone-mono-44k.mp3", "generated mono 48k"])
    func monoComesOutAsTwoEqualChannels(name: String) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let path = name.hasSuffix(".mp3") ? Fixtures.audioPath(name)
                : try AudioFixtures.tone(in: folder, name: "mono", seconds: 0.5, rate: 48_000, channels: 1)
            let pcm = try decodeAll(try MP3Decoder(path: path))
            #expect(!pcm.isEmpty)
            #expect(stride(from: 0, to: pcm.count, by: 2).allSatisfy { pcm[$0] == pcm[$0 + 1] })
            #expect(pcm.contains { $0 != 0 })
        }
    }

    // MARK: Seeking

    /// A file for the seek tests: a committed fixture by name, or one made in `folder`.
    static func seekFile(_ name: String, in folder: String) throws -> String {
        switch name {
        case "album part 2": try AudioFixtures.gaplessAlbum(in: folder)[1]
        // Low bitrates lean on the bit reservoir most: main data from up to ~9 frames back.
        case "44.1k stereo -V 9": try AudioFixtures.tone(in: folder, name: "v9", seconds: 3, lameOptions: ["-V", "9"])
        case "48k mono 32 kbps":
            try AudioFixtures.tone(in: folder, name: "m32", seconds: 3, rate: 48_000, channels: 1, lameOptions: ["-b", "32"])
        case "22.05k stereo -V 9":
            try AudioFixtures.tone(in: folder, name: "lsf", seconds: 3, rate: 22_050, lameOptions: ["-V", "9"])
        default: Fixtures.audioPath(name)
        }
    }

    /// Seeks one decoder back and forth, to each edge case and to every 997th frame (so to every
    /// offset in a frame and every phase of the synth ring); after each seek it reads what a full
    /// decode has there. Exact, except MPEG-2 with a LAME header: libmpg123's own start of such a
    /// file leaves its synth in a state no seek reproduces, so a few samples may be off by one.
    @Test(arguments: [("tone-mono-44k.mp3", nil, 0), ("tone-stereo-48k-vbr.mp3", nil, 0), ("album part 2", nil, 0),
                      ("44.1k stereo -V 9", nil, 0), ("48k mono 32 kbps", nil, 0), ("tone-22k-nolame.mp3", nil, 0),
                      ("22.05k stereo -V 9", nil, 1), ("tone-stereo-48k-vbr.mp3", 44_100, 0), ("44.1k stereo -V 9", 48_000, 0)])
    func seekIsSampleAccurate(name: String, rate: Int?, tolerance: Int) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let path = try Self.seekFile(name, in: folder)
            let full = try decodeAll(try MP3Decoder(path: path, rate: rate))
            let length = full.count / 2
            let decoder = try MP3Decoder(path: path, rate: rate)
            let edges = [0, 1, 1151, 1152, 44_100, length - 1, length, length + 5000, 1153, 576, 0, 12_345]
            for target in edges + Array(stride(from: 0, to: length, by: 997)).reversed() {
                try decoder.seek(toFrame: target)
                let start = min(target, length)
                #expect(decoder.position == start, "seek to \(target)")
                let got = try Self.read(decoder, frames: 1200)
                let end = min(start + 1200, length)
                let want = Array(full[(start * 2)..<(end * 2)])
                if tolerance == 0 {
                    #expect(difference(got, want) == nil, "seek to \(target) in \(name)")
                } else {
                    #expect(got.count == want.count && zip(got, want).allSatisfy { abs(Int($0) - Int($1)) <= tolerance },
                            "seek to \(target) in \(name)")
                }
                #expect(decoder.position == end)
            }
            // From a seek to the end, too.
            try decoder.seek(toFrame: length / 2)
            let rest = try decodeAll(decoder)
            #expect(rest.count == full.count - length / 2 * 2)
            if tolerance == 0 { #expect(difference(rest, Array(full[(length / 2 * 2)...])) == nil) }
        }
    }

    // MARK: Resampling

    /// NtoM resampling: `length` and `position` count output frames, and the decode is what the
    /// `mpg123 -r <rate> --resample NtoM` command gives.
    @Test(arguments: [("tone-stereo-48k-vbr.mp3", 48_000, 44_100), ("tone-mono-44k.mp3", 44_100, 48_000),
                      ("tone-22k-nolame.mp3", 22_050, 44_100)])
    func resamplesToTheRequestedRate(name: String, from source: Int, to rate: Int) throws {
        let path = Fixtures.audioPath(name)
        let native = try #require(try MP3Decoder(path: path).length)
        let decoder = try MP3Decoder(path: path, rate: rate)
        #expect(decoder.format == AudioFormat(sampleRate: rate))
        #expect(decoder.sourceRate == source)
        let length = try #require(decoder.length)
        #expect(abs(length - native * rate / source) <= 2, "\(length) frames for \(native) at \(source) Hz")
        let pcm = try decodeAll(decoder)
        #expect(pcm.count / 2 == length)
        #expect(decoder.position == length)
        #expect(difference(pcm, try AudioFixtures.referencePCM(of: path, rate: rate)) == nil)
    }

    /// The rate the file already has: no resampling, the same samples as without `rate`.
    @Test func askingForTheFileRateChangesNothing() throws {
        let path = Fixtures.audioPath("tone-stereo-48k-vbr.mp3")
        let decoder = try MP3Decoder(path: path, rate: 48_000)
        #expect(decoder.length == 96_000)
        #expect(difference(try decodeAll(decoder), try decodeAll(try MP3Decoder(path: path))) == nil)
    }

    // MARK: Bad input

    /// 16 KiB of noise has no frame at all; 1 MB runs into libmpg123's resync limit first.
    @Test(arguments: ["missing", "empty", "corrupt", "long corrupt", "directory"])
    func badInputThrowsADecodeErrorNamingTheFile(kind: String) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let path: String
            let expected: String
            switch kind {
            case "missing": path = folder + "/missing.mp3"; expected = "no such file"
            case "empty": path = try AudioFixtures.empty(in: folder); expected = "empty file"
            case "corrupt": path = try AudioFixtures.corrupt(in: folder); expected = "no MPEG audio found"
            case "long corrupt": path = try AudioFixtures.corrupt(in: folder, count: 1 << 20); expected = "no MPEG audio found: "
            default: path = folder; expected = "is a directory"
            }
            let error = try #require(throws: DecodeError.self) { try MP3Decoder(path: path) }
            #expect(error.path == path)
            #expect(error.message.contains(expected), "\(error)")
        }
    }

    /// A file cut short decodes what it has (the full decode's start) and ends normally.
    @Test func truncatedFileDecodesWhatIsThere() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let whole = Fixtures.audioPath("tone-stereo-48k-vbr.mp3")
            let path = try AudioFixtures.truncated(whole, in: folder)
            let full = try decodeAll(try MP3Decoder(path: whole))
            let decoder = try MP3Decoder(path: path)
            let pcm = try decodeAll(decoder)
            #expect(pcm.count > full.count / 4 && pcm.count < full.count * 3 / 4)
            #expect(difference(pcm, Array(full.prefix(pcm.count))) == nil)
            #expect(difference(pcm, try AudioFixtures.referencePCM(of: path)) == nil)
            #expect(try Self.read(decoder, frames: 100).isEmpty)
            // The LAME header promised the whole file; at the end the length is what there was.
            #expect(decoder.length == pcm.count / 2)
        }
    }
}
