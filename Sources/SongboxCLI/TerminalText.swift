import Foundation

/// Text layout for a terminal: widths counted in columns, not characters, so that columns of
/// Hebrew with niqqud (points take no column) and of CJK (two columns) stay aligned.
enum TerminalText {
    /// Columns `text` takes in a terminal.
    static func width(_ text: String) -> Int {
        // Printable ASCII, the common case, is one column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of character: Character) -> Int {
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
    static func truncate(_ text: String, to limit: Int) -> String { fitted(text, to: limit).text }

    /// `truncate` with the width of the result, measured once.
    static func fitted(_ text: String, to limit: Int) -> (text: String, width: Int) {
        let full = width(text)
        guard full > limit else { return (text, full) }
        var result = ""
        var used = 0
        for character in text {
            let w = width(of: character)
            if used + w > limit - 1 { break }
            result.append(character)
            used += w
        }
        return (result + "…", used + 1)
    }

    /// `text` padded with spaces to `columns`.
    static func pad(_ text: String, to columns: Int, rightAligned: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, columns - width(text)))
        return rightAligned ? padding + text : text + padding
    }

    /// Rows laid out in aligned columns separated by two spaces; `rightAligned` columns are
    /// numbers. Text cells wider than `maxWidth` are truncated.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = [], maxWidth: Int = 40) -> String {
        // Each cell's width is measured once: this runs for every row of a large listing.
        let cells = ([header] + rows).map { row in
            row.map { fitted($0, to: maxWidth) }
        }
        var widths = Array(repeating: 0, count: header.count)
        for row in cells { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.width) } }
        // Laid out as bytes: string appends cost a visible share of a large listing.
        var output: [UInt8] = []
        output.reserveCapacity(cells.count * (widths.reduce(0, +) + 2 * widths.count + 1))
        for row in cells {
            for (index, cell) in row.enumerated() {
                if index > 0 { output.append(contentsOf: [0x20, 0x20]) }
                let padding = repeatElement(UInt8(0x20), count: widths[index] - cell.width)
                if rightAligned.contains(index) {
                    output.append(contentsOf: padding)
                    output.append(contentsOf: cell.text.utf8)
                } else {
                    output.append(contentsOf: cell.text.utf8)
                    output.append(contentsOf: padding)
                }
            }
            // No trailing spaces: after the last column, or after empty cells that end a row.
            while output.last == 0x20 { output.removeLast() }
            output.append(0x0A)
        }
        output.removeLast()
        return String(decoding: output, as: UTF8.self)
    }

    /// 215.4 -> "3:35"; 3725 -> "1:02:05".
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        // Plain string building: String(format:) cost a visible share of a long listing.
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}
