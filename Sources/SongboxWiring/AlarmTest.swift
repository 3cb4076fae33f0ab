import Foundation
import Logging
import SongboxAudio
import SongboxLibrary
import SongboxScript
import Synchronization

/// An alarm sounded now on a fast clock, through the real player and a null output, by the
/// bundled alarm plugin (`plugins/alarm.lua test NAME`), on a copy of the library (no play is
/// counted, the saved queue is not touched): its timeline, as data. `songbox alarm test` prints
/// it; the daemon's `alarmtest` command answers it (the web app's Alarms page).
public enum AlarmTest {
    /// One moment of the timeline: `t` seconds from the start, what happened (`alarm` with its
    /// `phase`, `volume`, `track`, `check`, `say`), the volume then, and what it says of it.
    public struct Entry: Sendable, Hashable, Codable {
        public var t: Double
        public var kind: String
        public var volume: Double
        public var phase: String?
        public var to: String?
        public var track: String?
        /// How many times the track started in a row (the alarm repeats its source).
        public var times: Int?
        public var said: String?
        public var why: String?
        /// The audio check: whether audio flows.
        public var ok: Bool?

        /// What it says of the moment, after its kind and volume: `sounding`, `fallback to the
        /// alarm tone  (nothing plays)`, `steady.mp3 (x3)`, `audio flows`.
        public var details: String {
            var text = ""
            if let phase { text += "  " + phase }
            if let to { text += " to " + to }
            if let track { text += "  " + track }
            if let times { text += " (x\(times))" }
            if let said { text += "  " + said }
            if let why { text += "  (" + why + ")" }
            if ok == true { text += "  audio flows" }
            return String(text.drop { $0 == " " })
        }

        /// The entry as a line of `songbox alarm test`: `    30.0 s  volume   volume  40.0`.
        public var line: String {
            let line = String(format: "%8.1f s  ", t) + kind.padding(toLength: max(8, kind.count), withPad: " ", startingAt: 0)
                + String(format: " volume %5.1f", volume)
            return details.isEmpty ? line : line + "  " + details
        }

        /// The entry as the command's record: `t` first (a new record at each), `kind`, `volume`,
        /// `what` (`details`), then each thing it says.
        public var fields: [(String, String)] {
            var fields = [("t", String(format: "%.1f", t)), ("kind", kind), ("volume", String(format: "%.1f", volume))]
            if !details.isEmpty { fields.append(("what", details)) }
            for (key, value) in [("phase", phase), ("to", to), ("track", track), ("times", times.map(String.init)), ("said", said), ("why", why),
                                 ("ok", ok.map { $0 ? "1" : "0" })] {
                if let value { fields.append((key, value)) }
            }
            return fields
        }
    }

    /// The most a test may print (its timeline is a few dozen lines; a looping plugin is stopped here).
    static let longestOutput = 1 << 20

    /// One test at a time in a process (each decodes the alarm's whole length as fast as it can).
    private static let running = Mutex(false)

    /// Runs the alarm `name` of `store`'s library (a copy of it, made in a folder of its own) and
    /// returns its timeline. `snoozeAt`: snooze pressed once, that long after it sounds. The
    /// plugin's log lines go to `logger`.
    public static func timeline(of name: String, store: LibraryStore, wiring: Wiring, snoozeAt: Double? = nil,
                                logger: Logger) throws(SongboxError) -> [Entry] {
        guard try AlarmBook(store: store).all().contains(where: { $0.name == name }) else {
            throw SongboxError(.notFound, "no alarm named '\(name)'", hint: "`songbox alarm ls` lists them")
        }
        if let snoozeAt, !(snoozeAt >= 0 && snoozeAt <= 86_400) {
            throw SongboxError(.invalidArgument, "the snooze is pressed from 0 to 86400 seconds after the alarm sounds")
        }
        guard let plugin = Wiring.bundledPlugin("alarm.lua") else {
            throw SongboxError(.notFound, "the bundled alarm plugin (alarm.lua) could not be written out to a cache folder")
        }
        guard running.withLock({ busy in defer { busy = true }; return !busy }) else {
            throw SongboxError(.invalidArgument, "an alarm test runs already: try again when it is over")
        }
        defer { running.withLock { $0 = false } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("songbox-alarm-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw SongboxError(.folderUnavailable, "cannot make a folder for the test's copy of the library in \(folder): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/library.db"
        try store.copy(to: path)
        let printed = try run(plugin, ["test", name, snoozeAt.map { String($0) } ?? ""], copy: try LibraryStore(path: path),
                              wiring: wiring, logger: logger)
        do {
            return try JSONDecoder().decode([Entry].self, from: Data(printed.utf8))
        } catch {
            throw SongboxError(.scriptFailed, "the alarm plugin's test said no timeline: \(printed.prefix(200))")
        }
    }

    /// Runs the plugin on `copy` with a fast null output, from its saved queue and volume (as
    /// the alarm would find them); what it printed.
    private static func run(_ plugin: String, _ arguments: [String], copy: LibraryStore, wiring: Wiring,
                            logger: Logger) throws(SongboxError) -> String {
        let host = wiring.scriptPlayer(store: copy, output: .null, fast: true, resume: true)
        defer { host.shutdown() }
        var printed: [UInt8] = []
        do {
            let runtime = try ScriptSetup.makeRuntime(file: plugin, arguments: arguments, store: copy, limits: .userScript,
                                                      options: wiring.config.pluginOptions, player: host,
                                                      // On a copy of the library: the plugin's own function playlists only.
                                                      functionPlaylists: ScriptPlaylistHost(next: nil), logger: logger) { bytes in
                if printed.count + bytes.count <= longestOutput { printed += bytes }
            }
            runtime.alarmTone = Wiring.alarmTone
            runtime.chime = Wiring.chime
            runtime.moodPresetFiles = Wiring.moodPresetFiles(userFolder: wiring.config.pluginFolder)
            let loop = ScriptEventLoop(runtime: runtime, host: host, fast: true) { message in logger.warning("\(message)") }
            try runtime.run(file: plugin, arguments: arguments.map { .string($0) })
            try loop.run(interrupted: { false })
        } catch {
            throw SongboxError(.scriptFailed, "the alarm test failed: \(error)")
        }
        return String(decoding: printed, as: UTF8.self)
    }
}
