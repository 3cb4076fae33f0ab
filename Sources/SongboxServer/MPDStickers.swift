import Foundation
import SongboxLibrary

/// MPD's `sticker` command on songs, over songbox's stickers (`LibraryStore` stickers: the
/// play counts and the overrides among them).
extension MPDCommands {
    func sticker(_ args: Arguments, client: MPDClient, out: MPDResponse) async throws(Failure) {
        let verb = try args.string(0).lowercased()
        guard try args.string(1) == "song" else { throw Failure(.argument, "unknown sticker domain (songbox keeps stickers on songs)") }
        let uri = try args.string(2)
        let roots = roots()
        if verb == "find" {
            // `NAME [OP VALUE] [sort uri|value|value_int] [window START:END]`, read from the end as MPD reads it.
            var rest = Array(args.values.dropFirst(3))
            guard !rest.isEmpty else { throw Failure(.argument, "bad request") }
            var window = 0..<Int.max
            if rest.count >= 3, rest[rest.count - 2] == "window" {
                window = try MPDSelection.range(rest.removeLast())
                rest.removeLast()
            }
            var order: StickerOrder?
            if rest.count >= 3, rest[rest.count - 2] == "sort" {
                let text = rest.removeLast()
                rest.removeLast()
                guard let sort = StickerOrder(text) else { throw Failure(.argument, "Unknown sort tag \"\(text.drop { $0 == "-" })\"") }
                order = sort
            }
            guard rest.count == 1 || rest.count == 3 else { throw Failure(.argument, "bad request") }
            let name = rest[0]
            guard let folder = roots.path(uri) else { throw Failure(.noExist, "No such directory") }
            let test = try Self.comparison(rest.count == 3 ? rest[1] : nil, rest.count == 3 ? rest[2] : nil)
            var found = try library({ () throws(SongboxError) in try store.tracks.withSticker(name, under: folder, matching: test) })
            if let order { found.sort(by: order.precedes) }
            for (index, hit) in found[window.clamped(to: 0..<found.count)].enumerated() {
                out.field("file", roots.uri(hit.path))
                out.field("sticker", "\(name)=\(hit.value)")
                // Sent in pieces (`playCount` is on every song).
                if index % Self.piece == Self.piece - 1 {
                    await out.flush()
                    guard out.open else { return }
                }
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
                throw Self.noSticker(name)
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
            // MPD 0.24: the value is required.
            guard args.values.count == 5 else { throw Failure(.argument, "bad request") }
            let name = try args.string(3)
            let step = try args.integer(4)
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
                throw Self.noSticker(name)
            }
            clients.post(.sticker)
        default:
            throw Failure(.argument, "bad request: sticker \(verb)")
        }
    }

    /// MPD 0.24's words for a sticker that is not there: its name quoted (0.23: without it).
    static func noSticker(_ name: String?) -> Failure {
        Failure(.noExist, name.map { "no such sticker: \"\($0)\"" } ?? "no such sticker")
    }

    /// MPD 0.24's comparisons, as its sticker database makes them in SQL: `=`, `<`, `>` compare
    /// the text (byte by byte), `eq`, `lt`, `gt` the values cast to integers (SQLite's
    /// `CAST(value AS INT)`), `contains` and `starts_with` the text without ASCII case (`LIKE`).
    static func comparison(_ op: String?, _ value: String?) throws(Failure) -> @Sendable (String) -> Bool {
        guard let op else { return { _ in true } }
        guard let value else { throw Failure(.argument, "bad request") }
        let bytes = Array(value.utf8), folded = Array(value.lowercased().utf8)
        let number = Int64(value)
        switch op {
        case "=": return { $0 == value }
        case "<": return { Array($0.utf8).lexicographicallyPrecedes(bytes) }
        case ">": return { bytes.lexicographicallyPrecedes($0.utf8) }
        // An integer is below any text that is no number, as in SQLite.
        case "eq": return { stored in number.map { StickerOrder.integer(stored) == $0 } ?? false }
        case "lt": return { stored in number.map { StickerOrder.integer(stored) < $0 } ?? true }
        case "gt": return { stored in number.map { StickerOrder.integer(stored) > $0 } ?? false }
        case "contains": return { stored in folded.isEmpty || Array(stored.lowercased().utf8).firstRange(of: folded) != nil }
        case "starts_with": return { stored in Array(stored.lowercased().utf8).starts(with: folded) }
        default: throw Failure(.argument, "bad operator \"\(op)\"")
        }
    }
}

/// `sticker find ... sort uri|value|value_int` (a leading `-`: descending).
struct StickerOrder {
    let key: String
    let descending: Bool

    init?(_ text: String) {
        descending = text.hasPrefix("-")
        key = descending ? String(text.dropFirst()) : text
        guard ["uri", "value", "value_int"].contains(key) else { return nil }
    }

    func precedes(_ first: (path: String, value: String), _ second: (path: String, value: String)) -> Bool {
        let (a, b) = descending ? (second, first) : (first, second)
        switch key {
        case "uri": return a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
        case "value": return a.value.utf8.lexicographicallyPrecedes(b.value.utf8)
        default: return Self.integer(a.value) < Self.integer(b.value)
        }
    }

    /// SQLite's `CAST(text AS INT)`: the leading integer (spaces, a sign, digits), else 0;
    /// beyond 64 bits it stops at the largest.
    static func integer(_ text: String) -> Int64 {
        var scalars = text.unicodeScalars.drop { $0 == " " || $0 == "\t" }[...]
        var negative = false
        if let sign = scalars.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var value: Int64 = 0
        for scalar in scalars {
            guard ("0"..."9").contains(scalar) else { break }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(scalar.value - 48))
            guard !overflow, !overflow2 else { return negative ? Int64.min : Int64.max }
            value = sum
        }
        return negative ? -value : value
    }
}
