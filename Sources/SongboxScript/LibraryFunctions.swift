import Foundation
import SongboxLibrary

extension LibraryAPI {
    typealias Body = (LuaArguments) throws -> [LuaValue]

    /// The functions, by dotted name. They capture the store, never the runtime.
    struct Functions {
        let store: LibraryStore
        /// Where `library.query` and `find` keep their tracks' tables between calls.
        let tables: TrackTableCache
        /// The files `playlist.import` and `export` may touch (the runtime's, which may change).
        let fileAccess: FileAccessBox
        /// What evaluates the function playlists a read reaches (the runtime's).
        let functionPlaylists: ScriptPlaylistHost

        var all: [(String, Bool, Body)] {
            [
                ("library.query", false, query), ("library.find", false, find), ("library.get", false, get),
                ("library.set", true, set), ("library.stats", false, stats),
                ("library.art", false, art), ("library.art_bytes", false, artBytes), ("lyrics.get", false, lyrics),
                ("history.recent", false, recent), ("history.top", false, top), ("history.plays", false, plays),
                ("playlist.list", false, list), ("playlist.get", false, playlistGet),
                ("playlist.save", true, save), ("playlist.add", true, add), ("playlist.remove", true, remove),
                ("playlist.move", true, move), ("playlist.rename", true, rename), ("playlist.delete", true, delete),
                ("playlist.export", true, export), ("playlist.import", true, importFile),
            ]
        }

        // MARK: songbox.library

        func query(_ args: LuaArguments) throws -> [LuaValue] {
            let text = try args.string(1)
            return [try tables.tables(matching: text, in: store, evaluated: functionPlaylists.evaluated(reachedBy: text, in: store))]
        }

        func find(_ args: LuaArguments) throws -> [LuaValue] {
            let fields = try options(args, 1, allowed: nil)
            let text = try LibraryAPI.queryText(find: fields)
            return [try tables.tables(matching: text, in: store, evaluated: functionPlaylists.evaluated(reachedBy: text, in: store))]
        }

        func get(_ args: LuaArguments) throws -> [LuaValue] {
            let id = try args.integer(1)
            return [try store.tracks.track(id: Int64(id)).map(LibraryAPI.table) ?? .nil]
        }

