import Foundation
import SongboxAudio
import SongboxLibrary

/// A player in real time wired to the library: what the CLI, `songbox run` and the daemon play
/// through.
///
/// Events leave the audio thread through a bounded mailbox, stamped as they leave; a worker
/// thread runs them through the `EventPipeline` (plays recorded, then every subscriber; a place
/// that changed is saved by the recorder's own queue). So neither the audio thread nor a
/// subscriber waits on a synced commit, and a subscriber sees an event only after its play is
/// recorded.
public final class PlaybackSession: @unchecked Sendable {
    public let player: Player
    public let store: LibraryStore
    public let pipeline: EventPipeline
    /// Whether the saved state this session started from was playing (a daemon stopped, or
    /// killed, while it played): the daemon resumes it, as MPD does.
    public let wasPlaying: Bool
    private let incoming: Mailbox<Incoming>
    private let report: @Sendable (String) -> Void
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var workerDone = false

    public init(store: LibraryStore, output: any AudioOutput, settings: PlayerSettings = PlayerSettings(),
                fast: Bool = false, restore: Bool = true, savesState: Bool = true,
                report: @escaping @Sendable (String) -> Void = reportToStandardError) {
        self.store = store
        self.report = report
        let incoming = Mailbox<Incoming>(capacity: EventPipeline.subscriberCapacity) { item in
            guard case .event(let event, _) = item else { return nil }
            return PlaybackEvent.coalescingKind(of: event)
        }
        self.incoming = incoming
        let recorder = PlaybackRecorder(store: store, savesState: savesState, report: report)
        pipeline = EventPipeline(recorder: recorder, savesInBackground: true)
        let saved = restore ? recorder.savedSnapshot() : nil
        wasPlaying = saved?.state == .playing && saved?.current != nil
        player = Player(output: output, settings: settings, fast: fast, restoring: saved, onEvents: { events in
            let now = MonotonicClock.seconds
            incoming.put(contentsOf: events.map { .event($0, emitted: now) })
        })
        let worker = Thread { [self] in work() }
        worker.name = "songbox playback"
        worker.start()
    }

    /// The plays and skips this session committed to the history, and those it could not.
    public var recorded: RecordedCounts { pipeline.recorder.recorded }

    /// A mailbox that gets every event from now on, after it has been recorded.
    public func subscribe() -> Mailbox<PlaybackEvent> { pipeline.subscribe() }

    /// Runs `body` on the audio thread and returns its result once the events it caused have
    /// been through the bus: recorded, and handed to every subscriber. So a command's answer
    /// goes out after everyone heard of its change, as MPD's does: an `idle` client is woken
    /// by the change of a command answered before it connects, never after.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) -> T {
        let result = player.perform(body)
        let passed = Mailbox<Bool>()
        // A session shut down has no worker to pass it: nothing waits then.
        if incoming.put(contentsOf: [.fence({ passed.put(true) })]) { _ = passed.take() }
        return result
    }

    /// `perform`, with the caller suspended (no thread held) while the audio thread and the bus
    /// do it.
    public func execute<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) async -> T {
        let result = await player.execute(body)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !incoming.put(contentsOf: [.fence({ continuation.resume() })]) { continuation.resume() }
        }
        return result
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
        pipeline.finish([], saving: beforeStop)
    }

    // MARK: The worker

    /// What reaches the worker: the engine's events, and the marks `perform` waits behind.
    private enum Incoming: Sendable {
        case event(PlayerEvent, emitted: Double)
        /// Called once every event before it has been through the bus.
        case fence(@Sendable () -> Void)
    }

    private func work() {
        while true {
            // Quiet for a while: the pipeline keeps the position current in case of a power cut.
            let wait = pipeline.placePending ? EventPipeline.placeInterval : EventPipeline.saveInterval
            guard let first = incoming.take(timeout: wait) else {
                if incoming.isClosedAndEmpty { break }
                pipeline.tick(player.status)
                continue
            }
            // A burst (a new queue: cleared, filled, started; a track's end and the next one's
            // start) is one batch: one commit.
            let batch = [first] + incoming.takeAvailable()
            let events = batch.compactMap { item in if case .event(let event, let emitted) = item { (event: event, emitted: emitted) } else { nil } }
            if !events.isEmpty { pipeline.handle(events, status: player.status) }
            for case .fence(let passed) in batch { passed() }
            let dropped = incoming.takeDropped()
            if dropped > 0 { report(Message("the player's events fell behind: \(dropped) older position and lyric events dropped, the newest kept").localized) }
        }
        condition.withLock {
            workerDone = true
            condition.broadcast()
        }
    }
}
