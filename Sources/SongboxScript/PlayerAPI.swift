import Foundation
import SongboxAudio
import SongboxFiles
import SongboxLibrary
import SongboxPlayback

/// `songbox.queue.*` and `songbox.player.*`. Commands that change playback count as writes
/// (refused in a dry run). Positions are 1-based, as everywhere in Lua; queue ids are stable.
public enum PlayerAPI {
    typealias Body = (LuaArguments) throws -> [LuaValue]

    /// The longest fade (`player.fade{over=}`), in seconds: a day.
    static let longestFade = 86_400.0

    public static func install(on runtime: LuaRuntime, host: PlayerHost) throws(LuaScriptError) {
        let functions: [(String, Bool, Body)] = [
            ("queue.add", true, { args in try add(args, host) }),
            ("queue.list", false, { _ in [try list(host)] }),
            ("queue.remove", true, { args in
                let ids = Set(try queueIDs(args, 1))
                try host.control.perform { $0.remove(ids: ids) }
                return [.boolean(true)]
            }),
            ("queue.move", true, { args in
                let id = try args.integer(1), position = try args.integer(2)
                try host.control.perform { $0.move(id: id, to: position - 1) }
                return [.boolean(true)]
            }),
            ("queue.clear", true, { _ in [.boolean(try run(.clear, host))] }),
            ("queue.shuffle", true, { _ in [.boolean(try run(.shuffle, host))] }),
            // `player.play([id] [, {reason = "alarm"}])`: an alarm's music says so (docs/player.md).
            ("player.play", true, { args in
                let optionsAt = args.typeName(1) == "table" ? 1 : 2
                let id = optionsAt == 1 ? nil : try args.optionalInteger(1)
                let options = try args.optionalTable(optionsAt)?.tableValue ?? [:]
                for key in options.keys where key != "reason" {
                    throw LuaFunctionError.argument(optionsAt, "unknown option '\(key)' (options: reason)")
                }
                let reason: StartReason
                switch options["reason"] ?? .nil {
                case .nil, .string("user"): reason = .user
                case .string("alarm"): reason = .alarm
                case let value: throw LuaFunctionError.argument(optionsAt, "'reason' is \"user\" or \"alarm\", got \(value.stringValue ?? value.typeName)")
                }
                let known = try run(.play(id.map { .id($0) }, reason: reason), host)
                return known ? [.boolean(true)] : [.nil, .string("songbox.player.play: no queue item with id \(id ?? 0)")]
            }),
            ("player.pause", true, { _ in try host.control.perform { $0.pause() }; return [.boolean(true)] }),
            // `player.cue(queue_id, seconds)`: stopped there; the next `play()` starts there.
            ("player.cue", true, { args in
                let id = try args.integer(1), seconds = try args.seconds(2, limit: Self.longestFade * 366)
                let known = try host.control.perform { engine -> Bool in
                    guard engine.queue.item(id: id) != nil else { return false }
                    engine.cue(id: id, at: seconds)
                    return true
                }
                return known ? [.boolean(true)] : [.nil, .string("songbox.player.cue: no queue item with id \(id)")]
            }),
            ("player.resume", true, { _ in try host.control.perform { $0.resume() }; return [.boolean(true)] }),
            ("player.stop", true, { _ in [.boolean(try run(.stop, host))] }),
            ("player.next", true, { _ in [.boolean(try run(.next, host))] }),
            ("player.previous", true, { _ in [.boolean(try run(.previous, host))] }),
            ("player.seek", true, { args in try seek(args, host) }),
            ("player.status", false, { _ in [try status(host)] }),
            // Reading the volume is not a write: only setting it is refused (in a dry run, ...).
            ("player.volume", false, { [weak runtime] args in
                let volume = args.isNil(1) ? nil : try args.number(1)
                if volume != nil, let refusal = runtime?.bridge.writeRefusal("player.volume") { throw refusal }
                // One round trip to the player (on ALSA it can wait for a chunk).
                return [.number(try host.control.perform { engine in
                    // Setting the volume cannot fail.
                    if let volume { _ = try? PlayerCommand.setVolume(volume).apply(to: engine) }
                    return engine.currentVolume
                })]
            }),
            // `player.replay_gain([mode])`: the mode, set first when given (only that writes).
            ("player.replay_gain", false, { [weak runtime] args in
                let mode = try replayGainMode(args)
                if mode != nil, let refusal = runtime?.bridge.writeRefusal("player.replay_gain") { throw refusal }
                return [.string(try host.control.perform { engine in
                    if let mode { engine.setReplayGain(mode) }
                    return engine.replayGainMode.rawValue
                })]
            }),
            // `player.crossfade([seconds])`: the crossfade at a track's end, set first when given.
            ("player.crossfade", false, { [weak runtime] args in
                let seconds = args.isNil(1) ? nil : try args.seconds(1, limit: CrossfadeSettings.range.upperBound)
                if seconds != nil, let refusal = runtime?.bridge.writeRefusal("player.crossfade") { throw refusal }
                return [.number(try host.control.perform { engine in
                    if let seconds { engine.setCrossfade(seconds) }
                    return engine.settings.crossfade.seconds
                })]
            }),
            ("player.fade", true, { args in try fade(args, host) }),
            ("player.announce", true, { [weak runtime] args in try announce(args, host, runtime) }),
            ("player.outputs", false, { _ in [try outputs(host)] }),
            ("player.use_output", true, { args in try useOutput(args, host) }),
            ("player.set", true, { args in try setModes(args, host) }),
            ("player.sleep", true, { args in try sleep(args, host) }),
        ]
        for (name, writes, body) in functions {
            try runtime.register(name, writes: writes) { args in
                do { return try body(args) } catch let error as SongboxError {
                    return [.nil, .string("songbox.\(name): \(error.message)")]
                } catch let refused as PlayerUnavailable {
                    throw LuaFunctionError.message("songbox.\(name): \(refused)")
                }
            }
        }
        try AlarmAPI.install(on: runtime, host: host)
    }

