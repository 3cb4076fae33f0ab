import Foundation
import SongboxLibrary

/// What a database command selects: MPD's filter (an expression like `((artist == 'x') AND
/// (album contains 'y'))`, or the older `TAG VALUE` pairs), turned into songbox's query
/// language, plus `sort`, `window` and `position`.
struct MPDSelection {
    /// The query text for `LibraryStore` (empty: every track).
    var query = ""
    /// First and end (exclusive) of the results to give.
    var window: Range<Int>?
    /// Where `findadd`/`searchadd` put what they find.
    var position: Int?

    /// `exact`: `find`'s pairs compare whole values; `search`'s find them inside.
    init(_ arguments: [String], exact: Bool, roots: MusicRoots) throws(MPDProtocol.Failure) {
        var terms: [String] = []
        var rest = arguments[...]
        if let first = rest.first, first.hasPrefix("(") {
            var parser = FilterParser(text: first, roots: roots, caseFolded: !exact)
            terms.append(try parser.expression())
            try parser.end()
            rest = rest.dropFirst()
        }
        while let key = rest.first {
            guard rest.count >= 2 else { throw MPDProtocol.Failure(.argument, "Incorrect number of filter arguments") }
            let value = rest[rest.index(after: rest.startIndex)]
            rest = rest.dropFirst(2)
            switch key.lowercased() {
            case "sort":
                let descending = value.hasPrefix("-")
                let name = descending ? String(value.dropFirst()) : value
                // Last-Modified: songbox orders by when it first saw the file, as `Added` (MPD 0.24);
                // `prio` (MPD 0.24, the queue's): every song's is 0, so it orders nothing.
                var field = ["last-modified": "added", "added": "added", "prio": ""][name.lowercased()]
                if field == nil { field = try MPDTag.named(name)?.field }
                if let field, !field.isEmpty {
                    terms.append("sort:\(descending ? "-" : "")\(field)")
                }
            case "window":
                window = try Self.range(value)
            case "position":
                guard let at = Int(value), at >= 0 else { throw MPDProtocol.Failure(.argument, "Integer expected: \(value)") }
                position = at
            default:
                if let keyword = try FilterParser.keyword(key, value: value, roots: roots) {
                    terms.append(keyword)
                } else {
                    terms.append(try FilterParser.term(tag: key, operator: exact ? "==" : "contains", value: value, roots: roots))
                }
            }
        }
        query = terms.joined(separator: " ")
    }

    /// `START:END`, `START:` or `N` (one item).
    static func range(_ text: String) throws(MPDProtocol.Failure) -> Range<Int> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let start = Int(parts[0]), start >= 0 else { throw MPDProtocol.Failure(.argument, "Integer expected: \(text)") }
        // MPD's bound (a C int), checked before `start + 1` can overflow.
        guard start <= Int(Int32.max) else { throw MPDProtocol.Failure(.argument, "Number too large: \(text)") }
        if parts.count == 1 { return start..<(start + 1) }
        if parts.count == 2, parts[1].isEmpty { return start..<Int.max }
        guard parts.count == 2, let end = Int(parts[1]), end >= start else { throw MPDProtocol.Failure(.argument, "Bad range: \(text)") }
        guard end <= Int(Int32.max) else { throw MPDProtocol.Failure(.argument, "Number too large: \(text)") }
        return start..<end
    }
}

/// MPD's filter expression grammar (protocol.rst, "Filters"), written out as songbox terms.
struct FilterParser {
    let text: [Character]
    let roots: MusicRoots
    /// `search`-style: `==` compares without case (songbox's folding), as MPD's search does.
    let caseFolded: Bool
    var index = 0

    init(text: String, roots: MusicRoots, caseFolded: Bool) {
        self.text = Array(text)
        self.roots = roots
        self.caseFolded = caseFolded
    }

    static func failure(_ message: String) -> MPDProtocol.Failure { MPDProtocol.Failure(.argument, message) }

    mutating func end() throws(MPDProtocol.Failure) {
        skipSpaces()
        guard index == text.count else { throw Self.failure("Unparsed garbage after expression") }
    }

