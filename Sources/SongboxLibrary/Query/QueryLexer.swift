/// One lexical unit of a query, with the 1-based character position where it starts.
struct QueryToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A bare word: `love`, `random`, `12:30`.
        case word(String)
        /// A quoted phrase, quotes and escapes removed: `"like this"`.
        case phrase(String)
        /// `name:value`, `name:=value`, `name>value`, ...
        case field(FieldTerm)
        case openParen, closeParen, comma, minus
        case or, and, not
        case end
    }

    var kind: Kind
    var position: Int
}

/// The operator between a field name and its value.
enum FieldOperator: String, Sendable, Equatable {
    case contains = ":"
    case equals = ":="
    /// A regular expression, ignoring case (`title:~"^love"`): `BoundedRegex`.
    case matches = ":~"
    case greater = ">"
    case less = "<"
    case greaterOrEqual = ">="
    case lessOrEqual = "<="
}

/// `name` `op` `value` as written; the parser decides what the value means for that field.
struct FieldTerm: Sendable, Equatable {
    var name: String
    var op: FieldOperator
    /// The value text, quotes and escapes removed. Empty when nothing followed the operator.
    var value: String
    var quoted: Bool
    /// Where the value text starts (after an opening quote).
    var valuePosition: Int

    /// The name and operator as written (`duration:>`), for messages.
    var written: String
}

/// Splits a query into tokens. Whitespace separates terms; `(`, `)` and `,` are tokens of their own
/// outside quotes; `-` right before a term negates it.
struct QueryLexer {
    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    static func tokens(of text: String) throws(SongboxError) -> [QueryToken] {
        var lexer = QueryLexer(text)
        var tokens: [QueryToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var position: Int { index + 1 }

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private static func endsWord(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || character == ","
    }

    mutating func next() throws(SongboxError) -> QueryToken {
        while let character = peek(), character.isWhitespace { index += 1 }
        let start = position
        guard let character = peek() else { return QueryToken(kind: .end, position: start) }
        switch character {
        case "(": index += 1; return QueryToken(kind: .openParen, position: start)
        case ")": index += 1; return QueryToken(kind: .closeParen, position: start)
        case ",": index += 1; return QueryToken(kind: .comma, position: start)
        case "\"": return QueryToken(kind: .phrase(try quoted()), position: start)
        case "-":
            guard let following = peek(1), !following.isWhitespace, following != ")", following != "," else {
                throw SongboxError.query("'-' must be followed by the term it excludes", at: start,
                                         hint: "write -word with no space, or quote \"-\" to search for a dash")
            }
            index += 1
            return QueryToken(kind: .minus, position: start)
        default:
            if let term = try fieldTerm() { return QueryToken(kind: .field(term), position: start) }
            let word = bare(commasEnd: true)
            switch word {
            case "OR": return QueryToken(kind: .or, position: start)
            case "AND": return QueryToken(kind: .and, position: start)
            case "NOT": return QueryToken(kind: .not, position: start)
            default: return QueryToken(kind: .word(word), position: start)
            }
        }
    }

    /// A bare run of characters up to whitespace, a parenthesis or (when `commasEnd`) a comma.
    private mutating func bare(commasEnd: Bool) -> String {
        var text = ""
        while let character = peek(), !QueryLexer.endsWord(character) || (character == "," && !commasEnd) {
            text.append(character)
            index += 1
        }
        return text
    }

    /// A `"..."` string starting at the current quote; `\"` and `\\` stand for `"` and `\`.
    private mutating func quoted() throws(SongboxError) -> String {
        let start = position
        index += 1
        var text = ""
        while let character = peek() {
            index += 1
            switch character {
            case "\"": return text
            case "\\" where peek() == "\"" || peek() == "\\":
                text.append(characters[index])
                index += 1
            default: text.append(character)
            }
        }
        throw SongboxError.query("unclosed quote", at: start, hint: "end the quoted text with another \"")
    }

    /// `name` + operator + value when the text here is one, else nil (and nothing consumed).
    /// A name is ASCII letters, digits and `_`, starting with a letter, so `12:30` and Hebrew words
    /// with a colon stay words.
    private mutating func fieldTerm() throws(SongboxError) -> FieldTerm? {
        var end = index
        while end < characters.count, characters[end].isASCII,
              characters[end].isLetter || characters[end] == "_" || (end > index && characters[end].isNumber) {
            end += 1
        }
        guard end > index, characters[index].isLetter else { return nil }
        let operators: [(String, FieldOperator)] = [
            (":>=", .greaterOrEqual), (":<=", .lessOrEqual), (":>", .greater), (":<", .less),
            (":=", .equals), (":~", .matches), (":", .contains),
            (">=", .greaterOrEqual), ("<=", .lessOrEqual), (">", .greater), ("<", .less), ("=", .equals),
        ]
        guard let (spelling, op) = operators.first(where: { matches($0.0, at: end) }) else { return nil }
        let name = String(characters[index..<end])
        index = end + spelling.count
        if peek() == "\"" {
            let valuePosition = position + 1
            return FieldTerm(name: name, op: op, value: try quoted(), quoted: true, valuePosition: valuePosition,
                             written: name + spelling)
        }
        let valuePosition = position
        // `sort:-plays,title` lists keys with commas; everywhere else a comma separates alternatives.
        let value = bare(commasEnd: name.lowercased() != "sort")
        return FieldTerm(name: name, op: op, value: value, quoted: false, valuePosition: valuePosition,
                         written: name + spelling)
    }

    private func matches(_ spelling: String, at offset: Int) -> Bool {
        var offset = offset
        for character in spelling {
            guard offset < characters.count, characters[offset] == character else { return false }
            offset += 1
        }
        return true
    }
}

extension SongboxError {
    /// A query error at 1-based character `position`.
    static func query(_ message: Message, at position: Int, hint: Message? = nil) -> SongboxError {
        SongboxError(.invalidQuery, message, at: "query:\(position)", hint: hint)
    }
}
