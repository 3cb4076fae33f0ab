import Foundation
import SongboxTestSupport
import Testing
@testable import SongboxAudio
@testable import SongboxLibrary

/// The decoders of FLAC, Ogg Vorbis, Opus, WAV, AIFF, ALAC and AAC against real files made by
/// Debian's own encoders at test time, each checked in the same run against the format's
/// reference decoder: `flac -d`, `oggdec`, `opusdec`, ffmpeg (WAV, AIFF and ALAC), `faad` (AAC). Sources are made in one folder,
/// encoded files go to another.
@Suite struct FormatDecoderTests {
    typealias Encoding = AudioFixtures.Encoding

    /// A file of `encoding` from a sweep of `frames` frames, and its source.
    static func make(_ encoding: Encoding, in folder: String, frames: Int = 54_321, channels: Int = 2, bits: Int = 16,
                     rate: Int? = nil, name: String = "track") throws -> (path: String, source: String) {
        try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
        // Opus is 48 kHz: a source at that rate keeps the length exact.
        let source = try AudioFixtures.signal(folder + "/source/\(name).wav", frames: frames,
                                              rate: rate ?? (encoding == .opus ? 48_000 : 44_100), channels: channels, bits: bits)
        let path = try AudioFixtures.encode(source, as: encoding, to: folder + "/music/\(name).\(encoding.suffix)")
        return (path, source)
    }

    /// The largest difference allowed against the reference decoder: none for lossless formats;
    /// ±1 for Vorbis and Opus, whose float output is rounded to 16 bits by a different piece of
    /// code than the reference's (the same libvorbis and libopus underneath).
    static func tolerance(_ encoding: Encoding) -> Int { encoding.isLossless ? 0 : 1 }

    static func expectedType(_ encoding: Encoding) -> any TrackDecoder.Type {
        switch encoding {
        case .flac, .oggFLAC: FLACDecoder.self
        case .vorbis: VorbisDecoder.self
        case .opus: OpusDecoder.self
        case .alac, .aac: MP4Decoder.self
        default: PCMFileDecoder.self
        }
    }

    // MARK: PCM and length

    @Test(arguments: [
        (Encoding.flac, 2, 16), (.flac, 1, 16), (.flac, 2, 24), (.oggFLAC, 2, 16), (.vorbis, 2, 16), (.vorbis, 1, 16),
        (.opus, 2, 16), (.opus, 1, 16), (.wav16, 2, 16), (.wav16, 1, 16), (.wav24, 2, 24), (.wav8, 2, 16), (.wav32, 2, 24),
        (.wavFloat, 2, 24), (.aiff, 2, 16), (.aiff, 1, 24), (.aifcLittleEndian, 2, 16), (.alac, 2, 16), (.alac, 1, 16),
        (.alac, 2, 24), (.aac, 2, 16), (.aac, 1, 16),
    ])
    func decodesWhatTheReferenceDecoderDecodesAtItsExactLength(encoding: Encoding, channels: Int, bits: Int) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(encoding, in: folder, channels: channels, bits: bits)
            let decoder = try AudioFile.decoder(path: path, rate: nil)
            #expect(type(of: decoder) == Self.expectedType(encoding))
            #expect(decoder.length == 54_321, "the exact length, from the header before decoding")
            #expect(decoder.format.sampleRate == (encoding == .opus ? 48_000 : 44_100))
            let source = try #require(decoder as? FileDecoder).source
            #expect(source.channels == channels)
            let bitsInFile = [Encoding.wav8: 8, .wavFloat: 32, .wav32: 32][encoding] ?? bits
            if encoding.isLossless { #expect(source.bitsPerSample == bitsInFile) }
            let pcm = try decodeAll(decoder, chunk: 777)
            let reference = try AudioFixtures.reference(of: path, encoding: encoding, channels: channels, frames: 54_321)
            #expect(reference.frames == 54_321)
            #expect(pcm.count == 54_321 * 2)
            #expect(decoder.position == 54_321 && decoder.length == 54_321)
            let largest = largestDifference(pcm, reference.stereo16)
            #expect(largest != nil && largest! <= Self.tolerance(encoding), "\(encoding): \(difference(pcm, reference.stereo16) ?? "")")
            if channels == 1 { #expect(stride(from: 0, to: pcm.count, by: 2).allSatisfy { pcm[$0] == pcm[$0 + 1] }) }
            #expect(rms(pcm) > 5000, "a signal, not silence")
        }
    }