    // MARK: Functions

    /// Runs a player command as MPD's clients' run (`PlayerCommand`): false when its queue item
    /// is not there.
    private static func run(_ command: PlayerCommand, _ host: PlayerHost) throws -> Bool {
        try host.control.perform { engine in
            do throws(PlayerCommand.Failure) { try command.apply(to: engine); return true } catch { return false }
        }
    }

    private static func add(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        let urls = try urls(args, 1)
        let ids = urls == nil ? try trackIDs(args, 1) : []
        let options = try args.optionalTable(2)?.tableValue ?? [:]
        for key in options.keys where !["at", "lane"].contains(key) {
            throw LuaFunctionError.argument(2, "unknown option '\(key)' (options: at, lane)")
        }
        let placement: PlayQueue.Placement
        switch options["at"] ?? .nil {
        case .nil, .string("end"): placement = .end
        case .string("next"): placement = .next
        case let value where value.intValue != nil: placement = .position(value.intValue! - 1)
        case let value: throw LuaFunctionError.argument(2, "'at' must be \"next\", \"end\" or a position, got \(value.typeName)")
        }
        let lane: QueueItem.Lane
        switch options["lane"] ?? .nil {
        case .nil, .string("user"): lane = .user
        case .string("autoplay"): lane = .autoplay
        case let value: throw LuaFunctionError.argument(2, "'lane' must be \"user\" or \"autoplay\", got \(value.stringValue ?? value.typeName)")
        }
        // The queue's bound (`max_queue_length`) holds for plugins as for everyone: what does
        // not fit is refused before any track is looked up, and nothing of it is added.
        let wanted = urls?.count ?? ids.count
        if let full = try queueFull(wanted, host) { return full }
        let player = try host.player(orMake: ())
        let playable: [PlayableTrack]
        if let urls {
            // A URL the library keeps (`songbox add-url`) plays as that track, counted.
            playable = try urls.map { url throws(SongboxError) in
                guard let kept = try host.store.tracks.track(path: url) else { return .outsideLibrary(url: url) }
                return try player.playable([kept]).first ?? .outsideLibrary(url: url)
            }
        } else {
            let found = try host.store.tracks.byID(ids)
            if let missing = ids.first(where: { found[$0] == nil }) {
                return [.nil, .string("songbox.queue.add: no track with id \(missing)")]
            }
            playable = try player.playable(ids.compactMap { found[$0] })
        }
        let tracks = playable
        let added = try host.control.perform { engine in
            engine.queueRoom >= tracks.count ? engine.add(tracks, placement: placement, lane: lane) : nil
        }
        guard let added else { return try queueFull(wanted, host) ?? [.nil, .string("songbox.queue.add: the queue is full")] }
        return [.array(added.map { .integer($0) })]
    }

