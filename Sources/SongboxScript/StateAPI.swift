import Foundation
import SongboxLibrary

/// `songbox.state`: values a script keeps across runs and restarts, in the library database
/// (table `saved_state`, as JSON, under `plugin:NAME:KEY`, NAME being the script's file name
/// without `.lua`, as for `plugin.NAME.*` options). Each script sees only its own keys.
///
/// A practice run (its wall clock simulated: `--fast`, `--start-time`) keeps what its named
/// schedules remember (`at:NAME`, the last occurrence each handled: the prelude's) apart, under
/// `practice:plugin:NAME:at:NAME`: practice runs follow on from each other, and a week practised
/// in a moment never tells the real alarms that this week's mornings were handled. The rest of
/// its state is the script's own, as in any run (a status other scripts read stays shared).
enum StateAPI {
    /// The most a value may take, as JSON.
    static let largestValue = 1 << 20
    /// The most one script's state may hold, its keys and values (as JSON) counted: a plugin
    /// that keeps writing new keys is refused beyond it, not left to fill the SD card.
    static let largestState = 8 << 20

    static func install(on runtime: LuaRuntime, store: LibraryStore) throws(LuaScriptError) {
        // The scope is read at each call: the script's path is known once it runs.
        let scope = { [weak runtime] () throws(LuaFunctionError) -> String in
            guard let path = runtime?.scriptPath else {
                throw LuaFunctionError.message("songbox.state needs a script file (songbox run FILE.lua): its keys belong to the file's name")
            }
            return "plugin:" + ScriptSetup.scriptName(path) + ":"
        }
        // Where a key is kept: in the scope, or apart for a practice run's schedule memory.
        let place = { [weak runtime] (key: String) throws(LuaFunctionError) -> String in
            let scoped = try scope() + key
            return runtime?.practice == true && key.hasPrefix("at:") ? "practice:" + scoped : scoped
        }
        func key(_ args: LuaArguments) throws(LuaFunctionError) -> String {
            let key = try args.string(1)
            guard !key.isEmpty else { throw LuaFunctionError.argument(1, "a key cannot be empty") }
            return key
        }
        // A failure of the store is `nil, message`, as for the library functions.
        func register(_ name: String, writes: Bool = false, _ body: @escaping HostFunction.Body) throws(LuaScriptError) {
            try runtime.register(name, writes: writes) { args in
                do { return try body(args) } catch let error as SongboxError {
                    return [.nil, .string("songbox.\(name): \(error.message)")]
                }
            }
        }
        try register("state.get") { args in
            let name = try place(key(args))
            guard let data = try store.state.saved(name) else { return [.nil] }
            do throws(LuaJSON.Failure) {
                return [try LuaJSON.decode(String(decoding: data, as: UTF8.self))]
            } catch {
                return [.nil, .string("songbox.state.get: the value kept under '\(try key(args))' is not readable: \(error.description)")]
            }
        }
        try register("state.set", writes: true) { args in
            let name = try place(key(args))
            let value = try args.value(2)
            if value.isNil {
                try store.state.remove(name)
                return [.boolean(true)]
            }
            let text: String
            do throws(LuaJSON.Failure) { text = try LuaJSON.encode(value) } catch {
                throw LuaFunctionError.argument(2, error.description)
            }
            guard text.utf8.count <= largestValue else {
                throw LuaFunctionError.argument(2, "value too large to keep (\(text.utf8.count) bytes as JSON; at most \(largestValue))")
            }
            if let total = try store.state.save(Data(text.utf8), as: name, under: try scope(), limit: largestState) {
                return [.nil, .string("songbox.state.set: not kept: the state would hold \(total) bytes, more than the \(largestState) a script may keep (\(largestState >> 20) MiB); remove keys with songbox.state.set(key, nil)")]
            }
            return [.boolean(true)]
        }
        try register("state.keys") { _ in
            let prefix = try scope()
            return [.array(try store.state.names(prefix: prefix).map { .string(String($0.dropFirst(prefix.count))) })]
        }
    }
}
