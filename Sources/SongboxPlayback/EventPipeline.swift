import Foundation
import SongboxAudio
import SongboxLibrary
import Synchronization

/// A player event as every consumer gets it: the event as the engine emitted it, the library's
/// track of its queue item as it was when the item started (read once, not again by each
/// consumer), and when it left the audio thread (`MonotonicClock` seconds).
public struct PlaybackEvent: Sendable {
    public let event: PlayerEvent
    /// The library's record of the event's track; nil for events without one, or a track that
    /// has left the library.
    public let track: Track?
    /// The words of a `lyric` event's line, from the library (the queue carries only times).
    public let lyricText: String?
    public let emitted: Double
    /// The library's record of a `transition_ahead`'s incoming track (`track` is the outgoing one's).
    public let nextTrack: Track?

    public init(_ event: PlayerEvent, track: Track? = nil, lyricText: String? = nil, emitted: Double = MonotonicClock.seconds,
                nextTrack: Track? = nil) {
        self.event = event
        self.track = track
        self.nextTrack = nextTrack
        self.lyricText = lyricText
        self.emitted = emitted
    }

    /// For events that only say a value changed, their kind: the newest of a kind says all of
    /// it, so a consumer that falls behind may lose older ones of that kind. Lyric lines are
    /// such values (the line sung now supersedes the one before: a display that fell behind
    /// shows the newest, it need not sing the old ones). Nil for track, playback and error
    /// events, which are never dropped.
    public var coalescingKind: String? { Self.coalescingKind(of: event) }

    public static func coalescingKind(of event: PlayerEvent) -> String? {
        PlayerEvent.valueEventNames.contains(event.name) ? event.name : nil
    }
}

/// What subscribes to the event bus: the MPD clients' `idle`, each plugin, a script's loop, the
/// daemon's log. It gets every event after its play is recorded, in order, a batch at a time
/// (what came out of the engine together), on the pipeline's thread: so it must not block or
/// call back into the player; it puts them in a bounded queue of its own, or notes what changed.
public protocol EventSubscriber: AnyObject, Sendable {
    func receive(_ events: [PlaybackEvent])
}

/// A mailbox is the simplest subscriber: a consumer that takes the events on a thread of its own.
extension Mailbox: EventSubscriber where Element == PlaybackEvent {
    public func receive(_ events: [PlaybackEvent]) { put(contentsOf: events) }
}

/// The one path of player events (the event bus): the engine emits each event once; the
/// pipeline, on one thread at a time, attaches the track, records the plays and saves the state
/// (one transaction per batch), then hands the event to every subscriber, directly. `PlaybackSession` runs it
/// on a worker thread for a player in real time; a stepped player's owner runs it between two
/// chunks (`SteppedPlayback`). A subscriber sees an event only after its play is recorded.
///
/// The recorder is one serial writer. In real time it has a queue of its own, so a place
/// saved in the background (a synced commit: milliseconds on an SD card) never holds up the
/// events behind it; a batch that counts a play waits for it, then commits, in order.
public final class EventPipeline: @unchecked Sendable {
    public let recorder: PlaybackRecorder
    /// The recorder's own queue, or nil to commit on the pipeline's thread (a stepped player,
    /// where nothing runs in real time and each step should be on disk when it returns).
    private let recorderQueue: DispatchQueue?
    /// The newest place waiting for the recorder's queue; a newer one replaces it unwritten.
    private let waitingPlace = Mutex<PlayerSnapshot?>(nil)
    private var store: LibraryStore { recorder.store }
    /// Guarded by `lock`; everything else belongs to the pipeline's thread.
    private let lock = NSLock()
    private var subscribers: [any EventSubscriber] = []
    /// The tracks of the items events were last about (the one playing and the one before),
    /// as they were when each started.
    private var tracks: [(item: Int, track: Track?)] = []
    /// The lines of the track whose lyric events came last, read once for all of them.
    private var lyricLines: (trackID: Int64, lines: [LyricLine])?
    /// The player clock at the last save, and the monotonic clock at the last write.
    private var lastSave = -Double.infinity
    private var lastPlaceWrite = -Double.infinity

    /// Seconds of playing between two saves of the place when nothing else changes it.
    /// Five minutes: each save is a synced SQLite commit, and on a Pi's SD card writes are what
    /// wear it. Every change (a new track, a pause, a queue edit, the volume) is saved as it
    /// happens, together with the play it records; a power cut resumes the right track, at most
    /// this much earlier in it (MPD saves its state every 2 minutes).
    public static let saveInterval = 300.0
    /// How many events a subscriber may fall behind before expendable ones are dropped.
    public static let subscriberCapacity = 1024

