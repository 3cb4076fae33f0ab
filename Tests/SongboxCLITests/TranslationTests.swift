import Foundation
@testable import SongboxMessages
import SongboxTestSupport
import Testing

/// The catalog: every message the sources say to people is in po/he.po, translated.
@Suite struct CatalogTests {
    struct Entry: Equatable {
        var msgid: String
        var plural: String?
        var translations: [String]
        var fuzzy: Bool
    }

    /// The msgids scripts/extract-messages.py finds in Sources (what `Message` makes of each literal).
    static func extracted() throws -> [(msgid: String, plural: String?, where: [String])] {
        let output = try SongboxRunner.run(executable: "/usr/bin/python3",
                                           [Fixtures.packageRoot + "/scripts/extract-messages.py", "--json", Fixtures.packageRoot + "/Sources"])
        guard output.status == 0 else { throw FixtureError("extract-messages.py: \(output.stderr)") }
        let list = try JSONSerialization.jsonObject(with: output.stdoutBytes) as? [[String: Any]] ?? []
        return list.map { ($0["msgid"] as? String ?? "", $0["msgid_plural"] as? String, $0["where"] as? [String] ?? []) }
    }

    /// The entries of a .po file (the header left out).
    static func parse(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        var current = Entry(msgid: "", plural: nil, translations: [], fuzzy: false)
        var field: String?
        var started = false
        func flush() {
            if started, !current.msgid.isEmpty { entries.append(current) }
            current = Entry(msgid: "", plural: nil, translations: [], fuzzy: false)
            started = false
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#,") {
                if started { flush() }
                current.fuzzy = line.contains("fuzzy")
            } else if line.hasPrefix("#") || line.isEmpty {
                continue
            } else if let space = line.firstIndex(of: " "), line.first != "\"" {
                let keyword = String(line[..<space])
                let value = unquote(String(line[line.index(after: space)...]))
                if keyword == "msgid" {
                    if started { flush() }
                    started = true
                }
                field = keyword
                append(value, to: keyword, in: &current)
            } else if let field {
                append(unquote(line), to: field, in: &current, continuing: true)
            }
        }
        flush()
        return entries
    }

    static func append(_ value: String, to field: String, in entry: inout Entry, continuing: Bool = false) {
        switch field {
        case "msgid": entry.msgid += value
        case "msgid_plural": entry.plural = (entry.plural ?? "") + value
        default:
            if continuing, !entry.translations.isEmpty { entry.translations[entry.translations.count - 1] += value }
            else { entry.translations.append(value) }
        }
    }

    static func unquote(_ quoted: String) -> String {
        var text = quoted.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 else { return text }
        text = String(text.dropFirst().dropLast())
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result += character == "n" ? "\n" : character == "t" ? "\t" : String(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func catalog(_ language: String) throws -> [Entry] {
        parse(try String(contentsOfFile: Fixtures.packageRoot + "/po/\(language).po", encoding: .utf8))
    }

    @Test func everyMessageInTheSourcesHasAHebrewTranslationThatIsNotTheEnglish() throws {
        let messages = try Self.extracted()
        let hebrew = try Self.catalog("he")
        let byKey = Dictionary(hebrew.map { ($0.msgid, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for message in messages {
            let place = message.where.first ?? "?"
            guard let entry = byKey[message.msgid] else {
                problems.append("\(place): not in po/he.po: msgid \"\(message.msgid)\"" + (message.plural.map { " / \"\($0)\"" } ?? ""))
                continue
            }
            if entry.plural != message.plural { problems.append("\(place): the plural of \"\(message.msgid)\" differs from po/he.po's") }
            if entry.fuzzy { problems.append("\(place): \"\(message.msgid)\" is fuzzy in po/he.po") }
            let english = [message.msgid] + (message.plural.map { [$0] } ?? [])
            let forms = message.plural == nil ? 1 : 2  // he: nplurals=2
            if entry.translations.count != forms || entry.translations.contains(where: \.isEmpty) {
                problems.append("\(place): \"\(message.msgid)\" is not translated (all \(forms) forms)")
            }
            for translation in entry.translations {
                if english.contains(translation) { problems.append("\(place): \"\(message.msgid)\" is the English copied") }
                if !translation.unicodeScalars.contains(where: { (0x05D0...0x05EA).contains($0.value) }) {
                    problems.append("\(place): the translation of \"\(message.msgid)\" has no Hebrew letter: \"\(translation)\"")
                }
                if translation.unicodeScalars.contains(where: { [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069].contains($0.value) }) {
                    problems.append("\(place): the translation of \"\(message.msgid)\" has a bidi control character")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.joined(separator: "\n"))")
        // msgfmt agrees: every %s of a msgid is in its translation, the header and plural forms are sound.
        let check = try SongboxRunner.run(executable: "/usr/bin/msgfmt", ["--check", "-o", "/dev/null", Fixtures.packageRoot + "/po/he.po"])
        #expect(check.status == 0, "\(check.stderr)")
    }

    /// The extractor finds messages of every kind: a guard against a catalog test that checks nothing.
    @Test func theExtractorFindsEveryKindOfMessage() throws {
        let messages = try Self.extracted()
        let keys = Set(messages.map(\.msgid))
        for expected in ["there is no library at %s",  // SongboxError(.code, ...)
                         "check the path; to make a library there, scan into it: songbox --db %s scan /path/to/music",  // hint:
                         "Error: %s", "hint: %s",  // tr(...), say(...)
                         "a number",  // case ... in a function that returns Message
                         " (did you mean %s?)",  // return ... in one
                         "List tracks matching a query.",  // help
                         "Removed files stay out of later scans.",  // a discussion
                         "no songbox daemon serves the library %s",  // DaemonError
                         "Seek in the playing song: SECONDS, M:SS, +N/-N seconds, or N%%."] {  // a literal %
            #expect(keys.contains(expected), "\(expected)")
        }
        let plural = messages.first { $0.msgid == "Saved playlist '%s': %s track." }
        #expect(plural?.plural == "Saved playlist '%s': %s tracks.")
        // A multi-line literal: its lines without the indentation, a trailing backslash joining two.
        #expect(keys.contains { $0.hasPrefix("Without PATH, scans the folders scanned before, else ~/Music. Unchanged files are not\nre-read.") })
        #expect(keys.contains { $0.hasPrefix("A saved playlist is a list of tracks; a smart playlist is a query, evaluated each time it is read.") })
        #expect(messages.count > 400)
    }

    @Test func aMessageKeyIsItsLiteralWithAPlaceForEachValue() {
        let id = 42
        let message: Message = "no track '\(id)' at 100%"
        #expect(message.key == "no track '%s' at 100%%")
        #expect(message.description == "no track '42' at 100%")
        let seconds = 1.5
        #expect(("in \(seconds, digits: 2) s" as Message).description == "in 1.50 s")
        // A translation may put the values in another order.
        #expect(Message.fill("%2$s: %1$s%%", values: [.text("a"), .text("b")], localized: false) == "b: a%")
        // One that does not fit its values is refused (the English is said instead).
        #expect(Message.fill("%s %s", values: [.text("a")], localized: false) == nil)
        #expect(Message(count: 1, one: "\(1) track", other: "\(1) tracks").description == "1 track")
        #expect(Message(count: 3, one: "\(3) track", other: "\(3) tracks").description == "3 tracks")
    }
}

/// The real binary in Hebrew: each command's errors, hints, summaries and help; JSON unchanged.
@Suite struct HebrewCommandLineTests: TestLibrarySuite {
    let library: TestLibrary
    static let hebrew = ["LANG": "he_IL.UTF-8"]

    init() throws {
        try Catalogs.compile()
        library = try TestLibrary()
        try library.scanExamples()
        // The tests need the locale itself: scripts/install-deps.sh --test generates it.
        let locales = try SongboxRunner.run(executable: "/usr/bin/locale", ["-a"])
        try #require(locales.stdout.lowercased().contains("he_il.utf8"),
                     "the he_IL.UTF-8 locale is missing: run scripts/install-deps.sh --test")
    }

    func inBoth(_ arguments: [String], useDatabase: Bool = true, environment: [String: String] = [:])
        throws -> (english: SongboxRunner.Output, hebrew: SongboxRunner.Output) {
        (try songbox.run(arguments, environment: environment, useDatabase: useDatabase),
         try songbox.run(arguments, environment: environment.merging(Self.hebrew) { $1 }, useDatabase: useDatabase))
    }

    static func hasHebrew(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0x05D0...0x05EA).contains($0.value) }
    }

    /// Each mistake, in English and in Hebrew: the same exit status and standard output, and the
    /// error on standard error said in Hebrew (with its hint) where the English says it in English.
    @Test(arguments: [
        (["show", "999"], "no track '999' in the library", "שגיאה: אין רצועה '999' בספרייה\n  עצה: מזהים אפשר למצוא עם `songbox ls`"),
        (["lyrics", "999"], "no track '999'", "אין רצועה '999' בספרייה"),
        (["art", "1"], "track 1 has no picture", "לרצועה 1 אין תמונה"),
        (["ls", "year:abc"], "'abc' is not a number for year", "שגיאה: query:6: 'abc' אינו מספר עבור year\n  עצה: כתבו מספר: year:3"),
        (["ls", "atrist:x"], "unknown field 'atrist'", "שדה לא מוכר 'atrist'"),
        (["ls", "zzzz"], "no tracks match zzzz", "אין רצועות שמתאימות ל־zzzz"),
        (["play", "--output", "null", "zzzz"], "no track matches zzzz", "אין רצועה שמתאימה ל־zzzz"),
        (["playlist", "show", "nope"], "no playlist named 'nope'", "אין רשימת השמעה בשם 'nope'"),
        (["playlist", "rm", "nope"], "no playlist named 'nope'", "אין רשימת השמעה בשם 'nope'"),
        (["edit", "1", "colour=red"], "'colour' cannot be edited", "אי אפשר לערוך את 'colour'\n  עצה: שדות שאפשר לערוך:"),
        (["edit", "1", "rating=9"], "rating must be 1 to 5", "הדירוג חייב להיות 1 עד 5"),
        (["edit", "1", "x"], "expected field=value, got 'x'", "ציפיתי ל־field=value, התקבל 'x'"),
        (["rm"], "rm needs a query", "rm צריך שאילתה"),
        (["history", "--since", "3"], "--since goes with --top", "--since הולך עם --top"),
        (["alarm", "rm", "nope"], "no alarm named 'nope'", "אין שעון מעורר בשם 'nope'"),
        (["lss"], "unknown command 'lss' (did you mean 'ls'?)", "שגיאה: פקודה לא מוכרת 'lss' (האם התכוונתם ל־'ls'?)"),
        (["ls", "--jsn"], "unknown option '--jsn' (did you mean '--json'?)", "שגיאה: אפשרות לא מוכרת '--jsn' (האם התכוונתם ל־'--json'?)"),
        (["scan", "/nonexistent/music"], "unavailable: /nonexistent/music", "לא זמין: /nonexistent/music"),
        (["run", "/nonexistent/missing.lua"], "missing.lua: cannot read the script", "missing.lua: אי אפשר לקרוא את הסקריפט"),
        (["run", "--for", "abc", "x.lua"], "--for takes a duration", "--for מקבל משך זמן"),
        (["analyze", "zzzz"], "no tracks match zzzz", "אין רצועות שמתאימות ל־zzzz"),
        (["play", "--volume", "200"], "--volume is 0 to 100", "ערך --volume הוא 0 עד 100"),
        (["vol", "abc"], "the volume is a number", "עוצמת הקול היא מספר"),
        (["edit", "1", "year=abc"], "year must be a number, got 'abc'", "השנה חייבת להיות מספר, התקבל 'abc'"),
        (["playlist", "import", "/nonexistent/list.json"], "/nonexistent/list.json: no such playlist file", "שגיאה: /nonexistent/list.json: אין קובץ רשימת השמעה כזה"),
        (["playlist", "export", "nope", "/nonexistent/list.m3u8"], "no playlist named 'nope'", "אין רשימת השמעה בשם 'nope'"),
        (["alarm", "add", "wake", "--at", "25:00"], "'25:00' is not a time of day", "'25:00' אינו שעה ביום"),
        (["alarm", "add", "wake", "--at", "07:00", "--zone", "Nowhere/Town"], "unknown time zone 'Nowhere/Town'", "אזור זמן לא מוכר 'Nowhere/Town'"),
        (["alarm", "add", "wake", "--at", "07:00", "--volume", "120"], "volume is from 0 to 100, got 120", "volume הוא בין 0 ל־100, התקבל 120"),
        (["play", "--output", "bogus:x", "zzzz"], "unknown output \"bogus:x\"", "פלט לא מוכר \"bogus:x\""),
        (["play", "--output", "wav:/nonexistent/dir/x.wav", "zzzz"], "the folder /nonexistent/dir does not exist", "התיקייה /nonexistent/dir לא קיימת"),
        (["run", "--start-time", "soon", "x.lua"], "--start-time: 'soon' has no time of day", "באפשרות --start-time: ב־'soon' אין שעה ביום"),
    ])
    func anErrorIsSaidInHebrew(arguments: [String], english: String, hebrew: String) throws {
        let (inEnglish, inHebrew) = try inBoth(arguments)
        #expect(inEnglish.status != 0)
        #expect(inHebrew.status == inEnglish.status)
        #expect(inHebrew.stdout.isEmpty == inEnglish.stdout.isEmpty)
        let said = inEnglish.stderr + inEnglish.stdout, saidInHebrew = inHebrew.stderr + inHebrew.stdout
        #expect(said.contains(english), "\(said)")
        #expect(saidInHebrew.contains(hebrew), "\(saidInHebrew)")
        #expect(!saidInHebrew.contains(english), "\(saidInHebrew)")
    }

    /// Tables for people have their headings in the reader's language (also the quick listing,
    /// which starts before anything else), and the history says play/skip and why in words.
    @Test func tableHeadingsAndHistoryWordsAreInHebrew() throws {
        let (english, hebrew) = try inBoth(["ls", "Mabel"])
        #expect(english.lines.first?.hasPrefix("ID  ARTIST") == true, "\(english.stdout)")
        #expect(hebrew.lines.first?.hasPrefix("מזהה  אמן") == true, "\(hebrew.stdout)")
        let cells = { (output: SongboxRunner.Output) in output.lines.dropFirst().map { $0.split(separator: " ") } }
        #expect(cells(english) == cells(hebrew), "the rows hold the same (the columns are as wide as the headings need)")
        let glibcChoice = try songbox.run(["ls", "Mabel"], environment: ["LANG": "C.UTF-8", "LANGUAGE": "he"])
        #expect(glibcChoice.lines.first?.hasPrefix("מזהה") == true, "\(glibcChoice.stdout)")
        #expect(try songbox.run(["play", "--output", "null", "--fast", "title:\"Old Roads\""]).status == 0)
        let (history, historyInHebrew) = try inBoth(["history"])
        #expect(history.lines.first?.hasPrefix("WHEN") == true && history.stdout.contains("play  finished"), "\(history.stdout)")
        #expect(historyInHebrew.lines.first?.hasPrefix("מתי") == true && historyInHebrew.stdout.contains("השמעה  הסתיים"),
                "\(historyInHebrew.stdout)")
        let (json, jsonInHebrew) = try inBoth(["history", "--json"])
        #expect(json.stdout == jsonInHebrew.stdout && json.stdout.contains("\"kind\": \"play\""), "\(json.stdout)")
        // When: ISO 8601 in C; the locale's way of writing a date elsewhere (he_IL day/month/year,
        // de_DE with dots).
        let when = { (output: SongboxRunner.Output) in String(output.lines.dropFirst().first?.prefix(while: { $0 != " " }) ?? "") }
        #expect(when(history).wholeMatch(of: /\d{4}-\d\d-\d\d/) != nil, "\(history.stdout)")
        #expect(when(historyInHebrew).wholeMatch(of: /\d\d\/\d\d\/\d\d/) != nil, "\(historyInHebrew.stdout)")
        let german = try songbox.run(["history"], environment: ["LANG": "de_DE.UTF-8"])
        #expect(when(german).wholeMatch(of: /\d\d\.\d\d\.\d{4}/) != nil, "\(german.stdout)")
    }

    /// An alarm as `alarm ls` describes it, in each language; its JSON is the same in both.
    @Test func alarmsAreDescribedInHebrew() throws {
        #expect(try songbox.run(["alarm", "add", "wake", "--at", "07:00", "--days", "mon-fri", "--playlist", "Morning",
                                 "--fade", "20m", "--curve", "log", "--volume", "70"]).status == 0)
        try songbox.run(["alarm", "disable", "wake"])
        let (english, hebrew) = try inBoth(["alarm", "ls"])
        #expect(english.stdout.contains("playlist Morning, volume 0→70 over 20m (log), snooze 9m, timeout 60m, disabled"), "\(english.stdout)")
        #expect(hebrew.stdout.contains("רשימת השמעה Morning, עוצמה 0→70 במשך 20m (log), נודניק 9m, כיבוי אוטומטי אחרי 60m, כבוי"),
                "\(hebrew.stdout)")
        let (json, jsonInHebrew) = try inBoth(["alarm", "ls", "--json"])
        #expect(json.stdout == jsonInHebrew.stdout && !json.stdout.isEmpty)
    }

    /// A library path that is not there, a remote control with no daemon: errors made before any
    /// library is open.
    @Test func errorsBeforeTheLibraryAreSaidInHebrew() throws {
        let (english, hebrew) = try inBoth(["--db", folder + "/missing.db", "ls"], useDatabase: false)
        #expect(english.status == 1 && hebrew.status == 1)
        #expect(english.stderr.contains("Error: there is no library at \(folder)/missing.db\n  hint: check the path"), "\(english.stderr)")
        #expect(hebrew.stderr.contains("שגיאה: אין ספרייה ב־\(folder)/missing.db\n  עצה: בדקו את הנתיב"), "\(hebrew.stderr)")

        let nowhere = ["MPD_HOST": folder + "/no.sock", "SONGBOX_SOCKET": folder + "/no.sock"]
        for command in [["status"], ["plugin", "ls"], ["alarm", "snooze"]] {
            let (english, hebrew) = try inBoth(command, environment: nowhere)
            #expect(english.status == hebrew.status && english.status != 0)
            #expect(english.stderr.contains("no songbox daemon"), "\(english.stderr)")
            #expect(hebrew.stderr.contains("שגיאה: אף daemon של songbox") || hebrew.stderr.contains("שגיאה: אין daemon של songbox"),
                    "\(hebrew.stderr)")
        }

        try "bogus = 1\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let (play, playInHebrew) = try inBoth(["play", "--output", "null", "x"], environment: ["SONGBOX_CONFIG": folder + "/config"])
        #expect(play.status == playInHebrew.status && play.status != 0)
        #expect(play.stderr.contains("config:1: unknown setting 'bogus'\n  hint: keys: output,"), "\(play.stderr)")
        #expect(playInHebrew.stderr.contains("config:1: הגדרה לא מוכרת 'bogus'\n  עצה: מפתחות: output,"), "\(playInHebrew.stderr)")
    }

    @Test func summariesAndHelpAreInHebrew() throws {
        let scan = try songbox.run(["scan", Fixtures.packageRoot + "/examples/music"], environment: Self.hebrew)
        #expect(scan.status == 0)
        #expect(scan.stdout.hasPrefix("נסרקו 16 קבצים ב־"), "\(scan.stdout)")
        #expect(scan.stdout.contains(": 0 נוספו, 0 עודכנו"), "\(scan.stdout)")

        let saved = try songbox.run(["playlist", "save", "One", "title:\"Old Roads\""], environment: Self.hebrew)
        #expect(saved.stdout == "רשימת ההשמעה 'One' נשמרה: רצועה אחת (1).\n", "\(saved.stdout)")
        let many = try songbox.run(["playlist", "save", "Many", "artist:Lanterns"], environment: Self.hebrew)
        #expect(many.stdout == "רשימת ההשמעה 'Many' נשמרה: 4 רצועות.\n", "\(many.stdout)")

        let played = try songbox.run(["play", "--output", "null", "--fast", "title:\"Old Roads\""], environment: Self.hebrew)
        #expect(played.status == 0)
        #expect(played.stderr.contains("נוגנה רצועה אחת (1): נרשמו השמעה אחת (1) ו־0 דילוגים."), "\(played.stderr)")

        let stats = try songbox.run(["stats"], environment: Self.hebrew)
        #expect(stats.lines.first == "רצועות        16", "\(stats.stdout)")
        #expect(stats.lines.contains { $0.hasPrefix("גודל המוזיקה  ") }, "\(stats.stdout)")

        let help = try songbox.run(["--help"], environment: Self.hebrew)
        #expect(help.stdout.contains("רשימת הרצועות שמתאימות לשאילתה."), "\(help.stdout)")
        let commandHelp = try songbox.run(["ls", "--help"], environment: Self.hebrew)
        #expect(commandHelp.stdout.contains("הדפסת מערך JSON של רצועות."), "\(commandHelp.stdout)")
        let discussion = try songbox.run(["scan", "--help"], environment: Self.hebrew)
        #expect(discussion.stdout.contains("בלי PATH, סורק את התיקיות שנסרקו קודם"), "\(discussion.stdout)")
    }

    /// A scan that holds a folder says why, and what it kept, in Hebrew.
    @Test func aHeldFolderIsSaidInHebrew() throws {
        let drive = folder + "/drive"
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/examples/music", toPath: drive)
        #expect(try songbox.run(["scan", drive]).status == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: drive) { try FileManager.default.removeItem(atPath: drive + "/" + file) }
        let held = try songbox.run(["scan", drive], environment: Self.hebrew)
        #expect(held.status == 1)
        #expect(held.stdout.contains("מוחזקת: \(drive): התיקייה ריקה (כונן שלא מחובר?); 16 הרצועות שלה שלא נמצאו נשארות כפי שהיו"), "\(held.stdout)")
    }

    /// What programs read is the same in every language, byte for byte.
    @Test func jsonIsTheSameInEveryLanguage() throws {
        for arguments in [["ls", "--json"], ["ls", "--json", "title:אהבה"], ["show", "--json", "9"], ["stats", "--json"],
                          ["playlist", "ls", "--json"], ["history", "--json"], ["ls", "--json", "zzzz"]] {
            let (english, hebrew) = try inBoth(arguments)
            #expect(english.status == 0 && hebrew.status == 0, "\(arguments): \(hebrew.stderr)")
            #expect(english.stdoutBytes == hebrew.stdoutBytes, "\(arguments)")
            #expect(english.stdoutBytes.count > 1)
        }
    }

    /// Numbers said to people take the decimal point of LC_NUMERIC; JSON keeps its own.
    @Test func decimalNumbersFollowTheLocale() throws {
        let locales = try SongboxRunner.run(executable: "/usr/bin/locale", ["-a"])
        try #require(locales.stdout.lowercased().contains("de_de.utf8"), "the de_DE.UTF-8 locale is missing: run scripts/install-deps.sh --test")
        let comma = ["LC_NUMERIC": "de_DE.UTF-8"]
        let scan = try songbox.run(["scan", Fixtures.packageRoot + "/examples/music"], environment: comma)
        #expect(scan.stdout.range(of: #"^Scanned 16 files in \d+,\d\d s: 0 added"#, options: .regularExpression) != nil, "\(scan.stdout)")
        let (point, stats) = (try songbox.run(["stats"]), try songbox.run(["stats"], environment: comma))
        let size = { (output: SongboxRunner.Output) in output.lines.first { $0.hasPrefix("music size") } ?? "" }
        #expect(size(point).range(of: #"\d\.\d KB$"#, options: .regularExpression) != nil, "\(size(point))")
        #expect(size(stats) == size(point).replacingOccurrences(of: ".", with: ","), "\(size(stats))")
        for arguments in [["stats", "--json"], ["ls", "--json"]] {
            #expect(try songbox.run(arguments).stdoutBytes == songbox.run(arguments, environment: comma).stdoutBytes)
        }
    }

    /// The language is chosen as glibc chooses it: LC_ALL, then LC_MESSAGES, then LANG; LANGUAGE
    /// (a list) is read unless the locale is plain C.
    @Test func theLanguageIsChosenAsLinuxProgramsChooseIt() throws {
        let hebrewError = "שגיאה: אין רצועה '999' בספרייה"
        let englishError = "Error: no track '999' in the library"
        for (environment, expected) in [
            (["LANG": "he_IL.UTF-8"], hebrewError),
            (["LC_MESSAGES": "he_IL.UTF-8"], hebrewError),
            (["LC_ALL": "he_IL.UTF-8", "LANG": "C.UTF-8"], hebrewError),
            (["LC_ALL": "C.UTF-8", "LANG": "he_IL.UTF-8"], englishError),
            (["LANGUAGE": "he:en", "LANG": "C.UTF-8"], hebrewError),
            (["LANGUAGE": "he", "LANG": "C"], englishError),  // plain C: LANGUAGE is not read
            (["LANGUAGE": "fr:he", "LANG": "C.UTF-8"], hebrewError),  // no French catalog: the next one
            (["LANG": "fr_FR.UTF-8"], englishError),  // a language songbox does not speak
        ] {
            let output = try songbox.run(["show", "999"], environment: environment)
            #expect(output.stderr.hasPrefix(expected), "\(environment): \(output.stderr)")
        }
    }

    /// An installed songbox reads ../share/locale beside its folder (/usr/local/bin/songbox reads
    /// /usr/local/share/locale); SONGBOX_LOCALEDIR names another place.
    @Test func anInstalledSongboxFindsItsCatalogsBesideIt() throws {
        let prefix = Fixtures.packageRoot + "/.build/test-install-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let messages = prefix + "/share/locale/he/LC_MESSAGES"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: messages, withIntermediateDirectories: true)
        // A hard link: the program finds its folder from /proc/self/exe, which a symbolic link would not change.
        try FileManager.default.linkItem(atPath: SongboxRunner.executable, toPath: prefix + "/bin/songbox")
        let arguments = ["--db", songbox.database, "show", "999"]
        let withoutCatalogs = try SongboxRunner.run(executable: prefix + "/bin/songbox", arguments, environment: Self.hebrew)
        #expect(withoutCatalogs.stderr.hasPrefix("Error: no track '999'"), "\(withoutCatalogs.stderr)")
        try FileManager.default.copyItem(atPath: Catalogs.directory + "/he/LC_MESSAGES/songbox.mo", toPath: messages + "/songbox.mo")
        let installed = try SongboxRunner.run(executable: prefix + "/bin/songbox", arguments, environment: Self.hebrew)
        #expect(installed.stderr.hasPrefix("שגיאה: אין רצועה '999' בספרייה"), "\(installed.stderr)")

        let elsewhere = try songbox.run(["show", "999"], environment: Self.hebrew.merging(["SONGBOX_LOCALEDIR": prefix]) { $1 })
        #expect(elsewhere.stderr.hasPrefix("Error: no track '999'"), "\(elsewhere.stderr)")
        let named = try songbox.run(["show", "999"], environment: Self.hebrew.merging(["SONGBOX_LOCALEDIR": prefix + "/share/locale"]) { $1 })
        #expect(named.stderr.hasPrefix("שגיאה: אין רצועה '999'"), "\(named.stderr)")
    }
}