    /// `( ... )`
    mutating func expression() throws(MPDProtocol.Failure) -> String {
        skipSpaces()
        guard take("(") else { throw Self.failure("'(' expected") }
        skipSpaces()
        let result: String
        if take("!") {
            result = "-(" + (try expression()) + ")"
        } else if peek() == "(" {
            var parts = [try expression()]
            skipSpaces()
            while takeWord("AND") {
                parts.append(try expression())
                skipSpaces()
            }
            result = parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " ") + ")"
        } else {
            let tag = word()
            skipSpaces()
            switch tag.lowercased() {
            case "base", "modified-since", "added-since":
                result = try Self.keyword(tag, value: try string(), roots: roots)!
            case "audioformat":
                throw Self.failure("AudioFormat filters are not supported by songbox")
            case "prio":
                // Queue priorities: songbox gives every song 0 (it does not weigh them), as MPD's
                // database songs have.
                guard operatorWord() == ">=" else { throw Self.failure("'>=' expected") }
                skipSpaces()
                var digits = ""
                while let character = peek(), character.isASCII, character.isNumber { digits.append(character); index += 1 }
                guard !digits.isEmpty else { throw Self.failure("Number expected") }
                guard digits.count <= 3, let priority = Int(digits), priority <= 255 else { throw Self.failure("Invalid priority value") }
                result = priority == 0 ? Self.everything : Self.nothing
            default:
                let op = operatorWord()
                skipSpaces()
                result = try Self.term(tag: tag, operator: op, value: try string(), roots: roots, caseFolded: caseFolded)
            }
        }
        skipSpaces()
        guard take(")") else { throw Self.failure("')' expected") }
        return result
    }

    /// A filter that names no tag (`base`, `modified-since`, `added-since`) as a songbox term;
    /// nil for a tag. The same in an expression and in the older `KEY VALUE` pairs.
    static func keyword(_ key: String, value: String, roots: MusicRoots) throws(MPDProtocol.Failure) -> String? {
        switch key.lowercased() {
        case "base":
            guard let path = roots.path(value) else { throw Self.failure("No such directory") }
            return "path:" + Self.quoted(path == "/" ? "/" : path + "/")
        case "modified-since", "added-since":
            return "added:>=" + (try Self.day(value))
        default:
            return nil
        }
    }

    /// Terms that match every song and none.
    static let everything = "id:>=0", nothing = "id:<0"

    /// One comparison as a songbox term.
    static func term(tag: String, operator written: String, value: String, roots: MusicRoots, caseFolded: Bool = true) throws(MPDProtocol.Failure) -> String {
        let field: String
        var value = value
        // MPD 0.24's explicit case (`eq_cs`, `!contains_ci`, ...): songbox compares without case either way.
        var op = written.lowercased()
        for suffix in ["_cs", "_ci"] where op.hasSuffix(suffix) { op = String(op.dropLast(3)) }
        if op == "eq" { op = "==" } else if op == "!eq" { op = "!=" }
        switch tag.lowercased() {
        case "any": field = ""
        case "file", "filename":
            // The song's URI: a whole one names a file, a piece of one is looked for as it is.
            field = "path"
            if op == "==" || op == "eq" || op == "!=" { value = roots.path(value) ?? value }
        default:
            guard let known = try MPDTag.named(tag) else {
                // A tag songbox does not keep: no song has it.
                return op.hasPrefix("!") ? everything : nothing
            }
            field = known.field
        }
        switch op {
        case "==", "eq":
            return equals(field, value)
        case "!=":
            return "-" + equals(field, value)
        case "contains":
            return contains(field, value)
        case "!contains":
            return "-" + contains(field, value)
        case "starts_with", "!starts_with":
            // A regular expression of the value, escaped, at the start.
            return (op.hasPrefix("!") ? "-" : "") + matches(field, "^" + literal(value), roots: roots)
        case "=~", "!~":
            do throws(BoundedRegex.Failure) { _ = try BoundedRegex(value) } catch { throw failure(error.message) }
            return (op.hasPrefix("!") ? "-" : "") + matches(field, value, roots: roots)
        default:
            throw failure("Unknown filter operator: \(written)")
        }
    }

    /// A regular expression on `field` (empty: any tag). A file's is matched against its URI: an
    /// anchored one starts after the music folder.
    private static func matches(_ field: String, _ pattern: String, roots: MusicRoots) -> String {
        switch field {
        case "": return "(" + ["title", "artist", "album", "albumartist", "genre", "comment"].map { compare($0, ":~", pattern) }
            .joined(separator: " OR ") + ")"
        case "path":
            guard pattern.hasPrefix("^"), let prefix = roots.onlyPrefix else { return compare(field, ":~", pattern) }
            return compare(field, ":~", "^" + literal(String(decoding: prefix, as: UTF8.self)) + pattern.dropFirst())
        default: return compare(field, ":~", pattern)
        }
    }

    /// `field` (empty: any tag) is `value`.
    private static func equals(_ field: String, _ value: String) -> String {
        if field.isEmpty { return value.isEmpty ? nothing : quoted(value) }
        if field == "albumartist", value.isEmpty { return "(albumartist:=\"\" artist:=\"\")" }
        return compare(field, ":=", value)
    }

    /// `field` (empty: any tag) holds `value`; every song holds nothing, as in MPD.
    private static func contains(_ field: String, _ value: String) -> String {
        if value.isEmpty { return everything }
        if field.isEmpty { return quoted(value) }
        return compare(field, ":", value)
    }

    /// `field` compared with `value` by `op` (`:=` the whole value, `:` a piece of it, `:~` a
    /// regular expression). A song
    /// without an album artist is compared by its artist, as MPD does.
    private static func compare(_ field: String, _ op: String, _ value: String) -> String {
        let term = field + op + quoted(value)
        guard field == "albumartist" else { return term }
        return "(\(term) OR (albumartist:=\"\" artist\(op)\(quoted(value))))"
    }

    /// A regular expression that matches `text` as it is: each ASCII character that is no letter
    /// or digit escaped.
    private static func literal(_ text: String) -> String {
        text.unicodeScalars.map { $0.isASCII && !($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? "\\" + String($0) : String($0) }
            .joined()
    }

    /// A quoted query phrase (`\"` and `\\` escaped).
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A date as songbox's query takes it (YYYY-MM-DD), from Unix seconds or ISO 8601.
    static func day(_ text: String) throws(MPDProtocol.Failure) -> String {
        let date: Date?
        if let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e11 {
            date = Date(timeIntervalSince1970: seconds)
        } else {
            date = ISO8601DateFormatter().date(from: text)
        }
        guard let date else { throw failure("Invalid date: \(text)") }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    // MARK: Characters

    private func peek() -> Character? { index < text.count ? text[index] : nil }

    private mutating func take(_ character: Character) -> Bool {
        guard peek() == character else { return false }
        index += 1
        return true
    }

    private mutating func skipSpaces() { while peek() == " " { index += 1 } }

    private mutating func takeWord(_ word: String) -> Bool {
        let end = index + word.count
        guard end <= text.count, String(text[index..<end]) == word else { return false }
        index = end
        return true
    }

    /// A tag name or keyword.
    private mutating func word() -> String {
        var result = ""
        while let character = peek(), character.isLetter || character.isNumber || character == "_" || character == "-" {
            result.append(character)
            index += 1
        }
        return result
    }

    private mutating func operatorWord() -> String {
        var result = ""
        while let character = peek(), character != " ", character != "'", character != "\"" {
            result.append(character)
            index += 1
        }
        return result
    }

    /// A quoted value, `'...'` or `"..."`, with backslash escapes.
    private mutating func string() throws(MPDProtocol.Failure) -> String {
        guard let quote = peek(), quote == "'" || quote == "\"" else { throw Self.failure("Quoted string expected") }
        index += 1
        var result = ""
        while let character = peek() {
            index += 1
            if character == quote { return result }
            if character == "\\", let escaped = peek() {
                index += 1
                result.append(escaped)
            } else {
                result.append(character)
            }
        }
        throw Self.failure("Closing quote not found")
    }
}
