import Foundation
import SongboxTestSupport
import Testing
@testable import SongboxAudio

/// The outputs against real files, pipes and ALSA's own `null` and `file` PCMs: no mocks.
@Suite struct OutputTests {
    /// `frames` stereo frames of a pattern where every sample differs from its neighbours.
    static func samples(frames: Int, seed: Int = 0) -> [Int16] {
        (0..<frames * 2).map { Int16(truncatingIfNeeded: ($0 + seed) &* 7919) }
    }

    static func bytes(_ samples: [Int16]) -> [UInt8] {
        samples.withUnsafeBytes { Array($0) }
    }

    static func write(_ output: any AudioOutput, _ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { try output.write($0) }
    }

    /// nil when equal, else a short account (arrays of audio are too long to print).
    static func difference(_ got: [UInt8]?, _ expected: [UInt8]) -> String? {
        guard let got else { return "nothing (the reader did not finish)" }
        if got == expected { return nil }
        let index = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(got.count, expected.count)
        return "\(got.count) bytes instead of \(expected.count), first difference at byte \(index)"
    }

    /// The message of a `.failed` error; nil for anything else.
    static func failedMessage(_ error: AudioOutputError?) -> String? {
        if case .failed(let message) = error { message } else { nil }
    }

    static func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func littleEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
        (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    @Test func specsMakeTheirOutputsWithoutTouchingAnything() {
        #expect(OutputSpec.alsa(device: "songbox-no-such-device").makeOutput() is ALSAOutput)
        #expect(OutputSpec.wav(path: "/no/such/folder/a.wav").makeOutput() is WAVOutput)
        #expect(OutputSpec.fifo(path: "/no/such/folder/fifo").makeOutput() is FIFOOutput)
        #expect(OutputSpec.null.makeOutput().spec == "null")
        #expect(OutputSpec.wav(path: "/tmp/a.wav").makeOutput().spec == "wav:/tmp/a.wav")
    }

    @Test func nullOutputCountsFrames() throws {
        let output = NullOutput()
        try output.open(AudioFormat(sampleRate: 44_100))
        try Self.write(output, Self.samples(frames: 1000))
        try Self.write(output, Self.samples(frames: 24))
        #expect(output.framesWritten == 1024)
        #expect(output.format == AudioFormat(sampleRate: 44_100))
        output.close()
        #expect(output.format == nil && !output.pacesItself && output.requiredFormat == nil)
    }
}

@Suite struct WAVOutputTests {
    @Test func writesACanonicalHeaderAndTheSamples() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.wav"
        let output = WAVOutput(path: path)
        #expect(output.requiredFormat == nil)
        try output.open(AudioFormat(sampleRate: 22_050))
        #expect(output.requiredFormat == AudioFormat(sampleRate: 22_050))
        // More than a second, so the periodic header patch runs too.
        let samples = OutputTests.samples(frames: 30_000)
        try OutputTests.write(output, samples)
        output.close()

        let file = try OutputTests.contents(path)
        let field = { (offset: Int, size: Int) in OutputTests.littleEndian(file, at: offset, size: size) }
        #expect(file.count == 44 + 120_000)
        #expect(Array(file[0..<4]) == Array("RIFF".utf8) && Array(file[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(field(4, 4) == 36 + 120_000)
        #expect(field(16, 4) == 16 && field(20, 2) == 1)  // fmt chunk size, PCM
        #expect(field(22, 2) == 2 && field(24, 4) == 22_050)  // channels, rate
        #expect(field(28, 4) == 22_050 * 4 && field(32, 2) == 4 && field(34, 2) == 16)  // byte rate, block, bits
        #expect(Array(file[36..<40]) == Array("data".utf8) && field(40, 4) == 120_000)
        #expect(OutputTests.difference(Array(file[44...]), OutputTests.bytes(samples)) == nil)
    }

    @Test func reopeningAppendsAndKeepsTheRate() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.wav"
        let format = AudioFormat(sampleRate: 48_000)
        let first = OutputTests.samples(frames: 100), second = OutputTests.samples(frames: 50, seed: 3)
        let output = WAVOutput(path: path)
        try output.open(format)
        try OutputTests.write(output, first)
        output.drain()
        // drain() alone leaves a complete file.
        #expect(OutputTests.littleEndian(try OutputTests.contents(path), at: 40, size: 4) == 400)
        output.close()
        try output.open(format)
        try OutputTests.write(output, second)
        output.close()

