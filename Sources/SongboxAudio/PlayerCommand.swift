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

    /// Where in the queue items go: a position (from 0), or counted from the current item as
    /// MPD's `+N` (N after it: `+0` is right after) and `-N` (N before it: `-0` is its place).
    public enum Place: Sendable, Hashable {
        case position(Int)
        case afterCurrent(Int)
        case beforeCurrent(Int)
    }

    /// Why a command could not run; each surface says it in its own words.
    public enum Failure: Error, Sendable, Hashable {
        /// A position outside the queue.
        case badPosition
        /// No queue item has that id.
        case noSuchItem
        /// Nothing plays to move in.
        case notPlaying
        /// A place counted from the current item, and there is none.
        case noCurrentItem
        /// Items moved to a place counted from the current item, which is among them.
        case currentMovesItself
        /// A position, or a number of items from the current one, past the queue's end or start.
        case tooLarge(Int)
    }

    /// That item, or the current (or first) one, or resume.
    /// `alarm`: an alarm's music starts (its `track_started`, and the transitions between its
    /// tracks, say so).
    case play(Item?, reason: StartReason = .user)
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
    /// Seconds of crossfade at a track's end (`CrossfadeSettings.range`; clamped), 0: off.
    case crossfade(Double)
    /// MixRamp's level in dB and its delay in seconds (NaN: MixRamp off), each when given.
    case mixRamp(level: Double?, delay: Double?)
    /// Announcements mixed over the ducked music, in order (docs/player.md#announcements).
    case announce([PlayerEngine.Announcement])
    // The queue.
    case clear, shuffle
    /// The items at these positions (the range may run past the end, not start there).
    case delete(Range<Int>)
    case deleteItem(Item)
    /// The items at these positions to `to` on, in their order.
    case move(Range<Int>, to: Place)
    case moveItem(Item, to: Place)
    case swap(Item, Item)

    /// Runs the command on `engine` (the player's thread).
    public func apply(to engine: PlayerEngine) throws(Failure) {
        switch self {
        case .play(let item, let reason):
            guard let item else { return engine.play(reason: reason) }
            engine.play(id: try Self.id(of: item, in: engine), reason: reason)
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
        case .crossfade(let seconds): engine.setCrossfade(seconds)
        case .mixRamp(let level, let delay): engine.setMixRamp(level: level, delay: delay)
        case .announce(let announcements):
            guard engine.announce(announcements) else { throw .notPlaying }
        case .clear: engine.clear()
        case .shuffle: engine.shuffle()
        case .delete(let range):
            guard range.lowerBound < engine.queue.count else { throw .badPosition }
            engine.remove(ids: Set(engine.queue.items[range.clamped(to: 0..<engine.queue.count)].map(\.id)))
        case .deleteItem(let item):
            engine.remove(ids: [try Self.id(of: item, in: engine)])
        case .move(let range, let place):
            let count = engine.queue.count
            guard range.lowerBound < count, range.upperBound <= count || range.upperBound == Int.max else { throw .badPosition }
            let moved = range.clamped(to: 0..<count)
            let to = try Self.position(of: place, moving: moved, in: engine)
            guard to >= 0, to + moved.count <= count else { throw .badPosition }
            let ids = engine.queue.items[moved].map(\.id)
            for (offset, id) in ids.enumerated() { engine.move(id: id, to: to + offset) }
        case .moveItem(let item, let place):
            let id = try Self.id(of: item, in: engine)
            let from = engine.queue.position(of: id)!
            let to = try Self.position(of: place, moving: from..<(from + 1), in: engine)
            guard (0..<engine.queue.count).contains(to) else { throw .badPosition }
            engine.move(id: id, to: to)
        case .swap(let first, let second):
            let items = engine.queue.items
            let a = try Self.id(of: first, in: engine), b = try Self.id(of: second, in: engine)
            guard let one = engine.queue.position(of: a), let other = engine.queue.position(of: b), one != other else { return }
            let (low, high) = (min(one, other), max(one, other))
            engine.move(id: items[high].id, to: low)
            engine.move(id: items[low].id, to: high)
        }
    }

    /// The position `place` names for the items at `moving` (empty: items to add), counted as
    /// MPD counts it: `+N` is N after the current item, `-N` N before it, in the queue as it is
    /// once the moved items are taken out. A number past MPD's bounds is `tooLarge`; a place
    /// within them that still falls outside the queue is left for the move to refuse.
    public static func position(of place: Place, moving: Range<Int>, in engine: PlayerEngine) throws(Failure) -> Int {
        let count = engine.queue.count
        let number: Int, limit: Int
        switch place {
        case .position(let position):
            number = position
            limit = count - moving.count
        case .afterCurrent(let offset), .beforeCurrent(let offset):
            guard let id = engine.headingID, var current = engine.queue.position(of: id) else { throw .noCurrentItem }
            guard !moving.contains(current) else { throw .currentMovesItself }
            if current >= moving.upperBound { current -= moving.count }
            number = offset
            if case .afterCurrent = place {
                limit = moving.isEmpty ? count - current - 1 : count - current - moving.count
            } else {
                limit = moving.isEmpty ? current : count - current - moving.count
            }
            guard (0...max(0, limit)).contains(number) else { throw .tooLarge(number) }
            if case .afterCurrent = place { return current + 1 + offset }
            return current - offset
        }
        guard (0...max(0, limit)).contains(number) else { throw .tooLarge(number) }
        return number
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
