import Foundation
import SongboxMessages

/// A time of day on the wall clock, on some days or one date, in a time zone: what
/// `songbox.at` and alarms are scheduled by. `next(after:)` is the one question it answers,
/// in Unix seconds, so that a schedule is recomputed from the clock as it is now (after NTP
/// sets it, after a restart) rather than counted down from when it was made.
///
/// Days the clocks change: a time the spring-forward gap skips fires once, at the moment the
/// clocks jump (02:30 in a 02:00→03:00 gap fires at 03:00); a time the autumn fall-back repeats
/// fires once, at its first occurrence.
public struct WallSchedule: Sendable, Equatable {
    /// Seconds after local midnight.
    public var timeOfDay: Int
    /// ISO weekdays (1 Monday ... 7 Sunday) it fires on; every day when nil.
    public var weekdays: Set<Int>?
    /// The one date it fires on (days since 1970-01-01); repeating when nil.
    public var date: Int?
    public var zone: TimeZone

    public var repeats: Bool { date == nil }

    /// When a one-off schedule fires (nil for a repeating one): "2026-03-27 01:00" as an instant.
    public var instant: Double? { date.map(resolve(day:)) }

    /// Parses `[DAYS | DATE] HH:MM[:SS] [ZONE]`: DAYS is `daily`, `weekdays`, `weekends` or a
    /// list of days and ranges (`mon-fri`, `sat,sun`, `tue,thu-sat`), DATE is `YYYY-MM-DD`,
    /// ZONE an IANA name (`Asia/Jerusalem`, `UTC`); `zone` is used when the spec names none.
    public init(parsing spec: String, zone defaultZone: TimeZone) throws(ScheduleError) {
        let words = spec.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let timeIndex = words.firstIndex(where: { $0.contains(":") && !$0.contains("/") }) else {
            throw ScheduleError("'\(spec)' has no time of day (HH:MM, 24-hour)")
        }
        timeOfDay = try Self.time(words[timeIndex])
        var zone = defaultZone
        for word in words[(timeIndex + 1)...] {
            guard let named = Self.zone(word) else {
                throw ScheduleError("unknown time zone '\(word)' (an IANA name, such as Asia/Jerusalem or Europe/London)")
            }
            zone = named
        }
        self.zone = zone
        for word in words[..<timeIndex] {
            if word.first?.isNumber == true, Self.date(word) == nil {
                throw ScheduleError("'\(word)' is not a date (YYYY-MM-DD)")
            }
            if let day = Self.date(word) {
                guard date == nil, weekdays == nil else { throw ScheduleError("'\(spec)': a date or days, once") }
                date = day
            } else {
                guard date == nil, weekdays == nil else { throw ScheduleError("'\(spec)': a date or days, once") }
                weekdays = try Self.days(word)
            }
        }
    }

    /// The first time it fires strictly after `instant` (Unix seconds); nil when a one-off date
    /// has passed.
    public func next(after instant: Double) -> Double? {
        guard instant.isFinite else { return nil }
        if let date {
            let when = resolve(day: date)
            return when > instant ? when : nil
        }
        let localDay = Self.floorDiv(Int(instant.rounded(.down)) + offset(at: instant), 86_400)
        // Yesterday's local date too: near midnight the zone's date and the instant's differ.
        for day in (localDay - 1)...(localDay + 8) where weekdays.map({ $0.contains(Self.weekday(ofDay: day)) }) ?? true {
            let when = resolve(day: day)
            if when > instant { return when }
        }
        return nil
    }

