internal import CIntl
import Glibc
import Synchronization

/// songbox's message catalogs: GNU gettext, as Linux programs do it.
///
/// The catalogs are `po/LANG.po` (msgid: the English text of a `Message`), compiled by `msgfmt`
/// to `LANG/LC_MESSAGES/songbox.mo` under a locale directory: `$SONGBOX_LOCALEDIR` when set,
/// else the first of `../share/locale` (an installed binary: /usr/local/bin/songbox reads
/// /usr/local/share/locale) and `../../share/locale` (the build tree: .build/<triple>/debug/songbox
/// reads .build/share/locale, where `make` compiles them) beside the executable that exists.
///
/// The language is glibc's choice from `LC_ALL`, `LC_MESSAGES`, `LANG` and then `LANGUAGE` (a list
/// such as `he:en`, read unless the locale is plain `C`). Only `LC_MESSAGES` is set for the
/// process; numbers are written with the environment's `LC_NUMERIC` on the thread that writes
/// them, so the process's own numeric locale (which Lua's number parsing reads) stays `C`.
public enum Catalog {
    public static let domain = "songbox"

    /// The numeric locale, once `activate` has bound the catalogs; nil until then.
    private static let state = Mutex<State?>(nil)

    private struct State: @unchecked Sendable {  // a locale_t is immutable once made
        let numeric: locale_t?
        /// The environment's `LC_TIME`, when it is not C, C.UTF-8 or POSIX (whose dates songbox
        /// writes as ISO 8601).
        let time: locale_t?
    }

    /// Chooses the language from the environment; called once, at the start of the program.
    public static func activate() {
        setlocale(LC_MESSAGES, "")
        let directory = localeDirectory()
        bindtextdomain(domain, directory)
        // Whatever LC_CTYPE says, songbox writes UTF-8.
        bind_textdomain_codeset(domain, "UTF-8")
        let numeric = newlocale(LC_NUMERIC_MASK, "", nil)
        let time = timeLocaleName().flatMap { $0 == "C" || $0 == "POSIX" || $0.hasPrefix("C.") ? nil : newlocale(LC_TIME_MASK, "", nil) }
        state.withLock { $0 = State(numeric: numeric, time: time) }
    }

