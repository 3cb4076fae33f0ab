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
                                   logger: Logger, output: @escaping (UnsafeRawBufferPointer) -> Void) throws(LuaScriptError) -> LuaRuntime {
        let runtime = try LuaRuntime(limits: limits, dryRun: dryRun, library: store, logger: logger, output: output)
        try LibraryAPI.install(on: runtime)
        try PlayerAPI.install(on: runtime, host: player)
        let folder = (file as NSString).deletingLastPathComponent
        try runtime.addModulePath(folder.isEmpty ? "." : folder)
        try runtime.setArguments(arguments)
        try runtime.setOptions(fromConfig: options[scriptName(file)] ?? [:])
        return runtime
    }

    /// The name `plugin.NAME.KEY` settings use: the file name without `.lua`.
    public static func scriptName(_ file: String) -> String {
        ((file as NSString).lastPathComponent as NSString).deletingPathExtension
    }
}
