import Foundation

/// Recursive descent over the tokens, lowest precedence first:
///
///     query   = or
///     or      = and { ("OR" | ",") and }
///     and     = unary { ["AND"] unary }
///     unary   = ("-" | "NOT") unary | atom
///     atom    = word | phrase | field | "(" or ")"
///
/// `sort:`, `limit:` and `random` apply to the whole query: they may stand anywhere outside
/// parentheses and negations, and take no part in the condition tree.
struct QueryParser {
    private let tokens: [QueryToken]
    private let values: QueryValueReader
    private var index = 0
    /// Positions of the `(` still open, innermost last.
    private var openGroups: [Int] = []
    /// How many `-`/`NOT` enclose the current term.
    private var negations = 0
    /// Groups and negations nest at most this deep, so no query can exhaust the stack.
    static let maxNesting = 64

    private(set) var sort: [QuerySortKey] = []
    private(set) var limit: QueryLimit?
    private(set) var random = false
    private var sortPosition: Int?

    init(tokens: [QueryToken], values: QueryValueReader) {
        self.tokens = tokens
        self.values = values
    }

    /// Parses all the tokens into a condition: nil when the query has none (everything matches).
    mutating func parse() throws(SongboxError) -> QueryCondition? {
        let condition = try parseOr()
        let token = peek
        switch token.kind {
        case .end: return condition
        case .closeParen:
            throw SongboxError.query("')' closes no group", at: token.position,
                                     hint: "remove it, or open the group with '(' before it")
        default:
            throw SongboxError.query("unexpected text", at: token.position, hint: "check the query near here")
        }
    }

    // MARK: Tokens

    private var peek: QueryToken { tokens[index] }

    private mutating func advance() -> QueryToken {
        defer { index += 1 }
        return tokens[index]
    }

