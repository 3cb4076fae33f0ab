import Foundation
import SongboxFiles

/// A track as the player needs it: what to open and what the library knows of it.
public struct PlayableTrack: Sendable, Hashable, Codable {
    /// The library id; history rows are written against it (`notInLibrary`: none, and its
    /// plays are not counted).
    public var trackID: Int64
    public var path: String
    /// Seconds, from the library; the decoder's exact length wins once the file is open.
    public var duration: Double
    /// The part of the track played in highlights mode (seconds), when the library has one.
    public var highlight: HighlightRange?
    /// When its synchronised lyric lines start, when it has some: the player announces each
    /// line at its sample (`PlayerEvent.lyric`).
    public var lyricTimes: LyricTimes?
    /// Its ReplayGain (from the file's tags, else the analysis), when it has some; read from the
    /// library when it is queued or a saved queue is restored (the saved queue holds none).
    public var replayGain: ReplayGain?
    /// Its album and place in it, when the library knows them: the next track of the same
    /// album joins it gapless, never crossfaded.
    public var album: AlbumPlace?
    /// Where its level rises and falls (tags, else the analysis): where a MixRamp crossfade
    /// overlaps it (docs/player.md#mixramp).
    public var mixRamp: MixRamp?

    /// The id of a file played that is not a library track (the bundled alarm tone).
    public static let notInLibrary: Int64 = -1

    public init(trackID: Int64, path: String, duration: Double, highlight: HighlightRange? = nil,
                lyricTimes: LyricTimes? = nil, replayGain: ReplayGain? = nil, album: AlbumPlace? = nil,
                mixRamp: MixRamp? = nil) {
        self.trackID = trackID
        self.mixRamp = mixRamp
        self.album = album
        self.path = path
        self.duration = duration
        self.highlight = highlight
        self.lyricTimes = lyricTimes
        self.replayGain = replayGain
    }
}

/// A track's album (by its album artist, or artist, and title) and its place in it.
public struct AlbumPlace: Sendable, Hashable, Codable {
    public var album: String
    public var disc: Int?
    public var number: Int?

    public init(album: String, disc: Int? = nil, number: Int? = nil) {
        self.album = album
        self.disc = disc
        self.number = number
    }

    /// The place of a library track, keyed by its album title and album artist; nil without an
    /// album title.
    public init?(album: String?, by artist: String?, disc: Int?, number: Int?) {
        guard let album, !album.isEmpty else { return nil }
        self.init(album: (artist ?? "") + "\u{1F}" + album, disc: disc, number: number)
    }

    /// Whether `next` is the track after this one on the same album: the next number on the
    /// same disc, or the first of the next disc; two tracks of one album without numbers are
    /// taken as in order.
    public func isFollowed(by next: AlbumPlace) -> Bool {
        guard next.album == album else { return false }
        guard let number, let nextNumber = next.number else { return number == nil && next.number == nil }
        let disc = disc ?? 1, nextDisc = next.disc ?? 1
        return (nextDisc == disc && nextNumber == number &+ 1) || (nextDisc == disc &+ 1 && nextNumber == 1)
    }
}

/// A start and end second within a track.
public struct HighlightRange: Sendable, Hashable, Codable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

/// One entry of the queue. Its `id` stays the same while it is in the queue, whatever moves
/// around it (MPD's song id); its position is its index.
public struct QueueItem: Sendable, Hashable, Codable {
    /// Who put it there: the user's lane plays before what autoplay adds.
    public enum Lane: String, Sendable, Hashable, Codable {
        case user, autoplay
    }

    public var id: Int
    public var track: PlayableTrack
    public var lane: Lane
}

/// The play queue: ordered items with stable ids and a version that changes on every edit.
/// A plain value: the player engine owns one and reports every change.
public struct PlayQueue: Sendable, Hashable, Codable {
    /// Where `add` puts tracks.
    public enum Placement: Sendable, Hashable {
        /// After everything of the lane: user tracks go before the first autoplay track.
        case end
        /// Right after the playing item (or at the front when nothing plays).
        case next
        /// At this position (clamped to the queue).
        case position(Int)
    }

