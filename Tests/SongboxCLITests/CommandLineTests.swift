import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// The `songbox` binary end to end, on the bundled example library and on generated folders.
@Suite struct CommandLineTests: TestLibrarySuite {
    let library: TestLibrary
    let examples = TestLibrary.examples

    init() throws {
        library = try TestLibrary()
    }

    func scanExamples() throws {
        try library.scanExamples()
    }

    func tracks(_ query: String...) throws -> [[String: Any]] {
        let output = try songbox.run(["ls", "--json"] + query)
        try #require(output.status == 0, "\(output.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
    }


    /// `ls` with no option besides --db skips swift-argument-parser (see `PlainListCommand`); it must print
    /// exactly what the parsed command prints (forced here by a --db after the query).
    @Test(arguments: [["title:אהבה"], [], ["year>2000", "-artist:Mabel"], ["artist:Mabel Grey", "sort:-year"],
                      ["nothing:matches"], ["title:("], ["limit:2", "sort:title"]])
    func thePlainListCommandPrintsWhatTheParsedCommandPrints(query: [String]) throws {
        try scanExamples()
        let quick = try songbox.run(["ls"] + query)
        let parsed = try songbox.run(["ls"] + query + ["--db", songbox.database], useDatabase: false)
        #expect(quick.stdout == parsed.stdout)
        #expect(quick.stderr == parsed.stderr)
        #expect(quick.status == parsed.status)
    }
    @Test func scanPrintsASummaryAndListsTheLibrary() throws {
        let scan = try songbox.run(["scan", examples])
        #expect(scan.status == 0)
        #expect(scan.stdout.contains("16 added, 0 updated, 0 moved, 0 missing, 0 removed, 0 unchanged, 0 unreadable"))
        let again = try songbox.run(["scan"])  // no path: the folders scanned before, and it says which
        #expect(again.lines.first == "Rescanning the folders scanned before: \(FilePathsForTests.real(examples))")
        #expect(again.stdout.contains("0 added, 0 updated, 0 moved, 0 missing, 0 removed, 16 unchanged"))

        let listing = try songbox.run(["ls"])
        #expect(listing.lines.count == 17)
        #expect(listing.lines.first?.hasPrefix("ID  ARTIST") == true)
    }

    @Test func columnsStayAlignedWithHebrewAndNiqqud() throws {
        try scanExamples()
        let lines = try songbox.run(["ls"]).lines
        // The ALBUM column starts at the same terminal column on every line.
        let header = try #require(lines.first)
        let albumColumn = TerminalWidth.of(String(header[..<header.range(of: "ALBUM")!.lowerBound]))
        for line in lines.dropFirst() {
            let title = try #require(try tracks("id:=\(line.split(separator: " ").first!)").first?["album"] as? String)
            let start = try #require(line.range(of: title, options: .backwards)?.lowerBound)
            #expect(TerminalWidth.of(String(line[..<start])) == albumColumn, "\(line)")
        }
    }

    @Test func searchIgnoresNiqqudCaseAndPrefixLetters() throws {
        try scanExamples()
        let love = try tracks("title:אהבה").compactMap { $0["title"] as? String }
        #expect(love.contains("אַהֲבָה בַּגָּלִיל"))
        #expect(love.contains("והאהבה נשארה"))
        #expect(love.contains("אהבה ראשונה"))
        let english = try tracks("title:LOVE").compactMap { $0["title"] as? String }
        #expect(Set(english) == ["Love in Spring", "All the Lovers Came Home"])
        // The shell took the quotes away; songbox puts them back.
        #expect(try tracks("artist:נגה שחר").count == 4)
        // A negated term is query text, not an unknown option.
        #expect(try tracks("-artist:נגה", "-artist:mabel").count == 9)
    }

