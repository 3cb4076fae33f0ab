import Foundation

/// A `PlayerEngine` on its own audio thread, controlled from any thread.
///
/// Commands are closures run on the audio thread between two chunks (`perform` waits for the
/// result, `send` does not). Events go to `onEvent` on the audio thread as they happen; the sink
/// must not block or call back into the player synchronously (an `AsyncStream` continuation or
/// a queue is right). Outputs that do not keep time themselves are paced to real time unless
/// `fast` is set; a missing output is retried with a growing wait that never spins the CPU.
public final class Player: @unchecked Sendable {
    // Everything below `condition` is guarded by it; `engine` belongs to the audio thread.
    private let condition = NSCondition()
    private var jobs: [@Sendable (PlayerEngine) -> Void] = []
    private var running = true
    private var finished = false
    private var latestStatus: PlayerStatus
    private let engine: PlayerEngine
    private let fast: Bool
    private let onEvents: @Sendable ([PlayerEvent]) -> Void
    /// Seconds on a clock that only goes forward: what paces outputs that do not keep time.
    private let clock: @Sendable () -> Double

    /// How far ahead of real time a paced output may run: when it is this far ahead it
    /// sleeps until only `lead` is left, then renders chunk after chunk until it is `lead +
    /// refill` ahead again. A wake-up costs more than a chunk's decoding on a small machine
    /// (the decoder's tables are cold again), so a few chunks a wake-up, not one.
    private static let lead = 0.2
    private static let refill = 0.3
    /// The waits between tries of an output that is not there; after the last, playback pauses
    /// (`outputPatience` in all): a player that waited for ever would show "playing" to
    /// someone who hears nothing.
    private static let retryWaits: [Double] = [0.5, 1, 2, 4, 8]
    /// How long playback waits for a missing output before it pauses, in seconds.
    public static let outputPatience = retryWaits.reduce(0, +)
    /// How often a player waiting for a network track's bytes looks for them.
    private static let networkWait = 0.05

