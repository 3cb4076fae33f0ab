import Foundation
import SongboxLibrary

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

/// How the library runs the functions of smart playlists defined in scripts: the Lua state
/// running on this thread first (it holds the function), then `next` (a plugin's live state, or
/// the script run again); with the cycle guard, so a playlist that reaches itself through
/// others fails instead of running forever. The guards are the script host's, not the library's.
public struct ScriptPlaylistHost: ScriptPlaylistEvaluator {
    public let next: (any ScriptPlaylistEvaluator)?

    public init(next: (any ScriptPlaylistEvaluator)?) {
        self.next = next
    }

    /// Makes `next` the store's way to run function playlists, through a host.
    public static func install(on store: LibraryStore, next: (any ScriptPlaylistEvaluator)?) {
        store.scriptEvaluator = ScriptPlaylistHost(next: next)
    }

    /// A store a Lua state reads runs its function playlists through a host (keeping what it
    /// had as `next`), so the state answers for the playlists its own script defines.
    static func ensure(on store: LibraryStore) {
        store.updateScriptEvaluator { current in current is ScriptPlaylistHost ? current : ScriptPlaylistHost(next: current) }
    }

    public func trackIDs(of playlist: ScriptPlaylist, in store: LibraryStore) throws(SongboxError) -> [Int64]? {
        let outer = ScriptPlaylists.evaluating
        if outer.contains(playlist.name) {
            let cycle = outer.drop(while: { $0 != playlist.name }) + [playlist.name]
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' would include itself: \(cycle.map { "'\($0)'" }.joined(separator: " → "))",
                               at: playlist.script,
                               hint: "a smart playlist's function cannot read the playlist itself, directly or through others")
        }
        do {
            return try ScriptPlaylists.$evaluating.withValue(outer + [playlist.name]) { () throws -> [Int64]? in
                if let running = ScriptPlaylists.running, let ids = try running.trackIDs(of: playlist, in: store) { return ids }
                return try next?.trackIDs(of: playlist, in: store)
            }
        } catch let error as SongboxError {
            throw error
        } catch {
            throw SongboxError(.scriptFailed, "smart playlist '\(playlist.name)' failed", at: playlist.script, cause: error)
        }
    }
}
