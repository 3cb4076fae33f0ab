import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback
import SongboxScript

/// The commands the control socket answers: MPD's playback commands that `songbox` and MPD
/// clients use, and songbox's own (`queryplay`, `plugins`, `pluginreload`, ...). The MPD
/// protocol server (a later piece) grows from this table.
extension Daemon {
    typealias Failure = ControlProtocol.Failure

    static let commandNames = ["clear", "close", "commands", "currentsong", "next", "pause", "ping", "play", "playid",
                               "plugindisable", "pluginenable", "pluginreload", "plugins", "previous", "queryplay",
                               "setvol", "shuffle", "status", "stop", "update"]

    func answer(_ command: String, _ arguments: [String]) throws(Failure) -> [(String, String)] {
        let player = session.player
        switch command {
        case "ping":
            return []
        case "commands":
            return Self.commandNames.map { ("command", $0) }
        case "status":
            return status()
        case "currentsong":
            guard let current = player.status.snapshot.current,
                  let item = player.status.snapshot.queue.item(id: current) else { return [] }
            return songFields(item, position: player.status.snapshot.queue.position(of: current) ?? 0)
        case "play":
            let position = try optionalInteger(arguments, command)
            let known = player.perform { engine -> Bool in
                guard let position else { engine.play(); return true }
                guard engine.queue.items.indices.contains(position) else { return false }
                engine.play(id: engine.queue.items[position].id)
                return true
            }
            guard known else { throw Failure(.argument, "Bad song index") }
            return []
        case "playid":
            let id = try optionalInteger(arguments, command)
            let known = player.perform { engine -> Bool in
                if let id, engine.queue.item(id: id) == nil { return false }
                engine.play(id: id)
                return true
            }
            guard known else { throw Failure(.noExist, "No such song") }
            return []
        case "pause":
            let paused = try optionalInteger(arguments, command)
            player.perform { engine in
                switch (paused, engine.state) {
                case (1?, _), (nil, .playing): engine.pause()
                default: engine.resume()
                }
            }
            return []
        case "stop": player.perform { $0.stop() }; return []
        case "next": player.perform { $0.next() }; return []
        case "previous": player.perform { $0.previous() }; return []
        case "clear": player.perform { $0.clear() }; return []
        case "shuffle": player.perform { $0.shuffle() }; return []
        case "setvol":
            guard let volume = try optionalInteger(arguments, command), (0...100).contains(volume) else {
                throw Failure(.argument, "Invalid volume value")
            }
            player.perform { $0.setVolume(Double(volume)) }
            return []
        case "queryplay":
            return try queryPlay(arguments.joined(separator: " "))
        case "plugins":
            return plugins.current.flatMap { pluginFields($0.snapshot) }
        case "pluginreload":
            if let name = arguments.first { try plugin(name).reload() } else { reload() }
            return []
        case "pluginenable":
            try plugin(arguments.first ?? "").enable()
            return []
        case "plugindisable":
            try plugin(arguments.first ?? "").disable()
            return []
        case "update":
            let daemon = self
            Thread.detachNewThread { daemon.rescan() }
            return [("updating_db", "1")]
        default:
            throw Failure(.unknown, "unknown command \"\(command)\"")
        }
    }

    /// Replaces the queue with the tracks `query` finds and plays them.
    private func queryPlay(_ query: String) throws(Failure) -> [(String, String)] {
        let playable: [PlayableTrack]
        do throws(SongboxError) {
            playable = try store.playable(matching: query)
        } catch {
            throw Failure(error.code == .invalidQuery ? .argument : .system, error.message)
        }
        guard !playable.isEmpty else { throw Failure(.noExist, "no track matches \(query)") }
        let queued = session.player.perform { engine -> Int in
            engine.clear()
            engine.add(playable)
            engine.play()
            return engine.queue.count
        }
        return [("added", String(queued))]
    }

    private func plugin(_ name: String) throws(Failure) -> Plugin {
        guard let plugin = plugins.named(name) else {
            let names = plugins.current.map(\.name).joined(separator: ", ")
            throw Failure(.noExist, "no plugin \(name.isEmpty ? "named" : "'\(name)'") (loaded: \(names.isEmpty ? "none" : names))")
        }
        return plugin
    }

    private func status() -> [(String, String)] {
        let status = session.player.status
        let snapshot = status.snapshot
        let state = switch snapshot.state {
        case .playing: "play"
        case .paused: "pause"
        case .stopped: "stop"
        }
        var fields: [(String, String)] = [
            ("volume", String(Int(snapshot.volume.rounded()))),
            ("repeat", snapshot.modes.repeat ? "1" : "0"),
            ("random", snapshot.modes.random ? "1" : "0"),
            ("single", Self.toggle(snapshot.modes.single)),
            ("consume", Self.toggle(snapshot.modes.consume)),
            ("playlist", String(snapshot.queue.version)),
            ("playlistlength", String(snapshot.queue.count)),
            ("state", state),
        ]
        if let current = snapshot.current, let position = snapshot.queue.position(of: current) {
            fields += [("song", String(position)), ("songid", String(current))]
            if snapshot.state != .stopped {
                let duration = status.duration ?? snapshot.queue.item(id: current)?.track.duration ?? 0
                fields += [("elapsed", Self.seconds(snapshot.elapsed)), ("duration", Self.seconds(duration))]
            }
        }
        if let error = status.outputError { fields.append(("error", error)) }
        return fields
    }

    private func songFields(_ item: QueueItem, position: Int) -> [(String, String)] {
        var fields: [(String, String)] = [("file", item.track.path)]
        if let track = try? store.track(id: item.track.trackID) {
            if let title = track.title { fields.append(("Title", title)) }
            if let artist = track.artist { fields.append(("Artist", artist)) }
            if let album = track.album { fields.append(("Album", album)) }
        }
        fields += [("Time", String(Int(item.track.duration.rounded()))), ("duration", Self.seconds(item.track.duration)),
                   ("Pos", String(position)), ("Id", String(item.id))]
        return fields
    }

    private func pluginFields(_ info: Plugin.Info) -> [(String, String)] {
        var fields: [(String, String)] = [("plugin", info.name), ("file", info.file), ("status", info.status.rawValue),
                                          ("errors", String(info.errors)), ("restarts", String(info.restarts)),
                                          ("cpu", String(format: "%.3f", info.cpuSeconds)), ("memory", String(info.memory))]
        if let error = info.lastError { fields.append(("error", error)) }
        return fields
    }

    private static func toggle(_ value: PlaybackModes.Toggle) -> String {
        switch value {
        case .off: "0"
        case .on: "1"
        case .oneshot: "oneshot"
        }
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value.isFinite ? value : 0) }

    private func optionalInteger(_ arguments: [String], _ command: String) throws(Failure) -> Int? {
        guard let text = arguments.first else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw Failure(.argument, "Integer expected: \(text)")
        }
        return value
    }
}
