import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback
import SongboxScript
import SongboxServer

/// songbox's own commands beside MPD's, which need the daemon (its plugins, its session): what
/// `songbox play` and `songbox plugin` send. Their names, permissions and argument counts are
/// in the one table (`MPDCommandTable`), which checks them before they reach here.
extension Daemon {
    typealias Failure = MPDProtocol.Failure

    func answer(_ command: String, _ arguments: [String]) async throws(Failure) -> [(String, String)] {
        switch command {
        case "queryplay":
            return try await queryPlay(arguments.joined(separator: " "))
        case "plugins":
            return plugins.current.flatMap { pluginFields($0.snapshot) }
        case "scriptplaylist":
            // A smart playlist's tracks as this daemon's MPD clients get them (a function is
            // answered by the live plugin that defines it): what `songbox ls playlist:NAME` shows.
            do throws(SongboxError) {
                let name = arguments.first ?? ""
                let evaluated = try await functionPlaylists.evaluated(reachedFrom: [name], in: store)
                return try store.playlists.playlist(named: name, evaluated: evaluated).tracks.map { ("id", String($0.id)) }
            } catch {
                throw Failure(error.code == .notFound ? .noExist : .system, error.message)
            }
        case "pluginreload":
            if let name = arguments.first { try plugin(name).reload() } else { reload() }
            return []
        case "pluginenable":
            try plugin(arguments.first ?? "").enable()
            return []
        case "plugindisable":
            try plugin(arguments.first ?? "").disable()
            return []
        case "smartsave":
            // A smart playlist from a query (`songbox playlist smart NAME QUERY`): one made before
            // of that name gets the new query; a saved playlist is not replaced.
            let name = arguments.first ?? "", query = arguments.last ?? ""
            do throws(SongboxError) {
                try store.playlists.saveSmartPlaylist(named: name, query: query)
                let evaluated = try await functionPlaylists.evaluated(reachedFrom: [name], in: store)
                let count = try store.playlists.playlist(named: name, evaluated: evaluated).tracks.count
                clients.post(.storedPlaylist)
                return [("playlist", name), ("tracks", String(count))]
            } catch {
                throw Failure([.invalidArgument, .invalidQuery].contains(error.code) ? .argument : .system, error.message)
            }
        case "pluginlog":
            return try plugin(arguments.first ?? "").recentLog.flatMap { entry -> [(String, String)] in
                let (level, location): (String, String) = switch entry.line {
                case .printed: ("print", "")
                case .logged(let level, _, let location): (level.rawValue, location)
                case .error: ("error", "")
                }
                var fields = [("line", entry.line.text.trimmingCharacters(in: .newlines)), ("level", level)]
                if !location.isEmpty { fields.append(("where", location)) }
                return fields + [("ago", String(format: "%.0f", entry.secondsAgo))]
            }
        case "announce":
            return try announce(arguments)
        case "alarms":
            return try alarmList()
        case "alarmsave":
            return try alarmSave(arguments.first ?? "")
        case "alarmrm":
            return try alarmRemove(arguments.first ?? "")
        case "alarmtest":
            return try alarmTest(arguments)
        case "autoplaysettings":
            return try autoplaySettings()
        case "autoplayset":
            return try autoplaySet(arguments.first ?? "", arguments.last ?? "")
        case "history":
            return try historyList(arguments)
        case "topplayed":
            return try topPlayed(arguments)
        case "playsperday":
            return try playsPerDay(arguments)
        case "moodplaylist":
            return try moodPlaylist(arguments)
        case "moods":
            return try moodNames()
        case "say":
            return try announce(arguments, saying: true)
        default:
            throw Failure(.unknown, "unknown command \"\(command)\"")
        }
    }

    /// `announce SOURCE DUCK CHIME`: SOURCE (a file or URL) over the music ducked by DUCK dB,
    /// the bundled chime first when CHIME is 1; `say TEXT DUCK CHIME`: TEXT spoken (espeak-ng)
    /// the same way. Refused when nothing plays.
    private func announce(_ arguments: [String], saying: Bool = false) throws(Failure) -> [(String, String)] {
        guard arguments.count == 3, let duck = Double(arguments[1]), PlayerEngine.Announcement.duckRange.contains(duck) else {
            throw Failure(.argument, "the duck is dB from -60 to 0")
        }
        var asked: [PlayerEngine.Announcement] = []
        if arguments[2] == "1" {
            guard let chime = Wiring.chime else { throw Failure(.system, "the bundled chime is missing") }
            asked.append(PlayerEngine.Announcement(source: chime, duck: duck))
        }
        if saying {
            if let problem = Speech.problem(with: arguments[0]) { throw Failure(.argument, problem.description) }
            do throws(SpeechError) { asked.append(try .spoken(arguments[0], duck: duck)) } catch {
                throw Failure(.system, error.description)
            }
        } else {
            asked.append(PlayerEngine.Announcement(source: arguments[0], duck: duck))
        }
        let all = asked
        guard session.perform({ $0.announce(all) }) else { throw Failure(.playerSync, "nothing plays: an announcement is mixed over the music") }
        return [("announcements", String(all.count))]
    }

    /// Replaces the queue with the tracks `query` finds and plays them.
    private func queryPlay(_ query: String) async throws(Failure) -> [(String, String)] {
        let playable: [PlayableTrack]
        do throws(SongboxError) {
            let evaluated = try await functionPlaylists.evaluated(reachedBy: query, in: store)
            playable = try store.tracks.playable(matching: query, evaluated: evaluated)
        } catch {
            throw Failure(error.code == .invalidQuery ? .argument : .system, error.message)
        }
        guard !playable.isEmpty else { throw Failure(.noExist, "no track matches \(query)") }
        let queued = session.perform { engine -> Int in
            engine.clear()
            engine.add(playable)
            engine.play()
            return engine.queue.count
        }
        // The queue holds `max_queue_length`: the first ones play, and the client says so.
        return [("added", String(queued)), ("matched", String(playable.count))]
    }

    private func plugin(_ name: String) throws(Failure) -> Plugin {
        guard let plugin = plugins.named(name) else {
            let names = plugins.current.map(\.name).joined(separator: ", ")
            throw Failure(.noExist, "no plugin \(name.isEmpty ? "named" : "'\(name)'") (loaded: \(names.isEmpty ? "none" : names))")
        }
        return plugin
    }

    private func pluginFields(_ info: Plugin.Info) -> [(String, String)] {
        var fields: [(String, String)] = [("plugin", info.name), ("file", info.file), ("status", info.status.rawValue),
                                          ("errors", String(info.errors)), ("restarts", String(info.restarts)),
                                          ("cpu", String(format: "%.3f", info.cpuSeconds)), ("memory", String(info.memory)),
                                          ("events", String(info.events))]
        if let error = info.lastError { fields.append(("error", error)) }
        return fields
    }
}