        let file = try OutputTests.contents(path)
        #expect(OutputTests.littleEndian(file, at: 40, size: 4) == 600)
        #expect(OutputTests.littleEndian(file, at: 4, size: 4) == 636)
        #expect(OutputTests.difference(Array(file[44...]), OutputTests.bytes(first + second)) == nil)
        #expect(output.requiredFormat == format)
        #expect(throws: AudioOutputError.self) { try output.open(AudioFormat(sampleRate: 44_100)) }
    }

    @Test func aFreshOutputTruncatesAnOldFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.wav"
        try Data(repeating: 0x55, count: 1000).write(to: URL(fileURLWithPath: path))
        let output = WAVOutput(path: path)
        try output.open(AudioFormat(sampleRate: 44_100))
        output.close()
        #expect(try OutputTests.contents(path).count == 44)
    }

    @Test func anUnwritablePathFailsNamingIt() throws {
        let path = "/nonexistent-songbox-folder/out.wav"
        let output = WAVOutput(path: path)
        let error = #expect(throws: AudioOutputError.self) { try output.open(AudioFormat(sampleRate: 44_100)) }
        let message = try #require(OutputTests.failedMessage(error))
        #expect(message == "cannot create WAV file \"\(path)\": No such file or directory")
    }
}

/// Reads a FIFO to its end on a thread of its own (a blocking reader, as snapserver is).
final class FIFOReader: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private let opened = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Returns once the reader has the FIFO open (a writer must have it open already), so
    /// what is written from now on reaches it.
    init(path: String) {
        // Written by the thread only; read after `finished`, which orders the two.
        Thread { [self] in
            let handle = FileHandle(forReadingAtPath: path)
            opened.signal()
            if let handle { bytes = Array(handle.readDataToEndOfFile()) }
            finished.signal()
        }.start()
        _ = opened.wait(timeout: .now() + 30)
    }

    /// What was read once the writer closed, or nil if the reader did not finish in time.
    func result() -> [UInt8]? {
        finished.wait(timeout: .now() + 30) == .success ? bytes : nil
    }
}

@Suite struct FIFOOutputTests {
    @Test func aReaderGetsTheExactBytes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/snapfifo"
        let output = FIFOOutput(path: path)
        #expect(output.requiredFormat == AudioFormat(sampleRate: 48_000))
        try output.open(AudioFormat(sampleRate: 48_000))  // creates the FIFO, no reader yet
        let reader = FIFOReader(path: path)
        // Several times the pipe's 64 KiB, so writes wait for the reader to make room.
        let samples = OutputTests.samples(frames: 100_000)
        try OutputTests.write(output, samples)
        output.close()
        #expect(OutputTests.difference(reader.result(), OutputTests.bytes(samples)) == nil)
    }

    @Test func withoutAReaderWritingDropsInsteadOfBlocking() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/snapfifo"
        let output = FIFOOutput(path: path)
        try output.open(AudioFormat(sampleRate: 48_000))
        // Five seconds of audio, 30 times what the pipe holds: returns once the pipe stays full.
        try OutputTests.write(output, OutputTests.samples(frames: 240_000))
        // discard() empties what nobody read: a reader that comes now gets only new audio.
        output.discard()
        let reader = FIFOReader(path: path)
        let fresh = OutputTests.samples(frames: 1000, seed: 5)
        try OutputTests.write(output, fresh)
        output.close()
        #expect(OutputTests.difference(reader.result(), OutputTests.bytes(fresh)) == nil)
    }

    @Test func aPathThatIsNotAFIFOIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/regular"
        try Data("not a pipe".utf8).write(to: URL(fileURLWithPath: path))
        let output = FIFOOutput(path: path)
        let error = #expect(throws: AudioOutputError.self) { try output.open(AudioFormat(sampleRate: 48_000)) }
        let message = try #require(OutputTests.failedMessage(error))
        #expect(message.contains("\"\(path)\" exists and is not a FIFO"))
        #expect(try OutputTests.contents(path) == Array("not a pipe".utf8))
    }

    @Test func anotherRateIsRefused() throws {
        let output = FIFOOutput(path: "/nonexistent-songbox-folder/fifo")
        #expect(throws: AudioOutputError.self) { try output.open(AudioFormat(sampleRate: 44_100)) }
    }
}