    public private(set) var items: [QueueItem] = []
    /// Bumped by every change, so a client can tell whether its copy is current.
    public private(set) var version = 1
    private var nextID = 1
    /// The version at which each item (by id) got its position: what MPD's `plchanges` answers
    /// from. Not saved: a restored queue's items all date from the restored version
    /// (`restoredAt`; nil for a queue decoded from an old save: its items always count as changed).
    private var placed: [Int: Int] = [:]
    private var restoredAt: Int?

    private enum CodingKeys: String, CodingKey { case items, version, nextID }

    /// The same queue: items, version and ids to come (when each item was placed is bookkeeping
    /// for `changes`, which a saved and restored queue does not keep).
    public static func == (a: PlayQueue, b: PlayQueue) -> Bool {
        (a.items, a.version, a.nextID) == (b.items, b.version, b.nextID)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(items)
        hasher.combine(version)
        hasher.combine(nextID)
    }

    public init() {}

    /// The positions of the items added or moved after `version` (every one for a version this
    /// queue never had).
    public func changes(since version: Int) -> [Int] {
        guard version >= 0, version <= self.version else { return Array(items.indices) }
        return items.indices.filter { (placed[items[$0].id] ?? restoredAt ?? .max) > version }
    }

    /// A new version, and the items from `position` on placed in it (everything after an
    /// insertion, a removal or a move shifts).
    private mutating func bump(from position: Int, through last: Int? = nil) {
        version += 1
        guard position < items.count else { return }
        for index in position...min(last ?? items.count - 1, items.count - 1) { placed[items[index].id] = version }
    }

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public func position(of id: Int) -> Int? {
        items.firstIndex { $0.id == id }
    }

    public func item(id: Int) -> QueueItem? {
        position(of: id).map { items[$0] }
    }

    /// Adds tracks and returns their new ids. `current` is the id of the playing item, if any.
    @discardableResult
    public mutating func add(_ tracks: [PlayableTrack], placement: Placement = .end, lane: QueueItem.Lane = .user,
                             current: Int? = nil) -> [Int] {
        guard !tracks.isEmpty else { return [] }
        let start: Int
        switch placement {
        case .end:
            if lane == .user {
                // Before the first autoplay item that has not started yet.
                let after = current.flatMap(position(of:)) ?? -1
                start = items.indices.first { $0 > after && items[$0].lane == .autoplay } ?? items.count
            } else {
                start = items.count
            }
        case .next:
            start = current.flatMap(position(of:)).map { $0 + 1 } ?? 0
        case .position(let wanted):
            start = min(max(0, wanted), items.count)
        }
        let added = tracks.map { track -> QueueItem in
            defer { nextID += 1 }
            return QueueItem(id: nextID, track: track, lane: lane)
        }
        items.insert(contentsOf: added, at: start)
        bump(from: start)
        return added.map(\.id)
    }

    /// Removes the items with these ids; returns how many were there.
    @discardableResult
    public mutating func remove(ids: Set<Int>) -> Int {
        let before = items.count
        guard let first = items.firstIndex(where: { ids.contains($0.id) }) else { return 0 }
        items.removeAll { ids.contains($0.id) }
        for id in ids { placed[id] = nil }
        bump(from: first)
        return before - items.count
    }

    /// Moves an item to `position` (clamped). False when there is no such item.
    @discardableResult
    public mutating func move(id: Int, to position: Int) -> Bool {
        guard let from = self.position(of: id) else { return false }
        let item = items.remove(at: from)
        let to = min(max(0, position), items.count)
        items.insert(item, at: to)
        // Only the items between the two places shift.
        bump(from: min(from, to), through: max(from, to))
        return true
    }

