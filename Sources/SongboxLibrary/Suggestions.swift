/// "Did you mean ...?": the candidates closest to what was typed, for error messages.
public enum Suggestions {
    /// Candidates within a small edit distance of `typed` (case and niqqud ignored), closest
    /// first; at most `limit`.
    public static func closest(to typed: String, among candidates: [String], limit: Int = 3) -> [String] {
        let folded = Array(SearchKey.fold(typed))
        let allowed = max(1, min(3, folded.count / 3))
        return candidates
            .map { candidate in (candidate, distance(folded, Array(SearchKey.fold(candidate)))) }
            .filter { $0.1 <= allowed }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            .prefix(limit)
            .map(\.0)
    }

    /// ` (did you mean 'x' or 'y'?)`, or nothing.
    public static func phrase(for typed: String, among candidates: [String]) -> Message {
        let close = closest(to: typed, among: candidates)
        guard !close.isEmpty else { return Message(verbatim: "") }
        return " (did you mean \(either(close))?)"
    }

    /// `'x'`, `'x' or 'y'`, `'x' or 'y' or 'z'`.
    public static func either(_ names: [String]) -> Message {
        names.dropFirst().reduce("'\(names.first ?? "")'") { list, name in "\(list) or '\(name)'" }
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
