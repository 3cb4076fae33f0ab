import ArgumentParser
import Foundation
import SongboxFiles
import SongboxAudio
import SongboxServer
import SongboxWiring
import SongboxLibrary
import SongboxPlayback

/// Output and speed options shared by the commands that play (`play`, `run`).
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        tr("Where the audio goes: alsa:DEVICE, wav:PATH, fifo:PATH or null (default: $SONGBOX_OUTPUT, else alsa:default)."),
        valueName: "spec"))
    var output: String?

    @Flag(help: ArgumentHelp(tr("Run wav, fifo and null outputs as fast as the machine allows instead of in real time.")))
    var fast = false

    @Option(help: ArgumentHelp(tr("The ReplayGain mode: album gain, track gain, auto (album in order, track on random) or off (default: the config's replay_gain, else off)."),
                               valueName: "mode"))
    var replayGain: ReplayGainMode?

    /// The output the options name, else the environment's or the config's (`Wiring.output`).
    /// An output that cannot be is said as an error, without the usage lines of a mistyped option.
    static func resolve(_ output: String?, wiring: Wiring) throws -> OutputSpec {
        do { return try wiring.output(output) } catch { throw SongboxError(.invalidArgument, error.message) }
    }
}

extension ReplayGainMode: ExpressibleByArgument {}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: tr("Play tracks matching a query, in the foreground."),
        discussion: helpParagraphs(tr("""
            Replaces the queue with the tracks QUERY finds (in the query's order) and plays them,
            printing a line as each track starts, until the queue ends or Ctrl-C. Without QUERY,
            picks up the saved queue where it was left. Plays and skips are recorded in the
            history as they happen (see docs/player.md for the rules, and for the config file
            that changes them: ~/.config/songbox/config).
            """)))

    @OptionGroup var library: LibraryOptions
    @OptionGroup var outputOptions: OutputOptions

    @Flag(help: ArgumentHelp(tr("Shuffle the queue before playing.")))
    var shuffle = false

    @Option(help: ArgumentHelp(tr("Set the volume first, 0 to 100 (default: the saved volume)."), valueName: "volume"))
    var volume: Double?

    @Flag(help: ArgumentHelp(tr("Play only each track's highlight (set with `songbox edit ID highlight=1:05..1:35`).")))
    var highlights = false

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Query words (empty: the saved queue)."), valueName: "query"))
    var query: [String] = []

    func validate() throws {
        try QueryArguments.refuseUnknownOptions(query, known: ["--output", "--fast", "--shuffle", "--volume", "--highlights",
                                                               "--replay-gain"])
        if let volume, !(0...100).contains(volume) { throw ValidationError(tr("--volume is 0 to 100, got \(volume)")) }
    }

    func run() throws {
        // A running daemon owns the output and the queue: play there.
        if let daemon = try? ControlClient(serving: library.path) { return try playThrough(daemon) }
        let store = try library.openStore()
        let wiring = try Wiring.load().replayGain(outputOptions.replayGain)
        let spec = try OutputOptions.resolve(outputOptions.output, wiring: wiring)
        let playable = try queued(store)
        if !query.isEmpty, playable.isEmpty {
            throw SongboxError(.notFound, "no track matches \(QueryArguments.join(query))", hint: "try the query with `songbox ls`")
        }
        let session = wiring.session(store: store, output: spec, fast: outputOptions.fast)
        let events = session.subscribe()
        let highlightsOn = highlights
        let shuffled = shuffle
        let newVolume = volume
        let (queued, heard) = session.player.perform { engine -> (Int, Double) in
            if !playable.isEmpty {
                engine.clear()
                engine.add(playable)
            }
            if shuffled { engine.shuffle() }
            engine.setHighlights(highlightsOn)
            if let newVolume { engine.setVolume(newVolume) }
            engine.play(id: shuffled ? engine.queue.items.first?.id : nil)
            return (engine.queue.count, engine.currentVolume)
        }
        Self.sayWhatDidNotFit(matched: playable.count, queued: queued)
        guard queued > 0 else {
            session.shutdown()
            throw SongboxError(.notFound, "the queue is empty", hint: "give a query, e.g. `songbox play artist:\"Naomi Shemer\"`")
        }

        if heard == 0, volume == nil {
            reportToStandardError(tr("the volume is 0 (saved from before): set it with --volume 100"))
        }
        // Ctrl-C ends the wait; the shutdown stops playback, records it and keeps the place.
        let stop = StopRequest()
        let interrupt = Interrupt { stop.request() }
        var tally = Tally()
        while !stop.requested {
            guard let event = events.take(timeout: 0.25) else {
                if events.isClosedAndEmpty { break }  // the player ended without a word: never wait on
                continue
            }
            tally.note(event)
            if case .stopped = event.event { break }
            if tally.outputGone != nil { break }
        }
        interrupt.cancel()
        session.shutdown()
        while let event = events.take(timeout: 0) { tally.note(event) }
        // What the history holds, not what the events said: a play that could not be committed
        // (a full disk, a damaged library) is not claimed, and fails the command.
        let recorded = session.recorded
        complain(tally.summary(recorded))
        if let gone = tally.outputGone {
            complain("no sound: output \(gone); nothing could be heard for \(Int(Player.outputPatience)) s, so playback stopped")
            throw ExitCode(1)
        }
        if tally.started == 0 || recorded.failures > 0 { throw ExitCode(1) }
    }
}

