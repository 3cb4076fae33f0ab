import Foundation
import SongboxTestSupport
import Synchronization
import Testing
import SongboxLibrary
@testable import SongboxScript

/// Wall-clock schedules (`songbox.at`, `songbox.time`): known answers across time zones and the
/// days clocks change, and timers on a manual clock that NTP sets forward and back.
@Suite struct ScheduleTests {
    let jerusalem = TimeZone(identifier: "Asia/Jerusalem")!
    let london = TimeZone(identifier: "Europe/London")!

    /// Unix seconds of a wall-clock reading in `zone` (through the schedule itself: a one-off).
    func instant(_ text: String, _ zone: TimeZone) throws -> Double {
        try #require(try WallSchedule(parsing: text, zone: zone).instant)
    }

    func format(_ instant: Double?, _ zone: TimeZone) -> String {
        instant.map { WallSchedule.format($0, in: zone) } ?? "none"
    }

    @Test func daysTimesDatesAndZones() throws {
        let utc = TimeZone(identifier: "UTC")!
        // 2026-11-25 is a Wednesday.
        let wednesdayNoon = try instant("2026-11-25 12:00", utc)
        let weekdays = try WallSchedule(parsing: "mon-fri 07:00", zone: utc)
        #expect(format(weekdays.next(after: wednesdayNoon), utc) == "2026-11-26T07:00:00+00:00")
        let friday = try instant("2026-11-27 08:00", utc)
        #expect(format(weekdays.next(after: friday), utc) == "2026-11-30T07:00:00+00:00", "over the weekend")
        let wrapping = try WallSchedule(parsing: "fri-mon 22:15:30", zone: utc)
        #expect(format(wrapping.next(after: wednesdayNoon), utc) == "2026-11-27T22:15:30+00:00")
        #expect(format(try WallSchedule(parsing: "Sat,sunday 9:05", zone: utc).next(after: wednesdayNoon), utc)
                == "2026-11-28T09:05:00+00:00")
        // A zone in the spec wins over the default; the answer is the same instant however shown.
        let there = try WallSchedule(parsing: "07:00 Asia/Jerusalem", zone: utc)
        #expect(format(there.next(after: wednesdayNoon), jerusalem) == "2026-11-26T07:00:00+02:00")
        #expect(format(there.next(after: wednesdayNoon), utc) == "2026-11-26T05:00:00+00:00")
        // A one-off date fires once; after it, never.
        let once = try WallSchedule(parsing: "2026-12-24 18:00 Europe/London", zone: utc)
        #expect(!once.repeats)
        #expect(format(once.next(after: wednesdayNoon), london) == "2026-12-24T18:00:00+00:00")
        #expect(once.next(after: try instant("2026-12-24 18:00", london)) == nil)
        // Near midnight the zone's date is not UTC's.
        let lateNight = try WallSchedule(parsing: "00:30 Asia/Jerusalem", zone: utc)
        #expect(format(lateNight.next(after: try instant("2026-11-25 22:00", utc)), jerusalem) == "2026-11-26T00:30:00+02:00")
    }

    /// Israel's clocks go forward at 02:00 on Friday 2026-03-27 and back at 02:00 on Sunday
    /// 2026-10-25; Britain's at 01:00 UTC on 2026-03-29 and 2026-10-25.
    @Test func aSkippedTimeFiresWhenTheClocksJumpAndARepeatedOneOnceAtItsFirst() throws {
        func occurrences(_ spec: String, _ zone: TimeZone, from start: String, count: Int) throws -> [String] {
            let schedule = try WallSchedule(parsing: spec, zone: zone)
            var after = try instant(start, zone), found: [String] = []
            for _ in 0..<count {
                guard let next = schedule.next(after: after) else { break }
                found.append(format(next, zone))
                after = next
            }
            return found
        }
        #expect(try occurrences("02:30", jerusalem, from: "2026-03-26 12:00", count: 3)
                == ["2026-03-27T03:00:00+03:00", "2026-03-28T02:30:00+03:00", "2026-03-29T02:30:00+03:00"])
        #expect(try occurrences("01:30", jerusalem, from: "2026-10-24 12:00", count: 2)
                == ["2026-10-25T01:30:00+03:00", "2026-10-26T01:30:00+02:00"], "once, at the first 01:30")
        #expect(try occurrences("01:30", london, from: "2026-03-28 12:00", count: 2)
                == ["2026-03-29T02:00:00+01:00", "2026-03-30T01:30:00+01:00"])
        #expect(try occurrences("01:30", london, from: "2026-10-24 12:00", count: 2)
                == ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00+00:00"])
        // A time outside the changes keeps its wall-clock reading through them.
        #expect(try occurrences("07:00", london, from: "2026-03-28 12:00", count: 2)
                == ["2026-03-29T07:00:00+01:00", "2026-03-30T07:00:00+01:00"])
    }

    @Test(arguments: [
        ("7", "no time of day"), ("25:00", "not a time of day"), ("07:5", "not a time of day"), ("07:00:61", "valid seconds"),
        ("mon-fry 07:00", "not a day list"), ("07:00 Mars/Olympus", "unknown time zone"), ("2026-02-30 07:00", "not a date"),
        ("mon 2026-12-01 07:00", "a date or days, once"),
    ])
    func aScheduleThatCannotBeUnderstoodSaysWhy(spec: String, message: String) {
        do throws(ScheduleError) {
            _ = try WallSchedule(parsing: spec, zone: jerusalem)
            Issue.record("accepted '\(spec)'")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    /// A manual clock: the monotonic clock a host's sleeps count on, and the wall clock NTP sets.
    final class ManualClock: Sendable {
        private let readings = Mutex((now: 0.0, wall: 0.0))
        var now: Double { readings.withLock { $0.now } }
        var wall: Double { readings.withLock { $0.wall } }
        init(wall: Double) { readings.withLock { $0.wall = wall } }
        /// Time passes: both clocks move.
        func pass(_ seconds: Double) { readings.withLock { $0.now += seconds; $0.wall += seconds } }
        /// NTP sets the wall clock; the monotonic clock does not notice.
        func set(wall: Double) { readings.withLock { $0.wall = wall } }
    }

    /// Runs `source` on a runtime whose wall clock is `clock`'s, then lets time pass in steps of
    /// `step` seconds up to `until` on the wall clock, as a host would (never sleeping past the
    /// deadline `advance` gives); returns what the script printed meanwhile.
    final class ScheduledScript {
        let lua: TestRuntime
        let clock: ManualClock

        init(_ source: String, clock: ManualClock, zone: TimeZone) throws {
            lua = try TestRuntime()
            self.clock = clock
            lua.runtime.wallClock = { clock.wall }
            lua.runtime.timeZone = zone
            try lua.runtime.run(source: source, chunkName: "=schedule")
        }

        @discardableResult
        func advance() throws -> Double? {
            let results = try lua.runtime.callKeptFunction("advance", [.number(clock.now), .number(clock.wall)])
            for error in results.first?.arrayValue ?? [] { Issue.record("callback failed: \(error)") }
            return results.count > 1 ? results[1].doubleValue : nil
        }

        func run(until wall: Double) throws {
            while clock.wall < wall {
                let deadline = try advance() ?? .infinity
                if deadline.isFinite { #expect(deadline - clock.now <= 30.0001, "a wall-clock timer looks at the clock at least every 30 s") }
                clock.pass(max(0.001, min(deadline - clock.now, wall - clock.wall)))
            }
            try advance()
        }

        var printed: [String] { lua.printed.all.map { String($0.dropLast()) } }
    }

    @Test func aClockSetForwardOrBackMovesTheScheduleAndNothingFiresTwiceOrEarly() throws {
        let clock = ManualClock(wall: try instant("2026-03-26 06:00", jerusalem))
        let script = try ScheduledScript("""
            songbox.at("07:00", function(info)
              print(info.at .. " late " .. math.floor(info.late) .. " at " .. songbox.time.format(songbox.time.now()))
            end, { grace = 600, missed = function(info) print("missed " .. info.at) end })
            """, clock: clock, zone: jerusalem)
        try script.run(until: try instant("2026-03-26 06:58", jerusalem))
        #expect(script.printed.isEmpty)
        // NTP sets the clock 5 minutes forward, over 07:00: it fires once, late, and says so.
        clock.set(wall: try instant("2026-03-26 07:03", jerusalem))
        try script.run(until: try instant("2026-03-26 07:04", jerusalem))
        #expect(script.printed == ["2026-03-26T07:00:00+02:00 late 180 at 2026-03-26T07:03:00+02:00"])
        // Then 10 minutes back, before 07:00 again: it does not fire a second time.
        clock.set(wall: try instant("2026-03-26 06:54", jerusalem))
        try script.run(until: try instant("2026-03-26 12:00", jerusalem))
        #expect(script.printed.count == 1)
        // The next morning (the clocks went forward at 02:00), it fires at 07:00 on the dot.
        try script.run(until: try instant("2026-03-27 07:30", jerusalem))
        #expect(script.printed.last == "2026-03-27T07:00:00+03:00 late 0 at 2026-03-27T07:00:00+03:00")
        // A clock that jumps three hours over the next one: missed, not run hours late.
        try script.run(until: try instant("2026-03-28 06:00", jerusalem))
        clock.set(wall: try instant("2026-03-28 09:00", jerusalem))
        try script.run(until: try instant("2026-03-28 10:00", jerusalem))
        #expect(script.printed.last == "missed 2026-03-28T07:00:00+03:00")
        #expect(script.lua.logs.all.contains { $0.message.contains("missed 2026-03-28T07:00:00+03:00, 7200 s late") })
        #expect(script.printed.count == 3)
    }

    @Test func aOneOffScheduleFiresOnceAndTheHandleCancels() throws {
        let clock = ManualClock(wall: try instant("2026-11-25 12:00", jerusalem))
        let script = try ScheduledScript("""
            songbox.at("2026-11-25 12:30:15", function(info) print("once " .. info.at) end)
            local cancelled = songbox.at("12:45", function() print("cancelled, never") end)
            print(cancelled:off(), cancelled:off())
            print(pcall(songbox.at, "12:61", print))
            print(pcall(songbox.at, "07:00", print, { grace = -1 }))
            """, clock: clock, zone: jerusalem)
        try script.run(until: try instant("2026-11-27 12:00", jerusalem))
        #expect(script.printed == [
            "true\tfalse",
            "false\tbad argument #1 to 'songbox.at' ('12:61' is not a time of day (HH:MM or HH:MM:SS, 24-hour))",
            "false\tbad argument #3 to 'songbox.at' (grace must be from 0 to 86400 seconds)",
            "once 2026-11-25T12:30:15+02:00",
        ])
    }

    /// A named schedule remembers what it handled in the library: one whose time passed while
    /// songbox was stopped fires late at the next start, only within its grace (real runs of
    /// `songbox run --fast --start-time`).
    @Test func anOccurrenceMissedWhileStoppedFiresLateOnlyWithinItsGrace() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let songbox = SongboxRunner(database: folder + "/library.db")
        let file = folder + "/wake.lua"
        try """
            songbox.at("07:00 Asia/Jerusalem", function(info)
              print("rang " .. info.at .. " late " .. math.floor(info.late))
            end, { name = "wake" })
            """.write(toFile: file, atomically: true, encoding: .utf8)
        func run(from start: String, for duration: String) throws -> SongboxRunner.Output {
            try songbox.run(["run", "--fast", "--start-time", start + " Asia/Jerusalem", "--for", duration, file])
        }
        // Scheduled at 06:00, stopped at 06:30: nothing yet.
        let first = try run(from: "2026-03-26 06:00", for: "30m")
        #expect(first.status == 0 && first.stdout.isEmpty, "\(first.stderr)")
        // Started again at 07:05: the 07:00 that passed meanwhile rings now, 5 minutes late.
        let second = try run(from: "2026-03-26 07:05", for: "1m")
        #expect(second.stdout == "rang 2026-03-26T07:00:00+02:00 late 300\n", "\(second.stderr)")
        #expect(second.stderr.contains("runs 300 s late"))
        // Started the next day at 08:00: an hour late is past the grace (10 minutes): missed.
        let third = try run(from: "2026-03-27 08:00", for: "1m")
        #expect(third.stdout.isEmpty)
        #expect(third.stderr.contains("songbox.at wake: missed 2026-03-27T07:00:00+03:00, 3600 s late (grace 600 s); not run"), "\(third.stderr)")
        // And then it keeps its days.
        let fourth = try run(from: "2026-03-27 08:00", for: "1d")
        #expect(fourth.stdout == "rang 2026-03-28T07:00:00+03:00 late 0\n", "\(fourth.stderr)")
    }

    /// A practice run (`--fast`, `--start-time`) keeps its named schedules' memory apart:
    /// practising a week of a named alarm leaves the real one as it was, and practice runs follow
    /// on from each other (issue 25: after a week practised, that week's real alarms did not fire).
    @Test func aPracticeRunKeepsItsStateApartFromTheRealOne() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let songbox = SongboxRunner(database: folder + "/library.db")
        let counter = folder + "/counter.lua"
        try """
            local n = (songbox.state.get("runs") or 0) + 1
            assert(songbox.state.set("runs", n))
            print(n)
            """.write(toFile: counter, atomically: true, encoding: .utf8)
        // The rest of a script's state is its own, practice or not (a status others read).
        #expect(try songbox.run(["run", counter]).stdout == "1\n")
        #expect(try songbox.run(["run", "--fast", counter]).stdout == "2\n")
        #expect(try songbox.run(["run", counter]).stdout == "3\n")

        let wake = folder + "/wake.lua"
        try """
            songbox.at("07:00 Asia/Jerusalem", function(info) print("rang " .. info.at) end, { name = "wake" })
            """.write(toFile: wake, atomically: true, encoding: .utf8)
        let week = try songbox.run(["run", "--fast", "--start-time", "2026-05-05 06:00 Asia/Jerusalem", "--for", "7d", wake])
        #expect(week.lines.count == 7, "\(week.stdout)\(week.stderr)")
        let store = try LibraryStore(path: folder + "/library.db")
        #expect(try store.state.saved("plugin:wake:at:wake") == nil, "the real schedule has not handled a morning")
        #expect(try store.state.saved("practice:plugin:wake:at:wake") != nil)
    }
}
