import Foundation
import SongboxAudio
import SongboxPlayback
import Synchronization

/// MPD's `idle` subsystems: what changed.
public struct IdleSubsystems: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let database = IdleSubsystems(rawValue: 1 << 0)
    public static let update = IdleSubsystems(rawValue: 1 << 1)
    public static let storedPlaylist = IdleSubsystems(rawValue: 1 << 2)
    public static let playlist = IdleSubsystems(rawValue: 1 << 3)
    public static let player = IdleSubsystems(rawValue: 1 << 4)
    public static let mixer = IdleSubsystems(rawValue: 1 << 5)
    public static let output = IdleSubsystems(rawValue: 1 << 6)
    public static let options = IdleSubsystems(rawValue: 1 << 7)
    public static let partition = IdleSubsystems(rawValue: 1 << 8)
    public static let sticker = IdleSubsystems(rawValue: 1 << 9)
    public static let subscription = IdleSubsystems(rawValue: 1 << 10)
    public static let message = IdleSubsystems(rawValue: 1 << 11)
    /// Never changed in songbox (no neighbours, no mounts), but clients wait for them: MPD takes
    /// every name it knows in `idle`, used or not (myMPD's `idle ... neighbor mount`).
    public static let neighbor = IdleSubsystems(rawValue: 1 << 12)
    public static let mount = IdleSubsystems(rawValue: 1 << 13)

    /// The names, in the order MPD lists them (`idle_names` in MPD's `src/IdleFlags.cxx`).
    public static let names: [(String, IdleSubsystems)] = [
        ("database", .database), ("stored_playlist", .storedPlaylist), ("playlist", .playlist), ("player", .player),
        ("mixer", .mixer), ("output", .output), ("options", .options), ("sticker", .sticker), ("update", .update),
        ("subscription", .subscription), ("message", .message), ("neighbor", .neighbor), ("mount", .mount),
        ("partition", .partition),
    ]
    public static let all = IdleSubsystems(names.map(\.1))

    public init(named name: String) throws(MPDProtocol.Failure) {
        guard let found = Self.names.first(where: { $0.0 == name.lowercased() }) else {
            throw MPDProtocol.Failure(.argument, "Unrecognized idle event: \(name)")
        }
        self = found.1
    }

    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }

    /// What `idle` clients hear of a player event.
    public init(changedBy event: PlayerEvent) {
        switch event {
        case .queueChanged: self = .playlist
        case .volumeChanged: self = .mixer
        case .optionsChanged: self = .options
        case .outputError, .outputChanged: self = .output
        // A line of lyrics, or a transition asked ahead, changes nothing an MPD client shows.
        case .lyric, .transitionAhead: self = []
        default: self = .player
        }
    }
}

/// The connected clients: what changed since each last looked (`idle`), the channels each is
/// subscribed to and the messages waiting for it. Posting never blocks: it notes the change for
/// every client, and wakes only those waiting in an `idle` for it, each once (its connection
/// writes the answer on its event loop). A client that is not idle reads the change at its next `idle`.
public final class Clients: Sendable {
    /// Messages kept for a client that does not read them (MPD keeps 64).
    public static let messageLimit = 64

    private struct Entry {
        var pending: IdleSubsystems = []
        /// What its `idle` in progress waits for; nil when it is not idle.
        var idle: IdleSubsystems?
        var channels: Set<String> = []
        var messages: [(channel: String, text: String)] = []
        /// What a wake took for its idle, until its connection writes it (`takeIdleAnswer`).
        var answered: IdleSubsystems?
        /// Tells its connection that its `idle` has an answer.
        let wake: @Sendable () -> Void

        /// Ends its idle with what changed, if something it waits for did; the wake to run then.
        mutating func wakeIfIdle() -> (@Sendable () -> Void)? {
            guard let changed = takeForIdle() else { return nil }
            answered = changed
            return wake
        }

        /// Takes what its idle waits for, if something did change: the idle is then over.
        mutating func takeForIdle() -> IdleSubsystems? {
            guard let mask = idle else { return nil }
            let changed = pending.intersection(mask)
            guard !changed.isEmpty else { return nil }
            pending.subtract(changed)
            idle = nil
            return changed
        }
    }

    private let entries = Mutex<[Int: Entry]>([:])
    /// The channels others than clients listen on (the daemon's plugins), by listener.
    private let otherListeners = Mutex<[String: Set<String>]>([:])
    private let nextID = Mutex(0)

    public init() {}

    /// A new client; `wake` runs (on the poster's thread) when something its `idle` waits for is
    /// posted: that ends the idle, and its connection writes the answer `takeIdleAnswer` gives
    /// (in its own order of things: a `noidle` may get there first).
    func register(wake: @escaping @Sendable () -> Void) -> Int {
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        entries.withLock { $0[id] = Entry(wake: wake) }
        return id
    }

