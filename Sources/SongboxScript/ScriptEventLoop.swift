import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback

/// Runs a script's events and timers after its main chunk, until the run is over:
///
/// - nothing plays and no timer is pending, or only periodic timers are and the run is `fast`
///   without a bound (they would fire forever in no time);
/// - or the script called `songbox.exit()`;
/// - or the script's clock reached `bound` (`songbox run --for DURATION`);
/// - or `interrupted` (Ctrl-C).
///
/// The clock timers run on is the script's. In real time it is the wall clock, and events arrive
/// from the audio thread. Stepped (a fast output), the loop renders the player itself and the
/// clock is the audio rendered: a timer fires at its exact sample, events are handled before
/// another sample is rendered. With `fast`, whenever nothing plays the clock jumps to the next
/// timer, player or not: such a run is deterministic and takes as long as the machine needs,
/// not as long as the music (a day of timers with `--fast --for 24h` in a moment).
public final class ScriptEventLoop {
    private let runtime: LuaRuntime
    private let host: PlayerHost
    private let fast: Bool
    /// Where the script's clock ends the run, in seconds; nil: no bound.
    private let bound: Double?
    /// Where a failing callback is told (`file:line: message`); the loop goes on.
    private let report: (String) -> Void
    public private(set) var callbackErrors = 0
    /// The script's clock when the player was made (or the run ended without one).
    private var now = 0.0
    /// Seconds on the clock a run in real time keeps (monotonic: a clock set by NTP moves no timer).
    private let clock: () -> Double

    /// - Parameter wallStart: the wall clock (Unix seconds) when the script's clock is zero, for
    ///   a run whose wall clock follows the script's (`--fast`, `--start-time`): its `songbox.at`
    ///   schedules and `songbox.time.now()` then keep to the script's clock. Nil: the system's
    ///   clock (or, when `fast`, the system's clock at the start plus the script's clock).
    public init(runtime: LuaRuntime, host: PlayerHost, fast: Bool = false, bound: Double? = nil, wallStart: Double? = nil,
                clock: @escaping () -> Double = { MonotonicClock.seconds }, report: @escaping (String) -> Void) {
        self.runtime = runtime
        self.host = host
        self.fast = fast
        self.bound = bound
        self.clock = clock
        self.report = report
        if let start = wallStart ?? (fast ? Date().timeIntervalSince1970 : nil) {
            runtime.wallClock = { [unowned self] in start + self.now }
            // A practice run: what it keeps must not stand for what really happened.
            runtime.practice = true
        }
    }

    /// Runs until done or until `interrupted` returns true; then `PlayerHost.shutdown` stops
    /// playback cleanly and keeps the place.
    public func run(interrupted: () -> Bool) throws(LuaScriptError) {
        if finished { return }  // songbox.exit() in the main chunk
        noteTransitionHook()
        switch host.player {
        case let player? where player.steppedEngine != nil:
            try runStepped(player, engine: player.steppedEngine!, interrupted: interrupted)
        case let player?:
            try runRealTime(player, interrupted: interrupted)
        case nil:
            try runWithoutPlayer(interrupted: interrupted)
        }
    }

    /// Whether the run is over by the script's own word or the bound.
    private var finished: Bool {
        runtime.exitRequested != nil || bound.map { now >= $0 } == true
    }

    /// Whether the pending timers keep a run going that nothing plays in.
    private func timersGoOn(_ timers: (deadline: Double?, once: Bool)) -> Bool {
        guard let deadline = timers.deadline else { return false }
        if let bound, deadline > bound { return false }
        return timers.once || !fast || bound != nil
    }

    /// No player (yet): only timers, on the wall clock, or jumping from one to the next when fast.
    private func runWithoutPlayer(interrupted: () -> Bool) throws(LuaScriptError) {
        let start = clock() - now
        while !interrupted() {
            if !fast { now = clock() - start }
            let timers = try advanceTimers(to: now)
            if host.player != nil { return try run(interrupted: interrupted) }
            if finished || !timersGoOn(timers) { return }
            let deadline = timers.deadline!
            if fast {
                now = max(now, deadline)
            } else {
                let wait = deadline - (clock() - start)
                if wait > 0 { Thread.sleep(forTimeInterval: min(wait, 0.25)) }
            }
        }
    }

