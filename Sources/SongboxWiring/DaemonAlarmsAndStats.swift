import Foundation
import Logging
import SongboxLibrary
import SongboxScript
import SongboxServer
import Synchronization

/// songbox's own commands for the alarms (kept in the library, sounded by the alarm plugin),
/// the play history and mood playlists: what the web app's Alarms, Stats and Moods pages show, open to MPD clients
/// and the control socket as well (`MPDCommandTable` has their names, permissions and counts).
extension Daemon {
    /// `alarms`: each alarm as a record (`alarm` NAME first, then its keys as `songbox alarm ls
    /// --json` names them), its next time (`next`, the wall clock of its zone) and, while it
    /// sounds or is snoozed, `state`.
    func alarmList() throws(Failure) -> [(String, String)] {
        let alarms: [Alarm]
        do throws(SongboxError) { alarms = try AlarmBook(store: store).all() } catch { throw Failure(.system, error.message) }
        let now = Date().timeIntervalSince1970
        return alarms.flatMap { alarm -> [(String, String)] in
            var fields = alarm.fields
            if let schedule = try? WallSchedule(parsing: alarm.when, zone: .current), let next = schedule.next(after: now) {
                fields.append(("next", WallSchedule.format(next, in: schedule.zone)))
            }
            if let state = alarmStates.state(of: alarm.name) { fields.append(("state", state)) }
            return fields
        }
    }

    /// `alarmsave JSON`: adds the alarm (`{"name": "wake", "when": "mon-fri 07:00", ...}`), or
    /// changes the one of its name, and has the alarm plugin read the alarms again.
    func alarmSave(_ json: String) throws(Failure) -> [(String, String)] {
        do throws(SongboxError) {
            let alarm = try Alarm(json: json)
            try AlarmBook(store: store).save(alarm)
            try tellPlugin("alarm", "reload", unheard: "alarms will not sound")
            return [("alarm", alarm.name)]
        } catch {
            throw Failure(error.code == .invalidArgument ? .argument : .system, error.message)
        }
    }

    /// `alarmrm NAME`.
    func alarmRemove(_ name: String) throws(Failure) -> [(String, String)] {
        let removed: Bool
        do throws(SongboxError) { removed = try AlarmBook(store: store).remove(name) } catch { throw Failure(.system, error.message) }
        guard removed else { throw Failure(.noExist, "no alarm named '\(name)'") }
        do throws(SongboxError) { try tellPlugin("alarm", "reload", unheard: "alarms will not sound") } catch {
            throw Failure(.system, error.message)
        }
        return []
    }

    /// `alarmtest NAME [SNOOZE_AT]`: the alarm's timeline on the fast clock (`AlarmTest`, what
    /// `songbox alarm test` prints), a record each moment (`t` seconds, `kind`, `volume`, ...);
    /// SNOOZE_AT: snooze pressed once, that many seconds after it sounds. On a copy of the
    /// library: the daemon's player and history are untouched.
    func alarmTest(_ arguments: [String]) throws(Failure) -> [(String, String)] {
        var snoozeAt: Double?
        if let text = arguments.dropFirst().first {
            guard let seconds = Double(text), seconds >= 0, seconds <= 86_400 else {
                throw Failure(.argument, "the snooze is pressed from 0 to 86400 seconds after the alarm sounds, got '\(text)'")
            }
            snoozeAt = seconds
        }
        // The test's alarm is no real one: its plugin's lines stay out of the daemon's log.
        let quiet = Logger(label: "songbox.alarm-test") { _ in SwiftLogNoOpLogHandler() }
        do throws(SongboxError) {
            return try AlarmTest.timeline(of: arguments.first ?? "", store: store, wiring: Wiring(config: config.value),
                                          snoozeAt: snoozeAt, logger: quiet).flatMap(\.fields)
        } catch {
            throw Failure(error.code == .notFound ? .noExist : error.code == .invalidArgument ? .argument : .system, error.message)
        }
    }

    /// A change kept, said on the plugin's channel (`reload`, `settings`); an error when that
    /// plugin does not run (`unheard`: what does not happen then), saying the change is kept.
    func tellPlugin(_ name: String, _ message: String, unheard: Message) throws(SongboxError) {
        guard let plugin = plugins.named(name), [.running, .starting].contains(plugin.snapshot.status) else {
            throw SongboxError(.notFound, "the change is kept, but the daemon's \(name) plugin does not run: \(unheard)")
        }
        deliver(message: message, channel: name)
    }

    /// `autoplaysettings`: the autoplay plugin's settings, a record each (`setting` NAME, `kind`,
    /// `value`, `default`, `low`, `high`, `from`: default, config or page).
    func autoplaySettings() throws(Failure) -> [(String, String)] {
        do throws(SongboxError) { return try AutoplaySettings.list(store).flatMap(\.fields) } catch {
            throw Failure(error.code == .notFound ? .noExist : .system, error.message)
        }
    }

    /// `autoplayset KEY VALUE`: one setting changed (checked as the config's is) and kept before
    /// the config's; an empty VALUE goes back to the config's. The plugin reads it at once.
    func autoplaySet(_ key: String, _ value: String) throws(Failure) -> [(String, String)] {
        do throws(SongboxError) {
            try AutoplaySettings.change(key, to: value, store: store)
            try tellPlugin("autoplay", "settings", unheard: "autoplay will not queue anything")
            return [("setting", key), ("value", value)]
        } catch {
            throw Failure([.invalidArgument, .invalidQuery].contains(error.code) ? .argument : error.code == .notFound ? .noExist : .system,
                          error.message)
        }
    }

