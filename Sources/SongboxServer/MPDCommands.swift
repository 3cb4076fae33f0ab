import Foundation
import NIOCore
import SongboxFiles
import SongboxAudio
import SongboxLibrary
import SongboxPlayback

/// What the MPD commands act on: the daemon's library, player and jobs.
public protocol MPDBackend: Sendable {
    var store: LibraryStore { get }
    var player: Player { get }
    /// Runs `body` on the audio thread; returns once the events it caused reached every
    /// subscriber (the idle clients among them), as MPD answers after its idle events. The
    /// command is suspended meanwhile, holding no thread.
    func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) async -> T
    /// Seconds since the daemon started.
    var uptime: Double { get }
    /// Starts a rescan of the music folders (`update`, `rescan`): its job id, or nil when one
    /// runs already.
    func startUpdate() -> Int?
    /// The running rescan's job id.
    var updateJob: Int? { get }
    /// A message a client sent (`sendmessage`): the plugins get every one.
    func deliver(message: String, channel: String)
    /// songbox's own commands of the table (`queryplay`, `plugins`, ...); nil when `command` is
    /// not one.
    func songboxCommand(_ command: String, _ arguments: [String]) async -> Result<[(String, String)], MPDProtocol.Failure>?
    /// The stream URLs a playlist on the network lists (`load http://...`), or why not.
    func remotePlaylist(_ url: String) async throws(SongboxError) -> [String]
    /// The track ids of the function playlists (`songbox.smart(name, function)`) a read of the
    /// playlists `names` reaches (a query's `playlist:NAME` terms, or one playlist), by name:
    /// what the library's read takes as `evaluated` (the library runs no Lua). Each is evaluated
    /// by the plugin that defines it, on that plugin's thread, and awaited.
    func evaluatedPlaylists(reachedFrom names: [String]) async throws(SongboxError) -> [String: [Int64]]
}

/// MPD's commands, answered from the daemon's library and player. See docs/mpd-compatibility.md
/// for what each does and where songbox differs.
public struct MPDCommands: MPDCommandHandler {
    public typealias Failure = MPDProtocol.Failure
    let backend: any MPDBackend
    let clients: Clients
    /// Answers of `list` while the library has not changed (MPD answers them from memory).
    let lists = ListCache()
    /// The tags clients gave queued streams (`addtagid`).
    let queueTags = QueueTags()
    /// The playing track's bitrate, read once for each track (clients poll `status`).
    let bitrate = Box<(track: Int64, kbps: Int?)?>(nil)
    let bitrateLock = NSLock()
    var store: LibraryStore { backend.store }
    var player: Player { backend.player }

    public init(backend: any MPDBackend, clients: Clients) {
        self.backend = backend
        self.clients = clients
    }