        func set(_ args: LuaArguments) throws -> [LuaValue] {
            let id = try trackID(args, 1)
            let fields = try options(args, 2, allowed: nil)
            var edits: [TrackEdit] = []
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard let field = TrackEdit.Field(rawValue: key) else {
                    throw LuaFunctionError.argument(2, "unknown field '\(key)' (editable: "
                        + TrackEdit.Field.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                let raw: String
                switch (field, value) {
                case (.title, .string(let s)), (.artist, .string(let s)), (.album, .string(let s)), (.genre, .string(let s)),
                     (.language, .string(let s)):
                    raw = s
                case (.year, _), (.rating, _):
                    if value == .boolean(false) { raw = ""; break }
                    guard let n = value.intValue else {
                        throw LuaFunctionError.argument(2, "'\(key)' must be an integer (or false to clear), got \(value.typeName)")
                    }
                    raw = String(n)
                case (.liked, .boolean(let b)):
                    raw = b ? "yes" : "no"
                case (.liked, _):
                    throw LuaFunctionError.argument(2, "'liked' must be a boolean, got \(value.typeName)")
                default:
                    if value == .boolean(false) { raw = ""; break }
                    throw LuaFunctionError.argument(2, "'\(key)' must be a string (or false to clear), got \(value.typeName)")
                }
                do { edits.append(try TrackEdit(parsing: key + "=" + raw)) } catch {
                    throw LuaFunctionError.argument(2, error.message)
                }
            }
            try store.tracks.apply(edits, to: id)
            return [.boolean(true)]
        }

        func stats(_ args: LuaArguments) throws -> [LuaValue] {
            guard case .table(var fields) = LibraryAPI.statistics(try store.history.statistics()) else { return [] }
            fields["database"] = .string(store.path)
            return [.table(fields)]
        }

        // MARK: songbox.history

        func recent(_ args: LuaArguments) throws -> [LuaValue] {
            let options = try options(args, 1, allowed: ["limit"])
            let limit = try integer(options["limit"], "limit", argument: 1) ?? 50
            return [.array(try store.history.recent(limit: limit).map(LibraryAPI.entry))]
        }

        func top(_ args: LuaArguments) throws -> [LuaValue] {
            let options = try options(args, 1, allowed: ["since", "limit"])
            let limit = try integer(options["limit"], "limit", argument: 1) ?? 10
            let since = try options["since"].map { value throws(LuaFunctionError) in try LibraryAPI.since(value, argument: 1) }
            return [.array(try store.history.topTracks(since: since, limit: limit).map { top in
                .table(["track": LibraryAPI.table(top.track), "track_id": .integer(Int(top.track.id)),
                        "plays": .integer(top.plays), "last_played": .string(FieldValue.isoDate(top.lastPlayed))])
            })]
        }

        func plays(_ args: LuaArguments) throws -> [LuaValue] {
            let id = try trackID(args, 1)
            guard try store.tracks.track(id: id) != nil else {
                return [.nil, .string("songbox.history.plays: no track with id \(id)")]
            }
            return [.array(try store.history.plays(of: id).map(LibraryAPI.entry))]
        }

        // MARK: songbox.playlist

        func list(_ args: LuaArguments) throws -> [LuaValue] {
            [.array(try store.playlists.all(evaluated: functionPlaylists.evaluatedEach(in: store)).map(LibraryAPI.summary))]
        }

        func playlistGet(_ args: LuaArguments) throws -> [LuaValue] {
            [LibraryAPI.playlist(try playlist(named: try args.string(1)))]
        }

        func save(_ args: LuaArguments) throws -> [LuaValue] {
            let name = try args.string(1), ids = try trackIDs(args, 2)
            let options = try options(args, 3, allowed: ["replace"])
            let replace = try boolean(options["replace"], "replace", argument: 3) ?? false
            try store.playlists.savePlaylist(named: name, trackIDs: ids, replace: replace)
            return [.boolean(true)]
        }

        func add(_ args: LuaArguments) throws -> [LuaValue] {
            let name = try args.string(1), ids = try trackIDs(args, 2)
            let options = try options(args, 3, allowed: ["at"])
            let at = try integer(options["at"], "at", argument: 3)
            if let at, let refusal = try outside([at], of: name, end: true, "add") { return refusal }
            try store.playlists.addToPlaylist(named: name, trackIDs: ids, at: at.map { $0 - 1 })
            return [.boolean(true)]
        }

        func remove(_ args: LuaArguments) throws -> [LuaValue] {
            let name = try args.string(1)
            let positions: [Int]
            if args.typeName(2) == "number" {
                positions = [try args.integer(2)]
            } else {
                guard let items = try args.table(2).arrayValue else {
                    throw LuaFunctionError.argument(2, "expected a position or a list of positions")
                }
                positions = try items.enumerated().map { index, item throws(LuaFunctionError) in
                    guard let n = item.intValue else {
                        throw LuaFunctionError.argument(2, "position \(index + 1) is not an integer (\(item.typeName))")
                    }
                    return n
                }
            }
            if let refusal = try outside(positions, of: name, end: false, "remove") { return refusal }
            try store.playlists.removeFromPlaylist(named: name, positions: positions.map { $0 - 1 })
            return [.boolean(true)]
        }

        func move(_ args: LuaArguments) throws -> [LuaValue] {
            let name = try args.string(1), from = try args.integer(2), to = try args.integer(3)
            if let refusal = try outside([from, to], of: name, end: false, "move") { return refusal }
            try store.playlists.movePlaylistItem(named: name, from: from - 1, to: to - 1)
            return [.boolean(true)]
        }

        func rename(_ args: LuaArguments) throws -> [LuaValue] {
            let old = try args.string(1), new = try args.string(2)
            let stale = try store.playlists.renamePlaylist(old, to: new)
            return [.boolean(true), .array(stale.map { .string($0) })]
        }

        func delete(_ args: LuaArguments) throws -> [LuaValue] {
            try store.playlists.deletePlaylist(named: try args.string(1))
            return [.boolean(true)]
        }

        func export(_ args: LuaArguments) throws -> [LuaValue] {
            let name = try args.string(1), path = try args.string(2)
            let options = try options(args, 3, allowed: ["format"])
            let format = try self.format(options["format"], argument: 3)
            return [.integer(try store.playlists.exportPlaylist(named: name, to: path, format: format, access: fileAccess.value,
                                                                evaluated: functionPlaylists.evaluated(reachedFrom: [name], in: store)))]
        }

        func importFile(_ args: LuaArguments) throws -> [LuaValue] {
            let path = try args.string(1)
            let options = try options(args, 2, allowed: ["name", "replace", "format"])
            let name: String?
            switch options["name"] {
            case nil: name = nil
            case .string(let s)?: name = s
            case let value?: throw LuaFunctionError.argument(2, "'name' must be a string, got \(value.typeName)")
            }
            let replace = try boolean(options["replace"], "replace", argument: 2) ?? false
            let format = try self.format(options["format"], argument: 2)
            return [LibraryAPI.report(try store.playlists.importPlaylist(from: path, name: name, format: format, replace: replace,
                                                               access: fileAccess.value))]
        }

        /// The soft failure for a 1-based position outside the saved playlist `name` (`end`: one
        /// past the last item is allowed), so messages speak Lua's positions; nil when all fit.
        /// (A missing or smart playlist is left to the library, which says so.)
        func outside(_ positions: [Int], of name: String, end: Bool, _ function: String) throws -> [LuaValue]? {
            guard try store.playlists.playlistExists(named: name) else { return nil }
            let playlist = try self.playlist(named: name)
            guard playlist.kind == .saved else { return nil }
            let count = playlist.tracks.count, last = end ? count + 1 : count
            guard let bad = positions.first(where: { $0 < 1 || $0 > last }) else { return nil }
            let range = last == 0 ? "it is empty" : "use 1 to \(last)"
            return [.nil, .string("songbox.playlist.\(function): position \(bad) is outside playlist '\(name)' (\(range))")]
        }

        /// The playlist `name`, the function playlists it reaches evaluated first.
        func playlist(named name: String) throws(SongboxError) -> Playlist {
            try store.playlists.playlist(named: name, evaluated: functionPlaylists.evaluated(reachedFrom: [name], in: store))
        }

        // MARK: Arguments

        /// Argument `n`, an optional table with string keys; keys outside `allowed` are an error.
        func options(_ args: LuaArguments, _ n: Int, allowed: Set<String>?) throws(LuaFunctionError) -> [String: LuaValue] {
            guard let value = try args.optionalTable(n) else { return [:] }
            guard let fields = value.tableValue else { throw LuaFunctionError.argument(n, "expected a table with named fields") }
            if let allowed, let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw LuaFunctionError.argument(n, "unknown option '\(unknown)' (known: \(allowed.sorted().joined(separator: ", ")))")
            }
            return fields
        }

