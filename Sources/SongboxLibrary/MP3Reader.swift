import CMPG123
import Foundation
import SongboxFiles

/// What reading one file gives: tags and audio facts, or why it could not be read.
public struct ProbedFile: Sendable {
    public var tags: FileTags
    public var audio: AudioFacts
    /// Things worth telling the user that did not stop the file from being indexed.
    public var warnings: [String] = []
    /// From `USLT`/`SYLT` frames or an `.lrc` beside the file (see `LyricsReader`).
    public var lyrics: Lyrics?
    /// The modification time of the `.lrc` beside the file, when there is one.
    public var lrcMtime: Int64?
}

/// Reads tags and audio facts of MP3 files with libmpg123.
///
/// libmpg123 reads the file itself, unless `ID3v2Normaliser` rewrites its ID3v2 tag: then it
/// reads a `VirtualStream` of the rewritten tag and the rest of the file.
/// Owns one `mpg123_handle`; use one reader per thread.
final class MP3Reader {
    private let handle: OpaquePointer
    /// The stream libmpg123 reads while a file is open: the file, or a rewritten ID3v2 tag and
    /// the rest of the file.
    private var stream: VirtualStream?
    /// The read-ahead buffer of every stream this reader opens.
    private let readAhead: UnsafeMutableRawBufferPointer

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
        // Checked before `self` owns anything, so a failure frees the handle once, here.
        let replaced = mpg123_replace_reader_handle(handle, VirtualStream.read, VirtualStream.seek, nil)
        guard replaced == Int32(MPG123_OK.rawValue) else {
            mpg123_delete(handle)
            throw SongboxError(.unreadableFile, "libmpg123 does not take a custom reader",
                               cause: MPG123Failure(code: replaced))
        }
        self.handle = handle
        readAhead = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    }

    deinit {
        mpg123_delete(handle)
        readAhead.deallocate()
    }

    /// Reads the file at `path`. Never throws for bad content: a file that has no MPEG audio
    /// is an `.unreadableFile` error with the reason.
    func read(path: String) throws(SongboxError) -> ProbedFile {
        let file = try FileBytes.open(path)
        defer { close(file.fd) }
        return try read(path: path, file: file)
    }

    /// Reads the file at `path`, open as `file` (the caller closes it).
    func read(path: String, file: FileBytes) throws(SongboxError) -> ProbedFile {
        let fd = file.fd
        guard file.size > 0 else { throw SongboxError(.unreadableFile, "empty file", at: path) }

        // The ID3v2 tag goes to libmpg123 as it is, or rewritten (see ID3v2Normaliser) in front
        // of the rest of the file.
        let fileSize = file.size
        let plan = ID3v2Normaliser.plan(fd: fd, fileSize: fileSize)
        mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue),
                      Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | MPG123_PICTURE.rawValue), 0)
        // The stream must outlive the open handle.
        defer {
            mpg123_close(handle)
            stream = nil
        }
        let virtual = VirtualStream(fd: fd, prefix: plan.replacement ?? [], fileOffset: plan.replacement == nil ? 0 : plan.audioStart,
                                    fileSize: fileSize, buffer: readAhead)
        stream = virtual
        try check(mpg123_open_handle(handle, Unmanaged.passUnretained(virtual).toOpaque()), path: path)

        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        let formatStatus = mpg123_getformat(handle, &rate, &channels, &encoding)
        guard formatStatus == Int32(MPG123_OK.rawValue) else {
            // libmpg123's "I am done with this track" (the file ended before one frame) says no
            // more than the message does.
            let ended = [MPG123_DONE, MPG123_NEED_MORE].contains { formatStatus == Int32($0.rawValue) }
            throw SongboxError(.unreadableFile, "no MPEG audio found", at: path,
                               cause: ended ? nil : MPG123Failure(code: formatStatus, handle: handle))
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
        if plan.droppedPicture { tags.hasPicture = true }
        // libmpg123 gives neither SYLT nor where pictures are: the frames are located here.
        let frames = ID3Frames.scan(fd: fd, fileSize: fileSize, ids: ["USLT", "SYLT", "APIC"])
        if frames.frames.contains(where: { $0.id == "APIC" }) { tags.hasPicture = true }
        let lyrics = LyricsReader.read(path: path, fd: fd, frames: frames.frames, sampleRate: rate)
        tags.lyrics = lyrics.lyrics?.text ?? tags.lyrics
        // The original file's audio bytes, whatever libmpg123 was shown.
        tagBytes += plan.audioStart

        let audioBytes = max(fileSize - tagBytes, 0)
        let bitrate = frame.vbr == Int32(MPG123_CBR.rawValue) && frame.bitrate > 0
            ? Int(frame.bitrate)
            : Int((Double(audioBytes) * 8 / duration / 1000).rounded())
        let audio = AudioFacts(duration: duration, bitrate: bitrate, sampleRate: rate, channels: Int(channels))
        // The normaliser already reported a damaged tag; the frame scan's words for it are kept
        // only when the normaliser had nothing to say.
        let tagWarnings = plan.warnings.isEmpty ? frames.warnings : plan.warnings
        return ProbedFile(tags: tags, audio: audio, warnings: tagWarnings + lyrics.warnings,
                          lyrics: lyrics.lyrics, lrcMtime: lyrics.lrcMtime)
    }

    /// The tags of an ID3v2 tag held apart from MPEG audio (the `id3 ` chunk of a WAV or AIFF
    /// file), read by libmpg123 from the bytes fed to it; nil when it finds no tag there.
    func tags(ofID3 tag: [UInt8]) -> FileTags? {
        mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0)
        guard mpg123_open_feed(handle) == Int32(MPG123_OK.rawValue) else { return nil }
        defer { mpg123_close(handle) }
        var done = 0
        // It reads the tag as it looks for the first frame, and then wants more: no audio follows.
        _ = tag.withUnsafeBufferPointer { mpg123_decode(handle, $0.baseAddress, $0.count, nil, 0, &done) }
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_meta_check(handle) & MPG123_ID3 != 0, mpg123_id3(handle, &v1, &v2) == Int32(MPG123_OK.rawValue),
              let v2 else { return nil }
        var tags = FileTags()
        ID3v2Reader.apply(v2.pointee, to: &tags)
        return tags
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
