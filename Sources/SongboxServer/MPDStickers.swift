import Foundation
import SongboxLibrary

/// MPD's `sticker` command on songs, over songbox's stickers (`LibraryStore` stickers: the
/// play counts and the overrides among them).
extension MPDCommands {
    func sticker(_ args: Arguments, client: MPDClient, out: MPDResponse) throws(Failure) {
        let verb = try args.string(0).lowercased()
        guard try args.string(1) == "song" else { throw Failure(.argument, "unknown sticker domain (songbox keeps stickers on songs)") }
        let uri = try args.string(2)
        let roots = roots()
        if verb == "find" {
            let name = try args.string(3)
            guard let folder = roots.path(uri) else { throw Failure(.noExist, "No such directory") }
            let test = try Self.comparison(args.values.count > 4 ? try args.string(4) : nil, args.values.count > 5 ? try args.string(5) : nil)
            for found in try library({ () throws(SongboxError) in try store.tracks.withSticker(name, under: folder, matching: test) }) {
                out.field("file", roots.uri(found.path))
                out.field("sticker", "\(name)=\(found.value)")
            }
            return
        }
        guard let path = roots.path(uri), let track = try library({ () throws(SongboxError) in try store.tracks.track(path: path) }) else {
            throw Failure(.noExist, "No such song")
        }
        switch verb {
        case "get":
            let name = try args.string(3)
            guard let value = try library({ () throws(SongboxError) in try store.tracks.sticker(name, of: track.id) }) else {
                throw Failure(.noExist, "no such sticker")
            }
            out.field("sticker", "\(name)=\(value)")
        case "list":
            for sticker in try library({ () throws(SongboxError) in try store.tracks.stickers(of: track.id) }) {
                out.field("sticker", "\(sticker.name)=\(sticker.value)")
            }
        case "set":
            let name = try args.string(3), value = try args.string(4)
            try library { () throws(SongboxError) in try store.tracks.setSticker(name, to: value, of: track.id) }
            clients.post(.sticker)
        case "inc", "dec":
            let name = try args.string(3)
            let step = try args.optionalInteger(4) ?? 1
            let current = try library({ () throws(SongboxError) in try store.tracks.sticker(name, of: track.id) }).map { Int($0) } ?? 0
            guard let current else { throw Failure(.argument, "the sticker \(name) is not a number") }
            // Numbers from a client are checked before arithmetic: an overflow is an error, not a trap.
            let (next, overflow) = verb == "inc" ? current.addingReportingOverflow(step) : current.subtractingReportingOverflow(step)
            guard !overflow else { throw Failure(.argument, "the sticker \(name) would overflow") }
            try library { () throws(SongboxError) in try store.tracks.setSticker(name, to: String(next), of: track.id) }
            clients.post(.sticker)
        case "delete":
            let name = args.values.count > 3 ? try args.string(3) : nil
            guard try library({ () throws(SongboxError) in try store.tracks.deleteSticker(name, of: track.id) }) else {
                throw Failure(.noExist, "no such sticker")
            }
            clients.post(.sticker)
        default:
            throw Failure(.argument, "bad request: sticker \(verb)")
        }
    }

    /// `= VALUE`, `< VALUE`, `> VALUE` (numbers compare as numbers), or none.
    static func comparison(_ op: String?, _ value: String?) throws(Failure) -> @Sendable (String) -> Bool {
        guard let op else { return { _ in true } }
        guard let value else { throw Failure(.argument, "a sticker comparison needs a value") }
        let number = Double(value)
        switch op {
        case "=": return { $0 == value }
        case "<": return { stored in number.flatMap { limit in Double(stored).map { $0 < limit } } ?? (stored < value) }
        case ">": return { stored in number.flatMap { limit in Double(stored).map { $0 > limit } } ?? (stored > value) }
        default: throw Failure(.argument, "bad operator: \(op)")
        }
    }
}