    /// `nil, message` when `count` more items do not fit in the queue; nil when they do.
    private static func queueFull(_ count: Int, _ host: PlayerHost) throws -> [LuaValue]? {
        let (room, most) = try host.control.perform { ($0.queueRoom, $0.settings.maxQueueLength) }
        guard count > room else { return nil }
        return [.nil, .string("songbox.queue.add: the queue is full (at most \(most) items, max_queue_length): "
                              + "\(count) more do not fit, room for \(room)")]
    }

    private static func list(_ host: PlayerHost) throws -> LuaValue {
        let items = try host.control.perform { $0.queue.items }
        let tracks = (try? host.store.tracks.byID(items.map(\.track.trackID))) ?? [:]
        return .array(items.enumerated().map { position, item in
            var table = trackTable(item, tracks[item.track.trackID])
            table["position"] = .integer(position + 1)
            table["lane"] = .string(item.lane.rawValue)
            return .table(table)
        })
    }

    private static func seek(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        // A number is a position in seconds; a string with a sign ("+15", "-15") is relative.
        if args.typeName(1) == "string" {
            let text = try args.string(1)
            guard let sign = text.first, sign == "+" || sign == "-", let delta = Double(text), delta.isFinite else {
                throw LuaFunctionError.argument(1, "expected seconds, or \"+N\" / \"-N\" to move from here, got '\(text)'")
            }
            return [.number(try host.control.perform { engine in engine.seek(by: delta); return engine.elapsed })]
        }
        let seconds = try args.number(1)
        return [.number(try host.control.perform { engine in engine.seek(to: seconds); return engine.elapsed })]
    }

    private static func replayGainMode(_ args: LuaArguments) throws -> ReplayGainMode? {
        guard !args.isNil(1) else { return nil }
        let text = try args.string(1)
        guard let mode = ReplayGainMode(rawValue: text) else {
            throw LuaFunctionError.argument(1, "expected \"off\", \"track\", \"album\" or \"auto\", got '\(text.prefix(40))'")
        }
        return mode
    }

    private static func fade(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        let options = try args.table(1).tableValue ?? [:]
        for key in options.keys where !["to", "over", "curve"].contains(key) {
            throw LuaFunctionError.argument(1, "unknown option '\(key)' (options: to, over, curve)")
        }
        guard let to = options["to"]?.doubleValue, PlayerEngine.volumeRange.contains(to) else {
            throw LuaFunctionError.argument(1, "'to' (a volume from 0 to 100) is required")
        }
        let over = options["over"].map { $0.doubleValue ?? .nan } ?? 0
        guard (0...Self.longestFade).contains(over) else {
            throw LuaFunctionError.argument(1, "'over' is seconds from 0 to \(Int(Self.longestFade)) (a day)")
        }
        let curve: FadeCurve
        switch options["curve"] ?? .nil {
        case .nil, .string("linear"): curve = .linear
        case .string("log"), .string("logarithmic"): curve = .logarithmic
        case let value: throw LuaFunctionError.argument(1, "'curve' must be \"linear\" or \"log\", got \(value.stringValue ?? value.typeName)")
        }
        try host.control.perform { $0.fade(to: to, over: over, curve: curve) }
        return [.boolean(true)]
    }

