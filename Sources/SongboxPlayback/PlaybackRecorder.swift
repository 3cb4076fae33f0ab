import Foundation
import SongboxAudio
import SongboxLibrary
import Synchronization

/// Tells the user something that stops nothing, on standard error as `songbox: message` (one
/// line: a server's words in it are shown, not obeyed by the terminal).
public let reportToStandardError: @Sendable (String) -> Void = { message in
    FileHandle.standardError.write(Data(("songbox: " + VisibleText.escaped(message) + "\n").utf8))
}

/// What the library keeps of playback: each counted play or skip as a history row, and the
/// player's state between runs. Used from one thread at a time (the pipeline's).
///
/// The state is kept as two values: the place (current item, where in it, modes, volume: a few
/// bytes, written often) and the queue (written only when it changed). A commit holds the plays
/// and the place together: on a Pi's SD card every synced commit costs blocks, and a track
/// change is both a play and a new place.
public final class PlaybackRecorder: @unchecked Sendable {
    public let store: LibraryStore
    /// Where problems that stop nothing are told.
    private let report: @Sendable (String) -> Void
    /// What was committed, and what could not be: a summary says only what is stored.
    public let recorded = RecordedCounts()
    /// The state as last written, to write only what changed.
    private var written: (place: SavedPlace, queueVersion: Int)?

    /// The names the player's state is saved under.
    public static let stateName = "player"
    public static let queueStateName = "player.queue"

    /// Whether the player's state is saved: false for a session of its own (`songbox run`),
    /// whose plays count but whose queue, place and volume are not the library's to keep.
    private let savesState: Bool

    public init(store: LibraryStore, savesState: Bool = true, report: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.savesState = savesState
        self.report = report
    }

    /// Writes the history rows the events count for and, when given and changed, the state:
    /// one transaction.
    public func commit(_ events: [PlayerEvent], state snapshot: PlayerSnapshot? = nil) {
        var plays: [(PlayRecord, PlayVerdict, QueueItem)] = []
        for case .trackEnded(let item, let reason, let played, _, let counted?) in events {
            plays.append((PlayRecord(trackID: item.track.trackID, kind: counted == .play ? .play : .skip,
                                     reason: reason.rawValue, played: played), counted, item))
        }
        var state: [(name: String, value: Data)] = []
        let place = savesState ? snapshot.map(SavedPlace.init) : nil
        if let snapshot, let place {
            do {
                if place != written?.place { state.append((Self.stateName, try JSONEncoder().encode(place))) }
                if snapshot.queue.version != written?.queueVersion {
                    state.append((Self.queueStateName, snapshot.queue.compactEncoding()))
                }
            } catch {
                report(Message("could not save the queue: \(error)").localized)
            }
        }
        guard !plays.isEmpty || !state.isEmpty else { return }
        do {
            let outcomes = try store.history.recordPlayback(plays.map(\.0), state: state)
            for ((_, counted, item), failure) in zip(plays, outcomes) {
                if let failure {
                    recorded.addFailure()
                    report(Self.notRecorded(counted, item, failure))
                } else {
                    recorded.add(counted)
                }
            }
            if let place, let snapshot { written = (place, snapshot.queue.version) }
        } catch {
            for (_, counted, item) in plays {
                recorded.addFailure()
                report(Self.notRecorded(counted, item, error))
            }
            if !state.isEmpty { report(Message("could not save the queue: \(error)").localized) }
        }
    }

    /// Whether the event changes what a save would write (a finished track alone does not:
    /// the next start does).
    public static func changesState(_ event: PlayerEvent) -> Bool {
        switch event {
        case .trackEnded, .outputError, .decodeError, .lyric, .streamTitle, .transitionAhead: false
        default: true
        }
    }

