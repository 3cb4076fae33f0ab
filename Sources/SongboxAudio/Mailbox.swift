import Foundation

/// A first-in first-out queue between threads: `put` never blocks, `take` waits.
/// How events leave the audio thread without it ever waiting on a consumer.
///
/// A mailbox may be bounded: once it holds `capacity` items, each `put` first drops the oldest
/// item that `coalescing` calls expendable (a value that a newer item of its kind says again).
/// Items that are not expendable are never dropped, so a mailbox of them alone may grow past
/// its capacity (as fast as tracks change: a slow consumer, not a flood).
public final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int
    private let expendable: @Sendable (Element) -> Bool
    private var droppedCount = 0

    public init(capacity: Int = .max, coalescing expendable: @escaping @Sendable (Element) -> Bool = { _ in false }) {
        self.capacity = max(1, capacity)
        self.expendable = expendable
    }

    public func put(_ item: Element) {
        condition.withLock {
            guard !closed else { return }
            if items.count - head >= capacity, let oldest = items[head...].firstIndex(where: expendable) {
                items.remove(at: oldest)
                droppedCount += 1
            }
            items.append(item)
            condition.broadcast()
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
