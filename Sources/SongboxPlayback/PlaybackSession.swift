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
    private let incoming: Mailbox<PlayerEvent>
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var subscribers: [Mailbox<PlayerEvent>] = []
    private var workerDone = false

    /// Seconds between saves of the position while playing.
    /// A minute: each save is a synced SQLite commit, and on a Pi's SD card writes are what
    /// wears it (every 5 s was about 10 MB an hour of playing; MPD saves every 2 minutes). A clean
    /// stop saves the exact place; a power cut resumes at most this much earlier.
    static let saveInterval = 60.0

    public init(store: LibraryStore, output: any AudioOutput, settings: PlayerSettings = PlayerSettings(),
                fast: Bool = false, restore: Bool = true,
                report: @escaping @Sendable (String) -> Void = reportToStandardError) {
        self.store = store
        let incoming = Mailbox<PlayerEvent>()
        self.incoming = incoming
        let recorder = PlaybackRecorder(store: store, report: report)
        self.recorder = recorder
        let saved = restore ? recorder.savedSnapshot() : nil
        player = Player(output: output, settings: settings, fast: fast, restoring: saved) { event in incoming.put(event) }
        let worker = Thread { [self] in work() }
        worker.name = "songbox playback"
        worker.start()
    }

    private let recorder: PlaybackRecorder
    /// The plays and skips this session committed to the history, and those it could not.
    public var recorded: RecordedCounts { recorder.recorded }

    /// A mailbox that gets every event from now on, after it has been recorded.
    public func subscribe() -> Mailbox<PlayerEvent> {
        let mailbox = Mailbox<PlayerEvent>()
        condition.withLock { subscribers.append(mailbox) }
        return mailbox
    }

    /// Stops playback, records what was heard, saves the state and ends the worker. The state
    /// saved is the one before the stop, so the next run continues from the same place.
    public func shutdown() {
        let beforeStop = player.perform { $0.snapshot }
        player.shutdown()
        incoming.close()
        condition.withLock {
            while !workerDone { condition.wait() }
        }
        recorder.save(beforeStop)
        condition.withLock { subscribers }.forEach { $0.close() }
    }

    // MARK: The worker

    private func work() {
        var lastSave = 0.0
        var unsaved = false
        while true {
            guard let event = incoming.take(timeout: Self.saveInterval) else {
                if incoming.isClosedAndEmpty { break }
                // Quiet for a while: keep the position current in case of a power cut.
                if player.status.snapshot.state == .playing { saveState() }
                continue
            }
            recorder.record(event)
            let clock = player.status.clock
            if PlaybackRecorder.changesState(event) { unsaved = true }
            // A burst of changes (a new queue: cleared, filled, started) is saved once, when the
            // last of it is handled: each save is a synced write of the whole queue.
            if (unsaved && incoming.isEmpty) || clock - lastSave >= Self.saveInterval {
                saveState()
                lastSave = clock
                unsaved = false
            }
            let listeners = condition.withLock { subscribers }
            for listener in listeners { listener.put(event) }
        }
        condition.withLock {
            workerDone = true
            condition.broadcast()
        }
    }

    private func saveState() {
        recorder.save(player.status.snapshot)
    }
}
