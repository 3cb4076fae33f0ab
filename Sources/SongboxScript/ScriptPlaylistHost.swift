import Foundation
import SongboxLibrary

/// Runs the function of a script playlist (`songbox.smart(name, function)`): a state that holds
/// it already (a running script, a daemon's plugin), or one that loads the script afresh.
public protocol ScriptPlaylistEvaluator: Sendable {
    /// The track ids the function gives now, in its order; nil when this evaluator does not hold
    /// the function (the next one is asked). `host`: what a state this evaluator makes reads
    /// the function playlists it reaches through.
    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) throws(SongboxError) -> [Int64]?

    /// The same for a caller that must not park its thread while the state that holds the
    /// function is busy (an MPD command): awaited. By default the synchronous one.
    func awaitedTrackIDs(of playlist: ScriptPlaylist, in store: LibraryStore, host: ScriptPlaylistHost) async throws(SongboxError) -> [Int64]?
}

extension ScriptPlaylistEvaluator {
    public func awaitedTrackIDs(of playlist: ScriptPlaylist, in store: LibraryStore,
                                host: ScriptPlaylistHost) async throws(SongboxError) -> [Int64]? {
        try trackIDs(of: playlist, in: store, host: host)
    }
}

/// Evaluation context of function playlists, bound for the code running on this thread.
public enum ScriptPlaylists {
    /// The evaluator of the script running now: a Lua state reading a playlist its own script
    /// defined answers with the function it holds instead of loading the file again. Asked first
    /// by `ScriptPlaylistHost`.
    @TaskLocal public static var running: (any ScriptPlaylistEvaluator)?
    /// The script playlists being evaluated on this thread, outermost first: the cycle guard.
    @TaskLocal static var evaluating: [String] = []
    /// The script playlists whose script is being run again to get their function.
    @TaskLocal static var rerunning: Set<ScriptPlaylist> = []

    /// Runs `body`, which runs the script of `playlist` again to get its function (a fresh state).
    /// The script may read the playlist at its top level once it has defined it (the fresh state
    /// then calls its function), so the cycle guard of `playlist` is lifted meanwhile; a script
    /// that reads it before defining it would run itself again forever, and fails instead.
    @discardableResult
    public static func rerunningScript<T>(of playlist: ScriptPlaylist, _ body: () throws -> T) throws -> T {
        guard !rerunning.contains(playlist) else {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' is read by its script before the script defines it",
                               at: playlist.script, hint: "call songbox.smart(\"\(playlist.function)\", function) before reading it")
        }
        return try $rerunning.withValue(rerunning.union([playlist])) {
            try $evaluating.withValue(evaluating.filter { $0 != playlist.name }, operation: body)
        }
    }
}

/// How a reader of the library evaluates the smart playlists defined in scripts that its reads
/// reach, before the read (the library runs no Lua: it takes their track ids, `evaluated:`).
/// Each reader is given one by whoever composes it (the CLI, the daemon, a Lua state): the Lua
/// state running on this thread answers first (it holds the function), then `next` (a plugin's
/// live state, or the script run again); with the cycle guard, so a playlist that reaches
/// itself through others fails instead of running forever.
public struct ScriptPlaylistHost: Sendable {
    public let next: (any ScriptPlaylistEvaluator)?

    public init(next: (any ScriptPlaylistEvaluator)?) {
        self.next = next
    }

    /// The track ids of the function playlists a read of the playlists `names` reaches (a
    /// query's `playlist:NAME` terms, or one playlist by name), by name: what the read takes as
    /// `evaluated`. The first that fails fails the read, with what went wrong and where.
    public func evaluated(reachedFrom names: [String], in store: LibraryStore) throws(SongboxError) -> [String: [Int64]] {
        var evaluated: [String: [Int64]] = [:]
        for playlist in try store.playlists.functionPlaylists(reachedFrom: names) {
            evaluated[playlist.name] = try evaluate(playlist, in: store)
        }
        return evaluated
    }

