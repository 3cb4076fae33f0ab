import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxRemote
import SongboxServer
import SongboxWeb

/// The config file (`~/.config/songbox/config`): one `key = value` a line, `#` starts a
/// comment. With no file, the defaults apply. The player's settings, and each plugin's options
/// as `plugin.NAME.KEY` (NAME: the plugin's file name without `.lua`).
///
/// ```
/// output = alsa:hw:1,0
/// output = alsa:default   # given again: where playback can move (an alarm's fallback, MPD's outputs)
/// play_fraction = 0.5     # a play: this share of the track heard ...
/// play_seconds = 240      # ... or this many seconds
/// skip_after = 10         # moving on after this many seconds is a skip
/// fade = 0.1              # seconds of fade on pause, stop and skip
/// sleep_fade = 10         # seconds of fade before the sleep timer stops
/// crossfade = 6           # seconds one track fades into the next at its end (0 to 30; 0: off)
/// crossfade_manual = 2    # ... and on next, previous, play N (default: as crossfade)
/// crossfade_min_track = 20  # no crossfade into or out of a track shorter than this
/// crossfade_curve = equal-power  # or linear, or mixramp (placed by the tracks' MixRamp points)
/// mixramp_db = -17        # MixRamp's level: the tracks overlap where they cross it (-96 to 0)
/// mixramp_delay = 0       # seconds MixRamp's overlap is shortened by (0 to 30)
/// replay_gain = auto      # off, track, album or auto (album in order, track on random)
/// replay_gain_preamp = 0  # dB added to a ReplayGain (-15 to 15)
/// replay_gain_missing_preamp = 0  # dB for tracks without ReplayGain (-15 to 15)
/// missing_days = 30       # days a scan keeps a track whose file is gone
/// music = /mnt/music      # a folder the daemon rescans (the key may be given again)
/// plugins = ~/songbox-plugins   # the user's plugin folder (default ~/.config/songbox/plugins)
/// rescan_minutes = 60     # the daemon rescans the music folders this often (0: only on request)
/// watch = yes             # the daemon sees changes in the music folders as they happen (inotify)
/// socket = /run/songbox/control.sock  # the daemon's control socket
/// bind = 127.0.0.1:6600   # where MPD clients connect over TCP (may be given again; none: socket only)
/// max_connections = 100   # clients connected at once
/// http = 127.0.0.1:8680   # the web app and its JSON API (none: off); beyond loopback it needs:
/// http_password = secret  # the web app's login
/// http_host = songbox.local   # a name the web app is reached by (may be given again)
/// password = secret@read,add,player,control,admin   # what a TCP client may do after `password secret`
/// default_permissions = read   # what it may do before (default: everything)
/// plugin_restart_pause = 1  # seconds before a failed plugin is restarted (doubling each time)
/// plugin_failures = 5     # failures within 10 minutes before a plugin is disabled
/// allow_local_streams = no   # may a station's playlist or a redirect lead to a loopback address?
/// restore_paused = no     # yes: a daemon stopped while playing comes back without playing
/// max_queue_length = 16384  # the most items the queue holds (MPD's max_playlist_length)
/// grant.alarm = /home/pi/sounds  # a folder the daemon's plugin alarm.lua may read and write
/// net.scrobble = api.listenbrainz.org, ws.audioscrobbler.com  # hosts scrobble.lua may reach (HTTPS)
/// plugin.top10.limit = 20 # songbox.options.limit for plugins/top10.lua
/// ```
public struct SongboxConfig: Sendable, Equatable {
    /// The first output spec, when the file sets one (all of them: `settings.outputs`).
    public var output: String?
    public var settings = PlayerSettings()
    /// Days a scan keeps a track whose file is gone (marked missing) before deleting it.
    public var missingDays: Double = 30
    /// Folders the daemon rescans (none: the folders scanned before).
    public var musicFolders: [String] = []
    /// The user's plugin folder, when the file names one.
    public var pluginFolder: String?
    /// A PEM file of certificates to trust beside the system's, for remote tracks on a server
    /// with its own (a NAS at home).
    public var tlsCertificates: String?
    /// Where remote tracks are downloaded for offline listening (default
    /// `$XDG_CACHE_HOME/songbox/tracks`), and the most bytes kept there (pinned tracks aside).
    public var cacheFolder: String?
    public var cacheLimit: Int64 = 2 << 30
    /// Whether a station's playlist or a redirect from a server elsewhere may lead to a loopback
    /// or link-local address (`FetchPolicy`).
    public var allowLocalStreams = false
    /// A daemon that was playing when it stopped comes back at its place without playing.
    public var restorePaused = false
    /// Minutes between the daemon's rescans; 0: only when asked.
    public var rescanMinutes: Double = 0
    /// Whether the daemon watches the music folders and rescans as they change.
    public var watch = true
    /// The daemon's control socket, when the file names one.
    public var socket: String?
    /// Where MPD clients reach the daemon over TCP (`bind = HOST:PORT`, may be given again;
    /// `bind = none`: only the socket). Nil: 127.0.0.1:6600, as MPD.
    public var binds: [String]?
    /// The most clients connected at once (MPD's `max_connections`).
    public var maxConnections = 100
    /// Where the web app listens (`http = HOST:PORT`); nil: `http = none`, no web app.
    public var http: String? = WebConfiguration.defaultAddress
    /// The web app's login password (`http_password`); needed for an address beyond loopback.
    public var httpPassword: String?
    /// Names the web app may be reached by beside its addresses (`http_host`, again for more).
    public var httpHosts: [String] = []
    /// Who may do what over TCP (`password = SECRET@read,add,...`, `default_permissions`).
    public var access = MPDAccess()
    /// Seconds before a failed plugin is restarted; the pause doubles with each failure.
    public var pluginRestartPause = 1.0
    /// Failures within ten minutes after which a plugin is disabled.
    public var pluginFailures = 5
    /// Folders granted to daemon plugins by name (`grant.NAME = DIR`), beyond their own folder.
    public var grants: [String: [String]] = [:]
    /// Hosts granted to plugins by name (`net.NAME = host, host`): their `songbox.http`.
    public var networkGrants: [String: NetworkGrant] = [:]
    /// Options by plugin name, as written (typed when they reach Lua).
    public var pluginOptions: [String: [String: String]] = [:]

