/// Widths of text in a terminal's columns, not characters: Hebrew points and other marks take
/// none, East Asian wide characters and emoji two. So a column of Hebrew with niqqud lines up.
/// The listings of the command line and `songbox.text` in Lua use it.
public enum TextWidth {
    /// Columns `text` takes in a terminal.
    public static func of(_ text: String) -> Int {
        // Printable ASCII, the common case, is one column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    public static func of(_ character: Character) -> Int {
        // A grapheme cluster is one base plus marks: the marks take no column.
        guard let base = character.unicodeScalars.first else { return 0 }
        // Fast paths, no property lookups: printable Latin and the Hebrew letters.
        switch base.value {
        case 0x20..<0x7F, 0xA0..<0x300, 0x05D0...0x05EA: return 1
        default: break
        }
        let properties = base.properties
        if properties.generalCategory == .control || properties.generalCategory == .format { return 0 }
        if properties.isDefaultIgnorableCodePoint { return 0 }
        return isWide(base.value) || properties.isEmojiPresentation ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `limit` columns, with "…" when cut.
    public static func truncate(_ text: String, to limit: Int) -> String { fitted(text, to: limit).text }

    /// `truncate` with the width of the result, measured once.
    public static func fitted(_ text: String, to limit: Int) -> (text: String, width: Int) {
        let full = of(text)
        guard full > limit else { return (text, full) }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > limit - 1 { break }
            result.append(character)
            used += w
        }
        return (result + "…", used + 1)
    }

    /// `text` padded with spaces to `columns`.
    public static func pad(_ text: String, to columns: Int, rightAligned: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, columns - of(text)))
        return rightAligned ? padding + text : text + padding
    }

}
