import Foundation

/// What libmpg123 reads in place of a file: the replacement ID3v2 tag when there is one, then
/// the file from where its audio begins (`ID3v2Plan.audioStart`). The scanner hands it the
/// rewritten tag; the player no tag at all, from the same start: one piece decides where a
/// file's audio begins, so what the scanner indexes the player plays. Owns nothing but the descriptor number (the reader
/// closes the file), the replacement bytes and offsets.
public final class VirtualStream {
    private let fd: Int32
    private let prefix: [UInt8]
    /// Where the file goes on after the prefix.
    private let fileOffset: Int
    /// The length of the stream: the prefix and the rest of the file.
    private let length: Int
    private var position = 0
    /// File bytes read ahead. libmpg123 reads a frame header, then a frame, and counting the
    /// frames of a file without an Info header is two reads per frame: from this buffer they
    /// cost no system call.
    private let buffer: UnsafeMutableRawBufferPointer
    /// Stream offsets held in `buffer`.
    private var buffered = 0..<0

    /// Frees `buffer` at the end when the stream made it.
    private let ownsBuffer: Bool

    /// `buffer`: the read-ahead buffer, kept by the caller (one reader's streams share one);
    /// nil: the stream makes and frees a 64 KiB one of its own.
    public init(fd: Int32, prefix: [UInt8], fileOffset: Int, fileSize: Int, buffer: UnsafeMutableRawBufferPointer? = nil) {
        self.fd = fd
        self.prefix = prefix
        self.fileOffset = min(max(0, fileOffset), fileSize)
        self.length = prefix.count + fileSize - self.fileOffset
        self.buffer = buffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        ownsBuffer = buffer == nil
    }

    deinit {
        if ownsBuffer { buffer.deallocate() }
    }

    /// Back to the start of the stream (what is read ahead stays good: it is the file's bytes).
    public func rewind() { position = 0 }

    /// POSIX read for libmpg123: up to `count` bytes, 0 at the end, -1 on an error.
    nonisolated(unsafe) public static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int = {
        context, buffer, count in
        guard let context, let buffer else { return -1 }
        return Unmanaged<VirtualStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: count)
    }

    /// POSIX lseek for libmpg123: SEEK_SET, SEEK_CUR and SEEK_END over the stream's length.
    nonisolated(unsafe) public static let seek: @convention(c) (UnsafeMutableRawPointer?, off_t, Int32) -> off_t = { context, offset, whence in
        guard let context else { return -1 }
        return off_t(Unmanaged<VirtualStream>.fromOpaque(context).takeUnretainedValue()
            .seek(to: Int(offset), whence: whence))
    }

    private func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        guard count > 0, position < length else { return 0 }
        if position < prefix.count {
            let n = min(count, prefix.count - position)
            prefix.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
            position += n
            return n
        }
        if !buffered.contains(position) {
            guard refill(at: position) else { return -1 }
            if buffered.isEmpty { return 0 }
        }
        let n = min(count, buffered.upperBound - position)
        destination.copyMemory(from: buffer.baseAddress! + (position - buffered.lowerBound), byteCount: n)
        position += n
        return n
    }

    /// Reads the file from stream offset `start` into the buffer.
    private func refill(at start: Int) -> Bool {
        let wanted = min(buffer.count, length - start)
        while true {
            let got = pread(fd, buffer.baseAddress, wanted, off_t(fileOffset + start - prefix.count))
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return false }
            buffered = start..<(start + got)
            return true
        }
    }

    private func seek(to offset: Int, whence: Int32) -> Int {
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = length
        default:
            errno = EINVAL
            return -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0 else {
            errno = EINVAL
            return -1
        }
        position = target
        return target
    }
}