    /// `history [COUNT]`: the latest plays and skips, newest first (50; at most 1000), each with
    /// why it ended.
    func historyList(_ arguments: [String]) throws(Failure) -> [(String, String)] {
        let count = try Self.count(arguments.first, default: 50, most: 1000)
        do throws(SongboxError) {
            let roots = musicRoots
            return try store.history.recent(limit: count).flatMap { entry -> [(String, String)] in
                var fields = [("history", String(entry.id)), ("file", roots.uri(entry.path))]
                if let artist = entry.artist { fields.append(("Artist", artist)) }
                if let title = entry.title { fields.append(("Title", title)) }
                return fields + [("kind", entry.kind.rawValue), ("reason", entry.reason),
                                 ("played", String(format: "%.1f", entry.played)), ("at", String(entry.at))]
            }
        } catch {
            throw Failure(.system, error.message)
        }
    }

    /// `topplayed DAYS [COUNT]`: the most played tracks in the last DAYS days (0: all time).
    func topPlayed(_ arguments: [String]) throws(Failure) -> [(String, String)] {
        let days = try Self.count(arguments.first, default: 0, most: 36_500)
        let count = try Self.count(arguments.dropFirst().first, default: 10, most: 1000)
        let since = days == 0 ? nil : Date().addingTimeInterval(-Double(days) * 86_400)
        do throws(SongboxError) {
            let roots = musicRoots
            return try store.history.topTracks(since: since, limit: count).flatMap { top -> [(String, String)] in
                var fields = [("plays", String(top.plays)), ("file", roots.uri(top.track.path))]
                if let artist = top.track.artist { fields.append(("Artist", artist)) }
                if let title = top.track.title { fields.append(("Title", title)) }
                return fields + [("last_played", String(top.lastPlayed))]
            }
        } catch {
            throw Failure(.system, error.message)
        }
    }

    /// `playsperday DAYS`: plays a day over the last DAYS days (local dates), oldest first.
    func playsPerDay(_ arguments: [String]) throws(Failure) -> [(String, String)] {
        let days = try Self.count(arguments.first, default: 30, most: 3660)
        do throws(SongboxError) {
            return try store.history.playsPerDay(since: Date().addingTimeInterval(-Double(days) * 86_400))
                .flatMap { [("day", $0.day), ("plays", String($0.plays))] }
        } catch {
            throw Failure(.system, error.message)
        }
    }

    /// `moodplaylist KEY=VALUE...`: the tracks a mood playlist would play (`mood=calm`,
    /// `mood=calm+happy`, `mood=calm>energetic`, `minutes=45`, `language=he`,
    /// `not_played_within=2d`, `query=...`; as `songbox.mood.playlist` takes them), each with why.
    /// Nothing is queued: the tracks are added as any others are.
    func moodPlaylist(_ arguments: [String]) throws(Failure) -> [(String, String)] {
        var options: [String: String] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw Failure(.argument, "moodplaylist takes KEY=VALUE (mood=calm minutes=45), got '\(argument)'")
            }
            options[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
        }
        do throws(SongboxError) {
            let picks = try MoodPreview.playlist(options, store: store, presets: moodPresets, limits: Daemon.pluginLimits,
                                                functionPlaylists: functionPlaylists, logger: logger)
            let roots = musicRoots
            return picks.flatMap { pick -> [(String, String)] in
                var fields = [("file", roots.uri(pick.path))]
                if let artist = pick.artist { fields.append(("Artist", artist)) }
                if let title = pick.title { fields.append(("Title", title)) }
                return fields + [("duration", String(format: "%.3f", pick.duration)), ("why", pick.why)]
            }
        } catch {
            throw Failure(error.code == .invalidArgument ? .argument : .system, error.message)
        }
    }

    /// `moods`: the moods defined (`mood` NAME each), presets and the user's.
    func moodNames() throws(Failure) -> [(String, String)] {
        do throws(SongboxError) {
            return try MoodPreview.names(store: store, presets: moodPresets, limits: Daemon.pluginLimits, functionPlaylists: functionPlaylists,
                                         logger: logger).map { ("mood", $0) }
        } catch {
            throw Failure(.system, error.message)
        }
    }

    /// Songs named as MPD clients name them (`file`: relative to the music folder).
    private var musicRoots: MusicRoots { MusicRoots((try? store.tracks.musicFolders()) ?? []) }

    private var moodPresets: [String] { Wiring.moodPresetFiles(userFolder: config.value.pluginFolder) }

    /// A count argument: a whole number from 0 to `most`, `default` when absent.
    static func count(_ text: String?, default value: Int, most: Int) throws(Failure) -> Int {
        guard let text else { return value }
        guard let number = Int(text), (0...most).contains(number) else {
            throw Failure(.argument, "expected a whole number from 0 to \(most), got '\(text)'")
        }
        return number
    }
}

/// What each alarm is doing, as the alarm plugin's `alarm` events say: `sounding` or `snoozed`
/// until it is dismissed, times out or fails. `alarms` reports it, so a page opened while an
/// alarm sounds shows its snooze and dismiss at once.
final class AlarmStates: Sendable {
    private let states = Mutex<[String: String]>([:])
    /// Alarms sounding at once (a plugin may announce any name: the list stays bounded).
    static let most = 64

    func note(_ event: LuaValue) {
        guard let fields = event.tableValue, case .string("alarm")? = fields["type"],
              case .string(let name)? = fields["name"], case .string(let phase)? = fields["phase"] else { return }
        states.withLock { states in
            switch phase {
            case "sounding", "snoozed":
                if states[name] != nil || states.count < Self.most { states[name] = phase }
            case "dismissed", "timeout", "failed":
                states[name] = nil
            default:
                // scheduled, fallback (it still sounds), missed: no change.
                break
            }
        }
    }

    func state(of name: String) -> String? { states.withLock { $0[name] } }
}
