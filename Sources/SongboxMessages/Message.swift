/// A sentence a person reads, kept as its catalog key and its values, so that it can be said in
/// English (`description`: logs, Lua, MPD replies, anything a program reads) or in the reader's
/// language (`localized`: what the CLI prints).
///
/// Written as an ordinary string literal, interpolations included:
/// `"no track with id \(id)"` has the key `no track with id %s` (a gettext msgid in c-format:
/// each value is `%s`, a literal `%` is `%%`) and the value `id`. A translation may reorder the
/// values with `%1$s`, `%2$s`. scripts/extract-messages.py lists such literals for po/songbox.pot,
/// and CatalogTests checks that po/he.po translates each (docs/translations.md).
public struct Message: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public indirect enum Value: Sendable, Hashable {
        case text(String)
        /// A number with a fixed count of decimals: the locale's decimal point when localized.
        case decimal(Double, digits: Int)
        /// A message of its own, translated with the one around it.
        case message(Message)
    }

    /// The English text with `%s` for each value: the msgid.
    public let key: String
    public let values: [Value]
    /// For a sentence that depends on a count (`1 track`, `2 tracks`): the msgid_plural and the
    /// count; the catalog says which of its forms a count takes (gettext's ngettext).
    public let plural: Plural?

    public struct Plural: Sendable, Hashable {
        public let key: String
        public let count: Int
    }

    public init(key: String, values: [Value], plural: Plural? = nil) {
        self.key = key
        self.values = values
        self.plural = plural
    }

    /// `one` when `count` is 1, else `other`, in English; the catalog's form for `count` in
    /// another language. Both are written with the same values in the same order.
    public init(count: Int, one: Message, other: Message) {
        self.init(key: one.key, values: other.values, plural: Plural(key: other.key, count: count))
    }

    /// Text that is not ours to translate (a file's tag, a library's error, a Lua message).
    public init(verbatim text: String) {
        self.init(key: "%s", values: [.text(text)])
    }

    public init(stringLiteral value: String) {
        self.init(key: Self.escape(value), values: [])
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(key: stringInterpolation.key, values: stringInterpolation.values)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var key = ""
        var values: [Value] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 2 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            key += Message.escape(literal)
        }

        public mutating func appendInterpolation(_ value: Message) {
            append(.message(value))
        }

        /// `\(seconds, digits: 2)`: `1.50` in English, `1,50` where the locale says so.
        public mutating func appendInterpolation(_ value: Double, digits: Int) {
            append(.decimal(value, digits: digits))
        }

        public mutating func appendInterpolation<T>(_ value: T) {
            append(.text(String(describing: value)))
        }

        mutating func append(_ value: Value) {
            key += "%s"
            values.append(value)
        }
    }

    /// In English, numbers as C writes them.
    public var description: String {
        let english = plural.map { $0.count == 1 ? key : $0.key } ?? key
        return Self.fill(english, values: values, localized: false) ?? english
    }

    /// In the language the environment asked for (see `Catalog`); English until the program
    /// calls `Catalog.activate`, or when the catalog has no translation.
    public var localized: String {
        let translated = key == "%s" || key.isEmpty ? key : Catalog.translate(key, plural: plural)  // "" is the catalog's header
        return Self.fill(translated, values: values, localized: true) ?? description
    }

    static func escape(_ literal: String) -> String {
        var key = ""
        for character in literal { key += character == "%" ? "%%" : String(character) }
        return key
    }

    /// `format` with each `%s` (or `%N$s`) replaced by its value and `%%` by `%`; nil when the
    /// format does not fit the values (a broken translation: the English is said instead).
    static func fill(_ format: String, values: [Value], localized: Bool) -> String? {
        var result = ""
        var next = 0
        var characters = format[...]
        while let percent = characters.firstIndex(of: "%") {
            result += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            if characters.first == "%" {
                result += "%"
                characters = characters.dropFirst()
                continue
            }
            var index = next
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, characters.dropFirst(digits.count).first == "$", let position = Int(digits), position >= 1 {
                index = position - 1
                characters = characters.dropFirst(digits.count + 1)
            } else {
                next += 1
            }
            guard characters.first == "s", index < values.count else { return nil }
            characters = characters.dropFirst()
            result += render(values[index], localized: localized)
        }
        return result + characters
    }

    static func render(_ value: Value, localized: Bool) -> String {
        switch value {
        case .text(let text): text
        case .decimal(let number, let digits): Catalog.decimal(number, digits: digits, localized: localized)
        case .message(let message): localized ? message.localized : message.description
        }
    }
}