    /// Answers `command`: the table reads its arguments, and a command it types runs as such
    /// (`run`); the others are answered from their words here.
    public func handle(_ command: String, _ arguments: [String], client: MPDClient, out: MPDResponse) async throws(Failure) {
        let entry = try MPDCommandTable.entry(command)
        if entry.isAnsweredInPlace { return try answerInPlace(entry, arguments, client: client, out: out) }
        let args = Arguments(command: command, values: arguments)
        let parsed = try entry.parse(args)
        if case .words = parsed {} else { return try await run(parsed) }
        switch command {
        // Connection and server
        case "config":
            // MPD's: only for a client on the local socket.
            guard client.isLocal else { throw Failure(.permission, "Command only permitted to local clients") }
            // The URIs are relative to it only with one music folder.
            let folders = roots().folders
            if folders.count == 1 { out.field("music_directory", folders[0]) }
            // `=~` and `!~` work (BoundedRegex), so clients may send them.
            out.field("pcre", "1")
        case "enableoutput", "disableoutput", "toggleoutput":
            // songbox plays on one output at a time: enabling another moves playback there;
            // the one in use cannot be disabled, only left for another (refused, not faked).
            let index = try args.integer(0)
            try await perform { engine throws(Failure) in
                guard engine.outputs.indices.contains(index) else { throw Failure(.noExist, "No such audio output") }
                switch (command, index == engine.outputIndex) {
                case ("disableoutput", false): return
                case ("enableoutput", _), ("toggleoutput", false):
                    do throws(AudioOutputError) { try engine.useOutput(index) } catch {
                        throw Failure(.system, error.description)
                    }
                default:
                    throw Failure(.argument, "songbox plays on one output at a time: enable another one to move there")
                }
            }

        // Status
        case "currentsong":
            let status = player.status, snapshot = status.snapshot
            guard let current = status.headingID, let position = snapshot.queue.position(of: current) else { return }
            let item = snapshot.queue.items[position]
            out.queueItem(item, position: position, track: try? store.tracks.track(id: item.track.trackID), roots: roots(), client: client,
                          stream: status.streamTitle, tags: queueTags.tags(of: item.id))
        case "stats": try stats(out)
        case "sleep": out.fields(Self.sleepFields(player.status))
        // The queue
        case "add", "addid":
            let uri = try args.string(0)
            let place = args.values.count > 1 ? try args.place(1) : nil
            let tracks = try playable(under: uri, single: command == "addid")
            let ids = try await perform { engine throws(Failure) -> [Int] in
                var placement = PlayQueue.Placement.end
                if let place {
                    // A position, or one counted from the current song (`+N`, `-N`).
                    placement = .position(try Self.mpd { () throws(PlayerCommand.Failure) in
                        try PlayerCommand.position(of: place, moving: 0..<0, in: engine)
                    })
                }
                return try Self.enqueue(tracks, placement: placement, on: engine)
            }
            if command == "addid", let id = ids.first { out.field("Id", String(id)) }
        case "playlistinfo", "playlistid":
            let items = player.status.snapshot.queue.items
            var selected = Array(items.indices)
            if command == "playlistinfo", let range = try args.optionalRange(0) {
                guard range.lowerBound < items.count || (range.lowerBound == 0 && items.isEmpty) else { throw Failure(.argument, "Bad song index") }
                selected = Array(range.clamped(to: 0..<items.count))
            } else if command == "playlistid", let id = try args.optionalInteger(0) {
                guard let position = items.firstIndex(where: { $0.id == id }) else { throw Failure(.noExist, "No such song") }
                selected = [position]
            }
            try await queueItems(items, selected, client, out)
        case "playlist":
            // The old form of `playlistinfo`: `POS:file: URI` lines.
            let roots = roots()
            for (position, item) in player.status.snapshot.queue.items.enumerated() {
                out.field("\(position):file", roots.uri(item.track.path))
                if position % Self.piece == Self.piece - 1 {
                    await out.flush()
                    guard out.open else { return }
                }
            }
        case "plchanges", "plchangesposid":
            // The items added or moved since the client's version (MPD's answer), by position.
            let queue = player.status.snapshot.queue
            let changed = queue.changes(since: try args.integer(0))
            if command == "plchanges" {
                try await queueItems(queue.items, changed, client, out)
            } else {
                for position in changed {
                    out.field("cpos", String(position))
                    out.field("Id", String(queue.items[position].id))
                }
            }
        case "playlistfind", "playlistsearch":
            let selection = try MPDSelection(arguments, exact: command == "playlistfind", roots: roots())
            let items = player.status.snapshot.queue.items
            let evaluated = try await evaluated(reachedBy: selection.query)
            let wanted = Set(try library { () throws(SongboxError) in
                try store.tracks.files(matching: selection.query, evaluated: evaluated).map(\.id)
            })
            // MPD 0.24's `window` (myMPD's queue search sends it); the queue's order stays.
            let found = items.indices.filter { wanted.contains(items[$0].track.trackID) }
            try await queueItems(items, Array(found[(selection.window ?? 0..<Int.max).clamped(to: 0..<found.count)]), client, out)

        // The database
        case "find", "search":
            let selection = try MPDSelection(arguments, exact: command == "find", roots: roots())
            try await songs(matching: selection.query, window: selection.window ?? 0..<Int.max, client: client, out: out)
        case "query":
            // songbox's own: what a songbox query finds (the web app's search), in its order.
            let window = args.values.count > 1 ? try MPDSelection.range(try args.string(1)) : 0..<Int.max
            try await songs(matching: try args.string(0), window: window, client: client, out: out)
        case "findadd", "searchadd":
            let selection = try MPDSelection(arguments, exact: command == "findadd", roots: roots())
            let evaluated = try await evaluated(reachedBy: selection.query)
            var tracks = try library { () throws(SongboxError) in try store.tracks.playable(matching: selection.query, evaluated: evaluated) }
            if let window = selection.window { tracks = Array(tracks[window.clamped(to: 0..<tracks.count)]) }
            let placement: PlayQueue.Placement = selection.position.map { .position($0) } ?? .end
            let found = tracks
            _ = try await perform { engine throws(Failure) in try Self.enqueue(found, placement: placement, on: engine) }
        case "searchaddpl":
            let name = try args.string(0)
            let selection = try MPDSelection(Array(arguments.dropFirst()), exact: false, roots: roots())
            let evaluated = try await evaluated(reachedBy: selection.query)
            var ids = try library { () throws(SongboxError) in try store.tracks.files(matching: selection.query, evaluated: evaluated).map(\.id) }
            if let window = selection.window { ids = Array(ids[window.clamped(to: 0..<ids.count)]) }
            let found = ids
            try changePlaylists { () throws(SongboxError) in
                if try store.playlists.playlistExists(named: name) {
                    try store.playlists.addToPlaylist(named: name, trackIDs: found, at: selection.position)
                } else {
                    try store.playlists.savePlaylist(named: name, trackIDs: found)
                }
            }
        case "readcomments":
            // The tags songbox reads from the file, by their common names.
            guard let path = roots().path(try args.string(0)),
                  let track = try library({ () throws(SongboxError) in try store.tracks.track(path: path) }) else {
                throw Failure(.noExist, "No such file")
            }
            for (name, value) in MPDTag.fields(of: track, wanted: nil) { out.field(name.uppercased(), value) }
        case "count", "searchcount":
            var rest = arguments
            var group: String?
            if rest.count >= 2, rest[rest.count - 2].lowercased() == "group" {
                group = try MPDTag.named(rest.removeLast())?.column ?? "NULL"
                rest.removeLast()
            }
            let selection = try MPDSelection(rest, exact: command == "count", roots: roots())
            let name = group.flatMap { column in MPDTag.table.first { $0.column == column }?.name }
            let evaluated = try await evaluated(reachedBy: selection.query)
            for total in try library({ () throws(SongboxError) in
                try store.tracks.totals(matching: selection.query, groupedBy: group, evaluated: evaluated)
            }) {
                if let name { out.field(name, total.group ?? "") }
                out.field("songs", String(total.songs))
                out.field("playtime", Self.wholeSeconds(total.seconds))
            }
        case "list": try await list(arguments, out)
        case "listfiles": try listFiles(arguments.first ?? "", out: out)
        case "lsinfo", "listall", "listallinfo":
            try await browse(command, uri: arguments.first ?? "", client: client, out: out)
            // At the top, `lsinfo` lists the stored playlists after the rest, as MPD does (what
            // `mpc lsplaylists` and older clients read).
            // MPD 0.24's `hide_playlists_in_root` leaves them out.
            if command == "lsinfo", Self.isTop(arguments.first ?? ""), !client.protocolFeatures.contains("hide_playlists_in_root") {
                try storedPlaylists(out)
            }
        case "update", "rescan":
            guard let job = backend.startUpdate() else { throw Failure(.updateAlready, "Already updating") }
            out.field("updating_db", String(job))

        case "sticker": try await sticker(args, client: client, out: out)
        case "stickernames", "stickernamestypes":
            // songbox keeps stickers on songs only.
            if let type = args.values.first, type != "song" {
                guard ["playlist", "filter"].contains(type) else {
                    guard (try? MPDTag.canonicalName(type)) != nil else { throw Failure(.argument, "no such tag \"\(type)\"") }
                    throw Failure(.argument, "unsupported tag \"\(type)\"")
                }
                return
            }
            for name in try library({ () throws(SongboxError) in try store.tracks.stickerNames() }) {
                out.field("name", name)
                if command == "stickernamestypes" { out.field("type", "song") }
            }
        case "stickertypes": out.field("stickertype", "song")
        case "albumart": try albumArt(args, client: client, out: out)
        case "readpicture": try readPicture(args, client: client, out: out)

        case "sendmessage":
            let channel = try args.string(0), text = try args.string(1)
            guard Self.validChannel(channel) else { throw Failure(.argument, "invalid channel name") }
            if channel == "announce" {
                // An announcement over the music (docs/player.md#announcements): a URL, at the usual duck.
                guard TrackLocation.isURL(text) else { throw Failure(.argument, "announce takes a URL (a file: songbox announce FILE)") }
                _ = try await backend.songboxCommand("announce", [text, "-15", "0"])?.get()
            } else if channel == "say" {
                // Text spoken over the music (espeak-ng), at the usual duck.
                _ = try await backend.songboxCommand("say", [text, "-15", "0"])?.get()
            }
            // Every message reaches the plugins, so a channel needs no listening client.
            client.clients.send(text, to: channel)
            backend.deliver(message: text, channel: channel)

        default:
            if try await playlistCommand(command, args, client: client, out: out) { return }
            if let result = await backend.songboxCommand(command, arguments) {
                out.fields(try result.get())
                return
            }
            throw Failure(.unknown, "unknown command \"\(command)\"")
        }
    }