    /// Whether the environment asks for a language other than English, as glibc reads it
    /// (`LC_ALL`, else `LC_MESSAGES`, else `LANG` names the locale; in a locale other than C or
    /// POSIX, `LANGUAGE` comes first). False: `activate` would change nothing, so a command that
    /// must start fast can leave it out.
    public static var mayTranslate: Bool {
        func variable(_ name: String) -> String? {
            getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let locale = variable("LC_ALL") ?? variable("LC_MESSAGES") ?? variable("LANG") ?? "C"
        guard locale != "C", locale != "POSIX" else { return false }
        let languages = (variable("LANGUAGE") ?? locale).split(separator: ":")
        return languages.contains { !$0.hasPrefix("en") && $0 != "C" }
    }

    static func translate(_ key: String, plural: Message.Plural?) -> String {
        guard state.withLock({ $0 != nil }) else { return plural.map { $0.count == 1 ? key : $0.key } ?? key }
        // Untranslated, gettext answers with the key's own pointer: read it before the bridged
        // C string goes away.
        return key.withCString { one in
            guard let plural else { return String(cString: dgettext(domain, one)) }
            return plural.key.withCString { other in
                String(cString: dngettext(domain, one, other, UInt(max(0, plural.count))))
            }
        }
    }

    /// The locale `LC_TIME` names, as glibc reads it (`LC_ALL`, else `LC_TIME`, else `LANG`); nil
    /// for none, which is C.
    private static func timeLocaleName() -> String? {
        for name in ["LC_ALL", "LC_TIME", "LANG"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return nil
    }

    /// A moment to the minute, written for people in the environment's `LC_TIME` (`26/11/26 20:36`
    /// in he_IL); nil in C, C.UTF-8 or POSIX, or before `activate`, where songbox writes ISO 8601.
    public static func minute(_ seconds: Int64) -> String? {
        guard let time = state.withLock({ $0?.time }) else { return nil }
        var buffer = [CChar](repeating: 0, count: 96)
        let written = songbox_format_minute(&buffer, buffer.count, seconds, time)
        guard written > 0 else { return nil }
        return String(decoding: buffer.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `number` with `digits` decimals, written for people: with the decimal point of the
    /// environment's `LC_NUMERIC` (as C writes it before `activate`).
    public static func number(_ number: Double, digits: Int) -> String {
        decimal(number, digits: digits, localized: true)
    }

    /// A size as people read it: `812 B`, `1.5 MB` (powers of 1024, the locale's decimal point).
    public static func bytes(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : number(value, digits: 1) + " " + units[unit]
    }

    /// `number` with `digits` decimals: as C writes it, or with the locale's decimal point.
    static func decimal(_ number: Double, digits: Int, localized: Bool) -> String {
        guard number.isFinite else { return String(describing: number) }
        let locale = localized ? state.withLock { $0?.numeric } ?? cLocale.value : cLocale.value
        var buffer = [CChar](repeating: 0, count: 64)
        let written = Int(songbox_format_decimal(&buffer, buffer.count, number, Int32(max(0, min(digits, 17))), locale))
        guard written > 0, written < buffer.count else { return String(describing: number) }
        return String(decoding: buffer.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private struct LocaleHandle: @unchecked Sendable { let value: locale_t? }
    private static let cLocale = LocaleHandle(value: newlocale(LC_NUMERIC_MASK, "C", nil))

    /// `$SONGBOX_LOCALEDIR`, else `share/locale` one or two folders above the executable's.
    static func localeDirectory() -> String {
        if let forced = getenv("SONGBOX_LOCALEDIR").map({ String(cString: $0) }), !forced.isEmpty { return forced }
        var folder = Executable.folder
        var candidates: [String] = []
        for _ in 0..<2 {
            folder = parent(of: folder)
            candidates.append(folder + "/share/locale")
        }
        return candidates.first { access($0, F_OK) == 0 } ?? candidates[0]
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

extension Catalog {
    /// Every translation of the catalog of `language` (`he`), English text to translated text,
    /// read from its compiled file whatever language this process speaks: what a web page in
    /// that language is given. Empty when there is no such catalog (English) or it is damaged.
    public static func translations(language: String) -> [String: String] {
        guard !language.isEmpty, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }),
              let file = fopen(localeDirectory() + "/\(language)/LC_MESSAGES/\(domain).mo", "rb") else { return [:] }
        defer { fclose(file) }
        // A catalog is small (tens of KiB); a file past this is not one of songbox's.
        var bytes = [UInt8](repeating: 0, count: 4 << 20)
        let count = fread(&bytes, 1, bytes.count, file)
        return MOFile.entries(Array(bytes[..<count]))
    }
}

/// GNU gettext's compiled catalog (`.mo`): a header, then two tables of (length, offset) pairs,
/// the original strings' and the translations'. Plural forms keep their first (singular) form.
enum MOFile {
    static func entries(_ bytes: [UInt8]) -> [String: String] {
        func word(_ at: Int, _ littleEndian: Bool) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            let value = bytes[at..<(at + 4)].enumerated().reduce(UInt32(0)) { total, byte in
                total | UInt32(byte.element) << (littleEndian ? 8 * byte.offset : 8 * (3 - byte.offset))
            }
            return Int(value)
        }
        guard let magic = word(0, true) else { return [:] }
        let littleEndian = magic == 0x9504_12DE
        guard littleEndian || magic == 0xDE12_0495, let count = word(8, littleEndian), let originals = word(12, littleEndian),
              let translations = word(16, littleEndian), count < 1 << 20 else { return [:] }
        func string(_ table: Int, _ index: Int) -> String? {
            guard let length = word(table + 8 * index, littleEndian), let offset = word(table + 8 * index + 4, littleEndian),
                  offset + length <= bytes.count else { return nil }
            // The first of a plural's forms (they are NUL-separated).
            let text = bytes[offset..<(offset + length)].split(separator: 0, omittingEmptySubsequences: false).first ?? []
            return String(decoding: text, as: UTF8.self)
        }
        var entries: [String: String] = [:]
        for index in 0..<count {
            guard let original = string(originals, index), !original.isEmpty, let translated = string(translations, index) else { continue }
            entries[original] = translated
        }
        return entries
    }
}