    /// `player.announce(file, {duck = -15, chime = true})`, or `player.announce{say = TEXT, ...}`:
    /// mixed over the ducked music (docs/player.md#announcements); a file the script may read (a
    /// plugin: its granted folders), or a text espeak-ng says; the bundled chime first with
    /// `chime`. Nil and why when nothing plays or the text cannot be said.
    private static func announce(_ args: LuaArguments, _ host: PlayerHost, _ runtime: LuaRuntime?) throws -> [LuaValue] {
        let optionsAt = args.typeName(1) == "table" ? 1 : 2
        let source = optionsAt == 1 ? nil : try args.optionalString(1)
        let options = try args.optionalTable(optionsAt)?.tableValue ?? [:]
        for key in options.keys where !["duck", "chime", "say"].contains(key) {
            throw LuaFunctionError.argument(optionsAt, "unknown option '\(key)' (options: duck, chime, say)")
        }
        let duck = options["duck"].map { $0.doubleValue ?? .nan } ?? -15
        guard PlayerEngine.Announcement.duckRange.contains(duck) else {
            throw LuaFunctionError.argument(optionsAt, "'duck' is dB from -60 to 0")
        }
        var chime = false
        switch options["chime"] ?? .nil {
        case .nil: break
        case .boolean(let on): chime = on
        case let value: throw LuaFunctionError.argument(optionsAt, "'chime' must be a boolean, got \(value.typeName)")
        }
        var say: String?
        switch options["say"] ?? .nil {
        case .nil: break
        case let value:
            guard let text = value.stringValue else { throw LuaFunctionError.argument(optionsAt, "'say' must be a string, got \(value.typeName)") }
            if let problem = Speech.problem(with: text) { throw LuaFunctionError.argument(optionsAt, problem.description) }
            say = text
        }
        guard (source == nil) != (say == nil) else { throw LuaFunctionError.argument(1, "a file, or the option say = TEXT: one of them") }
        var announcements: [PlayerEngine.Announcement] = []
        if chime {
            guard let tone = runtime?.chime, FileManager.default.fileExists(atPath: tone) else {
                return [.nil, .string("songbox.player.announce: the bundled chime is missing (chime.mp3 beside the bundled plugins)")]
            }
            announcements.append(PlayerEngine.Announcement(source: tone, duck: duck))
        }
        if let source {
            guard !TrackLocation.isURL(source) else {
                throw LuaFunctionError.argument(1, "a file expected (a URL is announced by `songbox announce` or MPD's `sendmessage announce`)")
            }
            let file = try (runtime?.fileAccess ?? .user).check(source, writing: false)
            announcements.append(PlayerEngine.Announcement(source: file, duck: duck))
        } else if let say {
            do throws(SpeechError) { announcements.append(try .spoken(say, duck: duck)) } catch {
                return [.nil, .string("songbox.player.announce: \(error)")]
            }
        }
        return try queue(announcements, host) ? [.boolean(true)] : nothingPlays("player.announce")
    }

    /// Queues `asked` over the music; false when nothing plays (none is kept).
    static func queue(_ asked: [PlayerEngine.Announcement], _ host: PlayerHost) throws -> Bool {
        do { return try host.control.perform { engine in engine.announce(asked) } } catch {
            asked.forEach { $0.discard() }
            throw error
        }
    }

    static func nothingPlays(_ name: String) -> [LuaValue] {
        [.nil, .string("songbox.\(name): nothing plays (an announcement is mixed over the music)")]
    }

    private static func setModes(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        let options = try args.table(1).tableValue ?? [:]
        var modes = try host.control.perform { $0.modes }
        var highlights: Bool?
        for (key, value) in options {
            switch (key, value) {
            case ("repeat", .boolean(let on)): modes.repeat = on
            case ("random", .boolean(let on)): modes.random = on
            case ("single", _): modes.single = try toggle(value, key)
            case ("consume", _): modes.consume = try toggle(value, key)
            case ("highlights", .boolean(let on)): highlights = on
            case ("repeat", _), ("random", _), ("highlights", _):
                throw LuaFunctionError.argument(1, "'\(key)' must be a boolean, got \(value.typeName)")
            default:
                throw LuaFunctionError.argument(1, "unknown option '\(key)' (options: repeat, random, single, consume, highlights)")
            }
        }
        let newModes = modes, newHighlights = highlights
        try host.control.perform { engine in
            engine.setModes(newModes)
            if let newHighlights { engine.setHighlights(newHighlights) }
        }
        return [.boolean(true)]
    }