    /// Answers a command the table answers in place (`MPDCommandTable.answeredInPlace`): from
    /// memory, never waiting, so the connection runs it on its event loop as the request arrives.
    public func answerInPlace(_ entry: MPDCommandTable.Entry, _ arguments: [String], client: MPDClient, out: MPDResponse) throws(Failure) {
        let command = entry.name
        let args = Arguments(command: command, values: arguments)
        guard case .words = try entry.parse(args) else { return }
        switch command {
        // What clients ask most, first: the cases are compared in order.
        case "status": status(out)
        // Connection and server
        case "commands", "notcommands":
            // What this client may run, or may not (without the password it needs).
            for entry in MPDCommandTable.entries where client.permissions.isSuperset(of: entry.permission) == (command == "commands") {
                out.field("command", entry.name)
            }
        case "tagtypes": try tagTypes(args, client, out)
        case "protocol": try protocolFeatures(args, client, out)
        case "urlhandlers":
            for scheme in ["http://", "https://"] { out.field("handler", scheme) }
        case "decoders":
            // What this songbox plays, as MPD lists its decoder plugins.
            for kind in AudioFile.kinds {
                out.field("plugin", kind.plugin)
                for suffix in kind.suffixes { out.field("suffix", suffix) }
                for mime in kind.mimeTypes { out.field("mime_type", mime) }
            }
        case "listpartitions": out.field("partition", "default")
        // The music folders are the one mount, the root, as MPD lists its music directory
        // (`mpc mount`); songbox mounts nothing else (no `mount`, `unmount`).
        case "listmounts": out.field("mount", "")
        case "partition":
            // One partition, MPD's `default` (myMPD lists them at start-up).
            guard try args.string(0) == "default" else { throw Failure(.noExist, "partition does not exist") }
        case "binarylimit":
            let limit = try args.integer(0)
            guard limit >= 64 else { throw Failure(.argument, "Value too small") }
            client.binaryLimit = min(limit, 1 << 20)
        case "outputs":
            let status = player.status
            for (index, spec) in status.outputs.enumerated() {
                out.fields([("outputid", String(index)), ("outputname", spec),
                            ("plugin", String(spec.prefix { $0 != ":" })), ("outputenabled", index == status.outputIndex ? "1" : "0")])
            }
        case "getvol":
            out.field("volume", String(Int(player.status.currentVolume.rounded())))
        case "replay_gain_status": out.field("replay_gain_mode", player.status.replayGain.mode.rawValue)

        // Messages
        case "subscribe":
            let channel = try args.string(0)
            guard Self.validChannel(channel) else { throw Failure(.argument, "invalid channel name") }
            guard client.subscribe(to: channel) else { throw Failure(.exists, "already subscribed to this channel") }
        case "unsubscribe":
            guard client.unsubscribe(from: try args.string(0)) else { throw Failure(.noExist, "not subscribed to this channel") }
        case "channels":
            for channel in client.clients.channels() { out.field("channel", channel) }
        case "readmessages":
            for message in client.takeMessages() {
                out.field("channel", message.channel)
                out.field("message", message.text)
            }
        default: break
        }
    }

    /// Runs a command the table read into its type.
    func run(_ command: MPDCommand) async throws(Failure) {
        switch command {
        case .words, .ignored: return
        case .player(let command):
            try await perform { engine throws(Failure) in try Self.mpd { () throws(PlayerCommand.Failure) in try command.apply(to: engine) } }
        case .queueTag(let id, let tag, let value):
            let items = player.status.snapshot.queue.items
            guard let item = items.first(where: { $0.id == id }) else { throw Failure(.noExist, "No such song") }
            guard item.track.isRemote else { throw Failure(.permission, "Cannot edit tags of local file") }
            queueTags.change(id, tag: tag, value: value, keeping: Set(items.map(\.id)))
            clients.post(.playlist)
        }
    }

    /// Runs `body`, its failure in MPD's words.
    static func mpd<T>(_ body: () throws(PlayerCommand.Failure) -> T) throws(Failure) -> T {
        do { return try body() } catch {
            switch error {
            case .badPosition: throw Failure(.argument, "Bad song index")
            case .noSuchItem: throw Failure(.noExist, "No such song")
            case .notPlaying: throw Failure(.playerSync, "Not playing")
            case .noCurrentItem: throw Failure(.playerSync, "No current song")
            case .currentMovesItself: throw Failure(.argument, "Cannot move current song relative to itself")
            case .tooLarge(let number): throw Failure(.argument, "Number too large: \(number)")
            }
        }
    }

    /// The sleep timer as `sleep` without an argument answers it (MPD's `status` has no field
    /// for it): `sleep` (`off`, minutes as set, `track`, `queue`) and, once known, `sleepleft`
    /// (seconds of playback until it stops the music).
    static func sleepFields(_ status: PlayerStatus) -> [(String, String)] {
        var fields = [("sleep", status.sleepTimer?.word ?? "off")]
        if let left = status.sleepLeft { fields.append(("sleepleft", String(format: "%.1f", left))) }
        return fields
    }

