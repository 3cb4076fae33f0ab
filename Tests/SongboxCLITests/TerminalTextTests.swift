import Testing

@testable import SongboxCLI

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("abc", 3), ("אהבה", 4), ("אַהֲבָה", 4), ("יְרוּשָׁלַיִם", 7), ("東京", 4), ("Café", 4), ("e\u{301}", 1), ("", 0),
    ])
    func widthCountsTerminalColumns(text: String, columns: Int) {
        #expect(TerminalText.width(text) == columns)
    }

    /// Outside text is shown, not obeyed: each control character escaped, C1 ones (an 8-bit
    /// CSI) too; a line keeps no line break, text of many lines keeps its own.
    @Test func controlCharactersAreShownEscaped() {
        #expect(TerminalText.line("a\u{1B}[2J\u{1B}]0;t\u{07}b\rc\nd\te\u{0}\u{7F}\u{9B}f") == #"a\e[2J\e]0;t\ab\rc\nd\te\u0000\u007f\u009bf"#)
        #expect(TerminalText.lines("one\r\ntwo\n\tthree\rfour\u{1B}") == "one\ntwo\n\tthree\\rfour\\e")
        #expect(TerminalText.line("שָׁלוֹם é 東京") == "שָׁלוֹם é 東京")
        // Cells are lines: a line break in a tag cannot add a row.
        #expect(TerminalText.table(header: ["A"], rows: [["x\ny"]]) == "A\nx\\ny")
    }

    @Test func tablesPadByColumnsNotCharacters() {
        let table = TerminalText.table(header: ["A", "B"], rows: [["אַהֲבָה", "x"], ["abcdef", "y"]])
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines == ["A       B", "אַהֲבָה    x", "abcdef  y"])
    }

    @Test func truncationKeepsWholeCharactersAndMarksAnEllipsis() {
        #expect(TerminalText.truncate("אַהֲבָה בַּגָּלִיל", to: 5) == "אַהֲבָה…")
        #expect(TerminalText.truncate("אַהֲבָה בַּגָּלִיל", to: 3) == "אַהֲ…")
        #expect(TerminalText.truncate("short", to: 10) == "short")
    }

    @Test func durationsReadAsMinutesOrHours() {
        #expect(TerminalText.duration(215.4) == "3:35")
        #expect(TerminalText.duration(3725) == "1:02:05")
        #expect(TerminalText.duration(3600) == "1:00:00")
        #expect(TerminalText.duration(65) == "1:05")
        #expect(TerminalText.duration(4.4) == "0:04")
    }

    @Test(arguments: [
        (["artist:Naomi Shemer"], #"artist:"Naomi Shemer""#),
        (["-artist:=Naomi Shemer", "year>1960"], #"-artist:="Naomi Shemer" year>1960"#),
        (["two words"], #""two words""#),
        (["title:love year>2000"], "title:love year>2000"),
        (["plain"], "plain"),
    ])
    func queryArgumentsGetBackTheQuotesTheShellRemoved(words: [String], query: String) {
        #expect(QueryArguments.join(words) == query)
    }
}