    private static func toggle(_ value: LuaValue, _ key: String) throws -> PlaybackModes.Toggle {
        switch value {
        case .boolean(let on): return on ? .on : .off
        case .string("oneshot"): return .oneshot
        default: throw LuaFunctionError.argument(1, "'\(key)' must be true, false or \"oneshot\"")
        }
    }

    private static func sleep(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        let timer: SleepTimer?
        switch try args.value(1) {
        case .nil, .boolean(false): timer = nil
        case .string("track"): timer = .endOfTrack
        case .string("queue"): timer = .endOfQueue
        case let value where value.doubleValue.flatMap(SleepTimer.after(minutes:)) != nil:
            // The bound every surface shares (`SleepTimer.longestMinutes`).
            timer = SleepTimer.after(minutes: value.doubleValue!)
        default:
            throw LuaFunctionError.argument(1, "expected minutes (a positive number up to \(Int(SleepTimer.longestMinutes))), \"track\", "
                                               + "\"queue\", or false to cancel")
        }
        return [.boolean(try run(.sleep(timer), host))]
    }

    /// The configured outputs, first choice first: `{index, output, current}` each.
    private static func outputs(_ host: PlayerHost) throws -> LuaValue {
        let (specs, current) = try host.control.perform { ($0.outputs, $0.outputIndex) }
        return .array(specs.enumerated().map { index, spec in
            .table(["index": .integer(index + 1), "output": .string(spec), "current": .boolean(index == current)])
        })
    }

    /// `player.use_output(n | spec)`: playback moves to a configured output, at the same place.
    /// Only the configured ones: a plugin cannot point the audio at a file of its choosing.
    private static func useOutput(_ args: LuaArguments, _ host: PlayerHost) throws -> [LuaValue] {
        let choice: Int?
        if args.typeName(1) == "string" {
            let spec = try args.string(1)
            choice = try host.control.perform { $0.outputs.firstIndex(of: spec) }
            guard choice != nil else { return [.nil, .string("songbox.player.use_output: '\(spec)' is not a configured output")] }
        } else {
            // 1-based; nothing below 1 exists (and Int.min - 1 would trap).
            let number = try args.integer(1)
            choice = number > 0 ? number - 1 : -1
        }
        let moved = try host.control.perform { engine -> String? in
            do throws(AudioOutputError) { try engine.useOutput(choice!); return nil } catch { return error.description }
        }
        if let moved { return [.nil, .string("songbox.player.use_output: \(moved)")] }
        return [.boolean(true)]
    }

    private static func status(_ host: PlayerHost) throws -> LuaValue {
        let status = try host.control.perform { $0.status }
        let snapshot = status.snapshot
        var table: [String: LuaValue] = [
            "state": .string(snapshot.state.rawValue), "heading": .string(status.heading.rawValue),
            "volume": .number(status.currentVolume),
            "repeat": .boolean(snapshot.modes.repeat), "random": .boolean(snapshot.modes.random),
            "single": toggleValue(snapshot.modes.single), "consume": toggleValue(snapshot.modes.consume),
            "highlights": .boolean(snapshot.highlights), "queue_version": .integer(snapshot.queue.version),
            "queue_length": .integer(snapshot.queue.count), "clock": .number(status.clock),
            "elapsed": .number(snapshot.elapsed),
        ]
        if let duration = status.duration { table["duration"] = .number(duration) }
        table["crossfade"] = .number(status.crossfade)
        table["replay_gain"] = replayGainTable(status.replayGain)
        if let error = status.outputError { table["output_error"] = .string(error) }
        if status.outputs.indices.contains(status.outputIndex) {
            table["output"] = .string(status.outputs[status.outputIndex])
            table["output_index"] = .integer(status.outputIndex + 1)
        }
        switch status.sleepTimer {
        case .after(let seconds)?: table["sleep"] = .number(seconds / 60)
        case .endOfTrack?: table["sleep"] = .string("track")
        case .endOfQueue?: table["sleep"] = .string("queue")
        case nil: break
        }
        if let left = status.sleepLeft { table["sleep_left"] = .number(left) }
        if let id = snapshot.current, let position = snapshot.queue.position(of: id) {
            table["queue_id"] = .integer(id)
            table["position"] = .integer(position + 1)
            table["track"] = .table(trackTable(snapshot.queue.items[position], host.store))
        }
        return .table(table)
    }

