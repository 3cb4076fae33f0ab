/// Text from outside (tags, stream titles, file names, playlist names, plugin messages) made
/// safe for a terminal or a log line: each control character is shown as an escape (`\e`, `\r`,
/// `\a`, `\u0001`, `\u009b`), so none clears the screen, retitles the window, rings the bell or
/// starts a line of its own (DESIGN rule 11). The command line's output and the daemon's log go
/// through it; the MPD protocol has its own rule (`MPDProtocol.fieldValue`: spaces, as MPD does).
public enum VisibleText {
    public enum LineBreaks: Sendable {
        /// One line: a line break or a tab is escaped too (a cell, a title, a log line).
        case escaped
        /// Text of many lines (a listing, lyrics, a traceback): line breaks and tabs are kept,
        /// a CR before a line break is dropped; every other control character is escaped.
        case kept
    }

    public static func escaped(_ text: String, lineBreaks: LineBreaks = .escaped) -> String {
        // The common case, no control character to escape (line breaks and tabs kept where they
        // are kept: a whole listing), is one pass over the bytes. C1 controls (U+0080–U+009F) are
        // encoded C2 80–C2 9F: 0xC2 sends the text the slow way.
        let keepsBreaks = lineBreaks == .kept
        guard text.utf8.contains(where: { (byte: UInt8) -> Bool in Self.mayNeedEscape(byte, keepingBreaks: keepsBreaks) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            if lineBreaks == .kept {
                if value == 0x0A || value == 0x09 {
                    result.unicodeScalars.append(scalar)
                    continue
                }
                if value == 0x0D, index + 1 < scalars.count, scalars[index + 1] == "\n" { continue }
            }
            result += name(of: value)
        }
        return result
    }

    /// Whether a text holding `byte` may have something to escape (a line break or a tab does
    /// not, where they are kept).
    @inline(__always) private static func mayNeedEscape(_ byte: UInt8, keepingBreaks: Bool) -> Bool {
        if byte == 0x7F || byte == 0xC2 { return true }
        guard byte < 0x20 else { return false }
        return !(keepingBreaks && (byte == 0x0A || byte == 0x09))
    }

    /// `\e` for ESC, C's letters for the others that have one, `\u00XX` for the rest: in JSON
    /// output (whose writer escapes C0 controls but not DEL or C1) that is JSON's own escape of
    /// the same character, so `--json` stays valid JSON.
    private static func name(of value: UInt32) -> String {
        switch value {
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        case 0x1B: return "\\e"
        default:
            let digits = String(value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }
    }
}
