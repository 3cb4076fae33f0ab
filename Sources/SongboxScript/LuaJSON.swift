import SongboxLibrary

/// JSON for `songbox.json`: Lua values to text and back. Objects are encoded with sorted keys;
/// an empty table is `{}`.
public enum LuaJSON {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public static func encode(_ value: LuaValue, pretty: Bool = false) throws(Failure) -> String {
        var out = ""
        try encode(value, pretty: pretty, indent: 0, into: &out)
        return out
    }

    private static func encode(_ value: LuaValue, pretty: Bool, indent: Int, into out: inout String) throws(Failure) {
        let newline = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let closing = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch value {
        case .nil: out += "null"
        case .boolean(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d):
            guard d.isFinite else { throw Failure(description: "cannot encode \(d) in JSON") }
            out += formatNumber(d)
        case .string(let s): quote(s, into: &out)
        case .bytes: throw Failure(description: "cannot encode binary bytes in JSON")
        case .records(let records):
            try encode(.array(records.tables), pretty: pretty, indent: indent, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                out += (i > 0 ? "," : "") + newline
                try encode(element, pretty: pretty, indent: indent + 1, into: &out)
            }
            out += closing + "]"
        case .table(let fields):
            let keys = fields.keys.filter { !(fields[$0]?.isNil ?? true) }.sorted()
            guard !keys.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, key) in keys.enumerated() {
                out += (i > 0 ? "," : "") + newline
                quote(key, into: &out)
                out += pretty ? ": " : ":"
                try encode(fields[key]!, pretty: pretty, indent: indent + 1, into: &out)
            }
            out += closing + "}"
        }
    }

    /// Shortest text that reads back as the same double; integral values keep a ".0"-free form
    /// only when Lua would print them as integers (they are floats here, so "1.0").
    static func formatNumber(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return "\(d)"
    }

    private static func quote(_ s: String, into out: inout String) {
        out += JSONText.quoted(s)
    }

    static func decode(_ text: String) throws(Failure) -> LuaValue {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func failure(_ what: String) -> Failure {
            Failure(description: "invalid JSON at byte \(position + 1): \(what)")
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func literal(_ word: String, _ value: LuaValue) throws(Failure) -> LuaValue {
            let w = Array(word.utf8)
            guard bytes.count - position >= w.count, Array(bytes[position..<position + w.count]) == w else {
                throw failure("unexpected character")
            }
            position += w.count
            return value
        }

        mutating func value(depth: Int) throws(Failure) -> LuaValue {
            guard depth < LuaValue.maximumDepth else { throw failure("nested deeper than \(LuaValue.maximumDepth) levels") }
            guard position < bytes.count else { throw failure("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var fields: [String: LuaValue] = [:]
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .table(fields) }
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
                    let key = try string()
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                    position += 1
                    skipSpace()
                    fields[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard position < bytes.count else { throw failure("unexpected end") }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "}") { position += 1; return .table(fields) }
                    throw failure("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                position += 1
                var elements: [LuaValue] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard position < bytes.count else { throw failure("unexpected end") }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                    throw failure("expected ',' or ']'")
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .boolean(true))
            case UInt8(ascii: "f"): return try literal("false", .boolean(false))
            case UInt8(ascii: "n"): return try literal("null", .nil)
            default: return try number()
            }
        }

        mutating func number() throws(Failure) -> LuaValue {
            let start = position
            var integral = true
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while position < bytes.count {
                let c = bytes[position]
                if c >= 0x30 && c <= 0x39 { position += 1; continue }
                if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                    || ((c == UInt8(ascii: "+") || c == UInt8(ascii: "-")) && position > digitsStart) {
                    integral = false
                    position += 1
                    continue
                }
                break
            }
            guard position > digitsStart, bytes[digitsStart] >= 0x30, bytes[digitsStart] <= 0x39 else {
                position = start
                throw failure("unexpected character")
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if integral, let i = Int(text) { return .integer(i) }
            guard let d = Double(text) else { position = start; throw failure("invalid number") }
            return .number(d)
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - position >= 4,
                  let v = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
                throw failure("invalid \\u escape")
            }
            position += 4
            return v
        }

        mutating func string() throws(Failure) -> String {
            position += 1  // opening quote
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while position < bytes.count {
                let c = bytes[position]
                if c == UInt8(ascii: "\"") {
                    flush(position)
                    position += 1
                    return String(scalars)
                }
                if c < 0x20 { throw failure("control character in a string") }
                if c != UInt8(ascii: "\\") { position += 1; continue }
                flush(position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    // A high surrogate pairs with a low one that follows; unpaired, it is U+FFFD
                    // and what follows is read as itself (`\uD800\u0041` is "\u{FFFD}A").
                    if (0xD800..<0xDC00).contains(code), bytes.count - position >= 6,
                       bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        let mark = position
                        position += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = mark
                        }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw failure("invalid escape")
                }
                run = position
            }
            throw failure("unterminated string")
        }
    }
}
