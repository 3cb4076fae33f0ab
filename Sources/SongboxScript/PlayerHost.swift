import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback

/// The player as a script host sees it. The wiring makes one (a player in real time on its own
/// thread, or one the script's loop steps on a fast output) and hands it in: the script host
/// knows the engine's commands and events, not how playback is recorded or saved.
public protocol ScriptPlayer: AnyObject {
    var control: any PlayerControl { get }
    /// The engine the script's loop renders itself; nil when it plays in real time.
    var steppedEngine: PlayerEngine? { get }
    /// Stepped: passes what the engine emitted through the recording pipeline, so `nextEvent`
    /// has it (and saves the place when due). Nothing for a player in real time.
    func pump()
    /// The next event for the script, once recorded; waits at most `timeout` seconds.
    func nextEvent(timeout: Double) -> PlaybackEvent?
    var state: PlaybackState { get }
    /// Library tracks as the queue takes them (with their highlights).
    func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack]
    /// Stops what this script started (a player it owns: playback stopped, recorded, the place saved).
    func shutdown()
}

/// The player a script controls, made on first use so a script that never plays opens no output.
public final class PlayerHost {
    public let store: LibraryStore
    private let make: () throws(SongboxError) -> any ScriptPlayer
    public private(set) var player: (any ScriptPlayer)?

    /// `make` may refuse (a daemon owns the output): the script's player call then raises with
    /// its message, as any failure to play does, rather than return `nil, message` (a script
    /// that does not check would do nothing and end well).
    public init(store: LibraryStore, make: @escaping () throws(SongboxError) -> any ScriptPlayer) {
        self.store = store
        self.make = make
    }

    var control: any PlayerControl {
        get throws(PlayerUnavailable) { try started.control }
    }

    func player(orMake: Void) throws(PlayerUnavailable) -> any ScriptPlayer { try started }

    private var started: any ScriptPlayer {
        get throws(PlayerUnavailable) {
            if let player { return player }
            do {
                let made = try make()
                player = made
                return made
            } catch {
                throw PlayerUnavailable(reason: error)
            }
        }
    }

    /// Stops playback, records what was heard and saves the state, if a player was made.
    public func shutdown() { player?.shutdown() }
}

/// The script cannot have a player (a daemon owns it): raised as a Lua error by every player
/// and queue function.
struct PlayerUnavailable: Error, CustomStringConvertible {
    let reason: SongboxError
    var description: String { reason.message }
}
