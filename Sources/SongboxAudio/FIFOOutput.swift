import Foundation

/// Writes raw PCM (no header) into a named pipe, for Snapcast's snapserver (whose default
/// `sampleformat` is 48000:16:2) or anything else that reads a pipe.
///
/// A live stream, like MPD's fifo output: it never holds the player up for long. The pipe is
/// opened read-write, so opening does not wait for a reader and writing never gets EPIPE when
/// one goes away; writes are non-blocking, and when the pipe stays full for longer than the
/// audio being written lasts (nobody reads, or the reader stalled), the rest is dropped.
public final class FIFOOutput: AudioOutput {
    public let path: String
    public let format: AudioFormat
    public var spec: String { OutputSpec.fifo(path: path).description }
    public let pacesItself = false
    /// The reader expects one fixed format: the player resamples every track to it.
    public var requiredFormat: AudioFormat? { format }

    /// The longest wait for a reader to make room, whatever the length of a write.
    private static let maximumWait = 0.5
    /// Writes up to `PIPE_BUF` bytes are all-or-nothing, so a dropped write never splits a frame.
    private static let chunkSize = Int(PIPE_BUF) / AudioFormat.bytesPerFrame * AudioFormat.bytesPerFrame

    private var descriptor: Int32 = -1

    /// Makes the output; the FIFO is created or opened by `open`, so this never fails.
    public init(path: String, format: AudioFormat = AudioFormat(sampleRate: 48_000)) {
        self.path = path
        self.format = format
    }

    deinit { close() }

    public func open(_ format: AudioFormat) throws(AudioOutputError) {
        guard format == self.format else {
            throw .failed("FIFO \"\(path)\" carries \(self.format): it cannot take \(format.sampleRate) Hz audio")
        }
        guard descriptor < 0 else { return }
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw failure("cannot use", errno) }
            guard mkfifo(path, 0o666) == 0 else { throw failure("cannot create", errno) }
        } else if info.st_mode & S_IFMT != S_IFIFO {
            throw .failed("\"\(path)\" exists and is not a FIFO: remove it or choose another path for fifo:PATH")
        }
        // Read-write: on Linux this succeeds without a reader (write-only would block or fail).
        let fd = fifoOpen(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open", errno) }
        descriptor = fd
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioOutputError) {
        guard descriptor >= 0 else { throw .failed("FIFO \"\(path)\" written before it was opened") }
        let bytes = UnsafeRawBufferPointer(samples)
        let duration = Double(samples.count / AudioFormat.channels) / Double(format.sampleRate)
        let wait = Int32(min(duration, Self.maximumWait) * 1000)
        var done = 0
        while done < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress! + done, min(Self.chunkSize, bytes.count - done))
            if count >= 0 {
                done += count
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                // Full: wait for room; if none comes in time, drop what is left.
                var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&request, 1, wait)
                if ready == 0 { return }
                if ready < 0, errno != EINTR { throw failure("cannot wait for", errno) }
            case let code:
                throw failure("cannot write to", code)
            }
        }
    }

    /// The reader keeps its own pace: there is nothing to wait for.
    public func drain() {}

    /// Empties the pipe, so audio that nobody has read yet is not heard later (this output is a
    /// reader of its own pipe, see above).
    public func discard() {
        guard descriptor >= 0 else { return }
        var scrap = [UInt8](repeating: 0, count: Int(PIPE_BUF))
        while read(descriptor, &scrap, scrap.count) > 0 {}
    }

    /// Closes the pipe; the FIFO itself stays for the reader, which opens it by path.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = fifoClose(descriptor)
        descriptor = -1
    }

    private func failure(_ what: String, _ code: Int32) -> AudioOutputError {
        .failed("\(what) FIFO \"\(path)\": \(String(cString: strerror(code)))")
    }
}

// File-scope names for the C calls that the protocol's `open` and `close` shadow in the class.
private func fifoOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func fifoClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
