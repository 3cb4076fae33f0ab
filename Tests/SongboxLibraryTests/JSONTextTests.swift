import Foundation
import SongboxLibrary
import Testing

/// `JSONText.quoted`, which every JSON writer of songbox uses (`--json`, Lua's json.encode, the
/// web API), read back by Foundation's JSON parser.
struct JSONTextTests {
    @Test(arguments: [
        "", "plain", "שלום, עולם", "Ünïcödé 🎵 emoji", "quote \" and backslash \\ and slash /",
        "line\nbreak\r\ttab", "bell \u{07} escape \u{1B}[31m nul \u{00} us \u{1F} del \u{7F}",
        "<img src=x onerror=alert(1)>", "\u{2028}\u{2029}", String(repeating: "ab\"c", count: 1000),
    ])
    func aQuotedTextReadsBackAsItWas(text: String) throws {
        let literal = JSONText.quoted(text)
        let read = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
        #expect(read == text)
        // No raw control character is left in the literal: it stays one line of a log or protocol.
        #expect(!literal.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func controlCharactersAreWrittenAsJSONShortEscapesOrLowercaseHex() {
        #expect(JSONText.quoted("a\"b\\c\nd\re\tf") == #""a\"b\\c\nd\re\tf""#)
        #expect(JSONText.quoted("\u{00}\u{1B}\u{1F}") == #""\u0000\u001b\u001f""#)
        #expect(JSONText.quoted("עברית") == "\"עברית\"")
    }
}