    public init(recorder: PlaybackRecorder, savesInBackground: Bool = false) {
        self.recorder = recorder
        recorderQueue = savesInBackground ? DispatchQueue(label: "songbox recorder", qos: .utility) : nil
    }

    /// A mailbox that gets every event from now on, after it has been recorded; bounded
    /// (`subscriberCapacity`), value events coalescing when its taker falls behind.
    public func subscribe() -> Mailbox<PlaybackEvent> {
        let mailbox = Mailbox<PlaybackEvent>(capacity: Self.subscriberCapacity) { $0.coalescingKind }
        subscribe(mailbox)
        return mailbox
    }

    /// `subscriber` gets every event from now on, after it has been recorded.
    public func subscribe(_ subscriber: any EventSubscriber) {
        lock.withLock { subscribers.append(subscriber) }
    }

    /// Records a batch of events (what came out of the engine together) and, if they changed
    /// it or it is due, the state `status` shows; then passes each event on.
    ///
    /// A batch that counts a play or a skip is committed before anyone hears of it (a handler
    /// that reads the history finds the play). Any other batch is handed on first and its
    /// state saved after: the saved place is for the next start, and a synced commit can take
    /// milliseconds a plugin should not wait.
    ///
    /// A place that changed without a play (the volume, a pause, a queue edit) is saved at most
    /// once every `placeInterval` seconds: the latest one, by `tick` when nothing else comes. A
    /// slider dragged in a client is then one synced write, not one per step, and the next
    /// events never wait behind a row of them.
    public func handle(_ events: [(event: PlayerEvent, emitted: Double)], status: PlayerStatus) {
        guard !events.isEmpty else { return tick(status) }
        let changed = events.contains { PlaybackRecorder.changesState($0.event) }
        let due = status.snapshot.state == .playing && status.clock - lastSave >= Self.saveInterval
        let counts = events.contains { if case .trackEnded(_, _, _, _, _?) = $0.event { true } else { false } }
        if counts {
            commitNow(events.map(\.event), state: status.snapshot)
            saved(status)
            deliver(events)
            return
        }
        deliver(events)
        guard changed || due else { return }
        placePending = true
        tick(status)
    }

    /// Saves the place when a change waits and its interval has passed, or when playing and a
    /// periodic save is due.
    public func tick(_ status: PlayerStatus) {
        let periodic = status.snapshot.state == .playing && status.clock - lastSave >= Self.saveInterval
        let waiting = placePending && MonotonicClock.seconds - lastPlaceWrite >= Self.placeInterval
        guard periodic || waiting else { return }
        savePlace(status.snapshot)
        saved(status)
    }

    /// Commits at once, after whatever the recorder is writing; a place still waiting is older
    /// than `snapshot` and is dropped.
    private func commitNow(_ events: [PlayerEvent], state snapshot: PlayerSnapshot) {
        guard let recorderQueue else { return recorder.commit(events, state: snapshot) }
        recorderQueue.sync {
            waitingPlace.withLock { $0 = nil }
            recorder.commit(events, state: snapshot)
        }
    }

    /// Saves a place that changed without a play: on the recorder's queue, the newest one only.
    private func savePlace(_ snapshot: PlayerSnapshot) {
        guard let recorderQueue else { return recorder.commit([], state: snapshot) }
        let alreadyQueued = waitingPlace.withLock { waiting in
            defer { waiting = snapshot }
            return waiting != nil
        }
        guard !alreadyQueued else { return }
        recorderQueue.async { [self] in
            guard let newest = waitingPlace.withLock({ waiting in defer { waiting = nil }; return waiting }) else { return }
            recorder.commit([], state: newest)
        }
    }

    /// Returns when everything handed to the recorder is written.
    public func flush() {
        recorderQueue?.sync {}
    }

    /// Whether a changed place waits to be saved (`tick` within `placeInterval` saves it).
    public private(set) var placePending = false

    /// The most often a place that only changed is written, in seconds.
    public static let placeInterval = 1.0

    private func saved(_ status: PlayerStatus) {
        lastSave = status.clock
        lastPlaceWrite = MonotonicClock.seconds
        placePending = false
    }

