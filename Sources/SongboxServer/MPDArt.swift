import Foundation
import SongboxLibrary

/// `albumart`: the picture beside a song (`cover`, `folder`, `front`, `album` as `.jpg`, `.jpeg`
/// or `.png`, any case), sent in pieces of the client's `binarylimit` from an offset, read by
/// offset and never whole.
extension MPDCommands {
    static let coverNames = ["cover", "folder", "front", "album"]
    static let coverExtensions = ["jpg", "jpeg", "png"]

    func albumArt(_ args: Arguments, client: MPDClient, out: MPDResponse) throws(Failure) {
        let uri = try args.string(0), offset = try args.integer(1)
        guard offset >= 0 else { throw Failure(.argument, "Bad offset") }
        guard let path = roots().path(uri), try library({ () throws(SongboxError) in try store.track(path: path) }) != nil else {
            throw Failure(.noExist, "No such song")
        }
        let folder = (path as NSString).deletingLastPathComponent
        guard let picture = Self.coverFile(in: folder), let handle = FileHandle(forReadingAtPath: picture) else {
            throw Failure(.noExist, "No file exists")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()).map(Int.init) ?? 0
        guard offset <= size else { throw Failure(.argument, "Bad file offset") }
        try? handle.seek(toOffset: UInt64(offset))
        let chunk = (try? handle.read(upToCount: min(client.binaryLimit, size - offset))) ?? Data()
        out.field("size", String(size))
        out.binary(Array(chunk))
    }

    /// The first cover picture in `folder`, by the names' order of preference.
    static func coverFile(in folder: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var byKey: [String: String] = [:]
        for name in names { byKey[name.lowercased()] = name }
        for base in coverNames {
            for suffix in coverExtensions {
                if let name = byKey[base + "." + suffix] { return folder + "/" + name }
            }
        }
        return nil
    }
}