    public init(output: any AudioOutput, settings: PlayerSettings = PlayerSettings(), fast: Bool = false,
                restoring snapshot: PlayerSnapshot? = nil,
                onEvent: (@Sendable (PlayerEvent) -> Void)? = nil,
                onEvents: (@Sendable ([PlayerEvent]) -> Void)? = nil,
                clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds }) {
        let engine = PlayerEngine(output: output, settings: settings)
        if let snapshot { engine.restore(snapshot) }
        self.engine = engine
        self.fast = fast
        // What one chunk or command caused goes out together (a track's end and the next
        // one's start): consumers see it as one change.
        self.onEvents = onEvents ?? { events in events.forEach { onEvent?($0) } }
        self.clock = clock
        latestStatus = engine.status
        let thread = Thread { [self] in loop() }
        thread.name = "songbox audio"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// A stream of the player's events, for Swift code that consumes them with `for await`.
    public static func eventStream() -> (stream: AsyncStream<PlayerEvent>, sink: @Sendable (PlayerEvent) -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
        return (stream, { continuation.yield($0) })
    }

    /// The state as of the last chunk or command.
    public var status: PlayerStatus {
        condition.withLock { latestStatus }
    }

    /// Runs `body` on the audio thread and returns its result, once the events it caused have
    /// gone to `onEvent`. Never call it from `onEvent`.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) -> T {
        let reply = Mailbox<T>()
        guard send({ [self] engine in
            let result = body(engine)
            publish()
            reply.put(result)
        }) else {
            // The audio thread has ended and let go of the engine: run it here.
            condition.withLock { while !finished { condition.wait() } }
            return body(engine)
        }
        return reply.take()!  // a mailbox that is never closed always gives its item
    }

    /// Runs `body` on the audio thread and returns its result, once the events it caused have
    /// gone to `onEvent`: the caller is suspended meanwhile, holding no thread (the audio thread
    /// answers through a continuation).
    public func execute<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) async -> T {
        await withCheckedContinuation { continuation in
            let sent = send { [self] engine in
                let result = body(engine)
                publish()
                continuation.resume(returning: result)
            }
            // The audio thread has ended and let go of the engine: run it here.
            if !sent { continuation.resume(returning: perform(body)) }
        }
    }

    /// Runs `body` on the audio thread, without waiting.
    /// False when the player has been shut down.
    @discardableResult
    public func send(_ body: @escaping @Sendable (PlayerEngine) -> Void) -> Bool {
        condition.withLock {
            guard running else { return false }
            jobs.append(body)
            condition.broadcast()
            return true
        }
    }

    /// Stops playback (recording what was heard through the events) and ends the audio thread.
    public func shutdown() {
        send { $0.stop() }
        send { engine in
            // The stop may be fading out: let it finish (a tenth of a second or so).
            var rounds = 0
            while engine.state == .playing, rounds < 1000, case .rendered = engine.render() { rounds += 1 }
            if engine.state != .stopped { engine.settings.transitionFade = 0; engine.stop() }
        }
        condition.withLock {
            running = false
            condition.broadcast()
            while !finished { condition.wait() }
        }
    }

    /// Waits until playback has stopped (the queue ran out, or a stop).
    public func waitUntilStopped() {
        condition.withLock {
            while latestStatus.snapshot.state != .stopped, !finished { condition.wait() }
        }
    }

    // MARK: The audio thread

    private func loop() {
        var pacing: (wall: Double, clock: Double)?
        var refilling = false
        var retries = 0
        while true {
            let batch: [@Sendable (PlayerEngine) -> Void]? = condition.withLock {
                if jobs.isEmpty, !running { return nil }
                defer { jobs.removeAll() }
                return jobs
            }
            guard let batch else { break }
            for job in batch { job(engine) }
            if !batch.isEmpty { publish() }

            var wait: Double?
            // A pause, stop or skip still fading out is rendered at once: it takes effect when
            // asked, not after the sleep (the fade is short).
            let changing = engine.heading != engine.state || engine.headingID != engine.currentID
            if !changing, let ahead = pacing.map({ engine.clock - $0.clock - (clock() - $0.wall) }),
               ahead > Self.lead + (refilling ? Self.refill : 0) {
                refilling = false
                wait = ahead - Self.lead
            } else {
                refilling = true
                switch engine.render() {
                case .rendered:
                    retries = 0
                    if fast || engine.output.pacesItself { pacing = nil } else if pacing == nil {
                        pacing = (clock(), engine.clock)
                    }
                case .idle:
                    pacing = nil
                    retries = 0
                    wait = .infinity
                case .outputUnavailable:
                    pacing = nil
                    if retries < Self.retryWaits.count {
                        wait = Self.retryWaits[retries]
                        retries += 1
                    } else {
                        engine.pauseForMissingOutput()
                        retries = 0
                    }
                case .waiting:
                    // The network is behind: look again shortly, and pace from when it is back.
                    pacing = nil
                    wait = Self.networkWait
                }
                publish()
            }
            if let wait { sleep(upTo: wait) }
        }
        engine.output.close()
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// Sends the engine's events and makes its state visible to other threads.
    private func publish() {
        let events = engine.takeEvents()
        let status = engine.status
        condition.withLock {
            latestStatus = status
            condition.broadcast()
        }
        if !events.isEmpty { onEvents(events) }
    }

    /// Sleeps for `seconds`, or until a command arrives.
    private func sleep(upTo seconds: Double) {
        condition.withLock {
            guard jobs.isEmpty, running else { return }
            if seconds.isFinite {
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            } else {
                condition.wait()
            }
        }
    }
}

/// Something that runs commands on a player engine: the threaded `Player`, or a
/// `SteppedPlayer` whose owner renders it by hand.
public protocol PlayerControl: AnyObject {
    func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) -> T
}

extension Player: PlayerControl {}

/// An engine rendered by its owner's thread, chunk by chunk, with no thread of its own: what
/// runs a script on a fast output deterministically (timers fire at exact audio positions).
public final class SteppedPlayer: PlayerControl {
    public let engine: PlayerEngine

    public init(engine: PlayerEngine) {
        self.engine = engine
    }

    public func perform<T: Sendable>(_ body: @escaping @Sendable (PlayerEngine) -> T) -> T {
        body(engine)
    }
}
