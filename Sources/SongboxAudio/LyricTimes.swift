/// When each synchronised lyric line of a track starts, as the queue carries it: milliseconds
/// only, 4 bytes a line (a track of 100,000 lines costs its queue item 400 KB; the words stay in
/// the library, looked up by index when a line's event is delivered). Index `i` here is line
/// `i` of the library's `Lyrics.lines`.
public struct LyricTimes: Sendable, Hashable, Codable {
    /// Nondecreasing, as the library keeps its lines.
    public let milliseconds: [UInt32]

    /// The times of `lines` (milliseconds from the start of the track, in the library's order),
    /// from the first line up to the first that is out of order or out of range (negative, or
    /// past 2^32 ms, 49 days: later than any track can reach). Nil when no line is left.
    public init?(_ lines: some Sequence<Int>) {
        var times: [UInt32] = []
        times.reserveCapacity(lines.underestimatedCount)
        for time in lines {
            guard let kept = UInt32(exactly: time), kept >= (times.last ?? 0) else { break }
            times.append(kept)
        }
        guard !times.isEmpty else { return nil }
        milliseconds = times
    }

    public var count: Int { milliseconds.count }

    /// The frame line `index` starts on at `rate` frames a second: its time × rate, rounded to
    /// the nearest frame (halves up), as `seek(to:)` lands on a time. Integer arithmetic, so a
    /// line is on the same frame however it is reached; 2^32 ms × any rate fits in an Int.
    public func frame(of index: Int, rate: Int) -> Int {
        (Int(milliseconds[index]) * rate + 500) / 1000
    }

    /// The first line, from `start` on, that starts on a frame after `frame` (or `count`).
    func firstLine(after frame: Int, rate: Int, from start: Int = 0) -> Int {
        var low = start, high = count
        while low < high {
            let middle = low + (high - low) / 2
            if self.frame(of: middle, rate: rate) > frame { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// Where playback is in the current track's lyrics: the next line to announce, and which
/// lines to announce when the position gets somewhere.
///
/// Lines are announced when the position reaches their first frame (the engine ends a chunk
/// there). When it gets past lines without playing to them (a seek, a start mid-way: a
/// restored place, a highlight), only the line in effect is announced, once: never a burst
/// of lines that were not heard.
struct LyricCursor {
    let times: LyricTimes
    let rate: Int
    /// The first line not announced nor passed.
    private(set) var next = 0

    init(times: LyricTimes, rate: Int) {
        self.times = times
        self.rate = max(1, rate)
    }

    /// The frame the next line starts on, if any: where the chunk being rendered must end.
    var nextFrame: Int? {
        next < times.count ? times.frame(of: next, rate: rate) : nil
    }

    /// Playback went on to `position` (from where it was): the lines to announce now.
    mutating func played(to position: Int) -> Range<Int> {
        guard let frame = nextFrame, frame <= position else { return next..<next }
        return move(to: position, searchingFrom: next)
    }

    /// Playback jumped to `position` (a start, a seek either way): the lines to announce now.
    mutating func jumped(to position: Int) -> Range<Int> {
        move(to: position, searchingFrom: 0)
    }

    /// The lines starting exactly at `position` (all of them: they start now), else the one
    /// line in effect there (the last that started before it), if any.
    private mutating func move(to position: Int, searchingFrom start: Int) -> Range<Int> {
        let after = times.firstLine(after: position, rate: rate, from: start)
        next = after
        guard after > 0 else { return 0..<0 }
        let atPosition = times.firstLine(after: position - 1, rate: rate, from: start)
        return atPosition < after ? atPosition..<after : (after - 1)..<after
    }
}
