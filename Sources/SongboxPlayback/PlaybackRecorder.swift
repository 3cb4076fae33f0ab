import Foundation
import SongboxAudio
import SongboxLibrary
import Synchronization

/// Tells the user something that stops nothing, on standard error as `songbox: message`.
public let reportToStandardError: @Sendable (String) -> Void = { message in
    FileHandle.standardError.write(Data(("songbox: " + message + "\n").utf8))
}

/// What the library keeps of playback: each counted play or skip as a history row, and the
/// player's state between runs. Used from one thread at a time.
public struct PlaybackRecorder: Sendable {
    public let store: LibraryStore
    /// Where problems that stop nothing are told.
    private let report: @Sendable (String) -> Void
    /// What was committed, and what could not be: a summary says only what is stored.
    public let recorded = RecordedCounts()

    /// The name the player's state is saved under.
    public static let stateName = "player"

    public init(store: LibraryStore, report: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.report = report
    }

    /// Writes the history row a `track_ended` counts for; other events write nothing.
    public func record(_ event: PlayerEvent) {
        guard case .trackEnded(let item, let reason, let played, _, let counted?) = event else { return }
        do {
            try store.recordPlay(trackID: item.track.trackID, kind: counted == .play ? .play : .skip,
                                 reason: reason.rawValue, played: played)
            recorded.add(counted)
        } catch {
            recorded.addFailure()
            report("could not record the \(counted.rawValue) of \(item.track.path): \(error)")
        }
    }

    /// Whether the event changes what `save` would write (a finished track alone does not:
    /// the next start does).
    public static func changesState(_ event: PlayerEvent) -> Bool {
        switch event {
        case .trackEnded, .outputError, .decodeError: false
        default: true
        }
    }

    public func save(_ snapshot: PlayerSnapshot) {
        do {
            try store.saveState(try JSONEncoder().encode(snapshot), as: Self.stateName)
        } catch {
            report("could not save the queue: \(error)")
        }
    }

    /// The state saved last, if any and readable.
    public func savedSnapshot() -> PlayerSnapshot? {
        do {
            return try store.savedState(Self.stateName).map { try JSONDecoder().decode(PlayerSnapshot.self, from: $0) }
        } catch {
            report("the saved queue could not be read, starting with an empty one (\(error))")
            return nil
        }
    }
}

extension LibraryStore {
    /// The tracks matching the query text as the player takes them, with their highlights,
    /// read compactly (`trackFiles`).
    public func playable(matching text: String, now: Date = Date()) throws(SongboxError) -> [PlayableTrack] {
        let files = try trackFiles(matching: text, now: now)
        let highlights = try highlights(of: files.map(\.id))
        return files.map { file in
            PlayableTrack(trackID: file.id, path: file.path, duration: file.duration,
                          highlight: highlights[file.id].map { HighlightRange(start: $0.start, end: $0.end) })
        }
    }

    /// Library tracks as the player takes them, with their highlights.
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] {
        let highlights = try highlights(of: tracks.map(\.id))
        return tracks.map { track in
            PlayableTrack(trackID: track.id, path: track.path, duration: track.duration,
                          highlight: highlights[track.id].map { HighlightRange(start: $0.start, end: $0.end) })
        }
    }
}

/// Plays and skips a recorder committed, and those it could not (a full disk, a damaged
/// library): counted as they happen, read by whoever reports them.
public final class RecordedCounts: Sendable {
    private let counts = Mutex((plays: 0, skips: 0, failures: 0))

    public var plays: Int { counts.withLock { $0.plays } }
    public var skips: Int { counts.withLock { $0.skips } }
    public var failures: Int { counts.withLock { $0.failures } }

    func add(_ counted: PlayCount) {
        counts.withLock { if counted == .play { $0.plays += 1 } else { $0.skips += 1 } }
    }

    func addFailure() { counts.withLock { $0.failures += 1 } }
}
