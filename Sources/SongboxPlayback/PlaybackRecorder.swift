import Foundation
import SongboxAudio
import SongboxLibrary

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
        } catch {
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
    /// Library tracks as the player takes them, with their highlights.
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] {
        let highlights = try highlights(of: tracks.map(\.id))
        return tracks.map { track in
            PlayableTrack(trackID: track.id, path: track.path, duration: track.duration,
                          highlight: highlights[track.id].map { HighlightRange(start: $0.start, end: $0.end) })
        }
    }
}