    /// Whether `token` can begin a term (and so continue an implicit AND).
    private static func startsTerm(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word, .phrase, .field, .openParen, .minus, .not: true
        case .closeParen, .comma, .or, .and, .end: false
        }
    }

    // MARK: Grammar

    private mutating func parseOr() throws(SongboxError) -> QueryCondition? {
        var branches: [QueryCondition] = []
        var current = try parseAnd()
        while peek.kind == .or || peek.kind == .comma {
            let separator = advance()
            let name = separator.kind == .or ? "OR" : "','"
            guard let left = current else {
                throw SongboxError.query("\(name) needs a search term before it", at: separator.position,
                                         hint: "write alternatives as a, b or a OR b")
            }
            branches.append(left)
            let next = peek
            current = try parseAnd()
            if current == nil {
                throw SongboxError.query("expected a search term after \(name)", at: next.position,
                                         hint: "write alternatives as a, b or a OR b")
            }
        }
        guard let last = current else { return nil }
        return branches.isEmpty ? last : .any(branches + [last])
    }

    private mutating func parseAnd() throws(SongboxError) -> QueryCondition? {
        var terms: [QueryCondition] = []
        var sawTerm = false
        while true {
            if peek.kind == .and {
                let keyword = advance()
                guard sawTerm, Self.startsTerm(peek) else {
                    throw SongboxError.query(sawTerm ? "expected a search term after AND"
                                                     : "AND needs a search term before it",
                                             at: sawTerm ? peek.position : keyword.position,
                                             hint: "write a AND b, or just a b")
                }
            }
            guard Self.startsTerm(peek) else { break }
            sawTerm = true
            if let term = try parseUnary() { terms.append(term) }
        }
        switch terms.count {
        case 0: return nil
        case 1: return terms[0]
        default: return .all(terms)
        }
    }

    private mutating func parseUnary() throws(SongboxError) -> QueryCondition? {
        guard peek.kind == .minus || peek.kind == .not else { return try parseAtom() }
        let negation = advance()
        guard Self.startsTerm(peek) else {
            throw SongboxError.query("expected a term after \(negation.kind == .not ? "NOT" : "'-'")",
                                     at: peek.position, hint: "write -word, -field:value or NOT (a, b)")
        }
        try checkNesting(at: negation.position)
        negations += 1
        defer { negations -= 1 }
        return try parseUnary().map { .not($0) }
    }

    private mutating func parseAtom() throws(SongboxError) -> QueryCondition? {
        let token = advance()
        switch token.kind {
        case .word("random"):
            try checkDirectivePlace("random", at: token.position)
            random = true
            return nil
        case .word(let text), .phrase(let text):
            let folded = SearchKey.fold(text)
            guard !folded.isEmpty else {
                throw SongboxError.query("nothing to search for in \"\(text)\"", at: token.position,
                                         hint: "quote a word or phrase with letters or digits in it")
            }
            return .words(folded)
        case .field(let term):
            return try fieldCondition(term, at: token.position)
        case .openParen:
            try checkNesting(at: token.position)
            openGroups.append(token.position)
            let inner = try parseOr()
            guard peek.kind == .closeParen else {
                throw SongboxError.query("expected ')' to close the group opened at \(token.position)",
                                         at: peek.position, hint: "add ')' after the last term of the group")
            }
            _ = advance()
            openGroups.removeLast()
            guard let inner else {
                throw SongboxError.query("empty parentheses", at: token.position,
                                         hint: "put search terms inside them, or remove them")
            }
            return inner
        case .closeParen, .comma, .minus, .or, .and, .not, .end:
            throw SongboxError.query("expected a search term", at: token.position)
        }
    }

    private func checkNesting(at position: Int) throws(SongboxError) {
        guard openGroups.count + negations < Self.maxNesting else {
            throw SongboxError.query("groups and negations nest more than \(Self.maxNesting) deep", at: position,
                                     hint: "simplify the query")
        }
    }

    private func checkDirectivePlace(_ name: String, at position: Int) throws(SongboxError) {
        guard openGroups.isEmpty, negations == 0 else {
            throw SongboxError.query("\(name) applies to the whole query; it cannot be inside parentheses or negated",
                                     at: position, hint: "move \(name) out to the top level of the query")
        }
    }

    // MARK: Fields

    private mutating func fieldCondition(_ term: FieldTerm, at position: Int) throws(SongboxError) -> QueryCondition? {
        let name = term.name.lowercased()
        if name == "sort" || name == "limit" {
            try checkDirectivePlace(name + ":", at: position)
            try requireValue(term, hint: name == "sort" ? "for example sort:-plays,title" : Self.limitHint)
            guard term.op == .contains else {
                throw SongboxError.query("write \(name): followed by its value", at: position,
                                         hint: name == "sort" ? "for example sort:-plays,title" : Self.limitHint)
            }
            if name == "sort" { try readSort(term, at: position) } else { try readLimit(term, at: position) }
            return nil
        }
        if name == "random" {
            throw SongboxError.query("random takes no value", at: position, hint: "write random on its own")
        }
        guard let field = QueryField.named(name) else {
            let close = QueryField.suggestions(for: name)
            let quoted = "\"\(term.written)\(term.value)\""
            let fields = QueryField.all.map(\.name).joined(separator: ", ")
            let hint: Message = switch (close.isEmpty, term.quoted) {
            case (true, true): "fields are \(fields)"
            case (true, false): "fields are \(fields); to search for the text itself, quote it: \(quoted)"
            case (false, true): "did you mean \(close.joined(separator: ", or "))?"
            case (false, false): "did you mean \(close.joined(separator: ", or "))? Or, to search for the text itself, quote it: \(quoted)"
            }
            throw SongboxError.query("unknown field '\(term.name)'", at: position, hint: hint)
        }
        try requireValue(term, hint: QueryValueReader.examples(of: field.kind, field: field.name))
        switch field.kind {
        case .text: return try textCondition(field, term, at: position)
        case .playlist:
            guard term.op == .contains || term.op == .equals else { throw misusedOperator(term, field, at: position) }
            return .playlist(term.value)
        case .bool:
            guard term.op == .contains || term.op == .equals else { throw misusedOperator(term, field, at: position) }
            fallthrough
        case .number, .date, .duration, .tagDate:
            return try rangeCondition(field, term)
        }
    }

    private func requireValue(_ term: FieldTerm, hint: Message) throws(SongboxError) {
        guard term.value.isEmpty && !term.quoted else { return }
        throw SongboxError.query("expected a value after \(term.written)", at: term.valuePosition, hint: hint)
    }

    private func misusedOperator(_ term: FieldTerm, _ field: QueryField, at position: Int) -> SongboxError {
        SongboxError.query("\(field.name) does not take \(term.op.rawValue)", at: position,
                           hint: QueryValueReader.examples(of: field.kind, field: field.name))
    }

    private func textCondition(_ field: QueryField, _ term: FieldTerm, at position: Int) throws(SongboxError) -> QueryCondition {
        if term.op == .matches {
            do throws(BoundedRegex.Failure) { _ = try BoundedRegex(term.value) } catch {
                throw SongboxError.query("\(error.message)", at: term.valuePosition)
            }
            return .text(field, .matches(term.value))
        }
        guard term.op == .contains || term.op == .equals else { throw misusedOperator(term, field, at: position) }
        let folded = SearchKey.fold(term.value)
        if term.op == .equals { return .text(field, folded.isEmpty ? .isEmpty : .equals(folded)) }
        guard !folded.isEmpty else {
            throw SongboxError.query("nothing to search for in \(term.written)", at: term.valuePosition,
                                     hint: "to find tracks with no \(field.name), write \(field.name):=\"\"")
        }
        return .text(field, .contains(folded))
    }

    /// Numbers, dates, durations and booleans: one value, a range `a..b`, or a comparison.
    private func rangeCondition(_ field: QueryField, _ term: FieldTerm) throws(SongboxError) -> QueryCondition {
        let read = { (text: String, position: Int) throws(SongboxError) -> QuerySpan in
            try values.span(text, kind: field.kind, field: field.name, at: position)
        }
        let isRange = (term.op == .contains || term.op == .equals) && !term.quoted && field.kind != .bool
        if isRange, let dots = term.value.range(of: "..") {
            let startText = String(term.value[..<dots.lowerBound]), endText = String(term.value[dots.upperBound...])
            let endPosition = term.valuePosition + startText.count + 2
            guard !startText.isEmpty || !endText.isEmpty else {
                throw SongboxError.query("a range needs at least one end", at: term.valuePosition,
                                         hint: QueryValueReader.examples(of: field.kind, field: field.name))
            }
            let start = startText.isEmpty ? nil : try read(startText, term.valuePosition)
            let end = endText.isEmpty ? nil : try read(endText, endPosition)
            if let start, let end, QuerySpan.rangeIsEmpty(from: start, to: end) {
                throw SongboxError.query("the range \(term.value) is empty: it ends before it starts",
                                         at: term.valuePosition, hint: "write the smaller or earlier end first: \(field.name):\(endText)..\(startText)")
            }
            return .range(field, lower: start.map { QueryBound(value: $0.lower, inclusive: true) },
                          upper: end.map { QueryBound(value: $0.upper, inclusive: $0.upperInclusive) })
        }
        let span = try read(term.value, term.valuePosition)
        let lower = QueryBound(value: span.lower, inclusive: true)
        let upper = QueryBound(value: span.upper, inclusive: span.upperInclusive)
        switch term.op {
        case .contains, .equals: return .range(field, lower: lower, upper: span.isRelative ? nil : upper)
        case .greater: return .range(field, lower: QueryBound(value: span.upper, inclusive: !span.upperInclusive), upper: nil)
        case .greaterOrEqual: return .range(field, lower: lower, upper: nil)
        case .less: return .range(field, lower: nil, upper: QueryBound(value: span.lower, inclusive: false))
        case .lessOrEqual: return .range(field, lower: nil, upper: upper)
        case .matches: throw misusedOperator(term, field, at: term.valuePosition)
        }
    }

    // MARK: Directives

    private static let limitHint: Message = "write a count (limit:10) or a length of time (limit:45m, limit:1h30m, limit:90s)"

    private mutating func readSort(_ term: FieldTerm, at position: Int) throws(SongboxError) {
        if let sortPosition {
            throw SongboxError.query("sort: is given twice (first at \(sortPosition))", at: position,
                                     hint: "list every key in one sort:, for example sort:-plays,title")
        }
        sortPosition = position
        var offset = term.valuePosition
        for part in term.value.split(separator: ",", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let descending = part.hasPrefix("-")
            let name = part.hasPrefix("-") || part.hasPrefix("+") ? part.dropFirst() : part
            guard !name.isEmpty else {
                throw SongboxError.query("expected a field name to sort by", at: offset,
                                         hint: "write sort:field or sort:-field, keys separated by commas")
            }
            guard let field = QueryField.named(String(name)), field.kind != .playlist else {
                let close = QueryField.suggestions(for: String(name)).filter {
                    $0 != name.lowercased() && QueryField.named($0).map { $0.kind != .playlist } == true
                }
                throw SongboxError.query("cannot sort by '\(name)'", at: offset,
                                         hint: close.isEmpty ? "sort by a field: title, artist, year, plays, added, ..."
                                                             : "did you mean \(close.joined(separator: ", or "))?")
            }
            sort.append(QuerySortKey(field: field, descending: descending))
        }
    }

    private mutating func readLimit(_ term: FieldTerm, at position: Int) throws(SongboxError) {
        guard limit == nil else {
            throw SongboxError.query("limit: is given twice", at: position, hint: "keep one limit:")
        }
        let digitsOnly = term.value.allSatisfy { $0.isASCII && $0.isNumber }
        if digitsOnly, let count = Int(term.value) {
            limit = .count(count)
        } else if !digitsOnly, let seconds = QueryValueReader.seconds(term.value) {
            limit = .duration(seconds)
        } else {
            throw SongboxError.query("'\(term.value)' is not a count or a length of time", at: term.valuePosition,
                                     hint: Self.limitHint)
        }
    }
}
