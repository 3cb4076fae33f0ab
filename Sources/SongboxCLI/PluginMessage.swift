import SongboxLibrary
import SongboxServer

/// A message for one of the daemon's bundled plugins (alarm, autoplay). A plugin that is missing
/// or stopped would drop the message without a word, so the daemon is asked first whether it runs.
struct PluginMessage {
    let plugin: String
    /// What does not happen while the plugin does not run, said in the error.
    let unheard: Message

    /// Sends `message` on the plugin's channel to the daemon that serves the library; that
    /// daemon's socket, or nil when none serves it. Throws, sending nothing, when the daemon runs
    /// without the plugin or with it stopped.
    func send(_ message: String, _ library: LibraryOptions) throws -> String? {
        guard let client = try? ControlClient(serving: library.path) else { return nil }
        var state: String?, current: String?
        for (key, value) in try client.send("plugins") {
            if key == "plugin" { current = value }
            if key == "status", current == plugin { state = value }
        }
        guard let state else {
            throw SongboxError(.notFound, "the songbox daemon runs no \(plugin) plugin: \(unheard)",
                               hint: "a file named \(plugin).lua in your plugin folder replaces the bundled one, and --plugins leaves it out; `songbox plugin ls` lists what runs")
        }
        guard state == "running" || state == "starting" else {
            throw SongboxError(.notFound, "the songbox daemon's \(plugin) plugin is \(state): \(unheard)",
                               hint: "`songbox plugin ls` says why; `songbox plugin enable \(plugin)` starts it again")
        }
        _ = try client.send("sendmessage", [plugin, message])
        return client.name
    }
}
