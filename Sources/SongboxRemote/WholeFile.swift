import Foundation
import SongboxAudio
import SongboxFiles

/// A file from the network that is played only once it is all here: an MP4 (its index may
/// come last), a WAV or an AIFF. Its bytes are gathered in memory (a file in /dev/shm, unlinked
/// at once; never the SD card), then it is opened as a file here is, so it has its length and seeks
/// like one. A file larger than `largest` is refused: its place is the offline cache.
final class WholeFile {
    /// 256 MiB: an hour of CD audio as WAV or ALAC fits, most albums' tracks many times over.
    static let largest = 256 << 20

    private let url: String
    private let descriptor: Int32
    private(set) var size = 0

    /// Whether the first bytes of a file are of a kind that must be read whole.
    static func isWhole(_ bytes: [UInt8]) -> Bool {
        switch AudioContainer.sniff({ offset, count in Array(bytes.dropFirst(offset).prefix(count)) }) {
        case .mp4, .wav, .aiff: true
        default: false
        }
    }

    init(url: String, length: Int?) throws(DecodeError) {
        self.url = url
        guard let length else {
            throw DecodeError(path: TrackLocation.shown(url), message: "an MP4, WAV or AIFF stream with no length, which songbox cannot play before it ends")
        }
        guard length <= Self.largest else {
            throw DecodeError(path: TrackLocation.shown(url),
                              message: "an MP4, WAV or AIFF file of \(length >> 20) MiB plays from the network only up to \(Self.largest >> 20) MiB; keep it offline (songbox cache add) to play it")
        }
        // In /dev/shm (memory), unlinked at once: nothing is left behind, whatever happens.
        var template = Array("/dev/shm/songbox-remote-XXXXXX".utf8CString)
        descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw DecodeError(path: TrackLocation.shown(url), message: "no memory file for it in /dev/shm: \(String(cString: strerror(errno)))")
        }
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    deinit { close(descriptor) }

    func append(_ bytes: [UInt8]) throws(DecodeError) {
        guard size + bytes.count <= Self.largest else {
            throw DecodeError(path: TrackLocation.shown(url), message: "the server sent more than the \(Self.largest >> 20) MiB it said")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            guard count > 0 else {
                throw DecodeError(path: TrackLocation.shown(url), message: "could not hold it in memory: \(String(cString: strerror(errno)))")
            }
            written += count
        }
        size += written
    }

    /// The file's decoder, at `rate`; its errors name the URL.
    func open(rate: Int) throws(DecodeError) -> any TrackDecoder {
        do {
            return try AudioFile.decoder(path: "/proc/self/fd/\(descriptor)", rate: rate)
        } catch {
            throw DecodeError(path: TrackLocation.shown(url), message: error.message)
        }
    }
}
