import CMPG123
import Foundation

/// What reading one file gives: tags and audio facts, or why it could not be read.
public struct ProbedFile: Sendable {
    public var tags: FileTags
    public var audio: AudioFacts
    /// Things worth telling the user that did not stop the file from being indexed.
    public var warnings: [String] = []
}

/// Reads tags and audio facts of MP3 files with libmpg123.
///
/// Owns one `mpg123_handle`; use one reader per thread.
final class MP3Reader {
    /// ID3v2 tags declaring more than this are not handed to libmpg123, which would hold the
    /// whole tag in memory: their frames are skipped and the file is indexed from ID3v1 and audio.
    static let maximumTagSize = 16 << 20

    private let handle: OpaquePointer

    private static let libraryReady: Bool = mpg123_init() == Int32(MPG123_OK.rawValue)

    init() throws(SongboxError) {
        guard Self.libraryReady else {
            throw SongboxError(.unreadableFile, "libmpg123 failed to initialise")
        }
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw SongboxError(.unreadableFile, "libmpg123 could not create a decoder",
                               cause: MPG123Failure(code: status))
        }
        self.handle = handle
    }

    deinit { mpg123_delete(handle) }

    /// Reads the file at `path`. Never throws for bad content: a file that has no MPEG audio
    /// is an `.unreadableFile` error with the reason.
    func read(path: String) throws(SongboxError) -> ProbedFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SongboxError(.unreadableFile, String(cString: strerror(errno)), at: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SongboxError(.unreadableFile, String(cString: strerror(errno)), at: path)
        }
        guard info.st_size > 0 else { throw SongboxError(.unreadableFile, "empty file", at: path) }

        var warnings: [String] = []
        let declaredTagSize = ID3v2Header.declaredSize(fd: fd)
        var flags = MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | MPG123_PICTURE.rawValue
        if let declaredTagSize, declaredTagSize > Self.maximumTagSize {
            flags = (flags & ~MPG123_PICTURE.rawValue) | MPG123_SKIP_ID3V2.rawValue
            warnings.append("ID3v2 tag of \(declaredTagSize) bytes is larger than \(Self.maximumTagSize) "
                + "bytes; its frames were skipped")
        }
        mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), Int(flags), 0)

        try check(mpg123_open_fd(handle, fd), path: path)
        defer { mpg123_close(handle) }

        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        let formatStatus = mpg123_getformat(handle, &rate, &channels, &encoding)
        guard formatStatus == Int32(MPG123_OK.rawValue) else {
            throw SongboxError(.unreadableFile, "no MPEG audio found", at: path,
                               cause: MPG123Failure(code: formatStatus, handle: handle))
        }
        var frame = mpg123_frameinfo2()
        _ = mpg123_info2(handle, &frame)

        // Exact length: a LAME header gives the frame count, encoder delay and padding; without
        // one (encoder delay unknown, -1) libmpg123 only estimates from the file size, so the
        // frames are counted.
        var encoderDelay = -1
        _ = mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &encoderDelay, nil)
        if encoderDelay < 0 { _ = mpg123_scan(handle) }
        let samples = mpg123_length(handle)
        guard samples > 0, rate > 0 else {
            throw SongboxError(.unreadableFile, "no decodable MPEG audio frames", at: path)
        }
        let duration = Double(samples) / Double(rate)

        var tags = FileTags()
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        var tagBytes = 0
        if mpg123_meta_check(handle) & MPG123_ID3 != 0, mpg123_id3(handle, &v1, &v2) == Int32(MPG123_OK.rawValue) {
            if let v1 {
                ID3v1Reader.apply(v1.pointee, to: &tags)
                tagBytes += 128
            }
            if let v2 { ID3v2Reader.apply(v2.pointee, to: &tags) }
        }
        tagBytes += declaredTagSize.map { $0 + 10 } ?? 0

        let audioBytes = max(Int(info.st_size) - tagBytes, 0)
        let bitrate = frame.vbr == Int32(MPG123_CBR.rawValue) && frame.bitrate > 0
            ? Int(frame.bitrate)
            : Int((Double(audioBytes) * 8 / duration / 1000).rounded())
        let audio = AudioFacts(duration: duration, bitrate: bitrate, sampleRate: rate, channels: Int(channels))
        return ProbedFile(tags: tags, audio: audio, warnings: warnings)
    }

    private func check(_ status: Int32, path: String) throws(SongboxError) {
        guard status == Int32(MPG123_OK.rawValue) else {
            throw SongboxError(.unreadableFile, "libmpg123 cannot open it", at: path,
                               cause: MPG123Failure(code: status, handle: handle))
        }
    }
}

/// A libmpg123 error code with its text.
struct MPG123Failure: Error, CustomStringConvertible {
    let description: String

    init(code: Int32, handle: OpaquePointer? = nil) {
        if code == Int32(MPG123_ERR.rawValue), let handle {
            description = String(cString: mpg123_strerror(handle))
        } else {
            description = String(cString: mpg123_plain_strerror(code))
        }
    }
}

/// The 10-byte ID3v2 header at the start of a file.
enum ID3v2Header {
    /// The tag size the header declares (not counting the header), or nil without a tag.
    static func declaredSize(fd: Int32) -> Int? {
        var header = [UInt8](repeating: 0, count: 10)
        guard pread(fd, &header, 10, 0) == 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33 else {
            return nil
        }
        let footer = header[3] == 4 && header[5] & 0x10 != 0 ? 10 : 0
        let size = header[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return size + footer
    }
}