    // MARK: Gapless

    /// The album cut at `AudioFixtures.gaplessAlbumParts` (no codec's frame size divides them):
    /// each part has its exact length, and the parts joined are the uncut source (lossless) or
    /// the reference decoder's parts joined (lossy).
    @Test(arguments: [Encoding.flac, .oggFLAC, .wav16, .aiff, .vorbis, .opus, .alac, .aac])
    func aGaplessAlbumJoinsWithoutAGapOrAnOverlap(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let parts = try Self.album(encoding, in: folder)
            var joined: [Int16] = [], reference: [Int16] = []
            for (path, frames) in zip(parts.paths, AudioFixtures.gaplessAlbumParts) {
                let decoder = try AudioFile.decoder(path: path, rate: nil)
                #expect(decoder.length == frames, "\(path)")
                let pcm = try decodeAll(decoder, chunk: 1152)
                #expect(pcm.count == frames * 2, "\(path)")
                joined += pcm
                if !encoding.isLossless {
                    reference += try AudioFixtures.reference(of: path, encoding: encoding, channels: 2, frames: frames).stereo16
                }
            }
            if encoding.isLossless {
                #expect(difference(joined, try AudioFixtures.pcm(ofWAV: parts.source)) == nil)
            } else {
                let largest = largestDifference(joined, reference)
                #expect(largest != nil && largest! <= 1, "\(difference(joined, reference) ?? "")")
            }
        }
    }

    /// One sweep (44.1 kHz; 48 kHz for Opus) cut into the album's three parts, each encoded.
    static func album(_ encoding: Encoding, in folder: String) throws -> (paths: [String], source: String) {
        try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
        let source = try AudioFixtures.signal(folder + "/source/album.wav", frames: AudioFixtures.gaplessAlbumParts.reduce(0, +),
                                              rate: encoding == .opus ? 48_000 : 44_100)
        var start = 0
        let paths = try AudioFixtures.gaplessAlbumParts.enumerated().map { index, frames in
            let part = folder + "/source/album-\(index + 1).wav"
            try AudioFixtures.run("sox", [source, part, "trim", "\(start)s", "\(frames)s"])
            start += frames
            return try AudioFixtures.encode(part, as: encoding, to: folder + "/music/album-\(index + 1).\(encoding.suffix)")
        }
        return (paths, source)
    }

    /// The album in FLAC through the player to a WAV file: sample for sample the uncut source.
    /// Then a 48 kHz FLAC after it, resampled to the file's 44.1 kHz, at its resampled length.
    @Test func aFLACAlbumPlaysThroughThePlayerToAWAVFileSampleForSample() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let parts = try Self.album(.flac, in: folder)
            let (other, _) = try Self.make(.flac, in: folder, frames: 48_000, rate: 48_000, name: "48k")
            let rig = try Rig()
            rig.queue(parts.paths + [other])
            rig.engine.play()
            #expect(rig.engine.run() == .idle)
            let played = try rig.captured()
            let album = try AudioFixtures.pcm(ofWAV: parts.source)
            #expect(difference(Array(played.prefix(album.count)), album) == nil)
            #expect(played.count == album.count + 44_100 * 2, "the 48 kHz second as 44 100 frames")
            #expect(rig.ended.map(\.reason) == [.finished, .finished, .finished, .finished])
        }
    }

    // MARK: Seeking

    /// After a seek, the next frames are those of a decode from the start there. Exact for every
    /// format but Opus, whose decoder state after a seek converges on the continuous decode's
    /// (`OpusFrames.settle`) without a promise of being bit for bit the same: ±2 allowed.
    @Test(arguments: [(Encoding.flac, nil as Int?), (.oggFLAC, nil), (.vorbis, nil), (.opus, nil), (.wav24, nil), (.aiff, nil),
                      (.alac, nil), (.aac, nil), (.flac, 48_000), (.vorbis, 22_050), (.opus, 44_100), (.aac, 48_000)])
    func seekingToASampleGivesWhatADecodeFromTheStartGivesThere(encoding: Encoding, rate: Int?) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(encoding, in: folder, frames: 100_003)
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: rate))
            let length = full.count / 2
            let decoder = try AudioFile.decoder(path: path, rate: rate)
            #expect(decoder.length == length)
            let tolerance = encoding == .opus ? 2 : 0
            for target in [0, 1, 4095, 4096, 4097, 12_345, length - 1, length, length + 1000, 577, 0, 50_000, 99_000]
                + Array(stride(from: 0, to: length, by: 9973)).reversed() {
                try decoder.seek(toFrame: target)
                let start = min(target, length)
                #expect(decoder.position == start)
                var got: [Int16] = []
                var buffer = [Int16](repeating: 0, count: 1500 * 2)
                if case .frames(let frames) = try buffer.withUnsafeMutableBufferPointer({ try decoder.decode(into: $0) }) {
                    got = Array(buffer[0..<(frames * 2)])
                }
                let want = Array(full[(start * 2)..<min(full.count, start * 2 + got.count)])
                #expect(got.count == want.count && (start == length) == got.isEmpty, "seek to \(target)")
                let largest = largestDifference(got, want) ?? .max
                #expect(largest <= tolerance, "seek to \(target) in \(encoding): off by \(largest)")
            }
        }
    }

    // MARK: Channels

    /// A 5.1 file with sound in one channel only: the centre comes out equal on both sides, the
    /// front left on the left alone, the LFE not at all.
    @Test(arguments: [Encoding.flac, .wav16, .vorbis, .opus, .alac, .aac])
    func moreThanTwoChannelsAreDownmixedEachToItsSide(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: true)
            // WAV order: front left, front right, centre, LFE, back left, back right ("sine 0" is silence).
            for (name, loud) in [("centre", 2), ("left", 0), ("lfe", 3)] {
                let sines = (0..<6).flatMap { ["sine", $0 == loud ? "1000" : "0"] }
                let source = folder + "/source/\(name).wav"
                try AudioFixtures.run("sox", ["-R", "-D", "-r", "48000", "-c", "6", "-n", "-b", "16", source, "synth", "0.5"]
                                      + sines + ["vol", "0.5"])
                let path = try AudioFixtures.encode(source, as: encoding, to: folder + "/\(name).\(encoding.suffix)")
                let pcm = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
                let left = stride(from: 0, to: pcm.count, by: 2).map { pcm[$0] }
                let right = stride(from: 1, to: pcm.count, by: 2).map { pcm[$0] }
                // Lossy codecs leak a little between channels they code together.
                let leak = encoding.isLossless ? 1000.0 : 10
                let difference = zip(left, right).map { Int16(clamping: Int($0) - Int($1)) }
                switch name {
                case "centre":
                    #expect(rms(left) > 1000 && rms(difference) <= rms(left) / leak, "\(encoding): \(rms(difference))")
                case "left":
                    #expect(rms(left) > 1000, "\(encoding)")
                    #expect(rms(right) <= rms(left) / leak, "\(encoding): \(rms(right)) on the right")
                default:
                    #expect(rms(left) < 50 && rms(right) < 50, "\(encoding): the LFE is left out")
                }
            }
        }
    }

    // MARK: Resampling

    /// A 48 kHz 1 kHz tone forced to 44.1 kHz (and a 44.1 kHz one to 48 kHz): the resampled
    /// length, and the tone itself, in time (no delay) and clean (noise and distortion 80 dB
    /// under it, where 16-bit rounding alone leaves ~ 95 dB).
    @Test(arguments: [(48_000, 44_100), (44_100, 48_000), (22_050, 44_100), (96_000, 44_100)])
    func aForcedRateGivesTheRightLengthAndACleanTone(from source: Int, to target: Int) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let wav = folder + "/tone.wav", path = folder + "/tone.flac"
            try AudioFixtures.run("sox", ["-R", "-D", "-r", "\(source)", "-c", "2", "-n", "-b", "24", wav, "synth", "\(source)s",
                                          "sine", "1000", "vol", "0.5"])
            try AudioFixtures.encode(wav, as: .flac, to: path)
            let decoder = try AudioFile.decoder(path: path, rate: target)
            #expect(decoder.format.sampleRate == target)
            #expect(decoder.length == target, "one second at the new rate")
            let pcm = try decodeAll(decoder)
            #expect(pcm.count == target * 2)
            // Fit a·sin + b·cos of 1 kHz at the new rate away from the edges; what is left is noise.
            let left = stride(from: 0, to: pcm.count, by: 2).map { Double(pcm[$0]) }
            let range = (target / 10)..<(target * 9 / 10)
            var sinSum = 0.0, cosSum = 0.0
            for k in range {
                let phase = 2 * Double.pi * 1000 * Double(k) / Double(target)
                sinSum += left[k] * sin(phase)
                cosSum += left[k] * cos(phase)
            }
            let a = 2 * sinSum / Double(range.count), b = 2 * cosSum / Double(range.count)
            var noise = 0.0, signal = 0.0
            for k in range {
                let phase = 2 * Double.pi * 1000 * Double(k) / Double(target)
                let fit = a * sin(phase) + b * cos(phase)
                noise += (left[k] - fit) * (left[k] - fit)
                signal += fit * fit
            }
            #expect(abs(a - 16_384) < 20, "amplitude \(a)")
            #expect(abs(b) < 5, "in time: a cosine part of \(b) is a delay")
            #expect(10 * log10(signal / noise) > 80, "SNR \(10 * log10(signal / noise)) dB")
        }
    }

    // MARK: Bad input

    @Test(arguments: Encoding.allCases)
    func emptyAndRandomFilesGiveADecodeError(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let empty = folder + "/empty." + encoding.suffix
            try Data().write(to: URL(fileURLWithPath: empty))
            #expect(throws: DecodeError(path: empty, message: "empty file")) { try AudioFile.decoder(path: empty, rate: nil) }
            let noise = try AudioFixtures.corrupt(in: folder, name: "noise")
            let random = folder + "/noise." + encoding.suffix
            try FileManager.default.moveItem(atPath: noise, toPath: random)
            let error = try #require(throws: DecodeError.self) { try AudioFile.decoder(path: random, rate: nil) }
            #expect(error.message.hasPrefix("not a kind of audio songbox plays"), "\(error)")
        }
    }

    /// The right signature and then noise: each decoder refuses it, or plays what it can; none
    /// crashes or hangs.
    @Test(arguments: ["fLaC", "OggS\0\u{02}", "RIFF\u{10}\0\0\0WAVEfmt ", "FORM\0\0\0\u{10}AIFFCOMM", "\0\0\0\u{10}ftypM4A \0\0\0\0"])
    func aSignatureFollowedByNoiseIsRefused(signature: String) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let noise = try Data(contentsOf: URL(fileURLWithPath: try AudioFixtures.corrupt(in: folder, count: 100_000)))
            let path = folder + "/fake"
            try (Data(signature.utf8) + noise).write(to: URL(fileURLWithPath: path))
            do {
                let pcm = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
                #expect(pcm.count < 200_000)
            } catch let error as DecodeError {
                #expect(error.path == path && !error.message.isEmpty)
            }
        }
    }

    /// A file cut in half plays its first half (what a full decode has there) and ends; its
    /// length is then what there was.
    @Test(arguments: [Encoding.flac, .oggFLAC, .vorbis, .opus, .wav24, .aiff, .alac, .aac])
    func aTruncatedFilePlaysWhatItHas(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            // 10 s: Ogg pages hold up to a second, and half the file must keep whole pages.
            let (path, _) = try Self.make(encoding, in: folder, frames: 480_000)
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let cut = folder + "/cut." + encoding.suffix
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
            let decoder = try AudioFile.decoder(path: cut, rate: nil)
            let pcm = try decodeAll(decoder)
            #expect(pcm.count > full.count / 4 && pcm.count < full.count * 3 / 4, "\(pcm.count / 2) of \(full.count / 2) frames")
            // Lossy: the last packets before the cut end without the overlap that follows them.
            let compared = encoding.isLossless ? pcm.count : max(0, pcm.count - 4096 * 2)
            let largest = largestDifference(Array(pcm.prefix(compared)), Array(full.prefix(compared))) ?? .max
            #expect(largest <= Self.tolerance(encoding), "off by \(largest)")
            #expect(decoder.length == pcm.count / 2)
        }
    }

    /// Garbage over the middle of an Ogg file: the decoder skips it (a hole) or ends with an
    /// error, and what it gave before is the full decode's.
    @Test(arguments: [Encoding.vorbis, .opus, .oggFLAC, .flac])
    func garbageInTheMiddleIsSkippedOrAnError(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            // 10 s: Ogg pages hold up to a second, and half the file must keep whole pages.
            let (path, _) = try Self.make(encoding, in: folder, frames: 480_000)
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var state: UInt32 = 12_345
            for index in (bytes.count / 2)..<(bytes.count / 2 + 3000) {
                state = state &* 1_103_515_245 &+ 12_345
                bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let decoder = try AudioFile.decoder(path: path, rate: nil)
            var pcm: [Int16] = []
            var buffer = [Int16](repeating: 0, count: 2000)
            do {
                while case .frames(let frames) = try buffer.withUnsafeMutableBufferPointer({ try decoder.decode(into: $0) }) {
                    pcm += buffer[0..<(frames * 2)]
                    #expect(pcm.count <= full.count + 96_000, "no endless decode")
                    if pcm.count > full.count + 96_000 { break }
                }
            } catch {
                #expect((error as? DecodeError)?.message.isEmpty == false, "\(error)")
            }
            #expect(pcm.count > full.count / 3, "the first half plays")
            let before = full.count / 3
            let largest = largestDifference(Array(pcm.prefix(before)), Array(full.prefix(before))) ?? .max
            #expect(largest <= 1)
        }
    }

    /// A last page whose granule position lies (1: before the audio even starts) makes
    /// libopusfile refuse the file (as `opusdec` does): songbox reads it from the start as a
    /// stream instead, without a length or seeking, and plays its good pages (all but the last).
    @Test func anOpusFileWithALyingLastTimestampPlaysAsAStream() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(.opus, in: folder, frames: 480_000)
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            try AudioFixtures.settingLastGranule(of: path, to: 1)
            let decoder = try AudioFile.decoder(path: path, rate: nil)
            #expect(decoder.length == nil && !decoder.seekable)
            let pcm = try decodeAll(decoder)
            #expect(pcm.count > full.count * 8 / 10 && pcm.count <= full.count, "\(pcm.count / 2) of \(full.count / 2) frames")
            #expect(difference(pcm, Array(full.prefix(pcm.count))) == nil)
            #expect(throws: DecodeError.self) { try decoder.seek(toFrame: 1000) }
        }
    }

    /// A data chunk that claims more than the file holds: the file's frames play, and no more.
    @Test func aWAVWhoseDataChunkLiesPlaysWhatTheFileHolds() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(.wav16, in: folder, frames: 10_000)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            bytes[40...43] = [0xF0, 0xFF, 0xFF, 0xFF]  // data: 4 GB
            bytes[4...7] = [0xFF, 0xFF, 0xFF, 0xFF]
            try Data(bytes.dropLast(401)).write(to: URL(fileURLWithPath: path))
            let decoder = try AudioFile.decoder(path: path, rate: nil)
            #expect(decoder.length == 9899, "(40 000 - 401) / 4 whole frames")
            let pcm = try decodeAll(decoder)
            #expect(difference(pcm, Array(full.prefix(9899 * 2))) == nil)
        }
    }

    /// Headers whose numbers are impossible: refused by what they say, before any arithmetic.
    @Test(arguments: [("channels 0", 22, [0, 0]), ("rate 0", 24, [0, 0, 0, 0]), ("block align 1", 32, [1, 0]),
                      ("format 2 (ADPCM)", 20, [2, 0]), ("bits 0", 34, [0, 0])])
    func aWAVWithImpossibleNumbersIsRefused(name: String, offset: Int, bytes patch: [UInt8]) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let path = folder + "/bad.wav"
            try AudioFixtures.signal(path, frames: 1000)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes.replaceSubrange(offset..<(offset + patch.count), with: patch)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: DecodeError.self, "\(name)") { try AudioFile.decoder(path: path, rate: nil) }
            #expect(error.path == path && !error.message.isEmpty)
        }
    }

    /// Every format's file with bytes changed at many places, and cut at many lengths: each
    /// decodes fully or says why; nothing crashes, hangs or decodes far past the file's length.
    @Test(arguments: [Encoding.flac, .oggFLAC, .vorbis, .opus, .wav24, .aifcLittleEndian, .alac, .aac])
    func mutatedFilesNeverCrashOrHang(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(encoding, in: folder, frames: 8000)
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let mutant = folder + "/mutant." + encoding.suffix
            var state: UInt64 = 42
            func random(_ bound: Int) -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33) % bound
            }
            for round in 0..<120 {
                var bytes = original
                if round % 3 == 2 {
                    bytes = Array(bytes.prefix(random(bytes.count)))
                } else {
                    // Headers are most of the risk: half the changes land in the first 200 bytes.
                    for _ in 0..<(1 + random(8)) {
                        let at = round % 2 == 0 ? random(min(200, bytes.count)) : random(bytes.count)
                        bytes[at] = UInt8(random(256))
                    }
                }
                try Data(bytes).write(to: URL(fileURLWithPath: mutant))
                do {
                    // Now and then at a forced rate: a header's odd rate resampled.
                    let forced = round % 10 == 0
                    let decoder = try AudioFile.decoder(path: mutant, rate: forced ? 44_100 : nil)
                    let pcm = try decodeAll(decoder, chunk: 4096)
                    // At most 8000 frames of 24-bit stereo read as 8-bit mono, or raised from 1 kHz.
                    #expect(pcm.count <= 2 * (forced ? 48_000 * 45 : 48_000), "round \(round): \(pcm.count / 2) frames")
                    try decoder.seek(toFrame: 1000)
                } catch {
                    // A DecodeError names the file.
                    #expect((error as? DecodeError)?.path == mutant, "round \(round): \(error)")
                }
            }
        }
    }

    // MARK: MP4's boxes and tables

    /// An MP4 file whose boxes or sample tables lie: the scanner and the player agree. Each file
    /// is indexed at the length it plays (and plays that, sample for sample what the sound
    /// file held), or both refuse it with the reason; a table's claimed count is checked against
    /// its box before anything is allocated.
    @Test(arguments: [Encoding.alac, .aac])
    func anMP4WhoseBoxesOrTablesLiePlaysWhatTheScannerIndexes(encoding: Encoding) throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(encoding, in: folder, frames: 200_000)
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let full = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            /// The offset of the first box of `type` (its size field).
            func box(_ type: String, in bytes: [UInt8]) throws -> Int {
                let name = Array(type.utf8)
                return try #require((4..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(name) }) - 4
            }
            func put(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
                bytes.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: value.bigEndian) { Array($0) })
            }
            let cases: [(String, ([UInt8]) throws -> [UInt8], refused: String?)] = [
                ("stsz claims 4 billion packets", { bytes in
                    var bytes = bytes
                    put(0xFFFF_FFF0, at: try box("stsz", in: bytes) + 16, in: &bytes)
                    return bytes
                }, "the stsz table claims 4294967280 entries"),
                ("stco claims 4 billion chunks", { bytes in
                    var bytes = bytes
                    put(0xFFFF_FFF0, at: try box("stco", in: bytes) + 12, in: &bytes)
                    return bytes
                }, "the stco table claims 4294967280 entries"),
                ("the first chunk lies past the end", { bytes in
                    var bytes = bytes
                    put(UInt32(bytes.count + 1000), at: try box("stco", in: bytes) + 16, in: &bytes)
                    return bytes
                }, "packet 1 lies past the end of the file"),
                ("a packet claims 1 GB", { bytes in
                    var bytes = bytes
                    put(1 << 30, at: try box("stsz", in: bytes) + 20 + 4 * 10, in: &bytes)
                    return bytes
                }, nil),
                ("moov runs past the end", { bytes in
                    var bytes = bytes
                    put(0x7FFF_FFFF, at: try box("moov", in: bytes), in: &bytes)
                    return bytes
                }, "no MP4 movie atom (moov)"),
                ("trak runs past moov", { bytes in
                    var bytes = bytes
                    put(0x7FFF_FFFF, at: try box("trak", in: bytes), in: &bytes)
                    return bytes
                }, "an MP4 file without an AAC or ALAC sound track"),
                ("no sample description", { bytes in
                    var bytes = bytes
                    let at = try box("stsd", in: bytes)
                    bytes.replaceSubrange((at + 4)..<(at + 8), with: Array("free".utf8))
                    return bytes
                }, "an MP4 file without an AAC or ALAC sound track"),
                ("mdat cut short", { bytes in Array(bytes.prefix(bytes.count * 6 / 10)) }, nil),
            ]
            for (name, damage, refused) in cases {
                let damaged = folder + "/damaged.m4a"
                try Data(try damage(original)).write(to: URL(fileURLWithPath: damaged))
                let scanned: ProbedFile
                do {
                    scanned = try TrackFileReader().read(path: damaged)
                } catch {
                    #expect(refused != nil && "\(error)".contains(refused!), "\(name): \(error)")
                    let played = try #require(throws: DecodeError.self, "\(name)") { try AudioFile.decoder(path: damaged, rate: nil) }
                    #expect(refused != nil && played.message.contains(refused!), "\(name): \(played)")
                    continue
                }
                #expect(refused == nil, "\(name): indexed, not refused")
                let decoder = try AudioFile.decoder(path: damaged, rate: nil)
                let frames = Int((scanned.audio.duration * 44_100).rounded())
                #expect(decoder.length == frames && frames > 0, "\(name): \(String(describing: decoder.length)) against \(frames)")
                var pcm: [Int16] = []
                do { pcm = try decodeAll(decoder) } catch { Issue.record("\(name): \(error)") }
                #expect(pcm.count == frames * 2, "\(name): \(pcm.count / 2) frames played of \(frames)")
                if name == "mdat cut short" {
                    #expect(frames < 200_000 * 7 / 10 && frames > 200_000 / 2, "\(name): \(frames)")
                    #expect(scanned.warnings.contains { $0.contains("past the end of the file") }, "\(scanned.warnings)")
                    let largest = largestDifference(pcm, Array(full.prefix(pcm.count))) ?? .max
                    #expect(largest <= Self.tolerance(encoding), "\(name): off by \(largest)")
                }
            }
        }
    }

    /// A million `mdia` boxes nested in one another (8 MB): not followed down, so no stack
    /// overflows; the scanner and the player both say there is no sound track.
    @Test func boxesNestedAMillionDeepAreNotFollowed() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let depth = 1_000_000
            func header(_ size: Int, _ type: String) -> [UInt8] {
                withUnsafeBytes(of: UInt32(size).bigEndian) { Array($0) } + Array(type.utf8)
            }
            var bytes = header(16, "ftyp") + Array("M4A ".utf8) + [0, 0, 0, 0]
            bytes += header(8 * (depth + 2), "moov") + header(8 * (depth + 1), "trak")
            bytes.reserveCapacity(bytes.count + 8 * depth)
            for level in 0..<depth { bytes += header(8 * (depth - level), "mdia") }
            let path = folder + "/deep.m4a"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let scanned = try #require(throws: SongboxError.self) { try TrackFileReader().read(path: path) }
            #expect(scanned.message.contains("without an AAC or ALAC sound track"), "\(scanned)")
            let played = try #require(throws: DecodeError.self) { try AudioFile.decoder(path: path, rate: nil) }
            #expect(played.message == "an MP4 file without an AAC or ALAC sound track")
        }
    }

    /// iTunes says the encoder's delay, padding and length in `iTunSMPB`, which comes before the
    /// edit list: the same file with it plays the window it names, sample for sample what the
    /// edit list's decode has there, and the scanner says that length.
    @Test func iTunSMPBsDelayAndLengthAreWhatPlays() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (path, _) = try Self.make(.aac, in: folder, frames: 54_321)
            let edited = try decodeAll(try AudioFile.decoder(path: path, rate: nil))
            // ffmpeg's delay is 1,024 (the edit list's start): 100 more, and 50,000 samples.
            let script = """
                import sys
                from mutagen.mp4 import MP4, MP4FreeForm
                audio = MP4(sys.argv[1])
                audio["----:com.apple.iTunes:iTunSMPB"] = [MP4FreeForm(b" 00000000 00000464 00000000 000000000000C350 00000000")]
                audio.save()
                """
            let tagged = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", script, path])
            try #require(tagged.status == 0, "mutagen: \(tagged.stderr)")
            let decoder = try AudioFile.decoder(path: path, rate: nil)
            #expect(decoder.length == 50_000)
            let pcm = try decodeAll(decoder)
            #expect(pcm.count == 50_000 * 2)
            #expect(difference(pcm, Array(edited[(100 * 2)..<(50_100 * 2)])) == nil)
            #expect(try TrackFileReader().read(path: path).audio.duration == 50_000.0 / 44_100)
        }
    }

    // MARK: Choosing the decoder

    /// By content: a FLAC file named .mp3 plays as FLAC, an MP3 named .flac as MP3; an MP4
    /// without its movie and an Ogg of another codec are named for what they are.
    @Test func theDecoderIsChosenByWhatTheFileHolds() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let (flac, _) = try Self.make(.flac, in: folder, frames: 1000)
            let misnamed = folder + "/flac.mp3"
            try FileManager.default.copyItem(atPath: flac, toPath: misnamed)
            #expect(try AudioFile.decoder(path: misnamed, rate: nil) is FLACDecoder)
            let mp3 = try AudioFixtures.tone(in: folder, name: "tone", seconds: 0.2)
            let misnamedMP3 = folder + "/tone.flac"
            try FileManager.default.copyItem(atPath: mp3, toPath: misnamedMP3)
            #expect(try AudioFile.decoder(path: misnamedMP3, rate: nil) is MP3Decoder)
            // An ID3v2 tag before a FLAC stream (some taggers write one).
            let tagged = folder + "/tagged.flac"
            let tag: [UInt8] = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10)
            try (Data(tag) + Data(contentsOf: URL(fileURLWithPath: flac))).write(to: URL(fileURLWithPath: tagged))
            let decoder = try AudioFile.decoder(path: tagged, rate: nil)
            #expect(decoder is FLACDecoder)
            #expect(try decodeAll(decoder) == (try decodeAll(try AudioFile.decoder(path: flac, rate: nil))))

            let mp4 = folder + "/song.m4a"
            try Data([0, 0, 0, 0x20] + Array("ftypM4A ".utf8) + [UInt8](repeating: 0, count: 40)).write(to: URL(fileURLWithPath: mp4))
            #expect(throws: DecodeError(path: mp4, message: "no MP4 movie atom (moov): not an MP4 file, or a damaged one")) {
                try AudioFile.decoder(path: mp4, rate: nil)
            }
            let speex = folder + "/speex.ogg"
            let page: [UInt8] = Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 20) + [1, 80] + Array("Speex   ".utf8)
            try Data(page + [UInt8](repeating: 0, count: 72)).write(to: URL(fileURLWithPath: speex))
            let error = try #require(throws: DecodeError.self) { try AudioFile.decoder(path: speex, rate: nil) }
            #expect(error.message == "not a kind of audio songbox plays: an Ogg stream of a codec it does not know (not Vorbis, Opus or FLAC)")
        }
    }

    /// What MPD's `decoders` will list.
    @Test func theKindsPlayedAreListedWithTheirSuffixesAndMIMETypes() {
        let suffixes = Set(AudioFile.kinds.flatMap(\.suffixes))
        for suffix in ["mp3", "flac", "ogg", "oga", "opus", "wav", "aiff", "aif", "m4a", "m4b", "mp4"] { #expect(suffixes.contains(suffix), "\(suffix)") }
        #expect(AudioFile.kinds.map(\.plugin) == ["mpg123", "flac", "oggflac", "vorbis", "opus", "mp4", "pcm"])
        #expect(AudioFile.kinds.allSatisfy { !$0.mimeTypes.isEmpty && $0.mimeTypes.allSatisfy { $0.contains("/") } })
    }
}
