/// A value that crosses between Swift and Lua: nil, booleans, numbers, strings, arrays and
/// string-keyed tables. Functions, userdata and threads do not cross.
public enum LuaValue: Sendable, Equatable {
    case `nil`
    case boolean(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    /// A Lua string of any bytes (a piece of a picture), Swift to Lua only: strings from Lua
    /// arrive as `.string`.
    case bytes([UInt8])
    /// A sequence (Lua indices 1...n; `.nil` elements leave holes).
    case array([LuaValue])
    /// A table with string keys only.
    case table([String: LuaValue])
    /// An array of tables already in the bridge's byte form (library tracks): to Lua and to
    /// `arrayValue` the same as `.array` of those tables (`==` compares the bytes, though: it is
    /// not equal to that `.array`).
    case records(LuaRecords)

    /// Nesting deeper than this is refused in both directions.
    public static let maximumDepth = 100

    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }

    /// The largest magnitude a script's number may have where Swift code uses it: 2^53, where
    /// doubles stop being exact. Host code adds, subtracts and scales these numbers (a position
    /// minus 1, seconds times a sample rate); a larger one is refused instead of trapping the
    /// process on an overflow.
    public static let largestSafeNumber = 1 << 53

    /// An integer within ±2^53 (a float with an exact integer value counts); nil otherwise.
    public var intValue: Int? {
        switch self {
        case .integer(let i) where i.magnitude <= UInt(Self.largestSafeNumber): return i
        case .number(let d) where d.rounded() == d && d.magnitude <= Double(Self.largestSafeNumber): return Int(d)
        default: return nil
        }
    }

    /// A finite number within ±2^53; nil for NaN, ±infinity, larger numbers and other types.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i) where i.magnitude <= UInt(Self.largestSafeNumber): return Double(i)
        case .number(let d) where d.isFinite && d.magnitude <= Double(Self.largestSafeNumber): return d
        default: return nil
        }
    }

    public var boolValue: Bool? { if case .boolean(let b) = self { return b } else { return nil } }

    public var arrayValue: [LuaValue]? {
        switch self {
        case .array(let a): return a
        case .table(let t) where t.isEmpty: return []
        case .records(let r): return r.tables
        default: return nil
        }
    }

    public var tableValue: [String: LuaValue]? {
        switch self {
        case .table(let t): return t
        case .array(let a) where a.isEmpty: return [:]
        case .records(let r) where r.count == 0: return [:]
        default: return nil
        }
    }

    /// Lua's name of the value's type.
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string, .bytes: "string"
        case .array, .table, .records: "table"
        }
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: LuaValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, LuaValue)...) {
        self = .table(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}

extension LuaValue {
    /// A value as written in the config file: `20` an integer, `0.5` a number, `true`/`false`
    /// booleans, `"text"` (quotes dropped) or anything else text.
    public init(configText text: String) {
        if let integer = Int(text) {
            self = .integer(integer)
        } else if let number = Double(text), number.isFinite {
            self = .number(number)
        } else if text == "true" || text == "false" {
            self = .boolean(text == "true")
        } else if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            self = .string(String(text.dropFirst().dropLast()))
        } else {
            self = .string(text)
        }
    }
}

/// Why a value could not cross.
struct LuaConversionError: Error, CustomStringConvertible {
    let description: String
}

extension LuaValue {
    /// Appends the value in the shim's buffer format (see luashim.h, SONGBOX_TAG_*).
    func encode(into bytes: inout [UInt8], depth: Int = 0) throws(LuaConversionError) {
        guard depth <= LuaValue.maximumDepth else {
            throw LuaConversionError(description: "value nested deeper than \(LuaValue.maximumDepth) levels")
        }
        switch self {
        case .nil: bytes.append(UInt8(ascii: "n"))
        case .boolean(let b): bytes.append(UInt8(ascii: b ? "t" : "f"))
        case .integer(let i):
            bytes.append(UInt8(ascii: "i"))
            withUnsafeBytes(of: Int64(i)) { bytes.append(contentsOf: $0) }
        case .number(let d):
            bytes.append(UInt8(ascii: "d"))
            withUnsafeBytes(of: d) { bytes.append(contentsOf: $0) }
        case .string(let s):
            try Self.encodeString(s, into: &bytes)
        case .bytes(let raw):
            bytes.append(UInt8(ascii: "s"))
            try Self.encodeCount(raw.count, into: &bytes)
            bytes.append(contentsOf: raw)
        case .array(let elements):
            bytes.append(UInt8(ascii: "a"))
            try Self.encodeCount(elements.count, into: &bytes)
            for element in elements { try element.encode(into: &bytes, depth: depth + 1) }
        case .table(let fields):
            bytes.append(UInt8(ascii: "m"))
            let present = fields.filter { !$0.value.isNil }
            try Self.encodeCount(present.count, into: &bytes)
            for (key, value) in present {
                try Self.encodeString(key, into: &bytes)
                try value.encode(into: &bytes, depth: depth + 1)
            }
        case .records(let records):
            records.encode(into: &bytes)
        }
    }

    private static func encodeCount(_ count: Int, into bytes: inout [UInt8]) throws(LuaConversionError) {
        guard count <= Int(Int32.max) else { throw LuaConversionError(description: "value too large for Lua") }
        withUnsafeBytes(of: UInt32(count)) { bytes.append(contentsOf: $0) }
    }

    private static func encodeString(_ s: String, into bytes: inout [UInt8]) throws(LuaConversionError) {
        bytes.append(UInt8(ascii: "s"))
        try encodeCount(s.utf8.count, into: &bytes)
        bytes.append(contentsOf: s.utf8)
    }
}
