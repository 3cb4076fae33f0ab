import Foundation
import Logging
import SongboxAudio
import SongboxFiles
import SongboxPlayback
import SongboxScript
import Synchronization

/// The plugin set, for what is made before it (the plugins' own environment).
final class PluginSetHolder: Sendable {
    private let held = Mutex<PluginSet?>(nil)
    func set(_ plugins: PluginSet) { held.withLock { $0 = plugins } }
    var current: [Plugin] { held.withLock { $0 }?.current ?? [] }
}

/// A track that would not play, an output that failed: said in the log, never only to plugins.
final class ProblemLog: EventSubscriber {
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func receive(_ events: [PlaybackEvent]) {
        for event in events {
            switch event.event {
            case .decodeError(let item, let message): logger.warning("cannot play \(TrackLocation.shown(item.track.path)): \(message)")
            case .outputError(let message, false): logger.warning("output \(message)")
            case .outputError(let message, true):
                logger.error("output \(message): no audio for \(Int(Player.outputPatience)) s, playback paused; play to try again")
            default: break
            }
        }
    }
}

/// The daemon's plugins, by name; loading a folder list again reloads what stayed, starts what
/// is new and stops what is gone. On the event bus, each plugin gets the events it has
/// handlers for, each converted once for all of them (`BusEvent`).
final class PluginSet: EventSubscriber {
    private let environment: Plugin.Environment
    private let logger: Logger
    private let plugins = Mutex<[Plugin]>([])

    init(environment: Plugin.Environment, logger: Logger) {
        self.environment = environment
        self.logger = logger
    }

    var current: [Plugin] { plugins.withLock { $0 } }

    func receive(_ events: [PlaybackEvent]) {
        let shared = events.map(BusEvent.init)
        for plugin in current { plugin.deliver(shared) }
    }

    func named(_ name: String) -> Plugin? { current.first { $0.name == name } }

    /// The `*.lua` files of `folders`; a later folder's file replaces an earlier one of the same
    /// name. A file whose name is no plugin's name (`ScriptSetup.pluginNameProblem`) is
    /// refused, with the reason.
    static func files(in folders: [String]) -> (files: [String], refused: [(file: String, reason: String)]) {
        var byName: [String: String] = [:]
        var refused: [(file: String, reason: String)] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".lua") {
                let file = folder + "/" + name
                if let problem = ScriptSetup.pluginNameProblem(ScriptSetup.scriptName(file)) {
                    refused.append((file, problem))
                } else {
                    byName[ScriptSetup.scriptName(file)] = file
                }
            }
        }
        return (byName.keys.sorted().map { byName[$0]! }, refused)
    }

    func load(folders: [String]) {
        let (files, refused) = Self.files(in: folders)
        for (file, reason) in refused { logger.warning("plugin file \(file): not loaded: \(reason)") }
        let (kept, gone) = plugins.withLock { list in
            (list.filter { files.contains($0.file) }, list.filter { !files.contains($0.file) })
        }
        for plugin in gone { plugin.stop() }
        for plugin in kept { plugin.reload() }
        let added = files.filter { file in !kept.contains { $0.file == file } }.map { Plugin(file: $0, environment: environment) }
        for plugin in added { plugin.start() }
        plugins.withLock { $0 = (kept + added).sorted { $0.name < $1.name } }
        for plugin in added { logger.info("plugin \(plugin.name): loaded from \(plugin.file)") }
    }

    func stopAll() {
        let all = plugins.withLock { list in
            defer { list = [] }
            return list
        }
        for plugin in all { plugin.stop() }
    }
}