    /// The last events (those of a clean stop) with `snapshot` as the state to keep, then the
    /// end of the subscriptions.
    public func finish(_ events: [(event: PlayerEvent, emitted: Double)], saving snapshot: PlayerSnapshot) {
        commitNow(events.map(\.event), state: snapshot)
        placePending = false
        deliver(events)
        for case let mailbox as Mailbox<PlaybackEvent> in lock.withLock({ subscribers }) { mailbox.close() }
    }

    private func deliver(_ events: [(event: PlayerEvent, emitted: Double)]) {
        let delivered = events.map {
            PlaybackEvent($0.event, track: track(of: $0.event), lyricText: lyricText(of: $0.event), emitted: $0.emitted,
                          nextTrack: nextTrack(of: $0.event))
        }
        for subscriber in lock.withLock({ subscribers }) { subscriber.receive(delivered) }
    }

    /// The library's track of the event's item: read when the item starts (or when an event is
    /// first about it), then kept for the events after, `track_ended` included.
    private func track(of event: PlayerEvent) -> Track? {
        let item: QueueItem
        switch event {
        case .trackStarted(let started, _, _): item = started
        case .trackEnded(let ended, _, _, _, _), .paused(let ended, _), .resumed(let ended, _),
             .seeked(let ended, _, _), .decodeError(let ended, _), .lyric(let ended, _, _),
             .streamTitle(let ended, _), .transitionAhead(let ended, _, _, _, _): item = ended
        default: return nil
        }
        if let known = tracks.first(where: { $0.item == item.id }) { return known.track }
        let track = try? store.tracks.track(id: item.track.trackID)
        tracks = Array((tracks + [(item.id, track)]).suffix(2))
        return track
    }

    /// The library's track of a `transition_ahead`'s incoming item (read for each: one read a
    /// track change, on this thread, never the audio's).
    private func nextTrack(of event: PlayerEvent) -> Track? {
        guard case .transitionAhead(_, let to, _, _, _) = event else { return nil }
        return try? store.tracks.track(id: to.track.trackID)
    }

    /// The words of a lyric event's line: the library's line at its index, read once a track
    /// (again at each start, so a rescan in between is seen). Empty when the library's lines
    /// no longer match the times the queue took (rescanned since it was queued) or are gone.
    private func lyricText(of event: PlayerEvent) -> String? {
        if case .trackStarted = event { lyricLines = nil }
        guard case .lyric(let item, let index, let milliseconds) = event else { return nil }
        let trackID = item.track.trackID
        if lyricLines?.trackID != trackID {
            lyricLines = (trackID, (try? store.tracks.lyrics(id: trackID))?.lines ?? [])
        }
        let lines = lyricLines?.lines ?? []
        guard lines.indices.contains(index), lines[index].milliseconds == milliseconds else { return "" }
        return lines[index].text
    }
}

/// A player stepped by its owner (a `--fast` script's loop, a test): the engine and the
/// pipeline its events go through, the same as a player in real time.
public final class SteppedPlayback: @unchecked Sendable {
    public let player: SteppedPlayer
    public let pipeline: EventPipeline
    public var engine: PlayerEngine { player.engine }

    /// A player on `output`, from where the saved state left off, recording into `store`.
    public init(store: LibraryStore, output: any AudioOutput, settings: PlayerSettings = PlayerSettings(),
                restore: Bool = true, savesState: Bool = true,
                report: @escaping @Sendable (String) -> Void = reportToStandardError) {
        let recorder = PlaybackRecorder(store: store, savesState: savesState, report: report)
        let engine = PlayerEngine(output: output, settings: settings)
        if restore, let saved = recorder.savedSnapshot() { engine.restore(saved) }
        player = SteppedPlayer(engine: engine)
        pipeline = EventPipeline(recorder: recorder)
    }

    /// Passes what the engine emitted since the last call through the pipeline; false when
    /// there was nothing.
    @discardableResult
    public func pump() -> Bool {
        let events = engine.takeEvents()
        let now = MonotonicClock.seconds
        pipeline.handle(events.map { ($0, now) }, status: engine.status)
        return !events.isEmpty
    }

    /// Stops playback, records what was heard, and saves the place as it was before the stop
    /// (the next run continues from there).
    public func shutdown() {
        let beforeStop = engine.snapshot
        engine.settings.transitionFade = 0
        engine.stop()
        let now = MonotonicClock.seconds
        pipeline.finish(engine.takeEvents().map { ($0, now) }, saving: beforeStop)
    }
}