    /// The state saved last, if any and readable (also as an earlier songbox saved it: the
    /// whole snapshot under one name).
    public func savedSnapshot() -> PlayerSnapshot? {
        do {
            guard let placeData = try store.state.saved(Self.stateName) else { return nil }
            guard let queueData = try store.state.saved(Self.queueStateName) else {
                var snapshot = try JSONDecoder().decode(PlayerSnapshot.self, from: placeData)
                withLibraryDetails(&snapshot.queue)
                return snapshot
            }
            let place = try JSONDecoder().decode(SavedPlace.self, from: placeData)
            var queue = try PlayQueue(compact: queueData) ?? JSONDecoder().decode(PlayQueue.self, from: queueData)
            written = (place, queue.version)
            withLibraryDetails(&queue)
            return place.snapshot(queue: queue)
        } catch {
            report(Message("the saved queue could not be read, starting with an empty one (\(error))").localized)
            return nil
        }
    }
}

extension PlaybackRecorder {
    /// What is said when a play or a skip could not be committed (in the reader's language: for
    /// the person who runs `songbox play` or reads the daemon's log).
    static func notRecorded(_ counted: PlayVerdict, _ item: QueueItem, _ error: any Error) -> String {
        let message: Message = counted == .skip ? "could not record the skip of \(item.track.path): \(error)"
                                                : "could not record the play of \(item.track.path): \(error)"
        return message.localized
    }
}

extension PlaybackRecorder {
    /// The lyric times, ReplayGain and MixRamp of a restored queue's tracks, as the library has them now
    /// (the saved queue holds neither). Without them, if they cannot be read: the tracks play,
    /// without lyric events, or without ReplayGain.
    func withLibraryDetails(_ queue: inout PlayQueue) {
        let ids = Array(Set(queue.items.map(\.track.trackID)))
        do {
            queue.setLyricTimes(try store.tracks.playableLyricTimes(of: ids))
        } catch {
            report(Message("the lyrics of the saved queue could not be read, its tracks play without lyric events (\(error))").localized)
        }
        do {
            queue.setReplayGains(try store.tracks.replayGains(of: ids))
        } catch {
            report(Message("the ReplayGain of the saved queue could not be read, its tracks play without it (\(error))").localized)
        }
        do {
            queue.setMixRamps(try store.tracks.mixRamps(of: ids))
        } catch {
            report(Message("the MixRamp points of the saved queue could not be read, its tracks crossfade without them (\(error))").localized)
        }
    }
}

/// The player's place without its queue: what is saved every minute while playing.
struct SavedPlace: Codable, Equatable {
    var current: Int?
    var elapsed: Double
    var state: PlaybackState
    var modes: PlaybackModes
    var volume: Double
    var highlights: Bool
    /// The crossfade a client chose (nil: the config's; absent from places saved before it).
    var crossfade: Double?

    init(_ snapshot: PlayerSnapshot) {
        current = snapshot.current
        // To the millisecond: what a resume needs, and an unchanged place encodes the same.
        elapsed = (snapshot.elapsed * 1000).rounded() / 1000
        state = snapshot.state
        modes = snapshot.modes
        volume = snapshot.volume
        highlights = snapshot.highlights
        crossfade = snapshot.crossfade
    }

    func snapshot(queue: PlayQueue) -> PlayerSnapshot {
        PlayerSnapshot(queue: queue, current: current, elapsed: elapsed, state: state, modes: modes, volume: volume,
                       highlights: highlights, crossfade: crossfade)
    }
}

/// Plays and skips a recorder committed, and those it could not (a full disk, a damaged
/// library): counted as they happen, read by whoever reports them.
public final class RecordedCounts: Sendable {
    private let counts = Mutex((plays: 0, skips: 0, failures: 0))

    public var plays: Int { counts.withLock { $0.plays } }
    public var skips: Int { counts.withLock { $0.skips } }
    public var failures: Int { counts.withLock { $0.failures } }

    func add(_ counted: PlayVerdict) {
        counts.withLock { if counted == .play { $0.plays += 1 } else { $0.skips += 1 } }
    }

    func addFailure() { counts.withLock { $0.failures += 1 } }
}
