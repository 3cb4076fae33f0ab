import Foundation
import SongboxAudio
import SongboxLibrary

/// `songbox.alarm`: the alarms kept in the library (the same the CLI keeps), and the two ways
/// an alarm is heard of: `fire(name)` (a message on the `alarm` channel, which the alarm
/// plugin answers, as it answers `sendmessage alarm fire:NAME` from an MPD client) and
/// `announce(name, phase)` (an `alarm` event every plugin gets).
enum AlarmAPI {
    static func install(on runtime: LuaRuntime, host: PlayerHost) throws(LuaScriptError) {
        let book = AlarmBook(store: host.store)
        func register(_ name: String, writes: Bool = false, _ body: @escaping HostFunction.Body) throws(LuaScriptError) {
            try runtime.register("alarm." + name, writes: writes) { args in
                do { return try body(args) } catch let error as SongboxError {
                    return [.nil, .string("songbox.alarm.\(name): \(error.message)")]
                }
            }
        }
        try register("list") { _ in [.array(try book.all().map(table))] }
        try register("add", writes: true) { [weak runtime] args in
            let name = try args.string(1)
            var alarm = try alarmFrom(args.table(2), name: name)
            alarm.name = name
            try book.save(alarm, zone: runtime?.timeZone ?? .current)
            return [.boolean(true)]
        }
        try register("remove", writes: true) { args in [.boolean(try book.remove(try args.string(1)))] }
        try register("fire") { [weak runtime] args in
            let name = try args.string(1)
            runtime?.post(.table(["type": .string("message"), "channel": .string("alarm"), "text": .string("fire:" + name)]))
            return [.boolean(true)]
        }
        try register("announce") { [weak runtime] args in
            let name = try args.string(1), phase = try args.string(2)
            guard phases.contains(phase) else {
                throw LuaFunctionError.argument(2, "a phase is one of " + phases.joined(separator: ", "))
            }
            var event = try args.optionalTable(3)?.tableValue ?? [:]
            event["type"] = .string("alarm")
            event["name"] = .string(name)
            event["phase"] = .string(phase)
            runtime?.post(.table(event))
            return [.boolean(true)]
        }
        // `songbox.alarm.speak(name)`: the alarm's `say`, its time filled in now (in its zone),
        // said over the music; the text said, or nil and why.
        try register("speak", writes: true) { [weak runtime] args in
            let name = try args.string(1)
            guard let alarm = try book.all().first(where: { $0.name == name }) else {
                return [.nil, .string("songbox.alarm.speak: no alarm named '\(name)'")]
            }
            let now = runtime?.wallClock() ?? Date().timeIntervalSince1970
            guard let text = alarm.spoken(at: now, zone: runtime?.timeZone ?? .current) else {
                return [.nil, .string("songbox.alarm.speak: alarm '\(name)' has nothing to say (its say is not set)")]
            }
            let spoken: PlayerEngine.Announcement
            do throws(SpeechError) { spoken = try .spoken(text) } catch {
                return [.nil, .string("songbox.alarm.speak: \(error)")]
            }
            return try PlayerAPI.queue([spoken], host) ? [.string(text)] : PlayerAPI.nothingPlays("alarm.speak")
        }
        // `songbox.alarm.tone()`: the bundled alarm tone, queued at the end (what sounds when an
        // alarm's own music cannot); its plays are not counted.
        try register("tone", writes: true) { [weak runtime] _ in
            guard let path = runtime?.alarmTone, FileManager.default.fileExists(atPath: path) else {
                return [.nil, .string("songbox.alarm.tone: the bundled alarm tone is missing (alarm-tone.mp3 beside the bundled plugins)")]
            }
            let tone = PlayableTrack(trackID: PlayableTrack.notInLibrary, path: path, duration: 3)
            let added = try host.control.perform { $0.add([tone], placement: .end, lane: .user) }
            return [added.first.map { .integer($0) } ?? .nil]
        }
    }

    static let phases = ["scheduled", "sounding", "snoozed", "dismissed", "timeout", "fallback", "missed", "failed"]

    /// An alarm as Lua sees it: the keys of its JSON form.
    static func table(_ alarm: Alarm) -> LuaValue {
        guard let data = try? JSONEncoder().encode(alarm),
              let value = try? LuaJSON.decode(String(decoding: data, as: UTF8.self)) else { return .nil }
        return value
    }

    static func alarmFrom(_ value: LuaValue, name: String) throws(LuaFunctionError) -> Alarm {
        var fields = value.tableValue ?? [:]
        let known = Set(Alarm.CodingKeys.allCases.map(\.stringValue))
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw LuaFunctionError.argument(2, "unknown alarm key '\(unknown)' (keys: \(known.sorted().joined(separator: ", ")))")
        }
        fields["name"] = .string(name)
        let text: String
        do throws(LuaJSON.Failure) { text = try LuaJSON.encode(.table(fields)) } catch {
            throw LuaFunctionError.argument(2, error.description)
        }
        do { return try JSONDecoder().decode(Alarm.self, from: Data(text.utf8)) } catch {
            throw LuaFunctionError.argument(2, "an alarm needs when = \"HH:MM\" (and its other keys of the right kind): \(describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "'\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is of the wrong kind"
        default: "\(error)"
        }
    }
}
