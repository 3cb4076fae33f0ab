import ArgumentParser
import Foundation
import SongboxLibrary
import SongboxPlayback
import SongboxScript
import SongboxServer
import SongboxWiring

/// `songbox alarm add|ls|rm|enable|disable|snooze|dismiss|fire|test`: the alarms the alarm
/// plugin sounds (plugins/alarm.lua), kept in the library; a running daemon is told at once.
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: tr("Keep alarms, and snooze, dismiss or test them (see docs/alarms.md)."),
        subcommands: [Add.self, List.self, Remove.self, Enable.self, Disable.self, Snooze.self, Dismiss.self, Fire.self, Test.self])

    /// Tells a running daemon's alarm plugin; where that daemon answered (its socket), nil when
    /// no daemon serves the library. Throws, sending nothing, when the daemon runs but its alarm
    /// plugin does not: nothing would sound.
    static func tellDaemon(_ message: String, _ library: LibraryOptions) throws -> String? {
        try PluginMessage(plugin: "alarm", unheard: Message("alarms will not sound")).send(message, library)
    }

    /// Changes the alarms kept in the library.
    static func change(_ library: LibraryOptions, _ body: (AlarmBook) throws -> Void) throws {
        try body(AlarmBook(store: try LibraryOptions.openStore(library.db)))
    }

    /// Has a running daemon read the alarms again, and says so; an error (the change is kept)
    /// when the daemon's alarm plugin does not run.
    static func reloadDaemon(_ library: LibraryOptions) throws {
        if let daemon = try tellDaemon("reload", library) { print(tr("The songbox daemon on \(daemon) has the change.")) }
    }

    /// "30m", "90s", "1h" or seconds, as `songbox run --for` reads them; nil for a bad one.
    static func seconds(_ text: String?, _ option: String) throws -> Double? {
        guard let text else { return nil }
        guard let seconds = Run.seconds(text) else {
            throw ValidationError(tr("--\(option) takes a duration such as 90s, 9m or 1h, got '\(text)'"))
        }
        return seconds
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Add an alarm, or change the one of that name."))
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The alarm's name (letters, digits, - and _)."))) var name: String
        @Option(help: ArgumentHelp(tr("The time of day, HH:MM (24-hour)."), valueName: "time")) var at: String
        @Option(help: ArgumentHelp(tr("Days: mon-fri, sat,sun, weekdays, weekends (default: every day)."), valueName: "days")) var days: String?
        @Option(help: ArgumentHelp(tr("One date only, YYYY-MM-DD."), valueName: "date")) var date: String?
        @Option(help: ArgumentHelp(tr("A time zone, such as Asia/Jerusalem (default: the system's)."), valueName: "zone")) var zone: String?
        @Option(help: ArgumentHelp(tr("Play what this query finds (default: the whole library, shuffled)."), valueName: "query")) var query: String?
        @Option(help: ArgumentHelp(tr("Play this playlist (or smart playlist)."), valueName: "name")) var playlist: String?
        @Option(help: ArgumentHelp(tr("Play this mood."), valueName: "mood")) var mood: String?
        @Option(help: ArgumentHelp(tr("The volume the fade ends at, 0-100 (default 80)."), valueName: "volume")) var volume: Double?
        @Option(help: ArgumentHelp(tr("The volume the fade starts at, 0-100 (default 0)."), valueName: "volume")) var startVolume: Double?
        @Option(help: ArgumentHelp(tr("How long the fade-in takes, up to 60m (default none)."), valueName: "duration")) var fade: String?
        @Option(help: ArgumentHelp(tr("The fade's curve: linear or log (default linear)."), valueName: "curve")) var curve: String?
        @Option(help: ArgumentHelp(tr("How long a snooze lasts (default 9m)."), valueName: "duration")) var snooze: String?
        @Option(help: ArgumentHelp(tr("When a sounding alarm stops by itself (default 60m)."), valueName: "duration")) var timeout: String?
        @Option(help: ArgumentHelp(tr("How late a missed alarm may still sound (default 10m)."), valueName: "duration")) var grace: String?
        @Option(help: ArgumentHelp(tr("Say this over the music once it is up, %H:%M filled in then (needs espeak-ng): \"It is %H:%M\"."), valueName: "text"))
        var say: String?

        func run() throws {
            var alarm = Alarm(name: name, when: [date ?? days, at, zone].compactMap { $0 }.joined(separator: " "))
            if date != nil, days != nil { throw ValidationError(tr("an alarm has --days or --date, not both")) }
            alarm.query = query
            alarm.playlist = playlist
            alarm.mood = mood
            alarm.volume = volume ?? alarm.volume
            alarm.startVolume = startVolume ?? alarm.startVolume
            alarm.fade = try AlarmCommand.seconds(fade, "fade") ?? alarm.fade
            alarm.curve = curve ?? alarm.curve
            alarm.snooze = try AlarmCommand.seconds(snooze, "snooze") ?? alarm.snooze
            alarm.timeout = try AlarmCommand.seconds(timeout, "timeout") ?? alarm.timeout
            alarm.grace = try AlarmCommand.seconds(grace, "grace") ?? alarm.grace
            alarm.say = say
            try AlarmCommand.change(library) { book in try book.save(alarm) }
            print(tr("Alarm \(name): \(AlarmCommand.describe(alarm))"))
            if let playlist {
                // Kept as asked (the playlist may come later), but said: until then it is the tone.
                let store = try LibraryOptions.openStore(library.db)
                if try !store.playlists.playlistExists(named: playlist) {
                    let names = (try? store.playlists.playlistNames()) ?? []
                    let close = Suggestions.phrase(for: playlist, among: names)
                    reportToStandardError(tr("note: there is no playlist '\(playlist)' yet\(close); until there is, the alarm sounds the alarm tone"))
                }
            }
            try AlarmCommand.reloadDaemon(library)
        }
    }

    /// One line: when, next, what, how.
    static func describe(_ alarm: Alarm) -> String {
        var parts = [alarm.when]
        if let schedule = try? WallSchedule(parsing: alarm.when, zone: .current) {
            parts.append(schedule.next(after: Date().timeIntervalSince1970).map { tr("next \(WallSchedule.format($0, in: schedule.zone))") }
                         ?? tr("passed"))
        }
        if let playlist = alarm.playlist {
            parts.append(tr("playlist \(playlist)"))
        } else if let mood = alarm.mood {
            parts.append(tr("mood \(mood)"))
        } else {
            parts.append(tr("query '\(alarm.query ?? "sort:random")'"))
        }
        let volumes = "\(whole(alarm.startVolume))→\(whole(alarm.volume))"
        parts.append(alarm.fade > 0 ? tr("volume \(volumes) over \(minutes(alarm.fade)) (\(alarm.curve))") : tr("volume \(volumes)"))
        parts.append(tr("snooze \(minutes(alarm.snooze)), timeout \(minutes(alarm.timeout))"))
        if let say = alarm.say { parts.append(tr("says '\(say)'")) }
        if !alarm.enabled { parts.append(tr("disabled")) }
        return parts.joined(separator: ", ")
    }

    static func minutes(_ seconds: Double) -> String {
        seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(whole(seconds / 60))m" : "\(whole(seconds))s"
    }

    /// A number kept in the library as a whole number; one that is none (the saved alarms were
    /// edited by hand) shows as `?` instead of stopping the program.
    static func whole(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? String(Int(value)) : "?"
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: tr("List the alarms."))
        @OptionGroup var library: LibraryOptions
        @Flag(help: ArgumentHelp(tr("As JSON, as the library keeps them."))) var json = false
        func run() throws {
            let alarms = try AlarmBook(store: try LibraryOptions.openStore(library.db)).all()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(alarms), as: UTF8.self))
                return
            }
            if alarms.isEmpty {
                complain("No alarms; add one with `songbox alarm add wake --at 07:00 --days mon-fri`.")
            }
            for alarm in alarms { print("\(alarm.name): \(AlarmCommand.describe(alarm))") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: tr("Remove an alarm."))
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The alarm's name."))) var name: String
        func run() throws {
            var removed = false
            try AlarmCommand.change(library) { book in removed = try book.remove(name) }
            guard removed else { throw SongboxError(.notFound, "no alarm named '\(name)'", hint: "`songbox alarm ls` lists them") }
            print(tr("Removed alarm \(name)."))
            try AlarmCommand.reloadDaemon(library)
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Turn an alarm on."))
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The alarm's name."))) var name: String
        func run() throws { try AlarmCommand.setEnabled(name, true, library) }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Turn an alarm off (it is kept)."))
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The alarm's name."))) var name: String
        func run() throws { try AlarmCommand.setEnabled(name, false, library) }
    }

    static func setEnabled(_ name: String, _ enabled: Bool, _ library: LibraryOptions) throws {
        try change(library) { book in
            guard var alarm = try book.all().first(where: { $0.name == name }) else {
                throw SongboxError(.notFound, "no alarm named '\(name)'", hint: "`songbox alarm ls` lists them")
            }
            alarm.enabled = enabled
            try book.save(alarm)
        }
        print(tr(enabled ? "Alarm \(name) is on." : "Alarm \(name) is off."))
        try reloadDaemon(library)
    }

    /// Sends a message to the running daemon's alarm plugin, or says there is none.
    static func send(_ message: String, done: Message, _ library: LibraryOptions) throws {
        guard try tellDaemon(message, library) != nil else {
            throw SongboxError(.notFound, "no songbox daemon is running to \(message.split(separator: ":")[0]) an alarm",
                               hint: "alarms sound in the daemon: `songbox daemon`")
        }
        print(tr(done))
    }

    struct Snooze: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Snooze the sounding alarm (the daemon's)."))
        @OptionGroup var library: LibraryOptions
        func run() throws { try AlarmCommand.send("snooze", done: "Snoozed.", library) }
    }

    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Stop the sounding alarm; what played before comes back."))
        @OptionGroup var library: LibraryOptions
        func run() throws { try AlarmCommand.send("dismiss", done: "Dismissed.", library) }
    }

    struct Fire: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Sound an alarm now (the daemon's)."))
        @Argument(help: ArgumentHelp(tr("The alarm's name."))) var name: String
        @OptionGroup var library: LibraryOptions
        func run() throws { try AlarmCommand.send("fire:" + name, done: "Alarm \(name) sounds.", library) }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Run an alarm now on a fast clock, through the real player and a null output, on a copy of the library, and print its timeline."))
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The alarm's name."))) var name: String
        @Flag(help: ArgumentHelp(tr("The timeline as JSON: [{t, kind, volume, track, phase}] (t in seconds from the start)."))) var json = false
        @Option(help: ArgumentHelp(tr("Press snooze this long after it sounds (as 30s, 2m), to see the snooze."), valueName: "duration"))
        var snoozeAt: String?

        func run() throws {
            let snooze = try AlarmCommand.seconds(snoozeAt, "snooze-at")
            let store = try LibraryOptions.openStore(library.db)
            let timeline = try AlarmTest.timeline(of: name, store: store, wiring: try Wiring.load(), snoozeAt: snooze, logger: scriptLogger)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(timeline), as: UTF8.self))
            } else {
                // Track names and the plugin's words are shown, not obeyed, by a terminal.
                for entry in timeline { print(TerminalText.line(entry.line)) }
            }
            // An alarm that could not sound at all fails its test.
            if timeline.contains(where: { $0.phase == "failed" }) { throw ExitCode(1) }
        }
    }
}