@Suite struct ALSAOutputTests {
    @Test func playsAndReopensAtAnotherRateOnTheNullDevice() throws {
        let output = ALSAOutput(device: "null")
        #expect(output.pacesItself && output.requiredFormat == nil)
        try output.open(AudioFormat(sampleRate: 44_100))
        try OutputTests.write(output, OutputTests.samples(frames: 30_000))
        output.drain()
        // Still usable after a drain (ALSA leaves a drained PCM stopped until prepared).
        try OutputTests.write(output, OutputTests.samples(frames: 1000))
        output.discard()
        try OutputTests.write(output, OutputTests.samples(frames: 1000))
        try output.open(AudioFormat(sampleRate: 48_000))
        #expect(output.format == AudioFormat(sampleRate: 48_000))
        try OutputTests.write(output, OutputTests.samples(frames: 30_000))
        output.drain()
        output.close()
        #expect(output.format == nil)
        try output.open(AudioFormat(sampleRate: 96_000))
        output.close()
    }

    /// ALSA's `file` PCM (built into alsa-lib's alsa.conf) records what is played, here as raw bytes.
    @Test func theFilePluginRecordsTheExactBytes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/played.raw"
        let output = ALSAOutput(device: "file:'\(path)',raw")
        try output.open(AudioFormat(sampleRate: 44_100))
        let first = OutputTests.samples(frames: 50_000), second = OutputTests.samples(frames: 777, seed: 1)
        try OutputTests.write(output, first)
        try OutputTests.write(output, second)
        output.drain()
        output.close()
        #expect(OutputTests.difference(try OutputTests.contents(path), OutputTests.bytes(first + second)) == nil)
    }

    /// Through the `file` PCM in WAV mode, the header ALSA writes shows the rate the PCM runs at.
    @Test func reopeningAtAnotherRateReallyChangesTheRate() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/played.wav"
        let output = ALSAOutput(device: "file:'\(path)',wav")
        try output.open(AudioFormat(sampleRate: 44_100))
        try OutputTests.write(output, OutputTests.samples(frames: 1000))
        // The re-open truncates the file (alsa.conf's defaults.pcm.file_truncate).
        try output.open(AudioFormat(sampleRate: 32_000))
        let samples = OutputTests.samples(frames: 500, seed: 2)
        try OutputTests.write(output, samples)
        output.drain()
        output.close()
        let file = try OutputTests.contents(path)
        #expect(file.count == 44 + 2000)
        #expect(OutputTests.littleEndian(file, at: 24, size: 4) == 32_000)
        #expect(OutputTests.difference(Array(file[44...]), OutputTests.bytes(samples)) == nil)
    }

    @Test func aMissingDeviceIsUnavailableAndALSAStaysQuiet() throws {
        let output = ALSAOutput(device: "songbox-no-such-device")
        let (error, printed) = try Self.capturingStandardError {
            #expect(throws: AudioOutputError.self) { try output.open(AudioFormat(sampleRate: 44_100)) }
        }
        #expect(error == .unavailable("""
            cannot open ALSA device "songbox-no-such-device": No such file or directory \
            (list the devices with `aplay -L`)
            """))
        #expect(!printed.contains("ALSA lib"), "alsa-lib printed: \(printed)")
        #expect(output.format == nil)
        #expect(throws: AudioOutputError.self) { try OutputTests.write(output, OutputTests.samples(frames: 10)) }
    }

    /// Runs `body` with file descriptor 2 sent to a file, and returns what was printed. Tests
    /// run in parallel, so anything else printed meanwhile is passed on to the real stderr.
    static func capturingStandardError<T>(_ body: () throws -> T) throws -> (T, String) {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/stderr"
        try Data().write(to: URL(fileURLWithPath: path))
        let capture = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let saved = dup(2)
        dup2(capture.fileDescriptor, 2)
        let result = Result { try body() }
        dup2(saved, 2)
        Foundation.close(saved)
        try capture.close()
        let printed = try String(contentsOfFile: path, encoding: .utf8)
        let others = printed.split(separator: "\n").filter { !$0.hasPrefix("ALSA lib") }
        if !others.isEmpty { FileHandle.standardError.write(Data((others.joined(separator: "\n") + "\n").utf8)) }
        return (try result.get(), printed)
    }
}