    private func runStepped(_ player: any ScriptPlayer, engine: PlayerEngine, interrupted: () -> Bool) throws(LuaScriptError) {
        // The script's clock (`now`): audio rendered, plus the jumps made while nothing played.
        // The timers as Lua last told them; nil: ask. Only Lua code changes them, and Lua runs
        // only in `dispatch` and `advance`, so between those the answer stands until it is due.
        var timers: (deadline: Double?, once: Bool)?
        while true {
            // Recorded (and the place saved when due) the same way as in real time, then handled.
            player.pump()
            while let event = player.nextEvent(timeout: 0) {
                try dispatch(event, at: now)
                timers = nil
            }
            // The host's shutdown stops playback and keeps the place.
            if interrupted() || finished { return }
            if timers == nil || timers?.deadline.map({ now >= $0 }) == true { timers = try advanceTimers(to: now) }
            let (deadline, once) = timers ?? (nil, false)
            // What the timers did comes first.
            if engine.hasPendingEvents { continue }
            guard engine.state == .playing else {
                // Nothing plays: jump to the next timer (periodic timers alone only up to a bound:
                // unbounded they would run forever in no time).
                guard timersGoOn((deadline, once)), let deadline else { break }
                now = max(now, deadline)
                continue
            }
            let before = engine.clock
            // Up to the deadline's frame, or the bound's.
            let stop = [deadline, bound].compactMap { $0 }.min()
            let limit = stop.map { engine.frames(in: $0 - now) } ?? Int.max
            switch engine.render(maxFrames: limit) {
            case .outputUnavailable: Thread.sleep(forTimeInterval: 1)
            // A network track's bytes are not there yet: the script's time stands still meanwhile.
            case .waiting: Thread.sleep(forTimeInterval: 0.02)
            case .rendered, .idle: break
            }
            now += engine.clock - before
            // At the deadline's frame, the timer is due, whatever the rounding of the sums says.
            if let stop, (stop - now) * engine.frameRate < 1e-6 { now = max(now, stop) }
        }
    }

    private func runRealTime(_ player: any ScriptPlayer, interrupted: () -> Bool) throws(LuaScriptError) {
        let start = clock() - now
        while !interrupted() {
            now = clock() - start
            let timers = try advanceTimers(to: now)
            if finished { return }
            let state = player.state
            let next = [timers.deadline, bound].compactMap { $0 }.min()
            let wait = next.map { max(0, $0 - (clock() - start)) }
            if let event = player.nextEvent(timeout: min(wait ?? 0.25, 0.25)) {
                now = clock() - start
                try dispatch(event, at: now)
                continue
            }
            // Paused with no timer: nothing can resume it. Stopped with no timer: done.
            if state != .playing, timers.deadline == nil { break }
        }
    }

    /// Runs the event's handlers; `now` is the script's clock when it happened.
    private func dispatch(_ event: PlaybackEvent, at now: Double) throws(LuaScriptError) {
        let value = PlayerAPI.event(event)
        let results = try runtime.callKeptFunction("dispatch", [value, .number(now)])
        note(results.first)
        if case .transitionAhead = event.event, results.count > 1 { PlayerAPI.applyTransition(results[1], of: value, host: host) }
        noteTransitionHook()
        try dispatchPosted()
    }

    /// The events the script posted for itself (`songbox.alarm.fire`, `announce`), in order; the
    /// events their handlers post too, up to a bound (a handler that posts what it handles
    /// would otherwise never end).
    private func dispatchPosted() throws(LuaScriptError) {
        for _ in 0..<100 {
            let posted = runtime.takePostedEvents()
            if posted.isEmpty { return }
            for event in posted { note(try runtime.callKeptFunction("dispatch", [event, .number(now)]).first) }
        }
        report("songbox: events posted by their own handlers, 100 rounds deep: the rest are dropped")
        _ = runtime.takePostedEvents()
    }

    /// Fires the timers due by `now`; returns the next deadline, and whether a one-shot timer
    /// is pending.
    private func advanceTimers(to now: Double) throws(LuaScriptError) -> (deadline: Double?, once: Bool) {
        let results = try runtime.callKeptFunction("advance", [.number(now), .number(runtime.wallClock())])
        note(results.first)
        noteTransitionHook()
        try dispatchPosted()
        return (results.count > 1 ? results[1].doubleValue : nil, results.count > 2 && results[2] == .boolean(true))
    }


    /// Whether the player was told of the script's transition hook, and the handlers' count
    /// as Lua last said it.
    private var toldTransitions = false
    private var listeningVersion: Int?

    /// Tells the player, once, that the script has a transition hook
    /// (`songbox.player.on_transition`), when it has one and a player.
    private func noteTransitionHook() {
        guard !toldTransitions, host.player != nil,
              let results = try? runtime.callKeptFunction("listening", [listeningVersion.map { .integer($0) } ?? .nil]),
              results.count == 2, let version = results[0].intValue, let names = results[1].arrayValue else { return }
        listeningVersion = version
        guard names.contains(.string("transition_ahead")) else { return }
        toldTransitions = true
        PlayerAPI.askTransitions(host)
    }

    private func note(_ errors: LuaValue?) {
        for error in errors?.arrayValue ?? [] {
            callbackErrors += 1
            report(error.stringValue ?? "a callback failed")
        }
    }
}
