import ArgumentParser
import SongboxLibrary

/// Joins command-line words into one query, putting back the quotes the shell removed:
/// `songbox ls artist:"Naomi Shemer"` arrives as the one word `artist:Naomi Shemer`.
enum QueryArguments {
    /// A whole query passed as one argument (`songbox ls "title:love year>2000"`): a later word
    /// has its own field, group or negation.
    static func looksLikeAQuery(_ word: String) -> Bool {
        // A comma is an OR wherever it stands (`"אהבה, love"`).
        word.contains(",") || word.split(whereSeparator: \.isWhitespace).dropFirst().contains { part in
            part.contains(":") || part.contains("(") || part.contains(")") || part.hasPrefix("-")
                || part.contains(">") || part.contains("<") || part == "OR" || part == "AND" || part == "NOT"
        }
    }

    /// Refuses a word that starts with `--` and is none of the command's options: it would be
    /// taken as query text and find nothing. (A single dash starts a negated term.)
    static func refuseUnknownOptions(_ words: [String], known: [String]) throws {
        guard let option = words.first(where: { $0.hasPrefix("--") && $0.count > 2 }) else { return }
        let name = String(option.prefix { $0 != "=" })
        throw ValidationError(tr("unknown option '\(name)'\(Suggestions.phrase(for: name, among: known + ["--db", "--help"]))"))
    }

    static func join(_ words: [String]) -> String {
        words.map(quoteIfNeeded).joined(separator: " ")
    }

    static func quoteIfNeeded(_ word: String) -> String {
        guard word.contains(where: \.isWhitespace), !word.contains("\""), !looksLikeAQuery(word) else { return word }
        // A field prefix such as `artist:`, `-artist:=`, `year>=` stays outside the quotes.
        let operators: [String] = [":=", ":", ">=", "<=", ">", "<"]
        if let nameEnd = word.firstIndex(where: { !($0.isLetter || $0 == "_" || $0 == "-") }),
           nameEnd > word.startIndex,
           let op = operators.first(where: { word[nameEnd...].hasPrefix($0) }),
           !word[..<nameEnd].contains(where: \.isWhitespace) {
            let valueStart = word.index(nameEnd, offsetBy: op.count)
            return String(word[..<valueStart]) + "\"" + word[valueStart...] + "\""
        }
        return "\"" + word + "\""
    }
}