    public init() {}

    /// `$SONGBOX_CONFIG`, else `$XDG_CONFIG_HOME/songbox/config`, else `~/.config/songbox/config`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdgPath(override: "SONGBOX_CONFIG", base: "XDG_CONFIG_HOME", fallback: ".config", file: "songbox/config",
                environment: environment)
    }

    /// Where the config file is when nobody names one (`$XDG_CONFIG_HOME`, else `~/.config`).
    static func unnamedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        defaultPath(environment: environment.filter { $0.key != "SONGBOX_CONFIG" })
    }

    /// Reads the file at `path`; at the usual place a missing file is the defaults (so is
    /// `/dev/null`, as for other programs). A file the user named (`$SONGBOX_CONFIG`,
    /// `--config`) that is not there is an error, not the defaults: a typo in its path would
    /// otherwise drop every setting without a word. A bad line is an error that names the file and line.
    public static func load(from path: String = defaultPath(),
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(SongboxError) -> SongboxConfig {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            guard path == unnamedPath(environment: environment) else {
                throw SongboxError(.invalidArgument, "there is no config file here", at: path,
                                   hint: "give the path of an existing file, or unset SONGBOX_CONFIG for the defaults")
            }
            return SongboxConfig()
        }
        guard !isFolder.boolValue else {
            throw SongboxError(.invalidArgument, "the config file is a folder, not a file", at: path,
                               hint: "give the file inside it, such as \(path)/config")
        }
        let data: Data
        do {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? file.close() }
            data = try file.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw SongboxError(.invalidArgument, "cannot read the config file: \(Message(verbatim: words(for: error)))", at: path)
        }
        guard data.count <= maximumSize else {
            throw SongboxError(.invalidArgument, "the config file is larger than \(maximumSize / 1024) KB; is it the right file?", at: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SongboxError(.invalidArgument, "the config file is not UTF-8 text", at: path)
        }
        return try parse(text, path: path)
    }

    /// A config is a few lines; more than this is some other file given by mistake.
    static let maximumSize = 256 * 1024

    static func parse(_ text: String, path: String) throws(SongboxError) -> SongboxConfig {
        var config = SongboxConfig()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let place = "\(path):\(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                throw SongboxError(.invalidArgument, "expected key = value, got '\(line.trimmingCharacters(in: .whitespaces))'",
                                   at: place, hint: "keys: \(keys.joined(separator: ", "))")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            try config.set(key, value, at: place)
        }
        return config
    }

    static let keys = ["output", "play_fraction", "play_seconds", "skip_after", "fade", "sleep_fade", "crossfade",
                       "crossfade_manual", "crossfade_min_track", "crossfade_curve", "mixramp_db", "mixramp_delay", "replay_gain",
                       "replay_gain_preamp", "replay_gain_missing_preamp", "missing_days", "music", "plugins",
                       "rescan_minutes", "socket", "plugin_restart_pause", "plugin_failures", "bind", "max_connections",
                       "password", "default_permissions", "tls_certificates", "cache_folder", "cache_size", "allow_local_streams",
                       "max_queue_length", "restore_paused", "watch", "http", "http_password", "http_host"]

    /// `500M`, `4G`, `1.5G`, `800K` or a number of bytes; at most 1 PiB.
    static func byteCount(_ text: String) -> Int64? {
        let units: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        var digits = text.uppercased()
        if digits.hasSuffix("B") { digits.removeLast() }
        let unit = digits.last.flatMap { units[$0] } ?? 1
        if unit > 1 { digits.removeLast() }
        guard let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        let bytes = number * unit
        guard bytes <= 0x1p50 else { return nil }
        return Int64(bytes)
    }

    /// `~/x` as `$HOME/x`, as a shell would.
    static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
    }

    private mutating func set(_ key: String, _ value: String, at place: String) throws(SongboxError) {
        if key.hasPrefix("grant.") {
            let name = String(key.dropFirst("grant.".count))
            guard !name.isEmpty, !name.contains("."), value.hasPrefix("/") || value.hasPrefix("~/") else {
                throw SongboxError(.invalidArgument, "a grant is grant.PLUGIN = /absolute/folder, got '\(key) = \(value)'", at: place)
            }
            grants[name, default: []].append(Self.expandingHome(value))
            return
        }
        if key.hasPrefix("net.") {
            let name = String(key.dropFirst("net.".count))
            let entries = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !name.isEmpty, !name.contains("."), !entries.isEmpty else {
                throw SongboxError(.invalidArgument, "a network grant is net.PLUGIN = host, host, got '\(key) = \(value)'", at: place,
                                   hint: "hosts such as api.listenbrainz.org (HTTPS), host:8443, or http://127.0.0.1:8080 for plain HTTP")
            }
            var hosts: [NetworkGrant.Host] = []
            for entry in entries {
                guard let host = NetworkGrant.Host(entry) else {
                    let problem = NetworkGrant.Host.problem(entry) ?? "not a host"
                    throw SongboxError(.invalidArgument, "cannot grant \(key) = \(value): \(Message(verbatim: problem))", at: place,
                                       hint: "hosts such as api.listenbrainz.org (HTTPS), host:8443, or http://127.0.0.1:8080 for plain HTTP")
                }
                hosts.append(host)
            }
            networkGrants[name, default: NetworkGrant(hosts: [])].hosts += hosts
            return
        }
        if key.hasPrefix("plugin.") {
            let parts = key.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw SongboxError(.invalidArgument, "a plugin option is plugin.NAME.KEY, got '\(key)'", at: place)
            }
            pluginOptions[String(parts[1]), default: [:]][String(parts[2])] = value
            return
        }
        switch key {
        case "music", "plugins", "socket", "tls_certificates", "cache_folder":
            guard !value.isEmpty else { throw SongboxError(.invalidArgument, "\(key) needs a path", at: place) }
            let path = Self.expandingHome(value)
            switch key {
            case "music": musicFolders.append(path)
            case "plugins": pluginFolder = path
            case "socket": socket = path
            case "cache_folder": cacheFolder = path
            default:
                // Checked now: a missing or unreadable file would fail every https:// URL later.
                if let problem = NetworkTracks.certificateProblem(path) {
                    throw SongboxError(.invalidArgument, "cannot trust tls_certificates = \(value): \(problem)", at: place)
                }
                tlsCertificates = path
            }
            return
        default: break
        }
        if key == "bind" {
            guard !value.isEmpty else { throw SongboxError(.invalidArgument, "bind needs HOST:PORT or none", at: place) }
            if value != "none" {
                do { _ = try MPDEndpoint(parsing: value) } catch { throw SongboxError(.invalidArgument, error.message, at: place) }
            }
            binds = (binds ?? []) + (value == "none" ? [] : [value])
            return
        }
        switch key {
        case "http":
            guard value != "none" else { http = nil; return }
            do { _ = try WebConfiguration(address: value) } catch { throw SongboxError(.invalidArgument, error.text, at: place) }
            http = value
            return
        case "http_password":
            guard !value.isEmpty else { throw SongboxError(.invalidArgument, "http_password is empty", at: place) }
            httpPassword = value
            return
        case "http_host":
            guard !value.isEmpty, !value.contains(where: { $0 == ":" || $0 == "/" || $0 == " " }) else {
                throw SongboxError(.invalidArgument, "http_host is a host name (songbox.local), got '\(value)'", at: place)
            }
            httpHosts.append(value)
            return
        default: break
        }
        if key == "password" || key == "default_permissions" {
            do {
                if key == "password" {
                    let (secret, permissions) = try MPDAccess.password(parsing: value)
                    access.passwords[secret] = permissions
                } else {
                    access.defaultPermissions = try MPDPermissions(parsing: value)
                }
            } catch { throw SongboxError(.invalidArgument, Message(verbatim: error.message), at: place) }
            return
        }
        if ["allow_local_streams", "restore_paused", "watch"].contains(key) {
            guard let yes = ["yes": true, "no": false][value.lowercased()] else {
                throw SongboxError(.invalidArgument, "\(key) is yes or no, got '\(value)'", at: place)
            }
            switch key {
            case "restore_paused": restorePaused = yes
            case "watch": watch = yes
            default: allowLocalStreams = yes
            }
            return
        }
        if key == "cache_size" {
            guard let bytes = Self.byteCount(value) else {
                throw SongboxError(.invalidArgument, "cache_size is a size such as 500M or 4G, got '\(value)'", at: place)
            }
            cacheLimit = bytes
            return
        }
        if key == "crossfade_curve" {
            guard let curve = CrossfadeCurve(rawValue: value) else {
                throw SongboxError(.invalidArgument, "crossfade_curve is equal-power, linear or mixramp, got '\(value)'", at: place)
            }
            settings.crossfade.curve = curve
            return
        }
        if key == "replay_gain" {
            guard let mode = ReplayGainMode(rawValue: value) else {
                throw SongboxError(.invalidArgument, "replay_gain is off, track, album or auto, got '\(value)'", at: place)
            }
            settings.replayGain.mode = mode
            return
        }
        if key == "output" {
            // Given again: more outputs, in order of preference (where an alarm goes when the
            // first cannot be heard, what MPD clients list and switch between).
            let spec: OutputSpec
            do { spec = try OutputSpec(parsing: value) } catch { throw SongboxError(.invalidArgument, error.message, at: place) }
            if output == nil { output = value }
            if !settings.outputs.contains(spec) { settings.outputs.append(spec) }
            return
        }
        guard let range = Self.numberRanges[key] else {
            throw SongboxError(.invalidArgument, "unknown setting '\(key)'\(Suggestions.phrase(for: key, among: Self.keys))", at: place,
                               hint: "keys: \(Self.keys.joined(separator: ", ")), plugin.NAME.KEY, grant.NAME, net.NAME")
        }
        let number = try range.check(key, value, at: place)
        switch key {
        case "play_fraction": settings.countRules.playFraction = number
        case "play_seconds": settings.countRules.playSeconds = number
        case "skip_after": settings.countRules.skipAfterSeconds = number
        case "fade": settings.transitionFade = number
        case "sleep_fade": settings.sleepFade = number
        case "crossfade": settings.crossfade.seconds = number
        case "crossfade_manual": settings.crossfade.manualSeconds = number
        case "crossfade_min_track": settings.crossfade.minTrackSeconds = number
        case "mixramp_db": settings.crossfade.mixRampDB = number
        case "mixramp_delay": settings.crossfade.mixRampDelay = number
        case "replay_gain_preamp": settings.replayGain.preamp = number
        case "replay_gain_missing_preamp": settings.replayGain.missingPreamp = number
        case "rescan_minutes": rescanMinutes = number
        case "plugin_restart_pause": pluginRestartPause = number
        case "missing_days": missingDays = number
        // Whole numbers within their range: the conversions cannot trap.
        case "plugin_failures": pluginFailures = Int(number)
        case "max_connections": maxConnections = Int(number)
        case "max_queue_length": settings.maxQueueLength = Int(number)
        default: break  // numberRanges has no other key
        }
    }

    /// The range of each number setting, checked when the file is read: a number beyond sense
    /// (`fade = 1e308`) is an error naming the key, the value, the range and the line, never a
    /// player that skips on `pause` or a plugin that waits for ever. docs/config.md lists the same.
    static let numberRanges: [String: NumberRange] = [
        "play_fraction": NumberRange(.share, 0, 1),
        "play_seconds": NumberRange(.seconds, 0, 86_400),
        "skip_after": NumberRange(.seconds, 0, 86_400),
        "fade": NumberRange(.seconds, 0, 10),
        "sleep_fade": NumberRange(.seconds, 0, 600),
        "crossfade": NumberRange(.seconds, CrossfadeSettings.range.lowerBound, CrossfadeSettings.range.upperBound),
        "crossfade_manual": NumberRange(.seconds, CrossfadeSettings.range.lowerBound, CrossfadeSettings.range.upperBound),
        "crossfade_min_track": NumberRange(.seconds, 0, 3_600),
        "mixramp_db": NumberRange(.decibels, CrossfadeSettings.mixRampLevels.lowerBound, CrossfadeSettings.mixRampLevels.upperBound),
        "mixramp_delay": NumberRange(.seconds, CrossfadeSettings.range.lowerBound, CrossfadeSettings.range.upperBound),
        "replay_gain_preamp": NumberRange(.decibels, ReplayGainSettings.preampRange.lowerBound, ReplayGainSettings.preampRange.upperBound),
        "replay_gain_missing_preamp": NumberRange(.decibels, ReplayGainSettings.preampRange.lowerBound,
                                                  ReplayGainSettings.preampRange.upperBound),
        "missing_days": NumberRange(.days, 0, 36_500),
        "rescan_minutes": NumberRange(.minutes, 0, 525_600),
        "plugin_restart_pause": NumberRange(.seconds, 0, 600),
        "plugin_failures": NumberRange(.whole, 1, 1_000),
        "max_connections": NumberRange(.whole, 1, 10_000),
        "max_queue_length": NumberRange(.whole, 1, 100_000),
    ]
}

