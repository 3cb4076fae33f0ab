import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxPlayback

/// Runs a script's events and timers after its main chunk, until nothing more can happen: no
/// timer is pending and the player is not playing (or was never made).
///
/// The clock timers run on is injected. In real time it is the wall clock, and events arrive
/// from the audio thread. Stepped (a fast output), the loop renders the player itself and the
/// clock is the audio rendered: a timer fires at its exact sample, events are handled before
/// another sample is rendered, and when nothing plays the clock jumps to the next timer. Such a
/// run is deterministic and takes as long as the machine needs, not as long as the music.
public final class ScriptEventLoop {
    private let runtime: LuaRuntime
    private let host: PlayerHost
    /// Where a failing callback is told (`file:line: message`); the loop goes on.
    private let report: (String) -> Void
    public private(set) var callbackErrors = 0

    public init(runtime: LuaRuntime, host: PlayerHost, report: @escaping (String) -> Void) {
        self.runtime = runtime
        self.host = host
        self.report = report
    }

    /// Runs until done or until `interrupted` returns true; then `PlayerHost.shutdown` stops
    /// playback cleanly and keeps the place.
    public func run(interrupted: () -> Bool) throws(LuaScriptError) {
        switch host.driver {
        case .stepped(let stepped, let recorder)?:
            try runStepped(stepped.engine, recorder: recorder, interrupted: interrupted)
        case .threaded(let session, let events)?:
            try runRealTime(session, events: events, interrupted: interrupted)
        case nil:
            // No player: only timers, on the wall clock.
            let start = Date()
            while !interrupted() {
                guard let deadline = try advance(to: Date().timeIntervalSince(start)) else { return }
                let wait = deadline - Date().timeIntervalSince(start)
                if wait > 0 { Thread.sleep(forTimeInterval: min(wait, 0.25)) }
                if host.driver != nil { return try run(interrupted: interrupted) }
            }
        }
    }

    private func runStepped(_ engine: PlayerEngine, recorder: PlaybackRecorder, interrupted: () -> Bool) throws(LuaScriptError) {
        // The script's clock: audio rendered, plus the jumps made while nothing played.
        var now = 0.0
        var saved = engine.snapshot
        // The timers as Lua last told them; nil: ask. Only Lua code changes them, and Lua runs
        // only in `dispatch` and `advance`, so between those the answer stands until it is due.
        var timers: (deadline: Double?, once: Bool)?
        while true {
            for event in engine.takeEvents() {
                recorder.record(event)
                try dispatch(event, at: now)
                timers = nil
            }
            // The host's shutdown stops playback and keeps the place.
            if interrupted() { return }
            if timers == nil || timers?.deadline.map({ now >= $0 }) == true { timers = try advanceTimers(to: now) }
            let (deadline, once) = timers ?? (nil, false)
            // What the timers did comes first.
            if engine.hasPendingEvents { continue }
            if engine.state != .playing, engine.snapshot != saved {
                saved = engine.snapshot
                recorder.save(saved)
            }
            guard engine.state == .playing else {
                // Nothing plays: jump to the next one-shot timer. Periodic timers alone would
                // run forever in no time, so they do not keep a stepped run going.
                guard let deadline, once else { break }
                now = max(now, deadline)
                continue
            }
            let before = engine.clock
            // Up to the deadline's frame.
            let limit = deadline.map { engine.frames(in: $0 - now) } ?? Int.max
            if case .outputUnavailable = engine.render(maxFrames: limit) {
                Thread.sleep(forTimeInterval: 1)
            }
            now += engine.clock - before
            // At the deadline's frame, the timer is due, whatever the rounding of the sums says.
            if let deadline, (deadline - now) * engine.frameRate < 1e-6 { now = max(now, deadline) }
        }
    }

    private func runRealTime(_ session: PlaybackSession, events: Mailbox<PlayerEvent>, interrupted: () -> Bool) throws(LuaScriptError) {
        let start = Date()
        while !interrupted() {
            let deadline = try advance(to: Date().timeIntervalSince(start))
            let state = session.player.status.snapshot.state
            let wait = deadline.map { max(0, $0 - Date().timeIntervalSince(start)) }
            if let event = events.take(timeout: min(wait ?? 0.25, 0.25)) {
                try dispatch(event, at: Date().timeIntervalSince(start))
                continue
            }
            // Paused with no timer: nothing can resume it. Stopped with no timer: done.
            if state != .playing, deadline == nil { break }
        }
    }

    /// Runs the event's handlers; `now` is the script's clock when it happened.
    private func dispatch(_ event: PlayerEvent, at now: Double) throws(LuaScriptError) {
        let errors = try runtime.callHost("dispatch", [PlayerAPI.event(event, store: host.store), .number(now)])
        note(errors.first)
    }

    /// Fires the timers due by `now`; returns the next deadline, and whether a one-shot timer
    /// is pending.
    private func advanceTimers(to now: Double) throws(LuaScriptError) -> (deadline: Double?, once: Bool) {
        let results = try runtime.callHost("advance", [.number(now)])
        note(results.first)
        return (results.count > 1 ? results[1].doubleValue : nil, results.count > 2 && results[2] == .boolean(true))
    }

    private func advance(to now: Double) throws(LuaScriptError) -> Double? {
        try advanceTimers(to: now).deadline
    }

    private func note(_ errors: LuaValue?) {
        for error in errors?.arrayValue ?? [] {
            callbackErrors += 1
            report(error.stringValue ?? "a callback failed")
        }
    }
}