    // MARK: Pieces

    /// Channel names as MPD allows them: letters, digits, `-_.:`.
    static func validChannel(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }
    }

    func roots() -> MusicRoots { MusicRoots((try? store.tracks.musicFolders()) ?? []) }

    /// Runs `body` on the audio thread; its failure is the command's.
    func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) throws(Failure) -> T) async throws(Failure) -> T {
        let result = await backend.perform { engine in Result { () throws(Failure) in try body(engine) } }
        return try result.get()
    }

    /// Adds `tracks` as MPD does: those that fit, then `Playlist is too large` for the rest
    /// (the queue holds at most `max_queue_length` items).
    static func enqueue(_ tracks: [PlayableTrack], placement: PlayQueue.Placement, on engine: PlayerEngine) throws(Failure) -> [Int] {
        let ids = engine.add(tracks, placement: placement)
        guard ids.count == tracks.count else { throw Failure(.playlistMax, "Playlist is too large") }
        return ids
    }

    /// A library call, its error as MPD's.
    func library<T>(_ body: () throws(SongboxError) -> T) throws(Failure) -> T {
        do { return try body() } catch { throw Self.failure(error) }
    }

    static func failure(_ error: SongboxError) -> Failure {
        Failure(error.code == .invalidQuery || error.code == .invalidArgument ? .argument
                : error.code == .notFound ? .noExist : .system, error.message)
    }

    /// The function playlists a read of the playlists `names` reaches, evaluated by their
    /// plugins (`MPDBackend.evaluatedPlaylists`): what the read takes as `evaluated`.
    func evaluated(reachedFrom names: [String]) async throws(Failure) -> [String: [Int64]] {
        guard !names.isEmpty else { return [:] }
        do { return try await backend.evaluatedPlaylists(reachedFrom: names) } catch { throw Self.failure(error) }
    }

    /// Those the query `text` reaches (a query that does not parse is the read's error to say).
    func evaluated(reachedBy text: String) async throws(Failure) -> [String: [Int64]] {
        try await evaluated(reachedFrom: LibraryQuery.playlistNames(in: text))
    }

    private func status(_ out: MPDResponse) {
        let status = player.status
        let snapshot = status.snapshot
        // Numbers and words of its own are written without a String made for each.
        out.field("volume", Self.whole(status.currentVolume))
        out.field("repeat", snapshot.modes.repeat ? 1 : 0)
        out.field("random", snapshot.modes.random ? 1 : 0)
        out.field("single", Self.toggle(snapshot.modes.single))
        out.field("consume", Self.toggle(snapshot.modes.consume))
        out.field("playlist", snapshot.queue.version)
        out.field("playlistlength", snapshot.queue.count)
        out.field("mixrampdb", status.mixRampDB, places: 6)
        out.field("state", status.heading == .playing ? "play" : status.heading == .paused ? "pause" : "stop")
        // Where playback is going: a skip's or a pause's short fade already counts as done.
        if let current = status.headingID, let position = snapshot.queue.position(of: current) {
            let elapsed = current == snapshot.current ? snapshot.elapsed : 0
            out.field("song", position)
            out.field("songid", current)
            if !snapshot.modes.random, let next = Self.next(after: position, snapshot) {
                out.field("nextsong", next)
                out.field("nextsongid", snapshot.queue.items[next].id)
            }
            if status.heading != .stopped {
                let duration = current == snapshot.current ? status.duration ?? snapshot.queue.items[position].track.duration
                    : snapshot.queue.items[position].track.duration
                out.fields([("time", Self.wholeSeconds(elapsed) + ":" + Self.wholeSeconds(duration)),
                            ("elapsed", Self.seconds(elapsed))])
                // The file's average (songbox's decoders do not say an instantaneous one).
                if let kbps = bitrate(of: snapshot.queue.items[position].track.trackID), kbps > 0 { out.field("bitrate", String(kbps)) }
                out.field("duration", Self.seconds(duration))
                // What the file holds, as MPD says its decoder's output: rate, bits ("f" for a lossy
                // codec's float), channels.
                if let source = status.source {
                    out.field("audio", "\(source.sampleRate):\(source.bitsPerSample.map(String.init) ?? "f"):\(source.channels)")
                } else if let format = status.format {
                    out.field("audio", "\(format.sampleRate):16:\(AudioFormat.channels)")
                }
            }
        }
        // As MPD: whole seconds, only when on.
        if status.crossfade > 0 { out.field("xfade", String(Int(status.crossfade.rounded()))) }
        if let delay = status.mixRampDelay { out.field("mixrampdelay", delay, places: 6) }
        if let job = backend.updateJob { out.field("updating_db", String(job)) }
        if let error = status.outputError ?? status.playError { out.field("error", error) }
    }

    /// The bitrate the library holds for `trackID`, from memory while the same track plays.
    private func bitrate(of trackID: Int64) -> Int? {
        if let known = bitrateLock.withLock({ bitrate.value }), known.track == trackID { return known.kbps }
        let kbps = (try? store.tracks.track(id: trackID))?.bitrate
        bitrateLock.withLock { bitrate.value = (trackID, kbps) }
        return kbps
    }

    private static func next(after position: Int, _ snapshot: PlayerSnapshot) -> Int? {
        if snapshot.modes.single == .on, snapshot.modes.repeat { return position }
        if position + 1 < snapshot.queue.count { return position + 1 }
        return snapshot.modes.repeat && snapshot.queue.count > 0 ? 0 : nil
    }

    private func stats(_ out: MPDResponse) throws(Failure) {
        let stats = try library { () throws(SongboxError) in try store.history.statistics() }
        out.fields([("artists", String(stats.artists)), ("albums", String(stats.albums)), ("songs", String(stats.tracks)),
                    ("uptime", String(Int(backend.uptime))), ("db_playtime", Self.wholeSeconds(stats.duration)),
                    ("db_update", String(Int((try? store.tracks.lastScan()) ?? 0))), ("playtime", String(Int(player.status.clock)))])
    }

    /// `tagtypes [all|clear|enable|disable|available|reset ...]`, as MPD 0.24 answers it.
    private func tagTypes(_ args: Arguments, _ client: MPDClient, _ out: MPDResponse) throws(Failure) {
        let every = MPDTag.names + MPDTag.absent
        let all = Set(every.map { $0.lowercased() })
        guard let verb = args.values.first?.lowercased() else {
            for name in every where client.tagTypes.map({ $0.contains(name.lowercased()) }) ?? true {
                out.field("tagtype", name)
            }
            return
        }
        let named = try Self.subcommandNames(args, verb: verb, known: all, unknown: "Unknown tag type")
        switch verb {
        case "all": client.tagTypes = nil
        case "clear": client.tagTypes = []
        case "enable": client.tagTypes = (client.tagTypes ?? all).union(named)
        case "disable": client.tagTypes = (client.tagTypes ?? all).subtracting(named)
        case "reset": client.tagTypes = named
        case "available": for name in every { out.field("tagtype", name) }
        default: throw Failure(.argument, "Unknown sub command")
        }
    }

    /// The protocol features songbox knows (MPD 0.24's): `hide_playlists_in_root` leaves the
    /// stored playlists out of `lsinfo /`.
    static let protocolFeatureNames = ["hide_playlists_in_root"]

    /// `protocol [all|clear|enable|disable|available ...]`, as MPD 0.24 answers it.
    private func protocolFeatures(_ args: Arguments, _ client: MPDClient, _ out: MPDResponse) throws(Failure) {
        guard let verb = args.values.first else {
            for name in Self.protocolFeatureNames where client.protocolFeatures.contains(name) { out.field("feature", name) }
            return
        }
        let named = try Self.subcommandNames(args, verb: verb, known: Set(Self.protocolFeatureNames), unknown: "Unknown protocol feature")
        switch verb {
        case "all": client.protocolFeatures = Set(Self.protocolFeatureNames)
        case "clear": client.protocolFeatures = []
        case "enable": client.protocolFeatures.formUnion(named)
        case "disable": client.protocolFeatures.subtract(named)
        case "available": for name in Self.protocolFeatureNames { out.field("feature", name) }
        default: throw Failure(.argument, "Unknown sub command")
        }
    }

    /// The names after a `tagtypes` or `protocol` sub command, lowercased, with MPD's errors:
    /// none after `all`, `clear`, `available`; at least one, each known, after the others.
    private static func subcommandNames(_ args: Arguments, verb: String, known: Set<String>, unknown: String) throws(Failure) -> Set<String> {
        let names = args.values.dropFirst().map { $0.lowercased() }
        if ["all", "clear", "available"].contains(verb) {
            guard names.isEmpty else { throw Failure(.argument, "Too many arguments") }
            return []
        }
        guard ["enable", "disable", "reset"].contains(verb) else { return [] }
        guard !names.isEmpty else { throw Failure(.argument, "Not enough arguments") }
        guard names.allSatisfy(known.contains) else { throw Failure(.argument, unknown) }
        return Set(names)
    }

    /// Queue items at `positions`, their tracks read in pieces, each sent before the next is read.
    private func queueItems(_ items: [QueueItem], _ positions: [Int], _ client: MPDClient, _ out: MPDResponse) async throws(Failure) {
        let roots = roots()
        for start in stride(from: 0, to: positions.count, by: 500) {
            let chunk = positions[start..<min(start + 500, positions.count)]
            let tracks = try library { () throws(SongboxError) in try store.tracks.byID(chunk.map { items[$0].track.trackID }) }
            for position in chunk {
                out.queueItem(items[position], position: position, track: tracks[items[position].track.trackID], roots: roots, client: client,
                              tags: queueTags.tags(of: items[position].id))
            }
            await out.flush()
            guard out.open else { return }
        }
    }

    /// The songs a songbox query finds, in its order, the `window` of them (`find`, `search`, `query`).
    private func songs(matching text: String, window: Range<Int>, client: MPDClient, out: MPDResponse) async throws(Failure) {
        let roots = roots()
        let query = try library { () throws(SongboxError) in try LibraryQuery.parse(text) }
        let evaluated = try await evaluated(reachedFrom: query.playlistNames)
        // The ids found, in order; then their songs in pieces, each sent before the next is read.
        let ids = try library { () throws(SongboxError) in
            try store.runner.readRaw { reader in
                // Kept prepared: a client that repeats a search skips SQLite's compile.
                var ids: [Int64] = []
                try reader.forEachRow(of: try reader.statement(for: query, selecting: "id", evaluated: evaluated), reusing: true) { ids.append($0.int64(0)) }
                return ids
            }
        }
        try await songs(ids[window.clamped(to: 0..<ids.count)], roots: roots, client: client, out: out)
    }

    /// Songs read raw (by column index, written as SQLite gives them), in the order of `ids`: in
    /// pieces, each read in a read of its own and sent before the next is read, so a whole
    /// library's answer is never held and no read stays open while the client takes it.
    func songs(_ ids: ArraySlice<Int64>, roots: MusicRoots, client: MPDClient, out: MPDResponse) async throws(Failure) {
        // The column after the song's own.
        let idColumn = Int32(MPDTag.songColumnNames.count)
        for start in stride(from: ids.startIndex, to: ids.endIndex, by: Self.piece) {
            let piece = Array(ids[start..<min(start + Self.piece, ids.endIndex)])
            // SQLite gives the rows in an order of its own: each song is written aside, then all
            // in the order asked.
            let aside = MPDResponse { _ in false }
            let spans = Box([Int64: Range<Int>]())
            try library { () throws(SongboxError) in
                try store.runner.readRaw { reader in
                    try reader.forEachRow(ids: piece, selecting: MPDTag.songColumns + ", id") { row in
                        let first = aside.count
                        aside.song(row, roots: roots, client: client)
                        spans.value[row.int64(idColumn)] = first..<aside.count
                    }
                }
            }
            for id in piece { if let span = spans.value[id] { out.append(aside, span) } }
            await out.flush()
            guard out.open else { return }
        }
    }

    /// How many songs a long answer reads at a time: a piece is what a client that does not
    /// read holds (its songs with their tags and times, about 40 KB at 64), so 200 such
    /// clients stay well within unread.py's bound (at 128 they came near it on a busy machine).
    static let piece = 64
    /// How many bare paths (`listall`) a long answer reads at a time: about as many bytes.
    static let pathPiece = 1024

    /// The tracks a URI names: a file, or every track under a folder in path order; a URL.
    func playable(under uri: String, single: Bool) throws(Failure) -> [PlayableTrack] {
        if RemoteTracks.isURL(uri) { return [try library { () throws(SongboxError) in try store.tracks.playable(url: uri) }] }
        guard let path = roots().path(uri) else { throw Failure(.noExist, "No such directory") }
        let tracks = try library { () throws(SongboxError) -> [PlayableTrack] in
            if let track = try store.tracks.track(path: path) { return try store.tracks.playable([track]) }
            guard !single else { return [] }
            return try store.tracks.playable(matching: "path:" + FilterParser.quoted(path == "/" ? "/" : path + "/") + " sort:path")
        }
        guard !tracks.isEmpty else { throw Failure(.noExist, single ? "No such song" : "No such directory") }
        return tracks
    }

    /// `list TAG [FILTER] [group TAG]...`
    private func list(_ arguments: [String], _ out: MPDResponse) async throws(Failure) {
        guard let first = arguments.first else { throw Failure(.argument, "too few arguments for \"list\"") }
        // `list file`: the songs' URIs. A tag songbox does not keep lists nothing.
        let file = first.lowercased() == "file"
        guard let tag = file ? (name: "file", column: "path", field: "path") : try MPDTag.named(first) else { return }
        var rest = Array(arguments.dropFirst())
        var groups: [(name: String, column: String, field: String)] = []
        while rest.count >= 2, rest[rest.count - 2].lowercased() == "group" {
            let name = rest.removeLast()
            if let group = try MPDTag.named(name) { groups.insert(group, at: 0) }
            rest.removeLast()
        }
        // `list album ARTIST` (one value, an old form): the albums of that artist.
        if rest.count == 1, !rest[0].hasPrefix("("), tag.name == "Album" { rest = ["Artist", rest[0]] }
        let roots = roots()
        let selection = try MPDSelection(rest, exact: true, roots: roots)
        let columns = groups.map(\.column) + [tag.column]
        let names = groups.map(\.name)
        let evaluated = try await evaluated(reachedBy: selection.query)
        let rows = try lists.rows(columns: columns, query: selection.query, store: store) { () throws(Failure) in
            let rows = Box([[String?]]())
            try library { () throws(SongboxError) in
                try store.tracks.forEachDistinct(columns, matching: selection.query, evaluated: evaluated) { rows.value.append($0) }
            }
            return rows.value
        }
        // A group's value is shown when it changes.
        var last: [String?]?
        for values in rows {
            for (index, name) in names.enumerated() where last == nil || last?[index] != values[index] {
                out.field(name, values[index] ?? "")
            }
            last = values
            // A track without the tag lists as empty only when grouped (as MPD does).
            if let value = values.last!, !value.isEmpty { out.field(tag.name, file ? roots.uri(value) : value) } else if !names.isEmpty { out.field(tag.name, "") }
            await out.flush()
            guard out.open else { return }
        }
    }

    /// `listfiles`: what a folder of the music holds on disk, as MPD lists it: every file (a
    /// cover, a booklet, not only songs) by its bare name with its size, and the folders, each
    /// with its time. Nothing outside the music folders (MPD 0.23 lists `..`).
    private func listFiles(_ uri: String, out: MPDResponse) throws(Failure) {
        let roots = roots()
        // Above several music folders: each is a directory.
        if roots.folders.count > 1, Self.isTop(uri) {
            for folder in roots.folders { out.field("directory", roots.uri(folder)) }
            return
        }
        guard let path = roots.path(uri), let entries = FolderListing.entries(of: path, inside: roots.folders) else {
            throw Failure(.noExist, "No such directory")
        }
        for entry in entries {
            out.field(entry.isFolder ? "directory" : "file", entry.name)
            if !entry.isFolder { out.field("size", String(entry.size)) }
            out.field("Last-Modified", Self.isoDate(entry.modified))
        }
    }

    /// `lsinfo`, `listall`, `listallinfo` of a folder (or one file).
    private func browse(_ command: String, uri: String, client: MPDClient, out: MPDResponse) async throws(Failure) {
        let roots = roots()
        guard let path = roots.path(uri) else { throw Failure(.noExist, "No such directory") }
        if let track = try library({ () throws(SongboxError) in try store.tracks.track(path: path) }) {
            if command == "listall" { out.field("file", roots.uri(path)) } else {
                out.song(track, path: track.path, duration: track.duration, roots: roots, client: client)
            }
            return
        }
        // Above the music folders (several of them): each is a directory.
        if roots.folders.count > 1, Self.isTop(uri) {
            for folder in roots.folders { out.field("directory", roots.uri(folder)) }
            if command == "lsinfo" { return }
        }
        let recursive = command == "listall" || command == "listallinfo"
        let withInfo = command == "lsinfo" || command == "listallinfo"
        let prefix = path == "/" ? "/" : path + "/"
        // The folders of the path before (paths come sorted, so a folder's tracks are together).
        let previous = Box([Substring]())
        // Each path: the folders on the way that the path before was not in (all of them when
        // recursive, else the first), then whether the file itself is listed.
        let visit: @Sendable (String) -> Bool = { trackPath in
            let parts = trackPath.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: true)
            let folders = parts.dropLast()
            var depth = 0
            while depth < folders.count, depth < previous.value.count, folders[depth] == previous.value[depth] { depth += 1 }
            let shown = recursive ? folders.count : min(folders.count, 1)
            for level in depth..<max(depth, shown) {
                let folder = prefix + folders[...level].joined(separator: "/")
                out.field("directory", roots.uri(folder))
                if withInfo, let time = FolderLines.modified(Array(folder.utf8)[...]) { out.field("Last-Modified", time) }
            }
            previous.value = Array(folders)
            return recursive || parts.count == 1
        }
        var found = 0
        if recursive {
            // The whole tree, in pieces: each read on its own and sent before the next is read.
            let columns = withInfo ? MPDTag.songColumns : "path"
            let limit = withInfo ? Self.piece : Self.pathPiece
            // Inside the one music folder (the common case) the lines are written from SQLite's
            // bytes: a URI is the path's bytes after the folder.
            let bytes = roots.onlyPrefix.flatMap { only in
                Array(prefix.utf8).starts(with: only) ? Box(FolderLines(uriStart: only.count, relStart: prefix.utf8.count)) : nil
            }
            var after: String?
            while true {
                let start = after
                let last = try library { () throws(SongboxError) -> (count: Int, path: String?) in
                    try store.runner.readRaw { reader in
                        var count = 0, last: String?
                        if !withInfo, var lines = bytes?.value {
                            // listall inside the one music folder: the piece's lines with one
                            // access to the answer's bytes.
                            try out.withBuffer { buffer in
                                try reader.forEachRow(under: path, after: start, limit: limit, selecting: columns) { row in
                                    count += 1
                                    lines.write(row.utf8(0), file: true, to: &buffer)
                                }
                            }
                            bytes?.value = lines
                            return (count, String(decoding: lines.previous, as: UTF8.self))
                        }
                        try reader.forEachRow(under: path, after: start, limit: limit, selecting: columns) { row in
                            count += 1
                            if let bytes {
                                bytes.value.write(row.utf8(0), file: !withInfo, times: withInfo, to: out)
                            } else {
                                let trackPath = String(decoding: row.utf8(0), as: UTF8.self)
                                _ = visit(trackPath)
                                if !withInfo { out.field("file", roots.uri(trackPath)) }
                                last = trackPath
                            }
                            if withInfo { out.song(row, roots: roots, client: client) }
                        }
                        return (count, bytes.map { String(decoding: $0.value.previous, as: UTF8.self) } ?? last)
                    }
                }
                found += last.count
                await out.flush()
                guard out.open, last.count == limit else { break }
                after = last.path
            }
        } else {
            // One level: its folders (a seek past each in the path index: the root of a large
            // library costs a read a folder, not a read a track), then its few files.
            let files = Box([String]())
            found = try library { () throws(SongboxError) -> Int in
                try store.tracks.forEachEntry(in: path) { entry in
                    switch entry {
                    case .folder(let folder):
                        out.field("directory", roots.uri(folder))
                        if withInfo, let time = FolderLines.modified(Array(folder.utf8)[...]) { out.field("Last-Modified", time) }
                    case .file(let trackPath):
                        if withInfo { files.value.append(trackPath) } else { out.field("file", roots.uri(trackPath)) }
                    }
                }
            }
            for file in files.value {
                if let track = try library({ () throws(SongboxError) in try store.tracks.track(path: file) }) {
                    out.song(track, path: track.path, duration: track.duration, roots: roots, client: client)
                }
                await out.flush()
            }
        }
        if found == 0, !uri.isEmpty, roots.folders.first(where: { $0 == path }) == nil {
            throw Failure(.noExist, "No such directory")
        }
    }

    /// Whether `uri` is the top of the music (above or in the music folders).
    static func isTop(_ uri: String) -> Bool { uri.trimmingCharacters(in: CharacterSet(charactersIn: "/")).isEmpty }

    /// Each stored playlist as `playlist` and `Last-Modified` lines (names and times only: no
    /// function playlist is evaluated for them).
    func storedPlaylists(_ out: MPDResponse) throws(Failure) {
        for playlist in try library({ () throws(SongboxError) in try store.playlists.all() }) {
            out.field("playlist", playlist.name)
            out.field("Last-Modified", Self.isoDate(playlist.modified))
        }
    }

    static func toggle(_ value: PlaybackModes.Toggle) -> StaticString {
        switch value {
        case .off: "0"
        case .on: "1"
        case .oneshot: "oneshot"
        }
    }

    /// `value` rounded to a whole number, 0 when it is none (or too large to be one).
    static func whole(_ value: Double) -> Int {
        value.isFinite && abs(value) < 1e15 ? Int(value.rounded()) : 0
    }

    /// Seconds with milliseconds, as MPD prints them ("12.345"), without Foundation's formatter
    /// (a search answer prints hundreds). A value that is no time (NaN, infinite, absurdly
    /// large: a damaged row) prints as 0, never traps.
    static func seconds(_ value: Double) -> String { decimal(value, places: 3) }

    /// `value` with `places` (0 to 6) decimals, as C's `%.Nf` writes it (`MPDResponse.writeDecimal`).
    static func decimal(_ value: Double, places: Int) -> String {
        String(unsafeUninitializedCapacity: MPDResponse.longestDecimal) { bytes in
            MPDResponse.writeDecimal(value, places: places, into: UnsafeMutableRawBufferPointer(bytes), at: 0)
        }
    }

    /// Whole seconds, as MPD's `Time`, `time` and totals; 0 for a value that is no time.
    static func wholeSeconds(_ value: Double) -> String { String(whole(value)) }
}

