import Foundation
import SongboxMessages
import SongboxLibrary
import SongboxAudio

/// An alarm as it is kept: when (a `WallSchedule` spec), what it plays, how it fades in, how
/// long it snoozes and sounds. The CLI (`songbox alarm add`) and Lua (`songbox.alarm.add`)
/// make the same alarms; the alarm plugin (`plugins/alarm.lua`) sounds them.
public struct Alarm: Codable, Sendable, Equatable {
    public var name: String
    /// `"mon-fri 07:00"`, `"2026-12-24 06:30 Europe/London"`: a `WallSchedule` spec.
    public var when: String
    /// What plays: a query (the default: the whole library), a playlist, or a mood.
    public var query: String?
    public var playlist: String?
    public var mood: String?
    /// Volumes from 0 to 100: where the fade starts and where it ends.
    public var startVolume: Double = 0
    public var volume: Double = 80
    /// Seconds of fade-in, at most an hour, along `curve` (`linear` or `log`).
    public var fade: Double = 0
    public var curve: String = "linear"
    /// Seconds of silence a snooze gives, and after which a sounding alarm stops by itself.
    public var snooze: Double = 540
    public var timeout: Double = 3600
    /// How late a missed alarm (the machine was off, the clock jumped) may still sound.
    public var grace: Double = 600
    public var enabled = true
    /// Said over its music once that is up (espeak-ng), `%H:%M` and the other fields of
    /// `WallSchedule.fill` filled in then, in its zone: `"It is %H:%M"`.
    public var say: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, when, query, playlist, mood, volume, fade, curve, snooze, timeout, grace, enabled, say
        case startVolume = "start_volume"
    }

    public init(name: String, when: String) {
        self.name = name
        self.when = when
    }

    /// Only `name` and `when` are needed; the rest keep their defaults.
    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try keys.decode(String.self, forKey: .name), when: try keys.decode(String.self, forKey: .when))
        query = try keys.decodeIfPresent(String.self, forKey: .query)
        playlist = try keys.decodeIfPresent(String.self, forKey: .playlist)
        mood = try keys.decodeIfPresent(String.self, forKey: .mood)
        startVolume = try keys.decodeIfPresent(Double.self, forKey: .startVolume) ?? startVolume
        volume = try keys.decodeIfPresent(Double.self, forKey: .volume) ?? volume
        fade = try keys.decodeIfPresent(Double.self, forKey: .fade) ?? fade
        curve = try keys.decodeIfPresent(String.self, forKey: .curve) ?? curve
        snooze = try keys.decodeIfPresent(Double.self, forKey: .snooze) ?? snooze
        timeout = try keys.decodeIfPresent(Double.self, forKey: .timeout) ?? timeout
        grace = try keys.decodeIfPresent(Double.self, forKey: .grace) ?? grace
        enabled = try keys.decodeIfPresent(Bool.self, forKey: .enabled) ?? enabled
        say = try keys.decodeIfPresent(String.self, forKey: .say)
    }

    /// An alarm from its JSON form (what `songbox alarm ls --json` prints, one object): the
    /// `alarmsave` command's argument. Unknown keys are refused, as Lua's `songbox.alarm.add`
    /// refuses them; the values are checked when it is saved (`AlarmBook.save`).
    public init(json text: String) throws(SongboxError) {
        let keys = Set(CodingKeys.allCases.map(\.stringValue))
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw SongboxError(.invalidArgument, "an alarm is a JSON object such as {\"name\": \"wake\", \"when\": \"mon-fri 07:00\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw SongboxError(.invalidArgument, "unknown alarm key '\(unknown)' (keys: \(keys.sorted().joined(separator: ", ")))")
        }
        do { self = try JSONDecoder().decode(Alarm.self, from: Data(text.utf8)) } catch {
            throw SongboxError(.invalidArgument, "an alarm needs a name and when (\"07:00\", \"mon-fri 07:00\"), each key of its kind")
        }
    }

    /// Its keys and values as one record of fields (`alarms`): `alarm` (the name) first, the
    /// rest by their JSON names; numbers whole where they are, `enabled` 1 or 0.
    public var fields: [(String, String)] {
        func number(_ value: Double) -> String {
            value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        var fields = [("alarm", name), ("when", when)]
        for (key, value) in [("query", query), ("playlist", playlist), ("mood", mood)] {
            if let value { fields.append((key, value)) }
        }
        fields += [("start_volume", number(startVolume)), ("volume", number(volume)), ("fade", number(fade)), ("curve", curve),
                   ("snooze", number(snooze)), ("timeout", number(timeout)), ("grace", number(grace)), ("enabled", enabled ? "1" : "0")]
        return fields
    }

    public static let longestFade = 3600.0
    public static let longestSnooze = 3600.0
    public static let longestTimeout = 86_400.0

    /// Why the alarm cannot be kept, or nil. `zone` reads a spec that names none.
    public func problem(zone: TimeZone = .current) -> Message? {
        guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
            return "an alarm's name is letters, digits, - and _ (up to 64), got '\(name)'"
        }
        do throws(ScheduleError) { _ = try WallSchedule(parsing: when, zone: zone) } catch { return error.message }
        if [query, playlist, mood].compactMap({ $0 }).count > 1 { return "an alarm plays a query, a playlist or a mood: one of them" }
        // Labelled by their names in the CLI and Lua, the same in every language.
        for (label, value) in [("start_volume", startVolume), ("volume", volume)] where !(0...100).contains(value) {
            return "\(label) is from 0 to 100, got \(value)"
        }
        for (label, value, most) in [("fade", fade, Self.longestFade), ("snooze", snooze, Self.longestSnooze),
                                     ("timeout", timeout, Self.longestTimeout), ("grace", grace, 86_400)]
        where !(0...most).contains(value) {
            return "\(label) is from 0 to \(Int(most)) seconds, got \(value)"
        }
        if !["linear", "log"].contains(curve) { return "the curve is linear or log, got '\(curve)'" }
        if timeout < 1 { return "the timeout must be at least a second" }
        if let say {
            if let problem = Speech.problem(with: say) { return problem }
            // Shown on a line of its own by `alarm ls`.
            if say.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "what an alarm says is one line, without control characters" }
        }
        return nil
    }

    /// What it says at `instant` (its `say` with the time filled in as its zone shows it); nil
    /// when it says nothing.
    public func spoken(at instant: Double, zone: TimeZone = .current) -> String? {
        guard let say else { return nil }
        let schedule = try? WallSchedule(parsing: when, zone: zone)
        return WallSchedule.fill(say, at: instant, in: schedule?.zone ?? zone)
    }
}

