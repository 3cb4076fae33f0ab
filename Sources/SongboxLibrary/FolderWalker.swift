import Foundation
import SongboxFiles

/// A file a walk found, with what tells whether it changed since the last scan.
public struct FoundFile: Sendable, Equatable {
    public var path: String
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var mtime: Int64
}

/// A folder that could not be read, and why. Nothing under it is removed from the library.
public struct UnavailableFolder: Sendable, Equatable {
    public var path: String
    public var reason: String
}

/// Walks folders for music files (by name: `AudioFileKind.suffixes`): recursive, symlinks followed, each folder and file visited once
/// (by device and inode), so symlink loops end. What a `.songboxignore` names is passed over.
struct FolderWalker {
    private struct FileID: Hashable { let device: UInt64; let inode: UInt64 }

    private(set) var files: [FoundFile] = []
    private(set) var unavailable: [UnavailableFolder] = []
    /// Folders reached a second time through a symlink, and skipped.
    private(set) var loops: [String] = []
    /// Entries named like music files that are not files it can read, with the reason: a dangling
    /// symlink, a FIFO, a folder named `*.mp3` (walked as a folder, and said so); and files of a
    /// kind of audio songbox does not play (`*.wma`).
    private(set) var skipped: [(path: String, reason: String)] = []
    /// Folders with nothing in them at all: what an unmounted drive's mount point looks like.
    private(set) var emptyFolders: [String] = []
    /// The filesystem (device) each root is on.
    private(set) var rootDevices: [String: UInt64] = [:]
    /// Paths of `.lrc` files found, without the extension: tracks with lyrics beside them.
    private var lyricsFiles = Set<String>()
    private var visitedFolders = Set<FileID>()
    private var visitedFiles = Set<FileID>()

    /// Walks `root`, a folder or a single file. Returns false when `root` itself is unavailable.
    @discardableResult
    mutating func walk(root: String) -> Bool {
        var info = stat()
        guard FileName.status(root, &info) == 0 else {
            unavailable.append(UnavailableFolder(path: root, reason: String(cString: strerror(errno))))
            return false
        }
        rootDevices[root] = UInt64(info.st_dev)
        if info.st_mode & S_IFMT == S_IFREG {
            if Self.isMusic(root) { record(root, info) }
            return true
        }
        return visitFolder(root, info, root: root, ignoring: IgnorePatterns())
    }

    private mutating func visitFolder(_ path: String, _ info: stat, root: String, ignoring inherited: IgnorePatterns) -> Bool {
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard visitedFolders.insert(id).inserted else {
            loops.append(path)
            return true
        }
        guard let folder = FileName.withSystemPath(path, { opendir($0) }) else {
            unavailable.append(UnavailableFolder(path: path, reason: String(cString: strerror(errno))))
            return false
        }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(folder) {
            // Names are bytes: one that is not UTF-8 is kept exactly (see `FileName`).
            let name = withUnsafeBytes(of: entry.pointee.d_name) { FileName.string(nulTerminated: $0) }
            if name == "." || name == ".." { continue }
            entries.append((name, entry.pointee.d_type))
        }
        closedir(folder)
        if entries.isEmpty { emptyFolders.append(path) }
        let ignoring = entries.contains { $0.name == IgnorePatterns.fileName } ? inherited.adding(folder: path) : inherited
        // Sorted, so scans add files in a stable order.
        for entry in entries.sorted(by: { $0.name < $1.name }) {
            if ignoring.ignores(entry.name) { continue }
            let child = path == "/" ? "/" + entry.name : path + "/" + entry.name
            let type = Int32(entry.type)
            if Self.isLyricsFile(entry.name) { lyricsFiles.insert(String(child.dropLast(4))) }
            // Regular files that are not music need no stat at all.
            if type == DT_REG, !Self.isMusic(entry.name) {
                if let suffix = Self.unplayedSuffix(entry.name) {
                    skipped.append((child, "a kind of audio songbox does not play (.\(suffix))"))
                }
                continue
            }
            let namedMP3 = Self.isMusic(entry.name)
            var childInfo = stat()
            guard FileName.status(child, &childInfo) == 0 else {
                if namedMP3 { skipped.append((child, "cannot be read: \(String(cString: strerror(errno)))" + (type == DT_LNK ? " (a dangling symlink)" : ""))) }
                continue
            }
            switch childInfo.st_mode & S_IFMT {
            case S_IFDIR:
                if namedMP3 { skipped.append((child, "a folder named like a music file (its contents are scanned)")) }
                _ = visitFolder(child, childInfo, root: root, ignoring: ignoring)
            case S_IFREG where namedMP3:
                // A file reached through a symlink is indexed under its real path when that
                // is under the same root, so reaching it directly too gives one track.
                let real = type == DT_LNK ? FilePaths.real(child).flatMap { FilePaths.isInside($0, root) ? $0 : nil } : nil
                record(real ?? child, childInfo)
            case S_IFIFO where namedMP3: skipped.append((child, "a FIFO, not a file"))
            case S_IFSOCK where namedMP3, S_IFCHR where namedMP3, S_IFBLK where namedMP3:
                skipped.append((child, "a socket or device, not a file"))
            default: break
            }
        }
        return true
    }

    private mutating func record(_ path: String, _ info: stat) {
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard visitedFiles.insert(id).inserted else { return }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        files.append(FoundFile(path: path, size: Int64(info.st_size), mtime: mtime))
    }

    static func isMusic(_ name: String) -> Bool { musicSuffixes.contains { hasSuffix(name, $0) } }

    private static let musicSuffixes = AudioFileKind.suffixes.map { "." + $0 }
    private static let unplayedSuffixes = AudioFileKind.unplayedSuffixes.map { "." + $0 }

    /// The suffix of a file named as audio songbox does not play, lower case.
    static func unplayedSuffix(_ name: String) -> String? {
        unplayedSuffixes.first { hasSuffix(name, $0) }.map { String($0.dropFirst()) }
    }

    static func isLyricsFile(_ name: String) -> Bool { hasSuffix(name, ".lrc") }

    /// `name` is longer than `suffix` (lower-case ASCII) and ends with it in any case.
    private static func hasSuffix(_ name: String, _ suffix: String) -> Bool {
        let name = name.utf8, suffix = suffix.utf8
        guard name.count > suffix.count else { return false }
        // Compared in place: this runs for every name of every folder.
        return zip(name.suffix(suffix.count), suffix).allSatisfy { $0 | 0x20 == $1 }
    }

    /// A `.lrc` file was found beside the track at `path` (the same name up to its last dot,
    /// as `LRCFile.beside` looks: `song.flac` and `song.mp3` have `song.lrc`).
    func hasLyricsFile(beside path: String) -> Bool {
        guard !lyricsFiles.isEmpty, let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return lyricsFiles.contains(String(path[..<dot]))
    }
}