extension Play {
    /// Every word a URL: those streams and files from the network; else the query's tracks.
    private var urls: [String]? {
        query.allSatisfy(RemoteTracks.isURL) && !query.isEmpty ? query : nil
    }

    private func queued(_ store: LibraryStore) throws -> [PlayableTrack] {
        if let urls { return try urls.map { url throws(SongboxError) in try store.tracks.playable(url: url) } }
        guard !query.isEmpty else { return [] }
        let text = QueryArguments.join(query)
        return try store.tracks.playable(matching: text, evaluated: LibraryOptions.functionPlaylists.evaluated(reachedBy: text, in: store))
    }

    /// Queues the query on the running daemon and starts it (without a query: resumes its
    /// queue). The daemon plays to its own output: asking for another one is refused.
    func playThrough(_ daemon: ControlClient) throws {
        guard outputOptions.output == nil, !highlights else {
            // A refusal, not a mistyped command line: no usage after it.
            throw SongboxError(.invalidArgument, "a songbox daemon runs and owns the output (\(ControlClient.socket(serving: library.path) ?? "")): `songbox play` queues there, to the daemon's output and without --highlights; stop the daemon to play elsewhere")
        }
        if let volume { _ = try daemon.send("setvol", [String(Int(volume.rounded()))]) }
        if let mode = outputOptions.replayGain { _ = try daemon.send("replay_gain_mode", [mode.rawValue]) }
        if query.isEmpty {
            _ = try daemon.send("play")
            print(tr("Playing the songbox daemon's queue."))
            return
        }
        let added: String
        if let urls {
            _ = try daemon.send("clear")
            for url in urls { _ = try daemon.send("add", [url]) }
            _ = try daemon.send("play", ["0"])
            added = String(urls.count)
        } else {
            let answer = try daemon.send("queryplay", [QueryArguments.join(query)])
            added = answer.first { $0.0 == "added" }?.1 ?? "0"
            if let matched = answer.first(where: { $0.0 == "matched" }).flatMap({ Int($0.1) }) {
                Self.sayWhatDidNotFit(matched: matched, queued: Int(added) ?? 0)
            }
        }
        if shuffle { _ = try daemon.send("shuffle") }
        let count = Int(added) ?? 0
        print(tr(tr(count: count, "Playing \(count) track through the songbox daemon.", "Playing \(count) tracks through the songbox daemon.")))
    }
}

extension Play {
    /// More tracks matched than the queue holds (`max_queue_length`): the first ones play.
    static func sayWhatDidNotFit(matched: Int, queued: Int) {
        guard matched > queued else { return }
        reportToStandardError(tr("the queue holds at most \(queued) tracks (max_queue_length): playing the first \(queued) of the \(matched) found"))
    }
}

/// What `play` prints as events arrive, and the summary at the end.
private struct Tally {
    var started = 0
    /// Why the output gave up (it stayed unavailable as long as the player waits): playback
    /// paused, and `play` ends saying so rather than wait on in silence.
    var outputGone: String?

    /// Says what happened, with the track the event carries (as the library had it).
    mutating func note(_ delivered: PlaybackEvent) {
        switch delivered.event {
        case .trackStarted(let item, let position, _):
            started += 1
            let track = delivered.track
            if track == nil, item.track.isRemote {
                // A URL outside the library: no tags, and no length until it has played.
                print(tr("\(position + 1). \(TerminalText.line(TrackLocation.shown(item.track.path)))"))
            } else {
                let name = TerminalText.name(track?.artist, track?.title ?? fileName(item.track.path)) ?? ""
                print(tr("\(position + 1). \(name) (\(TerminalText.duration(track?.duration ?? item.track.duration)))"))
            }
            fflush(nil)
        case .streamTitle(_, let title):
            print(tr("   now playing: \(TerminalText.line(title.title))"))
            fflush(nil)
        case .trackEnded(let item, .error, let played, _, _) where played == 0 && item.track.isRemote:
            // A network track starts before its server answers: one that failed then did not play.
            started -= 1
        case .decodeError(let item, let message):
            reportToStandardError(tr("cannot play \(TrackLocation.shown(item.track.path)): \(message); skipped"))
        case .outputError(let message, false):
            reportToStandardError(tr("output \(message); retrying"))
        case .outputError(let message, true):
            outputGone = message
        default:
            break
        }
    }

    func summary(_ recorded: RecordedCounts) -> Message {
        let plays = recorded.plays, skips = recorded.skips, failures = recorded.failures
        let tracks = tr(count: started, "Played \(started) track", "Played \(started) tracks")
        let played = tr(count: plays, "\(plays) play", "\(plays) plays")
        let skipped = tr(count: skips, "\(skips) skip", "\(skips) skips")
        if failures > 0 { return "\(tracks): \(played) and \(skipped) recorded; \(failures) could not be recorded (see above)." }
        return "\(tracks): \(played) and \(skipped) recorded."
    }
}

/// Runs `action` on Ctrl-C (SIGINT) or SIGTERM instead of dying, until cancelled.
final class Interrupt {
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