    func unregister(_ id: Int) {
        let hadChannels = entries.withLock { $0.removeValue(forKey: id)?.channels.isEmpty == false }
        if hadChannels { post(.subscription) }
    }

    public var count: Int { entries.withLock { $0.count } }

    /// Tells every client that `subsystems` changed; wakes those whose idle waits for it.
    public func post(_ subsystems: IdleSubsystems) {
        guard !subsystems.isEmpty else { return }
        let wakes = entries.withLock { entries in
            entries.keys.compactMap { id -> (@Sendable () -> Void)? in
                entries[id]!.pending.formUnion(subsystems)
                return entries[id]!.wakeIfIdle()
            }
        }
        for wake in wakes { wake() }
    }

    /// Client `id` waits for `mask` to change (`idle`): what changed already (the idle is then
    /// over at once), else nil, and its wake answers when something does.
    func beginIdle(_ id: Int, _ mask: IdleSubsystems) -> IdleSubsystems? {
        entries.withLock { entries in
            entries[id]?.idle = mask
            return entries[id]?.takeForIdle()
        }
    }

    /// What a wake took for client `id`'s idle and its connection has not written yet; nil once
    /// taken (the answer is written once, by whichever of the wake and a `noidle` comes first).
    func takeIdleAnswer(_ id: Int) -> IdleSubsystems? {
        entries.withLock { entries in
            defer { entries[id]?.answered = nil }
            return entries[id]?.answered
        }
    }

    /// Ends client `id`'s idle (`noidle`): what changed of what it waited for (perhaps nothing),
    /// or nil when its idle was answered already (a wake got there first).
    func endIdle(_ id: Int) -> IdleSubsystems? {
        entries.withLock { entries in
            guard let mask = entries[id]?.idle else { return nil }
            entries[id]!.idle = nil
            let changed = entries[id]!.pending.intersection(mask)
            entries[id]!.pending.subtract(changed)
            return changed
        }
    }

    // MARK: Channels and messages

    /// False when already subscribed.
    func subscribe(_ id: Int, to channel: String) -> Bool {
        let added = entries.withLock { $0[id]?.channels.insert(channel).inserted ?? false }
        if added { post(.subscription) }
        return added
    }

    func unsubscribe(_ id: Int, from channel: String) -> Bool {
        let removed = entries.withLock { $0[id]?.channels.remove(channel) != nil }
        if removed { post(.subscription) }
        return removed
    }

    /// The channels some client or plugin is subscribed to, sorted.
    public func channels() -> [String] {
        let clients = entries.withLock { Set($0.values.flatMap(\.channels)) }
        return clients.union(otherListeners.withLock { Set($0.values.flatMap { $0 }) }).sorted()
    }

    /// The channels a listener that is not a client (a plugin, by name) is subscribed to.
    public func setChannels(_ channels: Set<String>, of listener: String) {
        let changed = otherListeners.withLock { listeners in
            defer { listeners[listener] = channels.isEmpty ? nil : channels }
            return listeners[listener] ?? [] != channels
        }
        if changed { post(.subscription) }
    }

    /// Gives `text` to every client subscribed to `channel`; how many got it.
    @discardableResult
    public func send(_ text: String, to channel: String) -> Int {
        let (count, wakes) = entries.withLock { entries in
            var count = 0
            let wakes = entries.keys.compactMap { id -> (@Sendable () -> Void)? in
                guard entries[id]!.channels.contains(channel) else { return nil }
                count += 1
                if entries[id]!.messages.count >= Self.messageLimit { entries[id]!.messages.removeFirst() }
                entries[id]!.messages.append((channel, text))
                entries[id]!.pending.insert(.message)
                return entries[id]!.wakeIfIdle()
            }
            return (count, wakes)
        }
        for wake in wakes { wake() }
        return count
    }

    func channels(of id: Int) -> Set<String> { entries.withLock { $0[id]?.channels ?? [] } }

    func takeMessages(_ id: Int) -> [(channel: String, text: String)] {
        entries.withLock { entries in
            defer { entries[id]?.messages = [] }
            return entries[id]?.messages ?? []
        }
    }
}

/// MPD's `idle` on the event bus: what came together (a track's end and the next one's start)
/// wakes an idle client once.
extension Clients: EventSubscriber {
    public func receive(_ events: [PlaybackEvent]) {
        post(events.reduce(into: IdleSubsystems()) { $0.formUnion(IdleSubsystems(changedBy: $1.event)) })
    }
}