    /// `{mode, applied, source, db, scale, limited, ignored}`: the mode, and what it makes of
    /// the current track (`applied` and `source` absent when no gain of the track is used).
    private static func replayGainTable(_ gain: AppliedGain) -> LuaValue {
        var table: [String: LuaValue] = ["mode": .string(gain.mode.rawValue), "db": .number(gain.decibels),
                                         "scale": .number(gain.scale), "limited": .boolean(gain.limited)]
        if let used = gain.used { table["applied"] = .string(used.rawValue) }
        if let source = gain.source { table["source"] = .string(source.rawValue) }
        if !gain.ignored.isEmpty { table["ignored"] = .array(gain.ignored.map { .string($0) }) }
        return .table(table)
    }

    private static func toggleValue(_ toggle: PlaybackModes.Toggle) -> LuaValue {
        switch toggle {
        case .off: .boolean(false)
        case .on: .boolean(true)
        case .oneshot: .string("oneshot")
        }
    }

    // MARK: Values

    /// The event as plugins see it: `type`, the payload's fields, and `emitted_at` (when it left
    /// the audio thread, on `songbox.monotonic()`'s clock).
    public static func event(_ delivered: PlaybackEvent) -> LuaValue {
        let event = delivered.event, track = delivered.track
        var table: [String: LuaValue] = ["type": .string(event.name), "emitted_at": .number(delivered.emitted)]
        switch event {
        case .trackStarted(let item, let position, let reason):
            table["track"] = .table(trackTable(item, track))
            table["position"] = .integer(position + 1)
            table["reason"] = .string(reason.rawValue)
        case .trackEnded(let item, let reason, let played, let duration, let counted):
            table["track"] = .table(trackTable(item, track))
            table["reason"] = .string(reason.rawValue)
            table["played"] = .number(played)
            table["duration"] = .number(duration)
            if let counted { table["counted"] = .string(counted.rawValue) }
        case .paused(let item, let at), .resumed(let item, let at):
            table["track"] = .table(trackTable(item, track))
            table["elapsed"] = .number(at)
        case .seeked(let item, let from, let to):
            table["track"] = .table(trackTable(item, track))
            table["from"] = .number(from)
            table["to"] = .number(to)
        case .queueChanged(let version):
            table["version"] = .integer(version)
        case .volumeChanged(let volume):
            table["volume"] = .number(volume)
        case .optionsChanged(let modes, let replayGain):
            table["repeat"] = .boolean(modes.repeat)
            table["random"] = .boolean(modes.random)
            table["single"] = toggleValue(modes.single)
            table["consume"] = toggleValue(modes.consume)
            table["replay_gain"] = .string(replayGain.rawValue)
        case .outputError(let message, let paused):
            table["message"] = .string(message)
            table["paused"] = .boolean(paused)
        case .outputChanged(let index, let spec):
            table["index"] = .integer(index + 1)
            table["output"] = .string(spec)
        case .decodeError(let item, let message):
            table["track"] = .table(trackTable(item, track))
            table["message"] = .string(message)
        case .lyric(let item, let index, let milliseconds):
            table["track"] = .table(trackTable(item, track))
            table["index"] = .integer(index + 1)
            table["text"] = .string(delivered.lyricText ?? "")
            table["t"] = .number(Double(milliseconds) / 1000)
        case .streamTitle(let item, let title):
            table["track"] = .table(trackTable(item, track))
            table["title"] = .string(title.title)
            if let station = title.station { table["station"] = .string(station) }
        case .stopped:
            break
        case .transitionAhead(let from, let to, let reason, let crossfade, let curve):
            table["from"] = .table(trackTable(from, track))
            table["to"] = .table(trackTable(to, delivered.nextTrack))
            table["reason"] = .string(reason.rawValue)
            table["crossfade"] = .number(crossfade)
            table["curve"] = .string(curve.rawValue)
        case .announcementFailed(let source, let message):
            table["source"] = .string(source)
            table["message"] = .string(message)
        }
        return .table(table)
    }

