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

/// Runs the function of a script playlist. The library cannot run Lua; the script layer provides
/// evaluators (a state that holds the function already, or one that loads the script afresh).
public protocol ScriptPlaylistEvaluator: Sendable {
    /// The track ids the function gives now, in its order; nil when this evaluator does not hold
    /// the function (the next one is asked).
    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore) throws(SongboxError) -> [Int64]?
}

extension PlaylistStore {
    /// Evaluates every script playlist `query` reaches (by `playlist:NAME`, directly or through
    /// smart queries): their track ids by name, for `statement(for:selecting:in:evaluated:)`.
    /// Runs outside any transaction, as the functions read the library themselves.
    public func evaluateScriptPlaylists(reachedBy query: LibraryQuery) throws(SongboxError) -> [String: [Int64]] {
        guard !query.playlistNames.isEmpty else { return [:] }
        let reached = try runner.read { db in try Self.scriptPlaylists(reachedBy: query, in: db) }
        var evaluated: [String: [Int64]] = [:]
        for playlist in reached { evaluated[playlist.name] = try evaluate(playlist) }
        return evaluated
    }

    /// Runs the function of `playlist` with the script layer's evaluator: its track ids now, in
    /// order. Fails with what went wrong and where (a Lua error names the file and line), or when
    /// an id is not a track of the library.
    public func evaluate(_ playlist: ScriptPlaylist) throws(SongboxError) -> [Int64] {
        guard let evaluator = library.scriptEvaluator, let ids = try evaluator.trackIDs(of: playlist, in: library) else {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' is defined by a Lua function, and nothing here can run it", at: playlist.script)
        }
        let missing = try runner.read { db in
            try Set(ids).subtracting(Int64.fetchSet(db, sql: "SELECT id FROM library WHERE id IN (SELECT value FROM json_each(?))",
                                                    arguments: [LibrarySQL.jsonList(ids)]))
        }
        if let bad = missing.min() {
            throw SongboxError(.scriptFailed, "the function of smart playlist '\(playlist.name)' gave track id \(bad), which is not in the library", at: playlist.script)
        }
        return ids
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

    /// The script playlists `query` reaches, directly or through smart queries, each once.
    static func scriptPlaylists(reachedBy query: LibraryQuery, in db: Database) throws -> [ScriptPlaylist] {
        var found: [ScriptPlaylist] = []
        var pending = query.playlistNames
        var seen = Set(pending)
        while let name = pending.popLast() {
            guard let record = try PlaylistRecord.fetch(name, in: db) else { continue }
            if let script = record.scriptPlaylist { found.append(script) }
            guard let text = record.query, let nested = try? query.parseNested(text) else { continue }
            for next in nested.playlistNames where seen.insert(next).inserted { pending.append(next) }
        }
        return found
    }
}
