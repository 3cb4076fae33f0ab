import Foundation
import Synchronization
import SongboxFiles
import SongboxLibrary

/// A JSON value. Objects keep their keys in order (Foundation's encoder does not), so output
/// reads in a stable, documented order.
indirect enum JSONValue {
    case string(String), number(Double), integer(Int64), bool(Bool), null
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(_ text: String?) { self = text.map { .string($0) } ?? .null }
    init(_ number: Int?) { self = number.map { .integer(Int64($0)) } ?? .null }
    init(_ number: Double?) { self = number.map { .number($0) } ?? .null }
    /// Unix seconds as an ISO 8601 date (UTC).
    init(date seconds: Int64?) { self.init(FieldValue(date: seconds)) }

    init(_ field: FieldValue) {
        switch field {
        case .text(let value): self = .string(value)
        case .integer(let value): self = .integer(value)
        case .number(let value): self = .number(value)
        case .boolean(let value): self = .bool(value)
        case .missing: self = .null
        }
    }

    /// How the value reads in `songbox show`.
    var display: String {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "yes" : "no"
        case .null: "-"
        // A measure to three decimals at most (133.204, not 133.20355776772368).
        case .number(let value) where value.isFinite:
            value.formatted(.number.precision(.fractionLength(0...3)).grouping(.never).locale(Locale(identifier: "en_US_POSIX")))
        default: json(indent: nil)
        }
    }

    /// JSON text; pretty-printed with two-space indents unless `indent` is nil.
    func json(indent: Int? = 0) -> String {
        let newline = indent == nil ? "" : "\n"
        let inner = indent.map { String(repeating: "  ", count: $0 + 1) } ?? ""
        let outer = indent.map { String(repeating: "  ", count: $0) } ?? ""
        let separator = indent == nil ? ":" : ": "
        switch self {
        case .string(let value): return JSONText.quoted(value)
        case .number(let value): return value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)) : "null"
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[" + newline + items.map { inner + $0.json(indent: indent.map { $0 + 1 }) }
                .joined(separator: "," + newline) + newline + outer + "]"
        case .object(let fields):
            guard !fields.isEmpty else { return "{}" }
            return "{" + newline + fields.map { inner + JSONText.quoted($0.0) + separator + $0.1.json(indent: indent.map { $0 + 1 }) }
                .joined(separator: "," + newline) + newline + outer + "}"
        }
    }
}

/// A track as `songbox ls --json` and `songbox show --json` print it (see `Track.listingFields`).
enum TrackJSON {
    static func listing(_ track: Track) -> [(String, JSONValue)] { json(track.listingFields) }

    /// Every field, for `songbox show`.
    static func allFields(_ track: Track) -> [(String, JSONValue)] { json(track.allFields) }

    /// The fields as JSON; a URL's password is left out of its path.
    private static func json(_ fields: [(name: String, value: FieldValue)]) -> [(String, JSONValue)] {
        fields.map { field in
            if field.name == "path", case .text(let path) = field.value { return ("path", .string(TrackLocation.shown(path))) }
            return (field.name, JSONValue(field.value))
        }
    }
}

/// A JSON array printed an element at a time, laid out as `JSONValue.json()` lays out a whole one.
final class JSONArrayPrinter: Sendable {
    private let started = Mutex(false)

    /// Prints `value` as the next element ("[" before the first).
    func element(_ value: JSONValue) {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        print((first ? "[\n  " : ",\n  ") + value.json(indent: 1), terminator: "")
    }

    /// Closes the array (`[]` when there was no element).
    func finish() {
        print(started.withLock { $0 } ? "\n]" : "[]")
    }
}
