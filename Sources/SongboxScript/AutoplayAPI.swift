import Foundation
import SongboxLibrary

/// `songbox.autoplay`: the switch and the rules of the bundled autoplay plugin
/// (`plugins/autoplay.lua`), from any script or plugin.
///
/// Each plugin has a Lua state of its own, so a function of one plugin cannot be called from
/// another. A rule is therefore a smart playlist defined by a function (`provide`), named
/// `autoplay: NAME`: the autoplay plugin reads it by name, and the daemon has it answered by the
/// live state of the plugin that defined it (`LivePluginPlaylists`), where the function is. The
/// switch is a message on the `autoplay` channel (what `mpc sendmessage autoplay on` sends), and
/// the plugin keeps what it is doing in its `songbox.state`, which `status` reads.
public enum AutoplayAPI {
    /// Where the autoplay plugin keeps its state (`songbox.state` of `autoplay.lua`).
    public static let stateKey = "plugin:autoplay:"
    /// What the names of the providers' smart playlists begin with.
    static let providerPrefix = "autoplay: "

    static func install(on runtime: LuaRuntime, store: LibraryStore) throws(LuaScriptError) {
        try runtime.register("autoplay.set", writes: true) { [weak runtime] args in
            guard args.typeName(1) == "boolean", case .boolean(let on) = try args.value(1) else {
                throw LuaFunctionError.type(1, expected: "boolean")
            }
            runtime?.post(.table(["type": .string("message"), "channel": .string("autoplay"), "text": .string(on ? "on" : "off")]))
            return [.boolean(true)]
        }
        try runtime.register("autoplay.status") { _ in
            do {
                guard let data = try store.state.saved(stateKey + "status") else { return [.nil] }
                return [try LuaJSON.decode(String(decoding: data, as: UTF8.self))]
            } catch let error as SongboxError {
                return [.nil, .string("songbox.autoplay.status: \(error.message)")]
            } catch let error as LuaJSON.Failure {
                return [.nil, .string("songbox.autoplay.status: the kept status is not readable: \(error.description)")]
            }
        }
        // The rules users gave (`provide`), by playlist name, without running them.
        try runtime.register("autoplay.providers") { _ in
            do {
                return [.array(try store.playlists.playlistNames().filter { $0.hasPrefix(providerPrefix) }.map { .string($0) })]
            } catch let error as SongboxError {
                return [.nil, .string("songbox.autoplay.providers: \(error.message)")]
            }
        }
        try runtime.runPrelude(prelude, chunkName: "=songbox")
    }

    /// `autoplay.provide([name,] fn)`: a smart playlist `autoplay: NAME` whose function calls
    /// `fn(ctx)` with what autoplay asks for (`ctx.track`, the playing track; `ctx.want`, how many
    /// it needs); NAME defaults to the script's file name.
    static let prelude = """
        local install, keep, where = ...
        local type, error, format, pcall = type, error, string.format, pcall
        install("autoplay.provide", function(...)
          local name, fn = ...
          if type(name) == "function" and fn == nil then
            name, fn = nil, name
            local place = where(fn)
            name = place and place:match("([^/\\\\]+)%.lua:%d+$")
            if not name then
              error("bad argument #1 to 'songbox.autoplay.provide' (give the provider a name: provide(name, fn))", 2)
            end
          elseif type(name) ~= "string" or name == "" then
            error(format("bad argument #1 to 'songbox.autoplay.provide' (a name or a function expected, got %s)", type(name)), 2)
          elseif type(fn) ~= "function" then
            error(format("bad argument #2 to 'songbox.autoplay.provide' (function expected, got %s)", type(fn)), 2)
          end
          return songbox.smart("autoplay: " .. name, function()
            -- What autoplay asks for: it keeps the playing track and how many it wants in its
            -- status before asking, so this state (another plugin's, or a fresh one) sees it.
            local ctx = {}
            local ok, asking = pcall(songbox.autoplay.status)
            if ok and type(asking) == "table" then
              ctx.want = asking.want
              if asking.track_id then ctx.track = songbox.library.get(asking.track_id) end
            end
            return fn(ctx)
          end)
        end)
        """
}