        func integer(_ value: LuaValue?, _ key: String, argument n: Int) throws(LuaFunctionError) -> Int? {
            guard let value else { return nil }
            guard let int = value.intValue else { throw LuaFunctionError.argument(n, "'\(key)' must be an integer, got \(value.typeName)") }
            return int
        }

        func boolean(_ value: LuaValue?, _ key: String, argument n: Int) throws(LuaFunctionError) -> Bool? {
            guard let value else { return nil }
            guard let bool = value.boolValue else { throw LuaFunctionError.argument(n, "'\(key)' must be a boolean, got \(value.typeName)") }
            return bool
        }

        func format(_ value: LuaValue?, argument n: Int) throws(LuaFunctionError) -> PlaylistFileFormat? {
            guard let value else { return nil }
            guard let text = value.stringValue, let format = PlaylistFileFormat(rawValue: text.lowercased()) else {
                throw LuaFunctionError.argument(n, "'format' must be \"m3u8\" or \"json\"")
            }
            return format
        }

        /// A track id, or a table with an integer `id` (a track) or `track_id` (a history entry).
        func trackID(_ args: LuaArguments, _ n: Int) throws(LuaFunctionError) -> Int64 {
            if args.typeName(n) == "number" { return Int64(try args.integer(n)) }
            guard args.typeName(n) == "table" else { throw LuaFunctionError.type(n, expected: "track or id") }
            guard let id = LibraryAPI.trackID(try args.table(n)) else {
                throw LuaFunctionError.argument(n, "a track table needs an integer 'id'")
            }
            return id
        }

        /// A list of track ids or tracks.
        func trackIDs(_ args: LuaArguments, _ n: Int) throws(LuaFunctionError) -> [Int64] {
            switch args.trackIDList(n) {
            case .success(let ids)?: return ids
            case .failure(let bad)?: throw LuaFunctionError.argument(n, "item \(bad.position) is not a track or an id (\(bad.type))")
            case nil:
                if args.typeName(n) == "table" { throw LuaFunctionError.argument(n, "expected a list of tracks or ids") }
                throw LuaFunctionError.type(n, expected: "table")
            }
        }
    }

    static func trackID(_ value: LuaValue) -> Int64? {
        if let id = value.intValue { return Int64(id) }
        guard let fields = value.tableValue else { return nil }
        return (fields["id"]?.intValue ?? fields["track_id"]?.intValue).map(Int64.init)
    }

    /// `since` of `history.top`: "30d", "2w", "12h", or a number of days.
    static func since(_ value: LuaValue, now: Date = Date(), argument n: Int) throws(LuaFunctionError) -> Date {
        if let days = value.doubleValue, days.isFinite, days >= 0 { return now.addingTimeInterval(-days * 86_400) }
        if let text = value.stringValue, let unit = text.last, let count = Double(text.dropLast()), count >= 0,
           let seconds = ["h": 3_600.0, "d": 86_400.0, "w": 604_800.0][String(unit)] {
            return now.addingTimeInterval(-count * seconds)
        }
        throw LuaFunctionError.argument(n, "'since' must be like \"30d\", \"2w\", \"12h\" or a number of days")
    }
}