    /// The instant the wall clock in `zone` reads `timeOfDay` on `day`.
    func resolve(day: Int) -> Double {
        let naive = Double(day * 86_400 + timeOfDay)
        // The zone's offsets a day either side: at most one change happens between them.
        let before = offset(at: naive - 86_400), after = offset(at: naive + 86_400)
        let candidates = Set([before, after]).map { naive - Double($0) }.filter { offset(at: $0) == Int(naive - $0) }
        if let first = candidates.min() { return first }
        // In the gap the clocks skip: the moment they jump, found between an instant that
        // still has the old offset and one that has the new.
        // Zones change on whole seconds: halve the span until the two are one second apart.
        var low = (naive - Double(after)).rounded(.down), high = (naive - Double(before)).rounded(.up)
        if low > high { swap(&low, &high) }
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if offset(at: middle) == before { low = middle } else { high = middle }
        }
        return high
    }

    private func offset(at instant: Double) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
    }

    /// `2026-03-27T07:00:00+03:00`: the instant as the zone's wall clock shows it.
    public static func format(_ instant: Double, in zone: TimeZone) -> String {
        guard instant.isFinite, abs(instant) < 1e11 else { return "?" }
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let local = Int(instant.rounded(.down)) + offset
        let (year, month, day) = civil(fromDay: floorDiv(local, 86_400))
        let seconds = local - floorDiv(local, 86_400) * 86_400
        let sign = offset < 0 ? "-" : "+"
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d%@%02d:%02d", year, month, day, seconds / 3600,
                      seconds / 60 % 60, seconds % 60, sign, abs(offset) / 3600, abs(offset) / 60 % 60)
    }

    /// `pattern` with strftime's fields filled in for `instant` as `zone`'s wall clock shows it:
    /// `%H` `%M` `%S` (24-hour), `%I` `%p` (12-hour, AM/PM), `%A` `%a` (weekday), `%d` `%m` `%B`
    /// `%b` `%Y` (date), `%%`; any other `%x` stays as it is.
    public static func fill(_ pattern: String, at instant: Double, in zone: TimeZone) -> String {
        guard instant.isFinite, abs(instant) < 1e11 else { return pattern }
        let local = Int(instant.rounded(.down)) + zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let day = floorDiv(local, 86_400), seconds = local - day * 86_400
        let (year, month, date) = civil(fromDay: day)
        let hour = seconds / 3600, minute = seconds / 60 % 60
        let weekday = weekday(ofDay: day)
        let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        var out = "", field = false
        for character in pattern {
            guard field else {
                if character == "%" { field = true } else { out.append(character) }
                continue
            }
            field = false
            switch character {
            case "H": out += two(hour)
            case "M": out += two(minute)
            case "S": out += two(seconds % 60)
            case "I": out += two((hour + 11) % 12 + 1)
            case "p": out += hour < 12 ? "AM" : "PM"
            case "A": out += weekdays[weekday - 1]
            case "a": out += String(weekdays[weekday - 1].prefix(3))
            case "d": out += two(date)
            case "m": out += two(month)
            case "B": out += months[month - 1]
            case "b": out += String(months[month - 1].prefix(3))
            case "Y": out += String(year)
            case "%": out += "%"
            default: out += "%" + String(character)
            }
        }
        return field ? out + "%" : out
    }

    // MARK: Parts of a spec

    private static func time(_ word: String) throws(ScheduleError) -> Int {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(parts.count), let hour = parts[0], let minute = parts[1],
              (0...23).contains(hour), (0...59).contains(minute), word.split(separator: ":")[1].count == 2 else {
            throw ScheduleError("'\(word)' is not a time of day (HH:MM or HH:MM:SS, 24-hour)")
        }
        let second = parts.count == 3 ? parts[2] : 0
        guard let second, (0...59).contains(second) else { throw ScheduleError("'\(word)' has no valid seconds") }
        return hour * 3600 + minute * 60 + second
    }

    private static func zone(_ word: String) -> TimeZone? {
        if word.uppercased() == "UTC" { return TimeZone(identifier: "UTC") }
        guard word.contains("/") else { return nil }
        return TimeZone(identifier: word)
    }

    private static func date(_ word: String) -> Int? {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
              let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = Self.day(year: year, month: month, day: day)
        // 2026-02-30 is not a date.
        guard civil(fromDay: days) == (year, month, day) else { return nil }
        return days
    }

    static let dayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    private static func days(_ word: String) throws(ScheduleError) -> Set<Int> {
        switch word.lowercased() {
        case "daily": return Set(1...7)
        case "weekdays": return Set(1...5)
        case "weekends": return [6, 7]
        default: break
        }
        var days = Set<Int>()
        for item in word.lowercased().split(separator: ",") {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            // A day is its name or its first three letters or more: mon, tues, wednesday.
            let numbers = ends.map { end in dayNames.firstIndex { end.count >= 3 && $0.hasPrefix(end) }.map { $0 + 1 } }
            guard (1...2).contains(numbers.count), let first = numbers[0], let last = numbers[numbers.count - 1] else {
                throw ScheduleError("'\(word)' is not a day list (mon-fri, sat,sun, weekdays, weekends, daily)")
            }
            // A range may wrap past Sunday: fri-mon.
            var day = first
            days.insert(day)
            while day != last {
                day = day % 7 + 1
                days.insert(day)
            }
        }
        return days
    }

    // MARK: Civil dates (proleptic Gregorian, days since 1970-01-01)

    static func floorDiv(_ a: Int, _ b: Int) -> Int { (a - ((a % b) + b) % b) / b }

    /// ISO weekday (1 Monday ... 7 Sunday): 1970-01-01 was a Thursday.
    static func weekday(ofDay day: Int) -> Int { (day + 3).modulo(7) + 1 }

    static func day(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDay days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A schedule that cannot be understood, in words a user can act on.
/// Why a schedule spec cannot be read: English for Lua and logs, `localized` for the CLI.
public struct ScheduleError: Error, Sendable, CustomStringConvertible {
    public let message: Message
    init(_ message: Message) { self.message = message }
    public var description: String { message.description }
}

private extension Int {
    func modulo(_ n: Int) -> Int { ((self % n) + n) % n }
}
