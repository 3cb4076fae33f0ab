import Foundation
import GRDB

/// A smart playlist whose tracks come from a function in a script: `songbox.smart(name, function)`
/// in Lua. The database keeps where the function is; reading the playlist runs it.
public struct ScriptPlaylist: Sendable, Hashable {
    /// The playlist's name now.
    public var name: String
    /// The file that defines it (an absolute path).
    public var script: String
    /// The name it was defined under in that file (kept when the playlist is renamed).
    public var function: String

    public init(name: String, script: String, function: String) {
        self.name = name
        self.script = script
        self.function = function
    }
}

/// The library runs no Lua: whoever reads a query that reaches function playlists evaluates
/// them first (the script layer's `ScriptPlaylistHost`, given to it explicitly) and passes their
/// track ids in (`evaluated:`). What is not passed in is a clear error.
extension PlaylistStore {
    /// The script playlists reached from the playlists `names` (a query's `playlist:NAME` terms,
    /// or one playlist read by name): those among them, and those their smart queries reach,
    /// each once. What a caller evaluates before the read.
    public func functionPlaylists(reachedFrom names: [String]) throws(SongboxError) -> [ScriptPlaylist] {
        guard !names.isEmpty else { return [] }
        return try runner.read { db in try Self.scriptPlaylists(reachedFrom: names, in: db) }
    }

    /// Every script playlist of the library (what a listing of all playlists evaluates).
    public func functionPlaylists() throws(SongboxError) -> [ScriptPlaylist] {
        try runner.read { db in try PlaylistRecord.fetchAll(db).compactMap(\.scriptPlaylist) }
    }

    /// `ids`, as the function of `playlist` gave them, once each is known to be a track of the
    /// library; else the error that names the first that is not.
    public func checked(_ ids: [Int64], of playlist: ScriptPlaylist) throws(SongboxError) -> [Int64] {
        let missing = try runner.read { db in
            try Set(ids).subtracting(Int64.fetchSet(db, sql: "SELECT id FROM library WHERE id IN (SELECT value FROM json_each(?))",
                                                    arguments: [LibrarySQL.jsonList(ids)]))
        }
        if let bad = missing.min() {
            throw SongboxError(.scriptFailed, "the function of smart playlist '\(playlist.name)' gave track id \(bad), which is not in the library", at: playlist.script)
        }
        return ids
    }

    /// What a read says of a function playlist nobody evaluated for it.
    public static func notEvaluated(_ playlist: ScriptPlaylist) -> SongboxError {
        SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' is defined by a Lua function, and nothing here can run it", at: playlist.script)
    }

    /// Stores the smart playlist `name` as the function `function` of `script`. Defining an
    /// existing smart playlist again replaces it (a plugin does this at every start); replacing a
    /// saved playlist needs `replace`.
    public func saveScriptPlaylist(named name: String, script: String, function: String, replace: Bool = false,
                                   now: Date = Date()) throws(SongboxError) {
        try PlaylistRecord.validate(name: name)
        try runner.write { db in
            if let existing = try PlaylistRecord.fetch(name, in: db) {
                guard existing.kind == .smart || replace else { throw Self.exists(existing) }
                try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [existing.id])
                try db.execute(sql: "UPDATE playlists SET query = NULL, script = ?, script_function = ?, modified = ? WHERE id = ?",
                               arguments: [script, function, LibrarySQL.seconds(now), existing.id])
            } else {
                _ = try PlaylistRecord.insert(name, script: ScriptPlaylist(name: name, script: script, function: function),
                                              now: now, in: db)
            }
        }
    }

    /// The script playlists `names` reach, directly or through smart queries, each once.
    static func scriptPlaylists(reachedFrom names: [String], in db: Database) throws -> [ScriptPlaylist] {
        var found: [ScriptPlaylist] = []
        var pending = names
        var seen = Set(pending)
        while let name = pending.popLast() {
            guard let record = try PlaylistRecord.fetch(name, in: db) else { continue }
            if let script = record.scriptPlaylist { found.append(script) }
            guard let text = record.query, let nested = try? LibraryQuery.parse(text) else { continue }
            for next in nested.playlistNames where seen.insert(next).inserted { pending.append(next) }
        }
        return found
    }
}