/// The alarms of a library, kept as the alarm plugin's state (`plugin:alarm:alarms`, JSON),
/// so the plugin reads what the CLI wrote and the other way round.
public struct AlarmBook: Sendable {
    public let store: LibraryStore
    public static let stateName = "plugin:alarm:alarms"

    public init(store: LibraryStore) { self.store = store }

    /// Every alarm, by name.
    public func all() throws(SongboxError) -> [Alarm] {
        guard let data = try store.state.saved(Self.stateName) else { return [] }
        do { return try JSONDecoder().decode([Alarm].self, from: data).sorted { $0.name < $1.name } } catch {
            throw SongboxError(.invalidArgument, "the alarms kept in the library cannot be read (\(error)); `songbox alarm rm` each, or add them again",
                               at: store.path)
        }
    }

    /// Adds `alarm`, or replaces the one of its name.
    public func save(_ alarm: Alarm, zone: TimeZone = .current) throws(SongboxError) {
        if let problem = alarm.problem(zone: zone) { throw SongboxError(.invalidArgument, "alarm '\(alarm.name)': \(problem)") }
        var alarms = try all().filter { $0.name != alarm.name }
        alarms.append(alarm)
        try write(alarms)
    }

    /// Removes the alarm; false when there was none of that name.
    @discardableResult
    public func remove(_ name: String) throws(SongboxError) -> Bool {
        let alarms = try all()
        guard alarms.contains(where: { $0.name == name }) else { return false }
        try write(alarms.filter { $0.name != name })
        return true
    }

    private func write(_ alarms: [Alarm]) throws(SongboxError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data
        do { data = try encoder.encode(alarms.sorted { $0.name < $1.name }) } catch {
            throw SongboxError(.invalidArgument, "the alarms cannot be written: \(error)")
        }
        try store.state.save(data, as: Self.stateName)
    }
}
