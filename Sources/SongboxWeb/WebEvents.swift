import SongboxPlayback
import SongboxScript
import Synchronization

/// The event bus for the pages: one subscriber on the bus, fanning each event out to the open
/// event streams (`GET /api/events`) as the JSON of the table plugins get (`BusEvent`), written
/// once for all of them; the events posted beside the bus (an alarm's phases, a rescan's
/// `library_updated`) reach them the same way (`post`). Each stream holds at most `capacity` unsent events: a page that falls
/// that far behind has its stream ended (it reconnects and reads the state afresh), so a slow
/// client holds no more than that.
public final class WebEvents: EventSubscriber {
    static let capacity = 256

    private struct Streams {
        var next = 0
        var open: [Int: AsyncStream<String>.Continuation] = [:]
        var finished = false
    }
    private let streams = Mutex(Streams())

    public init() {}

    public func receive(_ events: [PlaybackEvent]) {
        send(events.map { BusEvent($0).value })
    }

    /// An event a plugin or a rescan posted (a table with a `type`), as plugins get it.
    public func post(_ event: LuaValue) {
        send([event])
    }

    private func send(_ events: [LuaValue]) {
        let open = streams.withLock { Array($0.open.values) }
        guard !open.isEmpty else { return }
        for event in events {
            guard let json = try? LuaJSON.encode(event) else { continue }
            // JSON has no raw line break: the event is one `data:` line.
            let message = "data: " + json + "\n\n"
            for continuation in open {
                if case .dropped = continuation.yield(message) { continuation.finish() }
            }
        }
    }

    /// A new stream of events, until the page goes away or the server stops.
    func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(Self.capacity))
        let id: Int? = streams.withLock { streams in
            guard !streams.finished else { return nil }
            defer { streams.next += 1 }
            streams.open[streams.next] = continuation
            return streams.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.open.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many pages listen.
    public var count: Int { streams.withLock { $0.open.count } }

    /// Ends every stream (the server is stopping).
    func finishAll() {
        let open = streams.withLock { streams in
            streams.finished = true
            return Array(streams.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
