import Foundation
import SongboxMessages

/// `message` in the reader's language (docs/translations.md): what the CLI prints for people.
/// Every literal passed here is a msgid of po/he.po (TranslationTests checks it).
func tr(_ message: Message) -> String { message.localized }

/// Writes `message`, translated, and a newline on standard error.
func complain(_ message: Message) { writeToStandardError(message.localized) }

/// `text` and a newline on standard error, its control characters shown escaped as `print`
/// shows them (`TerminalText.lines`).
func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalText.lines(text) + "\n").utf8))
}

/// `one` or `other` as `count` asks, in the reader's language (`1 track`, `2 tracks`; Hebrew
/// has its own forms): gettext's ngettext. Write the count in both.
func tr(count: Int, _ one: Message, _ other: Message) -> Message {
    Message(count: count, one: one, other: other)
}

/// A command's help text as paragraphs: the line breaks inside a paragraph (where the source or
/// a translation was wrapped by hand) become spaces, so the argument parser wraps it once, at
/// the terminal's width. A blank line still separates paragraphs.
func helpParagraphs(_ text: String) -> String {
    text.components(separatedBy: "\n\n")
        .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
        .joined(separator: "\n\n")
}