/// The folder and file lines of a recursive listing (`listall`, `listallinfo`) from each path's
/// bytes as SQLite holds them, no String made: the folders on the way that the path before was
/// not in, then the file. For paths inside the one music folder, whose URIs are their bytes
/// after it (`uriStart`), below the folder listed (`relStart`: its bytes and the slash).
struct FolderLines {
    let uriStart: Int, relStart: Int
    /// The path before.
    private(set) var previous: [UInt8] = []

    init(uriStart: Int, relStart: Int) {
        self.uriStart = uriStart
        self.relStart = relStart
    }

    /// `times`: each folder with its `Last-Modified` (`listallinfo`, as MPD).
    mutating func write(_ path: UnsafeRawBufferPointer, file: Bool, times: Bool = false, to out: MPDResponse) {
        out.withBuffer { write(path, file: file, times: times, to: &$0) }
    }

    mutating func write(_ path: UnsafeRawBufferPointer, file: Bool, times: Bool = false, to out: inout ByteBuffer) {
        // The bytes it shares with the path before: a folder whose closing slash is among them
        // was listed with that path.
        var common = relStart
        let shared = min(path.count, previous.count)
        previous.withUnsafeBytes { previous in
            // Eight bytes at a time, then the last few one by one.
            while common + 8 <= shared, path.loadUnaligned(fromByteOffset: common, as: UInt64.self)
                    == previous.loadUnaligned(fromByteOffset: common, as: UInt64.self) { common += 8 }
            while common < shared, path[common] == previous[common] { common += 1 }
        }
        if common < path.count {
            for index in common..<path.count where path[index] == UInt8(ascii: "/") {
                MPDResponse.write("directory", utf8: UnsafeRawBufferPointer(rebasing: path[uriStart..<index]), to: &out)
                if times, let time = Self.modified(path[..<index]) { MPDResponse.write("Last-Modified", time, to: &out) }
            }
        }
        if file { MPDResponse.write("file", utf8: UnsafeRawBufferPointer(rebasing: path[uriStart...]), to: &out) }
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: path)
    }

    /// A folder's time, by its path's bytes, as MPD's `Last-Modified`; nil when it cannot be read.
    static func modified<Bytes: Collection<UInt8>>(_ path: Bytes) -> String? {
        var name = Array(path.map { CChar(bitPattern: $0) })
        name.append(0)
        var info = stat()
        guard stat(name, &info) == 0 else { return nil }
        return MPDCommands.isoDate(Int64(info.st_mtim.tv_sec))
    }
}

