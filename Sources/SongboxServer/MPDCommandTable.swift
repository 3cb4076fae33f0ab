import SongboxAudio

/// The protocol's commands, each once (as MPD's own `src/command/AllCommands.cxx`): its name,
/// the permission it needs, how many arguments it takes, and the step that reads them into what
/// it does. Lookup, `unknown command`, permission checks, argument counts, `commands` and
/// `notcommands` all come from here, so they cannot drift apart. songbox's own commands (what
/// `songbox play`, `songbox sleep` and `songbox plugin` send) are in it beside MPD's.
public enum MPDCommandTable {
    /// One command.
    public struct Entry: Sendable {
        public let name: String
        /// What a client needs to run it; empty: nothing (`ping`, `password`, ...).
        public let permission: MPDPermissions
        /// How many arguments it takes; nil: not checked here (`close`).
        public let arguments: ClosedRange<Int>?
        /// Reads the arguments into the command; `.words` for one answered from its words.
        let parse: @Sendable (Arguments) throws(MPDProtocol.Failure) -> MPDCommand
        /// Whether it is one of `answeredInPlace`.
        public let isAnsweredInPlace: Bool

        init(_ name: String, _ permission: MPDPermissions, _ arguments: ClosedRange<Int>?,
             _ parse: @escaping @Sendable (Arguments) throws(MPDProtocol.Failure) -> MPDCommand = { _ in .words }) {
            self.name = name
            self.permission = permission
            self.arguments = arguments
            self.parse = parse
            isAnsweredInPlace = MPDCommandTable.answeredInPlace.contains(name)
        }

        /// Throws unless `permissions` may run it with `count` arguments, in MPD's words: what
        /// every adapter (an MPD connection, the web app) checks before running it.
        public func admit(count: Int, permissions: MPDPermissions) throws(MPDProtocol.Failure) {
            guard permissions.isSuperset(of: permission) else {
                throw MPDProtocol.Failure(.permission, "you don't have permission for \"\(name)\"")
            }
            try check(count: count)
        }

        /// The arguments' count checked, with MPD's words for a wrong one.
        func check(count: Int) throws(MPDProtocol.Failure) {
            guard let arguments, !arguments.contains(count) else { return }
            let quoted = "\"\(name)\""
            if arguments.count == 1 { throw MPDProtocol.Failure(.argument, "wrong number of arguments for \(quoted)") }
            if count < arguments.lowerBound { throw MPDProtocol.Failure(.argument, "too few arguments for \(quoted)") }
            throw MPDProtocol.Failure(.argument, "too many arguments for \(quoted)")
        }
    }

    /// The commands answered from memory, never waiting on a file or another thread (`status`
    /// reads one row by id once a track, for its bitrate): run on the connection's event loop, so
    /// what clients ask most often, `status` above all, costs no hand-over between threads. Every
    /// other command runs where it may block.
    public static let answeredInPlace: Set<String> = [
        "binarylimit", "channels", "commands", "decoders", "getvol", "listmounts", "listpartitions", "notcommands", "outputs",
        "partition", "ping", "protocol", "readmessages", "replay_gain_status", "status", "subscribe", "tagtypes", "unsubscribe",
        "urlhandlers",
    ]

    /// Any number of arguments from `n`.
    private static func from(_ n: Int) -> ClosedRange<Int> { n...Int.max }

