import Foundation

/// What one written value stands for. A number is a point; `2024-01` is the month from its first
/// second up to (not including) the next month's; `3:30` is every duration that shows as 3:30.
struct QuerySpan: Sendable, Equatable {
    var lower: QueryValue
    var upper: QueryValue
    var upperInclusive: Bool
    /// A moment relative to now (`-30d`): `added:-30d` alone means "since then".
    var isRelative = false

    static func point(_ value: QueryValue, relative: Bool = false) -> QuerySpan {
        QuerySpan(lower: value, upper: value, upperInclusive: true, isRelative: relative)
    }

    static func halfOpen(_ lower: QueryValue, _ upper: QueryValue) -> QuerySpan {
        QuerySpan(lower: lower, upper: upper, upperInclusive: false)
    }

    /// Whether nothing lies between the start of `start` and the end of `end` (`1970..1960`).
    static func rangeIsEmpty(from start: QuerySpan, to end: QuerySpan) -> Bool {
        end.upperInclusive ? QueryValue.isOrdered(end.upper, before: start.lower) == true
                           : QueryValue.isOrdered(start.lower, before: end.upper) == false
    }
}

/// Reads the values of numbers, dates, durations and booleans. `now` and `calendar` anchor
/// relative dates (`-30d`) and give absolute ones (`2024-01-31`) their time zone.
struct QueryValueReader: Sendable {
    let now: Date
    let calendar: Calendar

    /// The value of one field term (or one end of a range) for a field of `kind`.
    func span(_ text: String, kind: QueryField.Kind, field: String, at position: Int) throws(SongboxError) -> QuerySpan {
        let value: QuerySpan?
        switch kind {
        case .number: value = Self.number(text).map { .point($0) }
        case .date: value = date(text)
        case .duration: value = Self.seconds(text).map { .halfOpen(.integer(Int64($0)), .integer(Int64($0) + 1)) }
        case .tagDate: value = Self.tagDate(text)
        case .bool: value = Self.bool(text).map { .point(.integer($0 ? 1 : 0)) }
        case .text, .playlist: value = .point(.text(text))
        }
        guard let value else {
            throw SongboxError.query("'\(text)' is not \(Self.description(of: kind)) for \(field)", at: position,
                                     hint: Self.examples(of: kind, field: field))
        }
        return value
    }

