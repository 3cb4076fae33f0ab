import Foundation

/// A first-in first-out queue between threads: `put` never blocks, `take` waits.
/// How events leave the audio thread without it ever waiting on a consumer.
///
/// A mailbox may be bounded: once it holds `capacity` items, an item that `coalescing` gives a
/// kind replaces the oldest waiting item of the same kind (a value the newer one says again).
/// Items without a kind are never dropped, so past the capacity only they add up (as fast as
/// tracks change: a slow consumer, not a flood).
public final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int
    private let kind: @Sendable (Element) -> String?
    private var droppedCount = 0
    private var droppedReported = 0

    public init(capacity: Int = .max, coalescing kind: @escaping @Sendable (Element) -> String? = { _ in nil }) {
        self.capacity = max(1, capacity)
        self.kind = kind
    }

    public func put(_ item: Element) { put(contentsOf: [item]) }

    /// Puts `items` in together: a taker sees all of them or none. False when the mailbox is
    /// closed (nothing was put).
    @discardableResult
    public func put(contentsOf batch: [Element]) -> Bool {
        condition.withLock {
            guard !closed else { return false }
            for item in batch {
                if items.count - head >= capacity, let itemKind = kind(item),
                   let oldest = items[head...].firstIndex(where: { kind($0) == itemKind }) {
                    items.remove(at: oldest)
                    droppedCount += 1
                }
                items.append(item)
            }
            condition.broadcast()
            return true
        }
    }

    /// Everything waiting now, oldest first, without waiting for more.
    public func takeAvailable() -> [Element] {
        condition.withLock {
            defer {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return Array(items[head...])
        }
    }

    /// The oldest item; waits up to `timeout` seconds (forever when nil). Nil on timeout, or
    /// once the mailbox is closed and empty.
    public func take(timeout: Double? = nil) -> Element? {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        return condition.withLock {
            while head == items.count {
                if closed { return nil }
                if let deadline {
                    if !condition.wait(until: deadline) { return nil }
                } else {
                    condition.wait()
                }
            }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    /// Items dropped to keep within the capacity.
    public var dropped: Int { condition.withLock { droppedCount } }

    /// Items dropped to keep within the capacity since the last call: what its taker reports (a consumer that fell behind
    /// says so, once per fall, instead of losing values without a word).
    public func takeDropped() -> Int {
        condition.withLock {
            defer { droppedReported = droppedCount }
            return droppedCount - droppedReported
        }
    }

    /// True when nothing is waiting to be taken now.
    public var isEmpty: Bool {
        condition.withLock { head == items.count }
    }

    /// True once closed with nothing left to take.
    public var isClosedAndEmpty: Bool {
        condition.withLock { closed && head == items.count }
    }

    /// Ends the mailbox: what is in it can still be taken, nothing more is added.
    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