    @Test func jsonHasTheDocumentedKeysInOrder() throws {
        try scanExamples()
        let output = try songbox.run(["ls", "--json", "limit:1"])
        let keys = output.stdout.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\""), let end = trimmed.dropFirst().firstIndex(of: "\"") else { return nil }
            return String(trimmed[trimmed.index(after: trimmed.startIndex)..<end])
        }
        #expect(keys == ["id", "path", "title", "artist", "album", "albumartist", "genre", "year", "track", "disc",
                         "duration", "plays", "skips", "last_played", "added", "rating", "liked",
                         "tempo", "key", "loudness", "energy", "danceability", "valence", "art"])
    }

    @Test func showPrintsEveryFieldWithLyrics() throws {
        try scanExamples()
        let withLyrics = try #require(try tracks("lyrics:לילה").first)
        let id = try #require(withLyrics["id"] as? Int)
        let show = try songbox.run(["show", String(id)])
        #expect(show.status == 0)
        #expect(show.stdout.contains("samplerate"))
        #expect(show.stdout.contains("lyrics:"))
        let byPath = try songbox.run(["show", "--json", try #require(withLyrics["path"] as? String)])
        let object = try #require(JSONSerialization.jsonObject(with: Data(byPath.stdout.utf8)) as? [String: Any])
        #expect(object["id"] as? Int == id)
        #expect((object["lyrics"] as? String)?.isEmpty == false)
    }

    @Test func editOverridesTagsWithoutTouchingTheFile() throws {
        try scanExamples()
        let track = try #require(try tracks("title:=Paper Boats").first)
        let id = try #require(track["id"] as? Int)
        let path = try #require(track["path"] as? String)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let edit = try songbox.run(["edit", String(id), "title=Paper Planes", "rating=4", "liked=yes"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try #require(try tracks("id:=\(id)").first)
        #expect(edited["title"] as? String == "Paper Planes")
        #expect(edited["rating"] as? Int == 4)
        #expect(edited["liked"] as? Bool == true)
        #expect(try tracks("title:planes liked:yes").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // A rescan of a changed file keeps the edit; an empty value goes back to the tag.
        _ = try songbox.run(["scan", examples])
        #expect(try tracks("id:=\(id)").first?["title"] as? String == "Paper Planes")
        _ = try songbox.run(["edit", String(id), "title="])
        #expect(try tracks("id:=\(id)").first?["title"] as? String == "Paper Boats")

        let bad = try songbox.run(["edit", String(id), "bitrate=3"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("'bitrate' cannot be edited"))
    }

    @Test func rmRemovesFromTheLibraryKeepsFilesAndLaterScansOut() throws {
        try scanExamples()
        let removed = try songbox.run(["rm", "artist:Mabel Grey"])
        #expect(removed.status == 0)
        #expect(removed.stdout.contains("Removed 3 tracks"))
        #expect(try tracks("artist:mabel").isEmpty)
        let rescan = try songbox.run(["scan", examples])
        #expect(rescan.stdout.contains("3 excluded"))
        #expect(try tracks().count == 13)
        #expect(try songbox.run(["rm"]).status != 0)
    }

    @Test func statsCountsTheLibrary() throws {
        try scanExamples()
        let output = try songbox.run(["stats", "--json"])
        let stats = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(stats["tracks"] as? Int == 16)
        #expect(stats["artists"] as? Int == 5)
        #expect(stats["folders"] as? [String] == [examples])
        #expect(try songbox.run(["stats"]).stdout.contains("tracks      16"))
    }

    @Test func aMalformedQueryIsAClearErrorThatPointsAtThePosition() throws {
        try scanExamples()
        let output = try songbox.run(["ls", "year:1960..abc"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("query:"))
        let unknown = try songbox.run(["ls", "titel:x"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("title"))
    }

    @Test func errorsSayWhatAndWhere() throws {
        let missing = try songbox.run(["show", "999"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no track '999'"))
        let badDatabase = try SongboxRunner(database: "/proc/songbox/library.db").run(["ls"])
        #expect(badDatabase.status != 0)
        #expect(badDatabase.stderr.contains("/proc/songbox/library.db"))
        #expect(badDatabase.stderr.contains("hint:"))
    }

    @Test func aMissingFolderIsReportedAndRemovesNothing() throws {
        try scanExamples()
        let output = try songbox.run(["scan", folder + "/not-mounted"])
        #expect(output.status == 1)
        #expect(output.stdout.contains("unavailable: \(folder)/not-mounted"))
        #expect(try tracks().count == 16)
    }

    @Test func withNothingScannedAndNoMusicFolderScanSaysWhatToDo() throws {
        let output = try songbox.run(["scan"], environment: ["HOME": folder + "/empty-home"])
        #expect(output.status == 1)
        #expect(output.stdout.contains("unavailable: \(folder)/empty-home/Music"))
        #expect(output.stdout.contains("hint: no music folder scanned yet"))
    }

    @Test func theDatabaseComesFromSONGBOX_DBWithoutDashDashDB() throws {
        let path = folder + "/from-env.db"
        let output = try songbox.run(["scan", examples], environment: ["SONGBOX_DB": path], useDatabase: false)
        #expect(output.status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try songbox.run(["--db", path, "stats"], useDatabase: false).stdout.contains("tracks      16"))
        // `--db` also works after the command name.
        #expect(try songbox.run(["stats", "--db", path], useDatabase: false).stdout.contains("tracks      16"))
    }

    @Test func onATerminalTheScanDrawsAProgressBar() throws {
        // script(1) gives songbox a pseudo-terminal, as a person at a shell would.
        let command = "\(SongboxRunner.executable) --db \(songbox.database) scan \(examples)"
        let output = try SongboxRunner.run(executable: "/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("\r[##############################] 16/16 files"))
        #expect(output.stdout.contains("\r\u{1B}[K"))  // the bar is wiped before the summary
        #expect(output.stdout.contains("16 added"))
    }

    /// Help is wrapped once, by the parser at the terminal's width (not by hand and again by
    /// it): wider than any paragraph, each paragraph of a command's description is one line.
    @Test func helpParagraphsAreWrappedOnceAtTheTerminalsWidth() throws {
        for command in [["scan"], ["edit"], ["analyze"], ["run"], ["daemon"], ["play"], ["autoplay"], ["lyrics"], ["art"],
                        ["playlist", "smart"], ["playlist", "export"], ["playlist", "import"], ["add-url"], ["cache", "add"]] {
            for language in ["C.UTF-8", "he_IL.UTF-8"] {
                let output = try songbox.run(command + ["--help"], environment: ["COLUMNS": "1000", "LANG": language],
                                             useDatabase: false)
                let description = output.stdout.components(separatedBy: "USAGE:").first ?? ""
                let lines = description.split(separator: "\n", omittingEmptySubsequences: false)
                let broken = zip(lines, lines.dropFirst()).filter { !$0.0.isEmpty && !$0.1.isEmpty }
                #expect(output.status == 0 && broken.isEmpty, "\(command) \(language): \(description)")
            }
        }
    }

    @Test func helpIsEverywhere() throws {
        for command in ["scan", "ls", "show", "edit", "rm", "stats", "version"] {
            let output = try songbox.run([command, "--help"], useDatabase: false)
            #expect(output.status == 0, "\(command)")
            #expect(output.stdout.contains("USAGE"), "\(command)")
        }
    }
}

/// Terminal columns of a string, computed independently of the code under test: Python's
/// unicodedata (combining marks take no column, East Asian wide take two).
enum TerminalWidth {
    static func of(_ text: String) -> Int {
        let script = """
            import sys, unicodedata
            s = sys.argv[1]
            print(sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in s))
            """
        let output = try? SongboxRunner.run(executable: "/usr/bin/python3", ["-c", script, text])
        return Int(output?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
    }
}

enum FilePathsForTests {
    /// `path` with symlinks resolved, as the library keeps scan folders.
    static func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
}
