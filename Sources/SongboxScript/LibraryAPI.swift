import Foundation
import SongboxLibrary

/// The library functions of the `songbox` Lua module: `songbox.library.*`, `songbox.history.*`,
/// `songbox.playlist.*` and `songbox.smart`, over the runtime's `LibraryStore`.
///
/// Error rule (docs/lua-api.md, "Errors"): a wrong argument (a type, an unknown key, a position
/// that is not a whole number) raises a Lua-standard `bad argument` error; a failure of the
/// library itself (no such playlist or file, a query that does not parse, a name already taken,
/// a position outside the playlist) returns `nil, "songbox.NAME: message"`, as `io.open` and mpv
/// do, so a script can `assert` it or handle it. Writing functions return `true` (or what they
/// made) and refuse in a dry run.
public enum LibraryAPI {
    /// Registers the functions on `runtime`. Does nothing when the runtime has no library.
    public static func install(on runtime: LuaRuntime) throws(LuaScriptError) {
        guard let store = runtime.library else { return }
        let api = Functions(store: store, tables: runtime.trackTables, fileAccess: runtime.fileAccessBox,
                            functionPlaylists: runtime.functionPlaylists)
        for (name, writes, body) in api.all {
            try runtime.register(name, writes: writes) { args in
                do { return try body(args) } catch let error as SongboxError {
                    return [.nil, .string("songbox.\(name): \(error.message)")]
                }
            }
        }
        try SmartFunctions.install(on: runtime, store: store)
        try StateAPI.install(on: runtime, store: store)
        try AutoplayAPI.install(on: runtime, store: store)
        try MoodAPI.install(on: runtime, store: store)
    }

    // MARK: Values

    /// A track as a Lua table: every field of `songbox show --json` (the `ls --json` fields and
    /// the extra ones), with the same names; dates as ISO 8601 text (UTC); nil fields absent.
    public static func table(_ track: Track) -> LuaValue {
        var table: [String: LuaValue] = [:]
        for (name, value) in track.allFields {
            switch value {
            case .text(let text): table[name] = .string(text)
            case .integer(let number): table[name] = .integer(Int(number))
            case .number(let number): table[name] = .number(number)
            case .boolean(let flag): table[name] = .boolean(flag)
            case .missing: break
            }
        }
        return .table(table)
    }

    static func tracks(_ tracks: [Track]) -> LuaValue { .array(tracks.map(table)) }

    static func entry(_ entry: HistoryEntry) -> LuaValue {
        var t: [String: LuaValue] = [
            "entry_id": .integer(Int(entry.id)), "path": .string(entry.path), "kind": .string(entry.kind.rawValue),
            "reason": .string(entry.reason), "played": .number(entry.played), "at": .string(FieldValue.isoDate(entry.at)),
        ]
        if let id = entry.trackID { t["track_id"] = .integer(Int(id)) }
        if let artist = entry.artist { t["artist"] = .string(artist) }
        if let title = entry.title { t["title"] = .string(title) }
        if let track = entry.track { t["track"] = table(track) }
        return .table(t)
    }

    static func summary(_ playlist: PlaylistSummary) -> LuaValue {
        var t: [String: LuaValue] = [
            "name": .string(playlist.name), "kind": .string(playlist.kind.rawValue),
            "tracks": .integer(playlist.trackCount), "duration": .number(FieldValue.duration(playlist.duration)),
            "created": .string(FieldValue.isoDate(playlist.created)), "modified": .string(FieldValue.isoDate(playlist.modified)),
        ]
        if let query = playlist.query { t["query"] = .string(query) }
        if let script = playlist.script { t["script"] = .string(script) }
        if let problem = playlist.problem { t["problem"] = .string(problem) }
        return .table(t)
    }

    static func playlist(_ playlist: Playlist) -> LuaValue {
        var t: [String: LuaValue] = [
            "name": .string(playlist.name), "kind": .string(playlist.kind.rawValue),
            "duration": .number(FieldValue.duration(playlist.duration)),
            "created": .string(FieldValue.isoDate(playlist.created)), "modified": .string(FieldValue.isoDate(playlist.modified)),
            "tracks": tracks(playlist.tracks),
        ]
        if let query = playlist.query { t["query"] = .string(query) }
        if let script = playlist.script { t["script"] = .string(script) }
        return .table(t)
    }

    static func report(_ report: PlaylistImportReport) -> LuaValue {
        .table([
            "name": .string(report.name), "total": .integer(report.total), "matched": .integer(report.matched),
            "ids": .array(report.trackIDs.map { .integer(Int($0)) }),
            "unmatched": .array(report.unmatched.map {
                .table(["entry": .integer($0.entry), "text": .string($0.text), "reason": .string($0.reason)])
            }),
        ])
    }

    static func statistics(_ stats: LibraryStatistics) -> LuaValue {
        .table([
            "tracks": .integer(stats.tracks), "artists": .integer(stats.artists), "albums": .integer(stats.albums),
            "genres": .integer(stats.genres), "duration": .number(FieldValue.duration(stats.duration)),
            "size": .integer(Int(stats.size)), "plays": .integer(stats.plays), "skips": .integer(stats.skips),
            "playlists": .integer(stats.playlists), "unreadable": .integer(stats.unreadable),
            "excluded": .integer(stats.excluded), "folders": .array(stats.folders.map { .string($0) }),
            "database_size": .integer(Int(stats.databaseSize)),
        ])
    }
}
