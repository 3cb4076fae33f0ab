import Foundation
import SongboxLibrary

/// Everything the command line prints on standard output goes through here (this module's
/// `print` hides Swift's): a control character in a tag, a stream title or a file name is shown
/// escaped (`VisibleText`), never obeyed by the terminal. Line breaks are kept: a value that must
/// stay on its line is made one with `TerminalText.line` where it is laid out.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(TerminalText.lines(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// Text layout for a terminal: aligned tables and durations, widths counted in columns
/// (`TextWidth`, which scripts use too), and text from outside made safe to show.
enum TerminalText {
    /// `text` as one line: every control character escaped, line breaks and tabs too (a title,
    /// a table's cell).
    static func line(_ text: String) -> String { VisibleText.escaped(text) }
    /// `text` of many lines: control characters escaped, line breaks kept.
    static func lines(_ text: String) -> String { VisibleText.escaped(text, lineBreaks: .kept) }
    /// `Artist - Title` as one line: the parts there are; nil when none.
    static func name(_ parts: String?...) -> String? { line(parts.compactMap { $0 }.joined(separator: " - ")).nonEmpty }

    static func width(_ text: String) -> Int { TextWidth.of(text) }
    static func width(of character: Character) -> Int { TextWidth.of(character) }
    static func truncate(_ text: String, to limit: Int) -> String { TextWidth.truncate(text, to: limit) }
    static func fitted(_ text: String, to limit: Int) -> (text: String, width: Int) { TextWidth.fitted(text, to: limit) }
    static func pad(_ text: String, to columns: Int, rightAligned: Bool = false) -> String {
        TextWidth.pad(text, to: columns, rightAligned: rightAligned)
    }

    /// Rows laid out in aligned columns separated by two spaces; `rightAligned` columns are
    /// numbers. Text cells wider than `maxWidth` are truncated; a cell is one line.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = [], maxWidth: Int = 40) -> String {
        // Each cell's width is measured once: this runs for every row of a large listing.
        let cells = ([header] + rows).map { row in
            row.map { fitted(line($0), to: maxWidth) }
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

    /// 215.4 -> "3:35"; 3725 -> "1:02:05". Whole seconds, cut down as a player shows them and
    /// as queries compare them (docs/query-language.md): 5.6 s is "0:05", as `duration:..0:05` finds it.
    static func duration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e9).rounded(.down)) : 0
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        // Plain string building: String(format:) cost a visible share of a long listing.
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}
