import Foundation

/// Writes a 16-bit stereo PCM WAV file with the canonical 44-byte header.
///
/// The first `open` creates (or truncates) the file and fixes its rate: afterwards
/// `requiredFormat` makes the player resample everything to it. Opening again after `close`
/// appends, so the player may close and re-open around a pause. The header's sizes are patched
/// on `drain`, on `close` and after every second of audio, so even a killed process leaves a
/// file that players read up to its last second.
public final class WAVOutput: AudioOutput {
    public let path: String
    public var spec: String { OutputSpec.wav(path: path).description }
    public let pacesItself = false
    /// The format of the file, once the first `open` has created it.
    public private(set) var requiredFormat: AudioFormat?

    private static let headerSize = 44
    /// The data size field is 32 bits (and the RIFF size adds 36 to it).
    private static let maximumDataSize = (Int(UInt32.max) - 36) / AudioFormat.bytesPerFrame * AudioFormat.bytesPerFrame

    private var descriptor: Int32 = -1
    /// Bytes of samples in the file.
    private var dataSize = 0
    /// `dataSize` as the header on disk last said.
    private var patchedDataSize = 0

    /// Makes the output; the file is created by the first `open`, so this never fails.
    public init(path: String) {
        self.path = path
    }

    deinit { close() }

    public func open(_ format: AudioFormat) throws(AudioOutputError) {
        if let fixed = requiredFormat, fixed != format {
            throw .failed("WAV file \"\(path)\" is \(fixed.sampleRate) Hz: it cannot take \(format.sampleRate) Hz")
        }
        guard descriptor < 0 else { return }
        let first = requiredFormat == nil
        let fd = posixOpen(path, O_WRONLY | O_CREAT | O_CLOEXEC | (first ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw failure(first ? "cannot create" : "cannot open", errno) }
        descriptor = fd
        // Append after what is there, in whole frames (a full disk may have split the last one).
        let size = Int(lseek(fd, 0, SEEK_END))
        dataSize = max(0, size - Self.headerSize) / AudioFormat.bytesPerFrame * AudioFormat.bytesPerFrame
        do throws(AudioOutputError) {
            try writeHeader(format)
        } catch {
            close()
            throw error
        }
        requiredFormat = format
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioOutputError) {
        guard descriptor >= 0, let format = requiredFormat else {
            throw .failed("WAV file \"\(path)\" written before it was opened")
        }
        // WAV is little-endian, as are the machines songbox runs on (ARM and x86 Linux).
        let bytes = UnsafeRawBufferPointer(samples)
        guard dataSize + bytes.count <= Self.maximumDataSize else {
            throw .failed("WAV file \"\(path)\" is full: the format stops at 4 GiB (start another file)")
        }
        if let code = writeAll(bytes, at: Self.headerSize + dataSize) { throw failure("cannot write", code) }
        dataSize += bytes.count
        if dataSize - patchedDataSize >= format.sampleRate * AudioFormat.bytesPerFrame {
            try patchSizes()
        }
    }

    /// Nothing is buffered in the process: this only brings the header up to date.
    public func drain() {
        try? patchSizes()
    }

    /// What is written is in the file; there is nothing to take back.
    public func discard() {}

    public func close() {
        guard descriptor >= 0 else { return }
        try? patchSizes()
        _ = posixClose(descriptor)
        descriptor = -1
    }

    /// The whole 44-byte header, for the current `dataSize`.
    private func writeHeader(_ format: AudioFormat) throws(AudioOutputError) {
        var header: [UInt8] = []
        func append(_ text: String) { header += Array(text.utf8) }
        func append32(_ value: Int) { header += Self.littleEndian(UInt32(value)) }
        func append16(_ value: Int) { header += Self.littleEndian(UInt16(value)) }
        append("RIFF"); append32(36 + dataSize); append("WAVE")
        append("fmt "); append32(16)
        append16(1)  // PCM
        append16(AudioFormat.channels)
        append32(format.sampleRate)
        append32(format.sampleRate * AudioFormat.bytesPerFrame)  // bytes per second
        append16(AudioFormat.bytesPerFrame)  // block align
        append16(16)  // bits per sample
        append("data"); append32(dataSize)
        try writeAll(header, at: 0)
        patchedDataSize = dataSize
    }

    /// Rewrites the RIFF and data sizes.
    private func patchSizes() throws(AudioOutputError) {
        guard descriptor >= 0, dataSize != patchedDataSize else { return }
        try writeAll(Self.littleEndian(UInt32(36 + dataSize)), at: 4)
        try writeAll(Self.littleEndian(UInt32(dataSize)), at: 40)
        patchedDataSize = dataSize
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int) throws(AudioOutputError) {
        if let code = bytes.withUnsafeBytes({ writeAll($0, at: offset) }) { throw failure("cannot write", code) }
    }

    /// Writes every byte at `offset`; returns the errno of a failure.
    private func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32? {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += count
        }
        return nil
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private func failure(_ what: String, _ code: Int32) -> AudioOutputError {
        .failed("\(what) WAV file \"\(path)\": \(String(cString: strerror(code)))")
    }
}

// File-scope names for the C calls that the protocol's `open` and `close` shadow in the class.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func posixClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
