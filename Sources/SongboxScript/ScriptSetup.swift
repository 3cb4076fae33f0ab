import Foundation
import Logging
import SongboxAudio
import SongboxLibrary

/// Sets up a runtime for a script file: the library, the player, `require` next to the file, the
/// arguments and the file's `plugin.NAME.*` options. `songbox run` and the smart playlist runner
/// share it.
public enum ScriptSetup {
    public static func makeRuntime(file: String, arguments: [String] = [], store: LibraryStore, limits: LuaRuntime.Limits,
                                   dryRun: Bool = false, options: [String: [String: String]], player: PlayerHost,
                                   functionPlaylists: ScriptPlaylistHost, modulesBesideFile: Bool = true,
                                   logger: Logger, output: @escaping (UnsafeRawBufferPointer) -> Void) throws(LuaScriptError) -> LuaRuntime {
        let runtime = try LuaRuntime(limits: limits, dryRun: dryRun, library: store, functionPlaylists: functionPlaylists,
                                     logger: logger, output: output)
        try LibraryAPI.install(on: runtime)
        try PlayerAPI.install(on: runtime, host: player)
        // Modules live in `lib/` beside the file: in a plugin folder every `.lua` file is a
        // plugin, so a module there would run as one too. A script's own folder is searched
        // after it (`modulesBesideFile`); a daemon plugin's is not, so `require` of a module
        // left beside the plugins fails and names `lib/` rather than have the module run twice.
        let folder = (file as NSString).deletingLastPathComponent
        try runtime.addModulePath((folder.isEmpty ? "." : folder) + "/lib")
        if modulesBesideFile { try runtime.addModulePath(folder.isEmpty ? "." : folder) }
        try runtime.setArguments(arguments)
        try runtime.setOptions(fromConfig: options[scriptName(file)] ?? [:])
        return runtime
    }

    /// The name `plugin.NAME.KEY` settings use: the file name without `.lua`.
    public static func scriptName(_ file: String) -> String {
        ((file as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// Why `name` cannot be a daemon's plugin, nil when it can. The name is a folder beside the
    /// library (the plugin's own files), a key prefix of its state and a word in logs and
    /// `songbox plugin` commands: `...lua` would be plugin `..`, whose folder is the library's.
    public static func pluginNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "its name (the file's name without .lua) is empty" }
        if name.hasPrefix(".") { return "its name '\(VisibleText.escaped(name))' starts with a dot (. and .. are folders; a hidden file is no plugin)" }
        if name.contains("/") { return "its name '\(name)' holds a /" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "its name '\(VisibleText.escaped(name))' holds a control character"
        }
        return nil
    }
}
