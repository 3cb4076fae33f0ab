import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SongboxAudio
import SongboxMessages
import Synchronization

/// The folder remote tracks are downloaded to for offline listening
/// (`$XDG_CACHE_HOME/songbox/tracks`). A track's file is named after its URL, so the player
/// finds it without the library: a complete download has its final name (`NAME.mp3`), a
/// partial one `NAME.mp3.part` until every byte is there — never played as if whole, and
/// resumed from its last byte. The library's `offline` table says which are kept and pinned.
public struct OfflineCache: Sendable, Equatable {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// `$XDG_CACHE_HOME/songbox/tracks`, else `~/.cache/songbox/tracks`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return base + "/songbox/tracks"
    }

    /// The name of `url`'s file: a 64-bit FNV-1a hash of the URL, in hex.
    public static func name(of url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".mp3"
    }

    /// Where `url`'s complete download is, or would be.
    public func file(of url: String) -> String { folder + "/" + Self.name(of: url) }

    /// `url`'s complete download, when it is there.
    public func completeFile(of url: String) -> String? {
        let path = file(of: url)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Deletes `url`'s file, complete or partial.
    public func delete(_ url: String) {
        try? FileManager.default.removeItem(atPath: file(of: url))
        try? FileManager.default.removeItem(atPath: file(of: url) + ".part")
    }

    /// The partial downloads in the folder (to be resumed) and the bytes they hold: what the
    /// library's table does not count.
    public func partialDownloads() -> (count: Int, bytes: Int64) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".part") }.reduce((0, 0)) { sum, name in
            (sum.0 + 1, sum.1 + (NetworkTracks.size(of: folder + "/" + name) ?? 0))
        }
    }

    /// The bytes the disk holding the folder has free for songbox (statvfs: what an unprivileged
    /// writer may use); nil when it cannot be told.
    public func freeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(info.f_bavail).multipliedReportingOverflow(by: Int64(info.f_frsize))
        return overflow ? .max : bytes
    }
}

/// Why a download did not finish.
public struct DownloadError: Error, Sendable, CustomStringConvertible {
    public var url: String
    public var message: String
    /// The URL is a live stream: there is no end to download.
    public var liveStream = false
    public var description: String { "\(url): \(message)" }
}

extension NetworkTracks {
    /// Downloads `url` into `cache`, resuming a partial download from its last byte; returns the
    /// complete file and its size. The file gets its final name only once every byte the
    /// server announced is written (and flushed to the disk), so a kill at any moment leaves
    /// either the complete file or a partial one to resume. A live stream cannot be downloaded.
    ///
    /// Before a byte is written, the size the server announces is checked against the room on
    /// the disk and against `limit` (the cache's `cache_size`, for a copy that is not pinned);
    /// a disk that fills up all the same (another program writing) stops the download with a
    /// message in words, and its partial file is deleted: it would only hold the disk full.
    public func download(_ url: String, into cache: OfflineCache, limit: Int64? = nil) throws(DownloadError) -> (file: String, size: Int64) {
        let outcome = Mutex<Result<(String, Int64), DownloadError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached(executorPreference: DispatchExecutor.shared) { [self] in
            let result: Result<(String, Int64), DownloadError>
            do { result = .success(try await fetchWhole(url, into: cache, limit: limit)) } catch let error as DownloadError {
                result = .failure(error)
            } catch {
                result = .failure(DownloadError(url: url, message: HTTPAudioSource.describe(error)))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    private func fetchWhole(_ url: String, into cache: OfflineCache, limit: Int64?) async throws -> (String, Int64) {
        try FileManager.default.createDirectory(atPath: cache.folder, withIntermediateDirectories: true)
        let final = cache.file(of: url), partial = final + ".part"
        if let size = Self.size(of: final) { return (final, size) }
        if !FileManager.default.fileExists(atPath: partial) { _ = FileManager.default.createFile(atPath: partial, contents: nil) }
        let have = Self.size(of: partial) ?? 0
        let response = try await get(url, headers: have > 0 ? [("Range", "bytes=\(have)-")] : [], deadline: .now() + .hours(6)).response
        let failed = { (message: String) in DownloadError(url: url, message: message) }
        guard (200..<300).contains(response.status.code) else {
            throw failed("the server answered \(response.status.code) \(response.status.reasonPhrase)")
        }
        let type = response.headers.first(name: "content-type")
        // A radio station's playlist link: kept as the station it names, played from its streams.
        if PlaylistStream.isPlaylist(type: type, url: url) {
            try? FileManager.default.removeItem(atPath: partial)
            throw DownloadError(url: url, message: "a station's playlist has no end to download", liveStream: true)
        }
        if let type, !HTTPAudioSource.mayBeAudio(type) {
            throw failed("not audio: the server sent \(type)")
        }
        let resumed = have > 0 && response.status == .partialContent
        guard let told = response.headers.first(name: "content-length").flatMap(Int64.init),
              response.headers.first(name: "icy-metaint") == nil, response.headers.first(name: "icy-name") == nil else {
            try? FileManager.default.removeItem(atPath: partial)
            throw DownloadError(url: url, message: "a live stream has no end to download", liveStream: true)
        }
        guard told >= 0, told <= Int64.max / 2 - have else { throw failed("the server announced an impossible size (\(told) bytes)") }
        let total = (resumed ? have : 0) + told
        // Room first: neither a file past the cache's limit nor one the disk cannot hold is begun.
        let size = Catalog.bytes(total)
        if let limit, total > limit {
            try? FileManager.default.removeItem(atPath: partial)
            throw failed("the file is \(size), more than the cache may hold (cache_size \(Catalog.bytes(limit))): "
                         + "raise cache_size, or keep it pinned (--keep-offline, songbox cache add)")
        }
        let needed = total - (resumed ? have : 0)
        if let free = cache.freeBytes(), needed > free {
            try? FileManager.default.removeItem(atPath: partial)
            throw failed("not enough room: the file is \(size), and the disk holding \(cache.folder) has \(Catalog.bytes(free)) free")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
        defer { try? handle.close() }
        if resumed { try handle.seekToEnd() } else { try handle.truncate(atOffset: 0) }
        var written = resumed ? have : 0
        for try await chunk in response.body {
            guard written + Int64(chunk.readableBytes) <= total else { throw failed("the server sent more than the \(size) it announced") }
            if let problem = Self.write(chunk, to: handle.fileDescriptor) {
                try? handle.close()
                try? FileManager.default.removeItem(atPath: partial)
                throw failed(problem == ENOSPC || problem == EDQUOT
                             ? "the disk holding \(cache.folder) is full (\(Catalog.bytes(written)) of \(size) written); the partial file was deleted"
                             : "cannot write to \(cache.folder): \(String(cString: strerror(problem))); the partial file was deleted")
            }
            written += Int64(chunk.readableBytes)
        }
        guard written == total else { throw failed("the connection closed after \(written) of \(total) bytes") }
        guard fsync(handle.fileDescriptor) == 0 else {
            let problem = errno
            try? FileManager.default.removeItem(atPath: partial)
            throw failed("cannot write to \(cache.folder): \(String(cString: strerror(problem))); the partial file was deleted")
        }
        guard rename(partial, final) == 0 else { throw failed("cannot keep the download: \(String(cString: strerror(errno)))") }
        return (final, total)
    }

    /// Writes all of `chunk` to `descriptor`; the errno when the system refuses (ENOSPC: the
    /// disk is full), nil when every byte is written.
    static func write(_ chunk: ByteBuffer, to descriptor: Int32) -> Int32? {
        chunk.withUnsafeReadableBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return nil
        }
    }


    static func size(of path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
