import Foundation
import SongboxFiles

/// Paths as the library keeps them: absolute, and with symlinks resolved where the file exists.
/// Shared by the scanner (its roots) and playlist files (their entries).
enum FilePaths {
    /// Removes `.`, `..` and repeated slashes, without touching the file system.
    static func standardize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` made absolute against the working folder, and standardized.
    static func absolute(_ path: String) -> String {
        standardize(path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// `path` with every symlink resolved; nil when it does not exist.
    static func real(_ path: String) -> String? { FileName.realPath(path) }

    /// The folder part of `path` ("" for a bare file name), without Foundation's path parsing,
    /// which traps on some inputs (".", "./").
    static func parent(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether `path` is `folder` itself or lies under it.
    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// Where writing `path` lands: its real path when it exists (a symlink followed), else its
    /// folder's real path and its name.
    static func resolvedForWriting(_ path: String) -> String {
        let absolute = absolute(path)
        if let real = real(absolute) { return real }
        let name = String(absolute.split(separator: "/").last ?? "")
        let folder = parent(absolute)
        return (real(folder) ?? folder).appending(folder == "/" ? name : "/" + name)
    }

    /// Absolute and symlink-free when it exists, as library paths are; else only absolute.
    static func resolved(_ path: String) -> String {
        let absolute = absolute(path)
        return real(absolute) ?? absolute
    }
}
