/// A command to the player, read and checked by the surface that received it (MPD's command
/// table, Lua's `songbox.player`) and run here, once, on the engine: what `play`, `stop` or
/// `sleep` does no longer depends on who asked.
public enum PlayerCommand: Sendable, Hashable {
    /// A queue item: by its position (from 0) or its id.
    public enum Item: Sendable, Hashable {
        case position(Int)
        case id(Int)
    }

    public enum Mode: Sendable, Hashable { case `repeat`, random, single, consume }

    /// Why a command could not run; each surface says it in its own words.
    public enum Failure: Error, Sendable, Hashable {
        /// A position outside the queue.
        case badPosition
        /// No queue item has that id.
        case noSuchItem
        /// Nothing plays to move in.
        case notPlaying
    }

    /// That item, or the current (or first) one, or resume.
    case play(Item?)
    /// true: pause, false: resume, nil: the other of the two; by where playback is heading, so
    /// a pause still fading out is already a pause (and `pause(false)` calls it off).
    case pause(Bool?)
    case stop, next, previous, clearError
    /// That item at `seconds`, started when it is not the one playing.
    case seek(Item, seconds: Double)
    /// The current item: to `seconds`, or by them when `relative`.
    case seekCurrent(Double, relative: Bool)
    /// 0 to 100 (`PlayerEngine.volumeRange`; clamped).
    case setVolume(Double)
    case changeVolume(Double)
    case mode(Mode, PlaybackModes.Toggle)
    case replayGain(ReplayGainMode)
    /// nil: off.
    case sleep(SleepTimer?)

    /// Runs the command on `engine` (the player's thread).
    public func apply(to engine: PlayerEngine) throws(Failure) {
        switch self {
        case .play(let item):
            guard let item else { return engine.play() }
            engine.play(id: try Self.id(of: item, in: engine))
        case .pause(let pause):
            switch (pause, engine.heading) {
            case (true?, .playing), (nil, .playing): engine.pause()
            case (false?, .paused), (nil, .paused): engine.resume()
            default: break
            }
        case .stop: engine.stop()
        case .next: engine.next()
        case .previous: engine.previous()
        case .clearError: engine.clearError()
        case .seek(let item, let seconds):
            let id = try Self.id(of: item, in: engine)
            if engine.headingID != id || engine.heading == .stopped { engine.play(id: id) }
            engine.seek(to: seconds)
        case .seekCurrent(let value, let relative):
            guard engine.heading != .stopped else { throw .notPlaying }
            if relative { engine.seek(by: value) } else { engine.seek(to: value) }
        case .setVolume(let volume): engine.setVolume(volume)
        case .changeVolume(let change): engine.setVolume(engine.volume + change)
        case .mode(let mode, let value):
            var modes = engine.modes
            switch mode {
            case .repeat: modes.repeat = value == .on
            case .random: modes.random = value == .on
            case .single: modes.single = value
            case .consume: modes.consume = value
            }
            engine.setModes(modes)
        case .replayGain(let mode): engine.setReplayGain(mode)
        case .sleep(let timer): engine.setSleepTimer(timer)
        }
    }

    /// The id of a queue item named by position or id; the failure when there is none.
    private static func id(of item: Item, in engine: PlayerEngine) throws(Failure) -> Int {
        switch item {
        case .position(let position):
            guard engine.queue.items.indices.contains(position) else { throw .badPosition }
            return engine.queue.items[position].id
        case .id(let id):
            guard engine.queue.item(id: id) != nil else { throw .noSuchItem }
            return id
        }
    }
}
