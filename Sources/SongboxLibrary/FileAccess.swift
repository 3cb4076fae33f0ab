import Foundation

/// Which files a playlist import or export may touch. Whatever the rights, no one writes over a
/// file songbox manages (the library database and its `-wal`, `-shm` and `-journal`, the config
/// file): writing a playlist over the open database destroyed the library. A daemon plugin is
/// also kept to its own data folder and the folders the user granted it by name.
public struct FileAccess: Sendable {
    /// Files never written, compared by their real paths.
    public var protected: [String]
    /// When set, the only folders whose files may be read or written; relative paths resolve
    /// against the first.
    public var folders: [String]?

    public init(protected: [String] = [], folders: [String]? = nil) {
        self.protected = protected
        self.folders = folders
    }

    /// The rights of the user who runs a command: any file, except songbox's own.
    public static let user = FileAccess()

    /// `path` as it will be opened, once allowed: absolute (relative to the first folder when
    /// there are folders), symlinks resolved. For a check before another program opens the file;
    /// songbox itself reads and writes through `read` and `write`, which check what they opened.
    public func check(_ path: String, writing: Bool) throws(SongboxError) -> String {
        let real = FilePaths.resolvedForWriting(try absolute(path))
        try allow(real, asked: path)
        if writing { try refuseManaged(real, asked: path) }
        return real
    }

    /// The bytes of the file at `path` (at most `most`), once allowed. The file is opened
    /// first and what was opened is checked (its real path, from the open descriptor), so a
    /// symlink swapped in between checking and reading changes nothing. Also gives the path
    /// made absolute, as it was named (relative entries of a playlist resolve against its folder).
    public func read(_ path: String, most: Int, missing: Message, unreadable: Message) throws(SongboxError) -> (data: Data, absolute: String) {
        let absolute = try absolute(path)
        // songbox's own files are not even opened: closing a descriptor of the library's
        // database drops every lock SQLite holds on it in this process (`LibraryLock`).
        let resolved = FilePaths.resolvedForWriting(absolute)
        if protected.contains(where: { FilePaths.resolvedForWriting($0) == resolved }) {
            throw SongboxError(.invalidArgument, "refusing to read a file songbox manages", at: path, hint: "choose another file")
        }
        // Non-blocking: a FIFO named as a file must not hold the caller.
        let descriptor = open(absolute, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = errno
            throw SongboxError(reason == ENOENT ? .notFound : .unreadableFile, reason == ENOENT ? missing : unreadable,
                               at: path, cause: reason == ENOENT ? nil : POSIXError(POSIXErrorCode(rawValue: reason) ?? .EIO))
        }
        defer { close(descriptor) }
        guard let real = Self.openedPath(descriptor) else {
            throw SongboxError(.unreadableFile, unreadable, at: path, cause: CauseText("its real path is unknown"))
        }
        try allow(real, asked: path)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SongboxError(.unreadableFile, unreadable, at: path, cause: CauseText("not a regular file"))
        }
        guard info.st_size <= off_t(most) else {
            throw SongboxError(.unreadableFile, "the file is larger than songbox reads (\(most >> 20) MiB)", at: path)
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw SongboxError(.unreadableFile, unreadable, at: path, cause: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            if count == 0 { return (data, absolute) }
            data.append(contentsOf: chunk[..<count])
            guard data.count <= most else {
                throw SongboxError(.unreadableFile, "the file is larger than songbox reads (\(most >> 20) MiB)", at: path)
            }
        }
    }

    /// Writes `data` as the file `path` (replacing it), once allowed, whole or not at all: a
    /// temporary file in the same folder renamed over it. The folder is opened first and what
    /// was opened is checked, and the file is made inside that open folder, so a symlink swapped
    /// in between changes nothing; a symlink at `path` is followed to the file it names.
    /// Returns the real path written.
    @discardableResult
    public func write(_ data: Data, to path: String, unwritable: Message) throws(SongboxError) -> String {
        // A symlink at the path: the file it names is what the user means (and is checked).
        let target = FilePaths.resolvedForWriting(try absolute(path))
        let name = String(target.split(separator: "/").last ?? "")
        let failed = { (reason: Int32) in
            SongboxError(.folderUnavailable, unwritable, at: path, hint: "check that the folder exists and is writable",
                         cause: POSIXError(POSIXErrorCode(rawValue: reason) ?? .EIO))
        }
        guard !name.isEmpty else { throw failed(EISDIR) }
        let folder = open(FilePaths.parent(target), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failed(errno) }
        defer { close(folder) }
        guard let opened = Self.openedPath(folder) else { throw failed(ENOENT) }
        let real = opened == "/" ? "/" + name : opened + "/" + name
        try allow(real, asked: path)
        try refuseManaged(real, asked: path)
        let temporary = ".\(name).\(getpid()).tmp"
        let file = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw failed(errno) }
        var failure: Int32?
        data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = Glibc.write(file, raw.baseAddress! + written, raw.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { failure = errno; return }
                written += count
            }
        }
        if failure == nil, fsync(file) != 0 { failure = errno }
        close(file)
        if failure == nil, renameat(folder, temporary, folder, name) != 0 { failure = errno }
        if let failure {
            unlinkat(folder, temporary, 0)
            throw failed(failure)
        }
        return real
    }

    /// `path` made absolute: against the first folder when there are folders, else the working
    /// folder; no NUL (the system would stop reading the name there and open another file).
    private func absolute(_ path: String) throws(SongboxError) -> String {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw SongboxError(.invalidArgument, path.isEmpty ? "the file path is empty" : "a file path cannot hold a NUL byte")
        }
        return FilePaths.standardize(path.hasPrefix("/") ? path : (folders?.first.map { $0 + "/" + path } ?? FilePaths.absolute(path)))
    }

    /// Refuses a real path outside the folders, when there are folders.
    private func allow(_ real: String, asked path: String) throws(SongboxError) {
        guard let folders else { return }
        let allowed = folders.map(FilePaths.resolved)
        guard allowed.contains(where: { FilePaths.isInside(real, $0) && real != $0 }) else {
            throw SongboxError(.invalidArgument, "a plugin may use files only in its own folder (\(folders.first ?? "none")) or in the folders granted to it", at: path,
                               hint: "grant a folder in the config file: grant.NAME = /path/to/folder")
        }
    }

    private func refuseManaged(_ real: String, asked path: String) throws(SongboxError) {
        if protected.contains(where: { FilePaths.resolvedForWriting($0) == real }) {
            throw SongboxError(.invalidArgument, "refusing to write over a file songbox manages", at: path,
                               hint: "choose another file name")
        }
    }

    /// The real path of what `descriptor` has open, as the kernel names it.
    static func openedPath(_ descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A file deleted meanwhile, or one outside this mount namespace: not a path to trust.
        return path.hasPrefix("/") && !path.hasSuffix(" (deleted)") ? path : nil
    }

    /// The same rights, with `files` protected too.
    public func protecting(_ files: [String]) -> FileAccess {
        FileAccess(protected: protected + files, folders: folders)
    }
}

extension LibraryStore {
    /// The database's files: what no playlist export may replace.
    public var managedFiles: [String] { ["", "-wal", "-shm", "-journal", "-daemon", "-lock"].map { path + $0 } }
}