/// `list` answers kept while the library's change stamp stays the same: a client that lists
/// every artist each time it opens a view gets them from memory. Small answers only, a few.
final class ListCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (stamp: StatementRunner.ChangeStamp, rows: [[String?]])] = [:]
    static let largest = 50_000, most = 16

    func rows(columns: [String], query: String, store: LibraryStore,
              compute: () throws(MPDProtocol.Failure) -> [[String?]]) throws(MPDProtocol.Failure) -> [[String?]] {
        let key = columns.joined(separator: ",") + "\u{1}" + query
        let stamp = try? store.runner.changeStamp()
        if let stamp, let hit = lock.withLock({ entries[key] }), hit.stamp == stamp { return hit.rows }
        let rows = try compute()
        if let stamp, rows.count <= Self.largest {
            lock.withLock {
                if entries.count >= Self.most { entries.removeAll() }
                entries[key] = (stamp, rows)
            }
        }
        return rows
    }
}

/// A value a streamed read's callback changes (the read runs it on the calling thread, in order).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A command's arguments, read as MPD reads them.
struct Arguments {
    let command: String
    let values: [String]

    func string(_ index: Int) throws(MPDProtocol.Failure) -> String {
        guard values.indices.contains(index) else {
            throw MPDProtocol.Failure(.argument, "too few arguments for \"\(command)\"")
        }
        return values[index]
    }

