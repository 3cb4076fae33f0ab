import Foundation

extension LibraryAPI {
    /// The query text for `songbox.library.find{...}` (documented in docs/lua-api.md):
    ///
    /// | Lua | query |
    /// |---|---|
    /// | `artist = "Naomi"` | `artist:="Naomi"` (the whole field, folded: any case, any points) |
    /// | `year = 1967` | `year:=1967` |
    /// | `liked = true` | `liked:yes` |
    /// | `plays = {min = 3}`, `year = {min = 1960, max = 1970}`, `added = {min = "-30d"}` | `plays:3..`, `year:1960..1970`, `added:-30d..` |
    /// | `genre = {"Folk", "Rock"}` | `(genre:="Folk" OR genre:="Rock")` |
    /// | `sort = "-plays"` or `sort = {"-plays", "title"}` | `sort:-plays,title` |
    /// | `limit = 10`, `limit = "45m"` | `limit:10`, `limit:45m` |
    /// | `random = true` | `random` |
    ///
    /// Terms are joined with spaces (all must match), in key order. Text values are quoted with
    /// `\"` and `\\` escaped, so any text is safe. An unknown field is the query's own error.
    static func queryText(find fields: [String: LuaValue], argument n: Int = 1) throws(LuaFunctionError) -> String {
        var terms: [String] = []
        var directives: [String] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "sort":
                let parts: [LuaValue] = value.arrayValue ?? [value]
                let names = try parts.map { part throws(LuaFunctionError) in
                    guard let name = part.stringValue, isSortKey(name) else {
                        throw LuaFunctionError.argument(n, "'sort' must be a field name like \"-plays\" or a list of them")
                    }
                    return name
                }
                directives.append("sort:" + names.joined(separator: ","))
            case "limit":
                if let count = value.intValue, count >= 0 {
                    directives.append("limit:\(count)")
                } else if let text = value.stringValue, isBare(text) {
                    directives.append("limit:" + text)
                } else {
                    throw LuaFunctionError.argument(n, "'limit' must be a count or a duration like \"45m\"")
                }
            case "random":
                guard let on = value.boolValue else { throw LuaFunctionError.argument(n, "'random' must be a boolean") }
                if on { directives.append("random") }
            default:
                guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
                    throw LuaFunctionError.argument(n, "invalid field name '\(key)'")
                }
                if let items = value.arrayValue, case .array = value {
                    let alternatives = try items.map { item throws(LuaFunctionError) in try term(key, item, argument: n) }
                    terms.append(alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " OR ") + ")")
                } else {
                    terms.append(try term(key, value, argument: n))
                }
            }
        }
        return (terms + directives).joined(separator: " ")
    }

    private static func term(_ key: String, _ value: LuaValue, argument n: Int) throws(LuaFunctionError) -> String {
        switch value {
        case .string(let text): return key + ":=" + quoted(text)
        case .integer, .number: return key + ":=" + (try bound(value, key, argument: n))
        case .boolean(let b): return key + ":" + (b ? "yes" : "no")
        case .table(let range):
            if let unknown = range.keys.sorted().first(where: { $0 != "min" && $0 != "max" }) {
                throw LuaFunctionError.argument(n, "field '\(key)': a range has 'min' and 'max', not '\(unknown)'")
            }
            let low = try range["min"].map { v throws(LuaFunctionError) in try bound(v, key, argument: n) } ?? ""
            let high = try range["max"].map { v throws(LuaFunctionError) in try bound(v, key, argument: n) } ?? ""
            guard !(low.isEmpty && high.isEmpty) else {
                throw LuaFunctionError.argument(n, "field '\(key)': a range needs 'min' or 'max'")
            }
            return key + ":" + low + ".." + high
        default:
            throw LuaFunctionError.argument(n, "field '\(key)': expected a string, number, boolean, {min=, max=} or a list, got \(value.typeName)")
        }
    }

    /// A number, or a bare date/duration word (`-30d`, `2024-01`, `3:30`).
    private static func bound(_ value: LuaValue, _ key: String, argument n: Int) throws(LuaFunctionError) -> String {
        switch value {
        case .integer(let i): return String(i)
        case .number(let d) where d.isFinite: return LuaJSON.formatNumber(d)
        case .string(let text) where isBare(text): return text
        default: throw LuaFunctionError.argument(n, "field '\(key)': a bound must be a number or a date like \"-30d\" or \"2024-01\"")
        }
    }

    private static func isBare(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("..")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-+:.".contains($0)) }
    }

    private static func isSortKey(_ text: String) -> Bool {
        let name = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        return !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_") }
    }

    /// `"text"` with `\` and `"` escaped, as the query language reads it.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