    /// Gives each item the lyric times of its track in `times` (none when absent): what a
    /// restored queue, saved without them, gets from the library. Not an edit: the version stays.
    public mutating func setLyricTimes(_ times: [Int64: LyricTimes]) {
        for index in items.indices { items[index].track.lyricTimes = times[items[index].track.trackID] }
    }

    /// Gives each item the ReplayGain of its track in `gains` (none when absent), as
    /// `setLyricTimes` does for lyric times. Not an edit: the version stays.
    public mutating func setReplayGains(_ gains: [Int64: ReplayGain]) {
        for index in items.indices { items[index].track.replayGain = gains[items[index].track.trackID] }
    }

    /// Gives each item the MixRamp of its track in `ramps`, as `setReplayGains` does.
    public mutating func setMixRamps(_ ramps: [Int64: MixRamp]) {
        for index in items.indices { items[index].track.mixRamp = ramps[items[index].track.trackID] }
    }

    public mutating func clear() {
        guard !items.isEmpty else { return }
        items.removeAll()
        placed.removeAll()
        version += 1
    }

    /// Shuffles the queue; the playing item, if any, goes first so the rest follows it.
    public mutating func shuffle(current: Int?, using generator: inout some RandomNumberGenerator) {
        var rest = items.filter { $0.id != current }
        rest.shuffle(using: &generator)
        items = (current.flatMap(item(id:)).map { [$0] } ?? []) + rest
        bump(from: 0)
    }
}

/// The queue as compact text, for saving: a header line, then one line per item (its id, track
/// id, seconds, lane, highlight, path). A queue of 100,000 tracks is about 10 MB of text made
/// in one pass, where JSON coding built a tree of every value first (over 100 MB at its peak).
/// Lyric times and ReplayGain are not saved: the library has them, and whoever restores the
/// queue reads them again (`PlaybackRecorder.savedSnapshot`).
extension PlayQueue {
    static let compactHeader = "songbox-queue 1"

    public func compactEncoding() -> Data {
        var text = "\(Self.compactHeader) \(version) \(nextID)\n"
        text.reserveCapacity(64 + items.count * 96)
        for item in items {
            let highlight = item.track.highlight.map { "\($0.start)\t\($0.end)" } ?? "-\t-"
            let path = item.track.path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            text += "\(item.id)\t\(item.track.trackID)\t\(item.track.duration)\t\(item.lane.rawValue)\t\(highlight)\t\(path)\n"
        }
        return Data(text.utf8)
    }

    /// Nil when `data` is not a compact queue (an older save is JSON).
    public init?(compact data: Data) {
        guard let text = String(data: data, encoding: .utf8), text.hasPrefix(Self.compactHeader + " ") else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        let header = lines.removeFirst().split(separator: " ")
        guard header.count == 4, let version = Int(header[2]), let nextID = Int(header[3]) else { return nil }
        var items: [QueueItem] = []
        items.reserveCapacity(lines.count)
        for line in lines {
            let fields = line.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
            guard fields.count == 7, let id = Int(fields[0]), let trackID = Int64(fields[1]), let duration = Double(fields[2]),
                  let lane = QueueItem.Lane(rawValue: String(fields[3])) else { return nil }
            let highlight = Double(fields[4]).flatMap { start in Double(fields[5]).map { HighlightRange(start: start, end: $0) } }
            var path = ""
            var escaped = false
            for character in fields[6] {
                if escaped { path.append(character == "n" ? "\n" : character); escaped = false } else if character == "\\" { escaped = true } else { path.append(character) }
            }
            items.append(QueueItem(id: id, track: PlayableTrack(trackID: trackID, path: path, duration: duration, highlight: highlight), lane: lane))
        }
        self.init()
        self.items = items
        self.version = version
        restoredAt = version
        self.nextID = max(nextID, (items.map(\.id).max() ?? 0) + 1)
    }
}