    /// A number from 0 (MPD's `ParseUnsigned`: a negative one wraps, so is too large).
    func unsigned(_ index: Int) throws(MPDProtocol.Failure) -> Int {
        let value = try integer(index)
        guard value >= 0 else { throw MPDProtocol.Failure(.argument, "Number too large: \(values[index])") }
        return value
    }

    func integer(_ index: Int) throws(MPDProtocol.Failure) -> Int {
        let text = try string(index)
        guard let value = Int(text), abs(value) < Int(Int32.max) else { throw MPDProtocol.Failure(.argument, "Integer expected: \(text)") }
        return value
    }

    /// A decimal number, or "nan" (MPD's `ParseFloat`).
    func decimal(_ index: Int) throws(MPDProtocol.Failure) -> Double {
        let text = try string(index)
        guard let value = Double(text), !value.isInfinite else { throw MPDProtocol.Failure(.argument, "Float expected: \(text)") }
        return value
    }

    func optionalInteger(_ index: Int) throws(MPDProtocol.Failure) -> Int? {
        values.indices.contains(index) ? try integer(index) : nil
    }

    /// A place in the queue: a position, or `+N` / `-N` counted from the current song.
    func place(_ index: Int) throws(MPDProtocol.Failure) -> PlayerCommand.Place {
        let text = try string(index)
        guard let sign = text.first, sign == "+" || sign == "-" else { return .position(try integer(index)) }
        let rest = text.dropFirst()
        guard let offset = UInt32(rest) else { throw MPDProtocol.Failure(.argument, "Integer expected: \(rest)") }
        return sign == "+" ? .afterCurrent(Int(offset)) : .beforeCurrent(Int(offset))
    }

