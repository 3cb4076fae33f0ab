import Foundation
import SongboxAudio
import SongboxLibrary

/// A player wired to the library: what the CLI, `songbox run` and the daemon play through.
///
/// Events leave the audio thread through a mailbox; a worker thread records each counted play
/// or skip in the history, keeps the player's state saved, and passes every event on to the
/// subscribers. So the audio thread never waits on SQLite, and a subscriber sees an event only
/// after its play is recorded.
public final class PlaybackSession: @unchecked Sendable {
    public let player: Player
    public let store: LibraryStore
    /// Where problems that stop nothing are told (a play that could not be recorded, ...).
    private let report: @Sendable (String) -> Void
    private let incoming: Mailbox<PlayerEvent>
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var subscribers: [Mailbox<PlayerEvent>] = []
    private var received = 0
    private var handled = 0
    private var workerDone = false

    /// The name the player's state is saved under.
    public static let stateName = "player"
    /// Seconds between saves of the position while playing.
    static let saveInterval = 5.0

    public init(store: LibraryStore, output: any AudioOutput, settings: PlayerSettings = PlayerSettings(),
                fast: Bool = false, restore: Bool = true,
                report: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(("songbox: " + $0 + "\n").utf8)) }) {
        self.store = store
        self.report = report
        let incoming = Mailbox<PlayerEvent>()
        self.incoming = incoming
        var saved: PlayerSnapshot?
        if restore {
            do {
                saved = try store.savedState(Self.stateName).map { try JSONDecoder().decode(PlayerSnapshot.self, from: $0) }
            } catch {
                report("the saved queue could not be read, starting with an empty one (\(error))")
            }
        }
        let counter = Counter()
        player = Player(output: output, settings: settings, fast: fast, restoring: saved) { event in
            counter.increment()
            incoming.put(event)
        }
        self.counter = counter
        let worker = Thread { [self] in work() }
        worker.name = "songbox playback"
        worker.start()
    }

    private let counter: Counter

    /// A mailbox that gets every event from now on, after it has been recorded.
    public func subscribe() -> Mailbox<PlayerEvent> {
        let mailbox = Mailbox<PlayerEvent>()
        condition.withLock { subscribers.append(mailbox) }
        return mailbox
    }

    /// Library tracks as the player takes them, with their highlights.
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] {
        let highlights = try store.highlights(of: tracks.map(\.id))
        return tracks.map { track in
            PlayableTrack(trackID: track.id, path: track.path, duration: track.duration,
                          highlight: highlights[track.id].map { HighlightRange(start: $0.start, end: $0.end) })
        }
    }

    /// Waits until every event of the commands sent so far has been recorded and passed on.
    public func waitUntilIdle() {
        player.perform { _ in }
        let target = counter.value
        condition.withLock {
            while handled < target, !workerDone { condition.wait() }
        }
    }

    /// Stops playback, records what was heard, saves the state and ends the worker.
    public func shutdown() {
        player.shutdown()
        incoming.close()
        condition.withLock {
            while !workerDone { condition.wait() }
        }
        saveState()
        condition.withLock { subscribers }.forEach { $0.close() }
    }

    // MARK: The worker

    private func work() {
        var lastSave = 0.0
        while true {
            guard let event = incoming.take(timeout: Self.saveInterval) else {
                if incoming.isClosedAndEmpty { break }
                // Quiet for a while: keep the position current in case of a power cut.
                if player.status.snapshot.state == .playing { saveState() }
                continue
            }
            handle(event)
            let clock = player.status.clock
            if Self.changesState(event) || clock - lastSave >= Self.saveInterval {
                saveState()
                lastSave = clock
            }
            let listeners = condition.withLock { subscribers }
            for listener in listeners { listener.put(event) }
            condition.withLock {
                handled += 1
                condition.broadcast()
            }
        }
        condition.withLock {
            workerDone = true
            condition.broadcast()
        }
    }

    private func handle(_ event: PlayerEvent) {
        guard case .trackEnded(let item, let reason, let played, _, let counted?) = event else { return }
        do {
            try store.recordPlay(trackID: item.track.trackID, kind: counted == .play ? .play : .skip,
                                 reason: reason.rawValue, played: played)
        } catch {
            report("could not record the \(counted.rawValue) of \(item.track.path): \(error)")
        }
    }

    private static func changesState(_ event: PlayerEvent) -> Bool {
        switch event {
        case .trackEnded, .outputError, .decodeError: false
        default: true
        }
    }

    private func saveState() {
        do {
            let data = try JSONEncoder().encode(player.status.snapshot)
            try store.saveState(data, as: Self.stateName)
        } catch {
            report("could not save the queue: \(error)")
        }
    }
}

/// Events handed to the worker, counted from the audio thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