    /// Those the query `text` reaches (a query that does not parse is the read's error to say).
    public func evaluated(reachedBy text: String, in store: LibraryStore) throws(SongboxError) -> [String: [Int64]] {
        try evaluated(reachedFrom: LibraryQuery.playlistNames(in: text), in: store)
    }

    /// Every function playlist of the library, its track ids or why it has none: what a listing
    /// of every playlist (`PlaylistStore.all`) takes.
    public func evaluatedEach(in store: LibraryStore) throws(SongboxError) -> [String: Result<[Int64], SongboxError>] {
        var results: [String: Result<[Int64], SongboxError>] = [:]
        for playlist in try store.playlists.functionPlaylists() {
            results[playlist.name] = Result { () throws(SongboxError) in try evaluate(playlist, in: store) }
        }
        return results
    }

    /// As `evaluated(reachedFrom:in:)`, for a caller that must not park its thread: each owner
    /// of a function is awaited (`awaitedTrackIDs`).
    public func evaluated(reachedFrom names: [String], in store: LibraryStore) async throws(SongboxError) -> [String: [Int64]] {
        var evaluated: [String: [Int64]] = [:]
        for playlist in try store.playlists.functionPlaylists(reachedFrom: names) {
            evaluated[playlist.name] = try await evaluate(playlist, in: store)
        }
        return evaluated
    }

    /// As `evaluate(_:in:)`, each owner of a function awaited (`awaitedTrackIDs`).
    func evaluate(_ playlist: ScriptPlaylist, in store: LibraryStore) async throws(SongboxError) -> [Int64] {
        let ids: [Int64]?
        do {
            // An owner's state answers on its own thread; the script run again here runs
            // under the guard, as in the synchronous read.
            ids = try await ScriptPlaylists.$evaluating.withValue(ScriptPlaylists.evaluating + [playlist.name]) {
                try await next?.awaitedTrackIDs(of: playlist, in: store, host: self)
            }
        } catch {
            throw Self.failure(of: playlist, error)
        }
        guard let ids else { throw PlaylistStore.notEvaluated(playlist) }
        return try store.playlists.checked(ids, of: playlist)
    }

    /// Those the query `text` reaches, awaited.
    public func evaluated(reachedBy text: String, in store: LibraryStore) async throws(SongboxError) -> [String: [Int64]] {
        try await evaluated(reachedFrom: LibraryQuery.playlistNames(in: text), in: store)
    }

    /// Runs the function of `playlist`: its track ids now, in order, each a track of the library.
    /// Fails with what went wrong and where (a Lua error names the file and line), or when
    /// nothing here holds the function.
    func evaluate(_ playlist: ScriptPlaylist, in store: LibraryStore) throws(SongboxError) -> [Int64] {
        guard let ids = try trackIDs(of: playlist, in: store) else { throw PlaylistStore.notEvaluated(playlist) }
        return try store.playlists.checked(ids, of: playlist)
    }

    func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore) throws(SongboxError) -> [Int64]? {
        let outer = ScriptPlaylists.evaluating
        if outer.contains(playlist.name) {
            let cycle = outer.drop(while: { $0 != playlist.name }) + [playlist.name]
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' would include itself: \(cycle.map { "'\($0)'" }.joined(separator: " → "))",
                               at: playlist.script,
                               hint: "a smart playlist's function cannot read the playlist itself, directly or through others")
        }
        do {
            return try ScriptPlaylists.$evaluating.withValue(outer + [playlist.name]) { () throws -> [Int64]? in
                if let running = ScriptPlaylists.running, let ids = try running.trackIDs(of: playlist, in: store, host: self) { return ids }
                return try next?.trackIDs(of: playlist, in: store, host: self)
            }
        } catch {
            throw Self.failure(of: playlist, error)
        }
    }

    private static func failure(of playlist: ScriptPlaylist, _ error: any Error) -> SongboxError {
        error as? SongboxError ?? SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' failed", at: playlist.script, cause: error)
    }
}
