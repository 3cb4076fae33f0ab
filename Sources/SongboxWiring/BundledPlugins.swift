import Foundation
import SongboxPlayback
import SongboxRemote
import SongboxServer

/// The plugins that come with songbox and the alarm tone: compiled into the binary (the
/// `BundleFiles` build plugin, from the package's `plugins/` folder), so a copied binary is
/// complete, and written out to a folder of their own the first time a process needs them, for
/// the plugin host and the player to load as files. The folder is named after their contents:
/// written once per version (a Pi's SD card is spared), never half-written (each file is renamed
/// into place), and used only when it is the user's own and closed to others (another user
/// could otherwise put code there for the daemon to run).
enum BundledPlugins {
    /// The folder, once written; nil when nowhere could hold it (said on standard error).
    static let folder: String? = {
        let name = String(OfflineCache.name(of: bundledFiles.map { $0.name + ":" + $0.base64 }.joined(separator: "\n")).prefix(16))
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        for candidate in [cache + "/songbox/bundled-" + name, "/tmp/songbox-bundled-\(getuid())-" + name] {
            if let folder = try? write(to: candidate) { return folder }
        }
        reportToStandardError("songbox: the bundled plugins could not be written to \(cache)/songbox or /tmp")
        return nil
    }()

    /// A bundled file's path, written out.
    static func file(_ name: String) -> String? {
        guard bundledFiles.contains(where: { $0.name == name }) else { return nil }
        return folder.map { $0 + "/" + name }
    }

    /// Writes the files into `folder` (made private when missing) unless they are there.
    private static func write(to folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if mkdir(folder, 0o700) != 0, errno != EEXIST { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard RuntimeFolder.problem(with: folder) == nil else { throw POSIXError(.EPERM) }
        for (name, base64) in bundledFiles {
            let path = folder + "/" + name
            guard let bytes = Data(base64Encoded: base64) else { continue }
            if FileManager.default.contents(atPath: path) == bytes { continue }
            let temporary = folder + "/.\(name).\(getpid())"
            try bytes.write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return folder
    }
}
