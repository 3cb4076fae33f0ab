import ArgumentParser
import Foundation
import SongboxLibrary
import SongboxScript
import SongboxServer
import SongboxWiring

/// `songbox autoplay on|off|status`: the switch of the bundled autoplay plugin
/// (plugins/autoplay.lua). It is kept in the library (the plugin's `songbox.state`), so it
/// holds across restarts; a running daemon is told at once (`sendmessage autoplay on|off`).
struct AutoplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autoplay",
        abstract: tr("Switch autoplay on or off, or show what it does (see docs/autoplay.md)."),
        discussion: helpParagraphs(tr("""
            With autoplay on, the daemon keeps a few tracks queued after yours (plugin.autoplay.ahead, \
            default 3) when your queue runs low; yours always play first. The switch is kept in the \
            library and a running daemon has it at once; until it is first used, the config's \
            plugin.autoplay.enabled decides (off by default).
            """)))

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case on, off, status
    }

    @OptionGroup var library: LibraryOptions
    @Argument(help: ArgumentHelp(tr("on, off or status."))) var action: Action = .status

    func run() throws {
        let store = try LibraryOptions.openStore(library.db)
        switch action {
        case .on, .off:
            let on = action == .on
            try store.state.save(Data(String(on).utf8), as: AutoplayAPI.stateKey + "enabled")
            print(tr(on ? "Autoplay is on." : "Autoplay is off."))
            let message = PluginMessage(plugin: "autoplay", unheard: Message("autoplay will not queue anything"))
            if let daemon = try message.send(action.rawValue, library) {
                print(tr("The songbox daemon on \(daemon) has the change."))
            }
        case .status:
            print(try Self.describe(store))
        }
    }

    /// One line: the switch, where it comes from, and what the plugin last said it does.
    static func describe(_ store: LibraryStore) throws -> String {
        let kept = try store.state.saved(AutoplayAPI.stateKey + "enabled").map { String(decoding: $0, as: UTF8.self) }
        let configured = (try? Wiring.load())?.config.pluginOptions["autoplay"]?["enabled"]
        let on: Bool
        var line: String
        switch kept {
        case "true"?, "false"?:
            on = kept == "true"
            line = tr(on ? "Autoplay is on." : "Autoplay is off.")
        default:
            on = configured == "true"
            let said: Message = switch (on, configured == nil) {
            case (true, true): "Autoplay is on (the default; `songbox autoplay on|off` switches it)."
            case (false, true): "Autoplay is off (the default; `songbox autoplay on|off` switches it)."
            case (true, false): "Autoplay is on (plugin.autoplay.enabled in the config; `songbox autoplay on|off` switches it)."
            case (false, false): "Autoplay is off (plugin.autoplay.enabled in the config; `songbox autoplay on|off` switches it)."
            }
            line = tr(said)
        }
        guard on, let data = try store.state.saved(AutoplayAPI.stateKey + "status"),
              let status = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return line }
        if let ahead = status["ahead"] as? Int { line += tr(tr(count: ahead, " It keeps \(ahead) track ahead", " It keeps \(ahead) tracks ahead")) }
        if let provider = status["provider"] as? String { line += tr(", the last from \(provider)") }
        if let quiet = status["quiet"] as? String { line += tr("; quiet now: \(quiet)") }
        return line + "."
    }
}