    /// Tells the player a transition hook is there (`songbox.player.on_transition`): it asks
    /// ahead from now on. Nothing when the script has no player.
    static func askTransitions(_ host: PlayerHost) {
        _ = try? host.control.perform { $0.askTransitions() }
    }

    /// Hands a transition hook's `answer` to the `transition_ahead` `event` to the player (the
    /// prelude checked it; its numbers are checked again at this bridge). The player takes it
    /// only while it still stands (the same two tracks, not too late).
    static func applyTransition(_ answer: LuaValue, of event: LuaValue, host: PlayerHost) {
        guard let table = answer.tableValue, let seconds = table["crossfade"]?.doubleValue,
              CrossfadeSettings.range.contains(seconds), let fields = event.tableValue,
              let from = fields["from"]?.tableValue?["queue_id"]?.intValue, let to = fields["to"]?.tableValue?["queue_id"]?.intValue,
              let reason = fields["reason"]?.stringValue.flatMap(TransitionReason.init(rawValue:)) else { return }
        let curve = table["curve"]?.stringValue.flatMap(CrossfadeCurve.init(rawValue:)) ?? .equalPower
        let choice = TransitionChoice(seconds: seconds, curve: curve)
        _ = try? host.control.perform { $0.chooseTransition(from: from, to: to, reason: reason, choice) }
    }

    /// A queue item as a track table (every library field) with its `queue_id`.
    static func trackTable(_ item: QueueItem, _ store: LibraryStore) -> [String: LuaValue] {
        trackTable(item, try? store.tracks.track(id: item.track.trackID))
    }

    /// The queue item's track as a table (its library fields, or what the queue knows when the
    /// track has left the library), with its `queue_id`.
    static func trackTable(_ item: QueueItem, _ track: Track?) -> [String: LuaValue] {
        var table: [String: LuaValue] = ["id": .integer(Int(item.track.trackID)), "path": .string(item.track.path),
                                         "duration": .number(item.track.duration)]
        if let track, case .table(let fields) = LibraryAPI.table(track) {
            table = fields
        }
        table["queue_id"] = .integer(item.id)
        return table
    }

    /// URLs (`http://`, `https://`): a string, or a list of strings; nil for anything else.
    private static func urls(_ args: LuaArguments, _ n: Int) throws -> [String]? {
        if args.typeName(n) == "string" {
            let text = try args.string(n)
            guard RemoteTracks.isURL(text) else {
                throw LuaFunctionError.argument(n, "a string must be an http:// or https:// URL, got '\(text.prefix(60))'")
            }
            return [text]
        }
        // A list of tracks or ids is read in place (`trackIDs`): only a list that starts with a
        // string is converted (16,000 ids converted into a table at every call held a plugin's
        // thread, and the daemon's shutdown, for seconds).
        guard case .failure(let bad)? = args.trackIDList(n), bad.position == 1, bad.type == "string",
              let list = try args.value(n).arrayValue, list.allSatisfy({ $0.stringValue.map(RemoteTracks.isURL) == true })
        else { return nil }
        return list.compactMap(\.stringValue)
    }

    /// Track ids from an id, a track table, or a list of either (read in place).
    private static func trackIDs(_ args: LuaArguments, _ n: Int) throws -> [Int64] {
        if let single = args.trackID(n) { return [single] }
        switch args.trackIDList(n) {
        case .success(let ids)?: return ids
        case .failure(let bad)?:
            throw LuaFunctionError.argument(n, "item \(bad.position) is not a track or a track id (\(bad.type))")
        case nil:
            throw LuaFunctionError.argument(n, "expected a track, a track id, or a list of them, got \(args.isNil(n) ? "nil" : args.typeName(n))")
        }
    }

    /// Queue ids from one id or a list.
    private static func queueIDs(_ args: LuaArguments, _ n: Int) throws -> [Int] {
        if args.typeName(n) == "number" { return [try args.integer(n)] }
        guard let items = try args.table(n).arrayValue else { throw LuaFunctionError.argument(n, "expected a queue id or a list of them") }
        return try items.map { item in
            guard let id = item.intValue else { throw LuaFunctionError.argument(n, "queue ids are integers, got \(item.typeName)") }
            return id
        }
    }
}
