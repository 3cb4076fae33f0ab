import Foundation
import SongboxFiles

/// What a folder of the music holds on disk, whether the library has it or not (a cover, a
/// booklet, a folder of scans): MPD's `listfiles`.
public enum FolderListing {
    /// One entry of a folder: a file or a folder (symlinks followed; anything else is left out).
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var isFolder: Bool
        public var size: Int64
        /// Unix seconds.
        public var modified: Int64
    }

    /// The entries of the folder at `path`, sorted by name; nil when `path` is no folder, or
    /// not one inside `folders` once symlinks are resolved (a link out of the music folders is
    /// not followed out of them).
    public static func entries(of path: String, inside folders: [String]) -> [Entry]? {
        guard let real = FilePaths.real(path),
              folders.contains(where: { folder in FilePaths.real(folder).map { FilePaths.isInside(real, $0) } ?? false }),
              let folder = FileName.withSystemPath(real, { opendir($0) }) else { return nil }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { FileName.string(nulTerminated: $0) }
            if name != ".", name != ".." { names.append(name) }
        }
        closedir(folder)
        return names.sorted().compactMap { name in
            var info = stat()
            guard FileName.status(real == "/" ? "/" + name : real + "/" + name, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return nil }
            return Entry(name: name, isFolder: kind == S_IFDIR, size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec))
        }
    }
}