    /// Sorted by name, as MPD lists them. Permissions are MPD's (checked against Debian's MPD in
    /// MPDServerTests); songbox's own take the nearest of MPD's.
    public static let entries: [Entry] = [
        Entry("add", .add, 1...2),
        Entry("addid", .add, 1...2),
        Entry("addtagid", .add, 3...3) { args throws(MPDProtocol.Failure) in
            .queueTag(id: try args.unsigned(0), tag: try MPDTag.canonicalName(try args.string(1)), value: try args.string(2))
        },
        // songbox's own: the alarms (`songbox alarm`): list, add or change (one JSON object), remove.
        Entry("alarmrm", .control, 1...1),
        Entry("alarms", .read, 0...0),
        Entry("alarmsave", .control, 1...1),
        // songbox's own: an alarm's timeline on the fast clock (NAME [SNOOZE_AT seconds]), as
        // `songbox alarm test` prints it. `control`: it keeps a core busy for a moment.
        Entry("alarmtest", .control, 1...2),
        Entry("albumart", .read, 2...2),
        // songbox's own: the autoplay plugin's settings (each a record), and one changed (KEY
        // VALUE; an empty VALUE: back to the config's), checked as the config's are.
        Entry("autoplayset", .control, 2...2),
        Entry("autoplaysettings", .read, 0...0),
        Entry("binarylimit", [], 1...1),
        Entry("channels", .read, 0...0),
        Entry("clear", .player, 0...0) { _ in .player(.clear) },
        Entry("clearerror", .player, 0...0) { _ in .player(.clearError) },
        Entry("cleartagid", .add, 1...2) { args throws(MPDProtocol.Failure) in
            .queueTag(id: try args.unsigned(0), tag: args.values.count > 1 ? try MPDTag.canonicalName(try args.string(1)) : nil, value: nil)
        },
        Entry("close", [], nil),
        Entry("commands", [], 0...0),
        Entry("config", .admin, 0...0),
        Entry("consume", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.mode(.consume, try args.toggle(0))) },
        Entry("count", .read, from(1)),
        Entry("crossfade", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.crossfade(Double(try args.unsigned(0)))) },
        Entry("currentsong", .read, 0...0),
        Entry("decoders", .read, 0...0),
        Entry("delete", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.delete(try args.range(0))) },
        Entry("deleteid", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.deleteItem(.id(try args.integer(0)))) },
        Entry("disableoutput", .admin, 1...1),
        Entry("enableoutput", .admin, 1...1),
        Entry("find", .read, from(1)),
        Entry("findadd", .add, from(1)),
        // No `getfingerprint`: songbox has no Chromaprint, and MPD built without it has not the
        // command (so clients such as myMPD do not offer what cannot work).
        Entry("getvol", .read, 0...0),
        // songbox's own: the latest plays and skips, each with why it ended ([COUNT]).
        Entry("history", .read, 0...1),
        Entry("idle", .read, from(0)),
        Entry("list", .read, from(1)),
        Entry("listall", .read, 0...1),
        Entry("listallinfo", .read, 0...1),
        Entry("listfiles", .read, 0...1),
        Entry("listmounts", .read, 0...0),
        Entry("listpartitions", .read, 0...0),
        Entry("listplaylist", .read, 1...2),
        Entry("listplaylistinfo", .read, 1...2),
        Entry("listplaylists", .read, 0...0),
        Entry("load", .add, 1...3),
        Entry("lsinfo", .read, 0...1),
        Entry("mixrampdb", .player, 1...1) { args throws(MPDProtocol.Failure) in
            let level = try args.decimal(0)
            guard level.isFinite, CrossfadeSettings.mixRampLevels.contains(level) else {
                throw MPDProtocol.Failure(.argument, "mixrampdb is from -96 to 0, got \(args.values[0])")
            }
            return .player(.mixRamp(level: level, delay: nil))
        },
        // As MPD: "nan" turns MixRamp off.
        Entry("mixrampdelay", .player, 1...1) { args throws(MPDProtocol.Failure) in
            let delay = try args.decimal(0)
            guard delay.isNaN || CrossfadeSettings.range.contains(delay) else {
                throw MPDProtocol.Failure(.argument, "mixrampdelay is from 0 to 30 seconds or nan, got \(args.values[0])")
            }
            return .player(.mixRamp(level: nil, delay: delay))
        },
        // songbox's own: the tracks a mood playlist would play, each with why (KEY=VALUE...).
        Entry("moodplaylist", .read, from(1)),
        Entry("moods", .read, 0...0),
        Entry("move", .player, 2...2) { args throws(MPDProtocol.Failure) in .player(.move(try args.range(0), to: try args.place(1))) },
        Entry("moveid", .player, 2...2) { args throws(MPDProtocol.Failure) in
            .player(.moveItem(.id(try args.integer(0)), to: try args.place(1)))
        },
        Entry("next", .player, 0...0) { _ in .player(.next) },
        Entry("notcommands", [], 0...0),
        Entry("outputs", .read, 0...0),
        Entry("partition", .read, 1...1),
        Entry("password", [], 1...1),
        Entry("pause", .player, 0...1) { args throws(MPDProtocol.Failure) in
            .player(.pause(args.values.isEmpty ? nil : try args.boolean(0)))
        },
        Entry("ping", [], 0...0) { _ in .ignored },
        Entry("play", .player, 0...1) { args throws(MPDProtocol.Failure) in .player(.play(try args.optionalInteger(0).map { .position($0) })) },
        Entry("playid", .player, 0...1) { args throws(MPDProtocol.Failure) in .player(.play(try args.optionalInteger(0).map { .id($0) })) },
        Entry("playlist", .read, 0...0),
        Entry("playlistadd", .control, 2...3),
        Entry("playlistclear", .control, 1...1),
        Entry("playlistdelete", .control, 2...2),
        Entry("playlistfind", .read, from(1)),
        Entry("playlistid", .read, 0...1),
        Entry("playlistinfo", .read, 0...1),
        Entry("playlistlength", .read, 1...1),
        Entry("playlistmove", .control, 3...3),
        Entry("playlistsearch", .read, from(1)),
        // songbox's own: plays a day over the last DAYS days.
        Entry("playsperday", .read, 1...1),
        Entry("plchanges", .read, 1...2),
        Entry("plchangesposid", .read, 1...2),
        Entry("plugindisable", .admin, 1...1),
        Entry("pluginenable", .admin, 1...1),
        // songbox's own: a plugin's last log lines (`line`, `level`, `where` FILE:LINE, `ago` seconds).
        Entry("pluginlog", .read, 1...1),
        Entry("pluginreload", .admin, 0...1),
        // songbox's own: `announce SOURCE DUCK CHIME` (`songbox announce`); a file is read by the daemon.
        Entry("announce", .admin, 3...3),
        Entry("plugins", .read, 0...0),
        Entry("previous", .player, 0...0) { _ in .player(.previous) },
        Entry("prio", .player, from(2)) { _ in .ignored },
        Entry("prioid", .player, from(2)) { _ in .ignored },
        Entry("protocol", [], from(0)),
        // songbox's own: the songs a songbox query finds (QUERY [START:END]), as `search` lists them.
        Entry("query", .read, 1...2),
        Entry("queryplay", .add, from(0)),
        Entry("random", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.mode(.random, try args.boolean(0) ? .on : .off)) },
        Entry("rangeid", .add, 2...2) { _ in .ignored },
        Entry("readcomments", .read, 1...1),
        Entry("readmessages", .read, 0...0),
        Entry("readpicture", .read, 2...2),
        Entry("rename", .control, 2...2),
        Entry("repeat", .player, 1...1) { args throws(MPDProtocol.Failure) in .player(.mode(.repeat, try args.boolean(0) ? .on : .off)) },
        Entry("replay_gain_mode", .player, 1...1) { args throws(MPDProtocol.Failure) in
            guard let mode = ReplayGainMode(rawValue: try args.string(0)) else {
                throw MPDProtocol.Failure(.argument, "Unrecognized replay gain mode")
            }
            return .player(.replayGain(mode))
        },
        Entry("replay_gain_status", .read, 0...0),
        Entry("rescan", .control, 0...1),
        Entry("rm", .control, 1...1),
        Entry("save", .control, 1...2),
        // songbox's own: `say TEXT DUCK CHIME` (`songbox announce --say`): TEXT spoken over the music.
        Entry("say", .admin, 3...3),
        Entry("scriptplaylist", .read, 1...1),
        Entry("search", .read, from(1)),
        Entry("searchadd", .add, from(1)),
        Entry("searchaddpl", .control, from(2)),
        Entry("searchcount", .read, from(1)),
        Entry("searchplaylist", .read, 2...4),
        Entry("seek", .player, 2...2) { args throws(MPDProtocol.Failure) in
            .player(.seek(.position(try args.integer(0)), seconds: try args.seconds(1)))
        },
        Entry("seekcur", .player, 1...1) { args throws(MPDProtocol.Failure) in
            let text = try args.string(0)
            guard let value = Double(text), value.isFinite, abs(value) < 1e7 else {
                throw MPDProtocol.Failure(.argument, "Float expected: \(text)")
            }
            return .player(.seekCurrent(value, relative: text.hasPrefix("+") || text.hasPrefix("-")))
        },
        Entry("seekid", .player, 2...2) { args throws(MPDProtocol.Failure) in
            .player(.seek(.id(try args.integer(0)), seconds: try args.seconds(1)))
        },
        Entry("sendmessage", .control, 2...2),
        Entry("setvol", .player, 1...1) { args throws(MPDProtocol.Failure) in
            let volume = try args.integer(0)
            // MPD reads it unsigned: -1 is too large too.
            guard PlayerEngine.volumeRange.contains(Double(volume)) else { throw MPDProtocol.Failure(.argument, "Number too large: \(volume)") }
            return .player(.setVolume(Double(volume)))
        },
        Entry("shuffle", .player, 0...1) { _ in .player(.shuffle) },
        Entry("single", .player, 1...1) { args throws(MPDProtocol.Failure) in
            guard let toggle = PlaybackModes.Toggle(mpd: try args.string(0)) else {
                throw MPDProtocol.Failure(.argument, "Unrecognized single mode, expected 0, 1, or oneshot")
            }
            return .player(.mode(.single, toggle))
        },
        // songbox's own: the sleep timer (`songbox sleep`), one reading of it for every surface;
        // without an argument, what it is (`MPDCommands.sleepFields`).
        Entry("sleep", .player, 0...1) { args throws(MPDProtocol.Failure) in
            guard !args.values.isEmpty else { return .words }
            guard let setting = SleepTimer.Setting(parsing: try args.string(0)) else {
                throw MPDProtocol.Failure(.argument, "sleep takes minutes (up to a year), track, queue or off")
            }
            return .player(.sleep(setting.timer))
        },
        // songbox's own: a smart playlist from a query (NAME QUERY), as `songbox playlist smart`.
        Entry("smartsave", .control, 2...2),
        Entry("stats", .read, 0...0),
        Entry("status", .read, 0...0),
        Entry("sticker", .admin, from(3)),
        Entry("stickernames", .admin, 0...0),
        Entry("stickernamestypes", .admin, 0...1),
        Entry("stickertypes", .admin, 0...0),
        Entry("stop", .player, 0...0) { _ in .player(.stop) },
        Entry("subscribe", .read, 1...1),
        Entry("swap", .player, 2...2) { args throws(MPDProtocol.Failure) in
            .player(.swap(.position(try args.integer(0)), .position(try args.integer(1))))
        },
        Entry("swapid", .player, 2...2) { args throws(MPDProtocol.Failure) in
            .player(.swap(.id(try args.integer(0)), .id(try args.integer(1))))
        },
        Entry("tagtypes", [], from(0)),
        Entry("toggleoutput", .admin, 1...1),
        // songbox's own: the most played tracks in the last DAYS days (0: all time) [COUNT].
        Entry("topplayed", .read, 1...2),
        Entry("unsubscribe", .read, 1...1),
        Entry("update", .control, 0...1),
        Entry("urlhandlers", .read, 0...0),
        Entry("volume", .player, 1...1) { args throws(MPDProtocol.Failure) in
            let change = try args.integer(0)
            // MPD's words for either side.
            guard (-100...100).contains(change) else { throw MPDProtocol.Failure(.argument, "Number too large: \(change)") }
            return .player(.changeVolume(Double(change)))
        },
    ]

    private static let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })

    /// The command named `name`, or MPD's `unknown command` failure.
    public static func entry(_ name: String) throws(MPDProtocol.Failure) -> Entry {
        guard let entry = byName[name] else { throw MPDProtocol.Failure(.unknown, "unknown command \"\(name)\"") }
        return entry
    }

    /// The permission `name` needs; nil for a name that is no command (nothing to refuse).
    public static func permission(of name: String) -> MPDPermissions? { byName[name]?.permission }
}

/// A command read from its arguments: what it does, checked and typed, before it runs.
enum MPDCommand: Sendable {
    /// A command not read into a type yet: `MPDCommands.handle` answers it from its words.
    case words
    /// Accepted and changes nothing (songbox plays gapless, does not weigh priorities).
    case ignored
    /// A command to the player, run by the engine as Lua's `songbox.player` runs it.
    case player(PlayerCommand)
    /// A tag of a queued stream set (`addtagid`) or cleared (`cleartagid`: a nil value; a nil
    /// tag clears them all), as MPD allows only for remote songs.
    case queueTag(id: Int, tag: String?, value: String?)
}