    /// `12`, `-3`, `2.5`.
    static func number(_ text: String) -> QueryValue? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.".contains($0)) }) else { return nil }
        if let integer = Int64(text) { return .integer(integer) }
        if let real = Double(text), real.isFinite { return .real(real) }
        return nil
    }

    /// `true`/`false`, `yes`/`no`, `1`/`0`, any case.
    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }

    /// Whole seconds: `90`, `3:30`, `1:02:03`, or with units `90s`, `45m`, `1h30m`, `2h`.
    static func seconds(_ text: String) -> Int? {
        // At most 9 digits a number, so no sum can overflow.
        let allDigits = { (part: Substring) in
            (1...9).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber }
        }
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts.allSatisfy(allDigits) else { return nil }
            let numbers = parts.compactMap { Int($0) }
            guard numbers.count == parts.count, numbers.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
            return numbers.reduce(0) { $0 * 60 + $1 }
        }
        if allDigits(Substring(text)) { return Int(text) }
        // Units in order, each at most once: 1h30m, 45m, 90s, 1h5s.
        var total = 0, number = "", units = Array("hms")[...]
        for character in text {
            if character.isASCII && character.isNumber {
                number.append(character)
                if number.count > 9 { return nil }
                continue
            }
            guard let unit = units.firstIndex(of: character), let value = Int(number) else { return nil }
            total += value * [3600, 60, 1][unit]
            units = units[(unit + 1)...]
            number = ""
        }
        return number.isEmpty && !text.isEmpty ? total : nil
    }

    /// Unix seconds: `2024`, `2024-01`, `2024-01-31` (a span, in `calendar`'s time zone),
    /// or relative to now: `-12h`, `-30d`, `-2w`, `-6m`, `-1y` (a point).
    func date(_ text: String) -> QuerySpan? {
        let digits = text.dropFirst().dropLast()
        if text.hasPrefix("-"), (1...6).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
           let unit = text.last, let amount = Int(digits) {
            let moment: Date?
            switch unit {
            case "h": moment = now.addingTimeInterval(-3600 * Double(amount))
            case "d": moment = calendar.date(byAdding: .day, value: -amount, to: now)
            case "w": moment = calendar.date(byAdding: .day, value: -7 * amount, to: now)
            case "m": moment = calendar.date(byAdding: .month, value: -amount, to: now)
            case "y": moment = calendar.date(byAdding: .year, value: -amount, to: now)
            default: moment = nil
            }
            return moment.map { .point(.integer(Self.unixSeconds($0)), relative: true) }
        }
        guard let (components, unit) = Self.calendarDate(text),
              let start = calendar.date(from: components),
              let end = calendar.date(byAdding: unit, value: 1, to: start)
        else { return nil }
        return .halfOpen(.integer(Self.unixSeconds(start)), .integer(Self.unixSeconds(end)))
    }

    /// The tag's text date as a span of ISO strings: `1967` is from "1967" up to "1968", so it holds
    /// "1967-05-01"; `1967-12` runs up to "1968-01".
    static func tagDate(_ text: String) -> QuerySpan? {
        guard let (components, unit) = calendarDate(text) else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        guard let start = utc.date(from: components), let end = utc.date(byAdding: unit, value: 1, to: start)
        else { return nil }
        let format = { (date: Date) -> String in
            let parts = utc.dateComponents([.year, .month, .day], from: date)
            let year = String(format: "%04d", parts.year ?? 0)
            switch unit {
            case .year: return year
            case .month: return year + String(format: "-%02d", parts.month ?? 1)
            default: return year + String(format: "-%02d-%02d", parts.month ?? 1, parts.day ?? 1)
            }
        }
        return .halfOpen(.text(format(start)), .text(format(end)))
    }

    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, checked (no 2023-02-30), with the unit it is precise to.
    private static func calendarDate(_ text: String) -> (DateComponents, Calendar.Component)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4, parts.dropFirst().allSatisfy({ $0.count <= 2 }),
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        let numbers = parts.compactMap { Int($0) }
        let year = numbers[0], month = numbers.count > 1 ? numbers[1] : 1, day = numbers.count > 2 ? numbers[2] : 1
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let unit: Calendar.Component = [.year, .month, .day][parts.count - 1]
        return (DateComponents(year: year, month: month, day: day), unit)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func unixSeconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func description(of kind: QueryField.Kind) -> Message {
        switch kind {
        case .number: "a number"
        case .date: "a date"
        case .duration: "a duration"
        case .tagDate: "a date"
        case .bool: "true or false"
        case .text, .playlist: "text"
        }
    }

    /// A hint showing the forms a field of `kind` takes.
    static func examples(of kind: QueryField.Kind, field: String) -> Message {
        switch kind {
        case .number: "write a number: \(field):3, \(field):1..5, \(field):3.., \(field)>3"
        case .date: "write a date (2024-01-31, 2024-01, 2024) or a time back from now (-12h, -30d, -2w, -6m, -1y): \(field):-30d.., \(field):2024-01, \(field)<2023"
        case .duration: "write seconds or minutes:seconds: \(field):90, \(field):..3:30, \(field)>5:00, \(field):1:02:03"
        case .tagDate: "write 1967, 1967-05 or 1967-05-01: \(field):1967, \(field):1960..1969-12"
        case .bool: "write \(field):true or \(field):false (yes/no and 1/0 work too)"
        case .text: "write \(field):word for a part of the value or \(field):=\"whole value\" for all of it"
        case .playlist: "write \(field):NAME, quoting a name with spaces: \(field):\"Road trip\""
        }
    }
}

extension QueryValue {
    /// Orders two values of one field (numbers by value, text as text); nil when they do not compare.
    static func isOrdered(_ a: QueryValue, before b: QueryValue) -> Bool? {
        switch (a, b) {
        case let (.text(x), .text(y)): x < y
        case (.text, _), (_, .text): nil
        default: a.number < b.number
        }
    }

    private var number: Double {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .text: .nan
        }
    }
}
