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
    /// there are folders), symlinks resolved.
    public func check(_ path: String, writing: Bool) throws(SongboxError) -> String {
        // The system would stop reading the name at a NUL and open another file.
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw SongboxError(.invalidArgument, path.isEmpty ? "the file path is empty" : "a file path cannot hold a NUL byte")
        }
        let absolute = path.hasPrefix("/") ? path : (folders?.first.map { $0 + "/" + path } ?? FilePaths.absolute(path))
        let real = FilePaths.resolvedForWriting(absolute)
        if let folders {
            let allowed = folders.map(FilePaths.resolved)
            guard allowed.contains(where: { FilePaths.isInside(real, $0) && real != $0 }) else {
                throw SongboxError(.invalidArgument, "a plugin may use files only in its own folder (\(folders.first ?? "none")) or in the folders granted to it", at: path,
                                   hint: "grant a folder in the config file: grant.NAME = /path/to/folder")
            }
        }
        if writing, protected.contains(where: { FilePaths.resolvedForWriting($0) == real }) {
            throw SongboxError(.invalidArgument, "refusing to write over a file songbox manages", at: path,
                               hint: "choose another file name")
        }
        return real
    }

    /// The same rights, with `files` protected too.
    public func protecting(_ files: [String]) -> FileAccess {
        FileAccess(protected: protected + files, folders: folders)
    }
}

extension LibraryStore {
    /// The database's files: what no playlist export may replace.
    public var managedFiles: [String] { ["", "-wal", "-shm", "-journal"].map { path + $0 } }
}
