import Foundation
import SongboxFiles

/// Reads pieces of one open file by offset, never past its end: every length a file states is
/// checked against what the file holds before anything is allocated for it.
struct FileBytes {
    let fd: Int32
    let size: Int
    /// The file's first `headSize` bytes (fewer in a smaller file), read once: the headers and
    /// tags of most files are in them, and the readers ask for them a few bytes at a time (a
    /// FLAC file's Vorbis comments were some thirty system calls).
    private let head: [UInt8]
    static let headSize = 16 << 10

    init(fd: Int32, size: Int) {
        self.fd = fd
        self.size = size
        head = ArtLocator.readFile(fd, from: 0, count: min(max(size, 0), Self.headSize)) ?? []
    }

    /// Opens `path` for reading; the caller closes `fd`.
    static func open(_ path: String) throws(SongboxError) -> FileBytes {
        let fd = FileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SongboxError(.unreadableFile, Message(verbatim: String(cString: strerror(errno))), at: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SongboxError(.unreadableFile, Message(verbatim: reason), at: path)
        }
        return FileBytes(fd: fd, size: Int(info.st_size))
    }

    /// `count` bytes from `offset`, or nil when the file holds fewer (or a read fails).
    func read(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
        if count <= head.count - offset { return Array(head[offset..<(offset + count)]) }
        guard let bytes = ArtLocator.readFile(fd, from: offset, count: count), bytes.count == count else { return nil }
        return bytes
    }

    /// Up to `count` bytes from `offset`: fewer at the end of the file.
    func readUpTo(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        if wanted <= head.count - offset { return Array(head[offset..<(offset + max(wanted, 0))]) }
        return ArtLocator.readFile(fd, from: offset, count: min(count, size - offset)) ?? []
    }
}