    /// Seconds: a finite number from 0 to a day's worth of weeks (MPD's words when not).
    func seconds(_ index: Int) throws(MPDProtocol.Failure) -> Double {
        let text = try string(index)
        guard let value = Double(text), value.isFinite else { throw MPDProtocol.Failure(.argument, "Float expected: \(text)") }
        guard value >= 0 else { throw MPDProtocol.Failure(.argument, "Negative value not allowed: \(text)") }
        guard value < 1e7 else { throw MPDProtocol.Failure(.argument, "Number too large: \(text)") }
        return value
    }

    func boolean(_ index: Int) throws(MPDProtocol.Failure) -> Bool {
        switch try string(index) {
        case "1": return true
        case "0": return false
        case let text: throw MPDProtocol.Failure(.argument, "Boolean (0/1) expected: \(text)")
        }
    }

    func toggle(_ index: Int) throws(MPDProtocol.Failure) -> PlaybackModes.Toggle {
        let text = try string(index)
        guard let toggle = PlaybackModes.Toggle(mpd: text) else {
            throw MPDProtocol.Failure(.argument, "Boolean (0/1) or oneshot expected: \(text)")
        }
        return toggle
    }

    func range(_ index: Int) throws(MPDProtocol.Failure) -> Range<Int> { try MPDSelection.range(try string(index)) }

    func optionalRange(_ index: Int) throws(MPDProtocol.Failure) -> Range<Int>? {
        values.indices.contains(index) ? try range(index) : nil
    }
}

extension PlaybackModes.Toggle {
    /// `0`, `1` or `oneshot`, as MPD's `single` and `consume` take it.
    init?(mpd text: String) {
        switch text {
        case "1": self = .on
        case "0": self = .off
        case "oneshot": self = .oneshot
        default: return nil
        }
    }
}
