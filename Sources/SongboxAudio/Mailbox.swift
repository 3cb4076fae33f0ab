import Foundation

/// A first-in first-out queue between threads: `put` never blocks, `take` waits.
/// How events leave the audio thread without it ever waiting on a consumer.
public final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false

    public init() {}

    public func put(_ item: Element) {
        condition.withLock {
            guard !closed else { return }
            items.append(item)
            condition.broadcast()
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
