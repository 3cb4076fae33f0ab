import Foundation
import Logging
import SongboxLibrary
import SongboxMessages

/// A mood playlist made for a look before it plays (the daemon's `moodplaylist`, the web app's
/// Moods page): `songbox.mood.playlist(options)` in a fresh read-only state with the preset moods
/// (and the user's `moods.lua`), as `examples/mood-playlist.lua` makes it; each track with why it
/// was chosen.
public enum MoodPreview {
    /// One pick: the track and the line that says why.
    public struct Pick: Sendable {
        public var path: String
        public var artist: String?
        public var title: String?
        public var duration: Double
        public var why: String
    }

    /// The options `mood.playlist` takes, as text from a command (`mood=calm+happy`,
    /// `mood=calm>energetic`, `minutes=45`, `language=he`, `not_played_within=2d`, `query=...`):
    /// checked by the mood API itself, which says what is wrong. `functionPlaylists` evaluates
    /// the function playlists a `query` reaches.
    public static func playlist(_ options: [String: String], store: LibraryStore, presets: [String], limits: LuaRuntime.Limits,
                                functionPlaylists: ScriptPlaylistHost = ScriptPlaylistHost(next: nil),
                                logger: Logger) throws(SongboxError) -> [Pick] {
        var table: [String: LuaValue] = [:]
        for (key, value) in options {
            if key == "mood", let arrow = value.firstIndex(of: ">") {
                table["from"] = .string(String(value[..<arrow]))
                table["to"] = .string(String(value[value.index(after: arrow)...]))
            } else if ["minutes", "count", "min_score"].contains(key) {
                guard let number = Double(value), number.isFinite else {
                    throw SongboxError(.invalidArgument, "\(key) is a number, got '\(value)'")
                }
                table[key] = .number(number)
            } else {
                table[key] = .string(value)
            }
        }
        let results = try run("return songbox.mood.playlist(...)", [.table(table)], store: store, presets: presets, limits: limits,
                              functionPlaylists: functionPlaylists, logger: logger)
        guard case .array(let tracks)? = results.first else {
            let message = results.count > 1 ? results[1].stringValue ?? "" : "no playlist"
            throw SongboxError(.invalidArgument, Message(verbatim: message))
        }
        return tracks.compactMap { value in
            guard let fields = value.tableValue, let path = fields["path"]?.stringValue else { return nil }
            return Pick(path: path, artist: fields["artist"]?.stringValue, title: fields["title"]?.stringValue,
                        duration: fields["duration"]?.doubleValue ?? 0, why: fields["why"]?.stringValue ?? "")
        }
    }

    /// The moods defined (the presets and the user's `moods.lua`), by name.
    public static func names(store: LibraryStore, presets: [String], limits: LuaRuntime.Limits,
                             functionPlaylists: ScriptPlaylistHost = ScriptPlaylistHost(next: nil), logger: Logger) throws(SongboxError) -> [String] {
        let source = "local names = {} for _, m in ipairs(songbox.mood.list()) do names[#names + 1] = m.name end return names"
        guard case .array(let names)? = try run(source, [], store: store, presets: presets, limits: limits,
                                                functionPlaylists: functionPlaylists, logger: logger).first else { return [] }
        return names.compactMap(\.stringValue)
    }

    /// Runs `source` in a fresh read-only state that knows the moods; what it returns.
    private static func run(_ source: String, _ arguments: [LuaValue], store: LibraryStore, presets: [String], limits: LuaRuntime.Limits,
                            functionPlaylists: ScriptPlaylistHost, logger: Logger) throws(SongboxError) -> [LuaValue] {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .error)
        do throws(LuaScriptError) {
            let runtime = try ScriptSetup.makeRuntime(
                file: "mood-preview.lua", store: store, limits: limits, dryRun: true, options: [:],
                player: PlayerHost(store: store) { StillPlayer(restoring: nil) }, functionPlaylists: functionPlaylists,
                modulesBesideFile: false, logger: quiet,
                output: { _ in })
            runtime.moodPresetFiles = presets
            return try runtime.run(source: source, chunkName: "=moods", arguments: arguments)
        } catch {
            throw SongboxError(.invalidArgument, Message(verbatim: error.message))
        }
    }
}