/// What a number setting holds and the values it may take.
struct NumberRange: Sendable {
    enum Unit: Sendable { case seconds, minutes, days, decibels, share, whole }
    let unit: Unit
    let lowest: Double
    let highest: Double

    init(_ unit: Unit, _ lowest: Double, _ highest: Double) {
        self.unit = unit
        self.lowest = lowest
        self.highest = highest
    }

    /// `value` as a number within the range (whole, when the unit is), or an error saying the
    /// key, the value and the range, at `place` (the file and line).
    func check(_ key: String, _ value: String, at place: String) throws(SongboxError) -> Double {
        if let number = Double(value), number.isFinite, number >= lowest, number <= highest,
           unit != .whole || number == number.rounded() {
            return number
        }
        let (low, high) = (Self.text(lowest), Self.text(highest))
        let range: Message = switch unit {
        case .seconds: "seconds from \(low) to \(high)"
        case .minutes: "minutes from \(low) to \(high)"
        case .days: "days from \(low) to \(high)"
        case .decibels: "dB from \(low) to \(high)"
        case .share: "a share from \(low) to \(high)"
        case .whole: "a whole number from \(low) to \(high)"
        }
        throw SongboxError(.invalidArgument, "\(key) is \(range), got '\(value)'", at: place)
    }

    /// 15, 0.5, 100000: as the docs write it.
    static func text(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}
