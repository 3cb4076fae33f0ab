import Foundation

extension LuaRuntime {
    /// `songbox.time`: the wall clock (the runtime's `wallClock`, which a fast run or a test
    /// sets) and wall-clock schedules, for `songbox.at` and alarms.
    func registerTimeFunctions() throws(LuaScriptError) {
        // `songbox.time.now()`: Unix seconds on the wall clock (it may jump when NTP sets it;
        // `songbox.monotonic()` does not).
        try register("time.now") { [weak self] _ in [.number(self?.wallClock() ?? Date().timeIntervalSince1970)] }
        // `songbox.time.next(spec [, after])`: when `spec` ("mon-fri 07:00", "2026-12-24 18:00
        // Asia/Jerusalem", or {time=, days=, date=, zone=}) next fires after `after` (default
        // now), and that time as the schedule's zone shows it; nil when a one-off date has passed.
        try register("time.next") { [weak self] args in
            guard let self else { return [.nil] }
            let schedule = try self.schedule(args, 1)
            let after = try args.isNil(2) ? self.wallClock() : args.number(2)
            guard after.isFinite, abs(after) < 1e11 else { throw LuaFunctionError.argument(2, "not a time (Unix seconds)") }
            guard let next = schedule.next(after: after) else { return [.nil] }
            return [.number(next), .string(WallSchedule.format(next, in: schedule.zone))]
        }
        // `songbox.time.format(t [, zone])`: "2026-03-27T07:00:00+03:00".
        try register("time.format") { [weak self] args in
            let instant = try args.number(1)
            guard instant.isFinite, abs(instant) < 1e11 else { throw LuaFunctionError.argument(1, "not a time (Unix seconds)") }
            var zone = self?.timeZone ?? .current
            if let name = try args.optionalString(2) {
                guard let named = name.uppercased() == "UTC" ? TimeZone(identifier: "UTC") : TimeZone(identifier: name) else {
                    throw LuaFunctionError.argument(2, "unknown time zone '\(name)'")
                }
                zone = named
            }
            return [.string(WallSchedule.format(instant, in: zone))]
        }
    }

    /// The schedule at argument `n`: a spec string, or a table of its parts.
    func schedule(_ args: LuaArguments, _ n: Int) throws(LuaFunctionError) -> WallSchedule {
        let spec: String
        if let table = try? args.table(n).tableValue {
            let parts = ["days", "date", "time", "zone"].compactMap { key -> String? in table[key]?.stringValue }
            guard table["time"]?.stringValue != nil else { throw LuaFunctionError.argument(n, "a schedule table needs time = \"HH:MM\"") }
            spec = parts.joined(separator: " ")
        } else {
            spec = try args.string(n)
        }
        do throws(ScheduleError) { return try WallSchedule(parsing: spec, zone: timeZone) } catch {
            throw LuaFunctionError.argument(n, error.description)
        }
    }
}
