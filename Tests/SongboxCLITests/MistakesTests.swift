import Foundation
import SongboxTestSupport
import Testing

/// Ordinary mistakes get an answer on standard error and a non-zero status, never silence.
@Suite struct MistakesTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    @Test func aCommaOrInOneArgumentFindsWhatTwoArgumentsFind() throws {
        let one = try songbox.run(["ls", "אהבה, love"])
        let two = try songbox.run(["ls", "אהבה,", "love"])
        #expect(one.status == 0 && one.lines.count > 3)
        #expect(one.stdout == two.stdout)
    }

    /// A 5.6-second track is shown as 0:05 and found by `duration:..0:05`: the listing and the
    /// query both count whole seconds, cut down as a player shows them; JSON keeps the exact length.
    @Test func aTracksShownLengthIsTheOneQueriesCompare() throws {
        try library.add([("five-point-six", 5.6)])
        let listed = try songbox.run(["ls", "path:five-point-six"])
        #expect(listed.lines.last?.hasSuffix("0:05") == true, "\(listed.stdout)")
        #expect(try songbox.run(["ls", "path:five-point-six", "duration:..0:05"]).lines.count == 2)
        #expect(try songbox.run(["ls", "path:five-point-six", "duration:..0:04"]).status == 1)
        #expect(try songbox.run(["ls", "--json", "path:five-point-six"]).stdout.contains("\"duration\": 5.6"))
    }

    @Test func aMistypedOptionOrCommandIsAnErrorWithTheCloseOnes() throws {
        let option = try songbox.run(["ls", "--jsn"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("unknown option '--jsn' (did you mean '--json'?)"), "\(option.stderr)")
        let playOption = try songbox.run(["play", "--shufle", "x"])
        #expect(playOption.status == 64 && playOption.stderr.contains("did you mean '--shuffle'?"), "\(playOption.stderr)")
        let command = try songbox.run(["lss"])
        #expect(command.status == 64)
        #expect(command.stderr.contains("unknown command 'lss' (did you mean 'ls'?)"), "\(command.stderr)")
        #expect(command.stdout.isEmpty)
    }

    @Test func anUnknownPlaylistNamesTheCloseOnes() throws {
        #expect(try songbox.run(["playlist", "save", "Road trip", "artist:Mabel"]).status == 0)
        let typo = try songbox.run(["ls", "playlist:Road trp"])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("no playlist named 'Road trp' (did you mean 'Road trip'?)"), "\(typo.stderr)")
    }

    @Test func noMatchIsSaidWithTheQueryAndExitsOne() throws {
        for arguments in [["ls", "zzzz"], ["ls", "zzzz", "--db", songbox.database]] {  // the quick way and the parsed way
            let output = try songbox.run(arguments)
            #expect(output.status == 1)
            #expect(output.stdout.isEmpty)
            #expect(output.stderr == "no tracks match zzzz\n")
        }
        // For programs, JSON says it with an empty array.
        let json = try songbox.run(["ls", "--json", "zzzz"])
        #expect(json.status == 0 && json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test func aHugeQueryOnTheCommandLineIsOneClearLine() throws {
        let words = (1...501).map { "w\($0)" }
        for arguments in [["ls"] + words, ["ls", "--json"] + words] {
            let output = try songbox.run(arguments)
            #expect(output.status == 1)
            #expect(output.stderr.hasPrefix("Error: the query has too many terms (501; at most 500)"), "\(output.stderr.prefix(300))")
            #expect(output.stderr.count < 400)  // no SQL, no echo of the query
        }
    }

    /// On a terminal `rm` shows what will go and asks; without one (a script), or with --yes, it
    /// goes ahead; either way it prints what it removed.
    @Test func rmAsksOnATerminalAndSaysWhatItRemoved() throws {
        // A real pseudo-terminal for stdin (and out), answered "n" then "y".
        func onTerminal(_ answer: String) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
                import os, pty, sys
                pid, fd = pty.fork()
                if pid == 0:
                    os.execv(sys.argv[1], sys.argv[1:])
                out = b""
                sent = False
                while True:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                    if not sent and b"[y/N]" in out:
                        os.write(fd, (os.environ["ANSWER"] + "\\n").encode())
                        sent = True
                _, status = os.waitpid(pid, 0)
                sys.stdout.write(out.decode("utf-8", "replace"))
                sys.exit(os.waitstatus_to_exitcode(status))
                """, SongboxRunner.executable, "--db", songbox.database, "rm", "artist:Mabel Grey"], environment: ["ANSWER": answer])
        }
        let declined = try onTerminal("n")
        #expect(declined.status == 1, "\(declined.stdout)")
        #expect(declined.stdout.contains("Remove these 3 tracks from the library (files stay)? [y/N]"), "\(declined.stdout)")
        #expect(declined.stdout.contains("Nothing removed."))
        #expect(try songbox.run(["ls", "artist:Mabel Grey"]).lines.count == 4)
        let accepted = try onTerminal("y")
        #expect(accepted.status == 0, "\(accepted.stdout)")
        #expect(accepted.stdout.contains("removed: 1  Mabel Grey - Northern Skies"), "\(accepted.stdout)")
        #expect(accepted.stdout.contains("Removed 3 tracks"))
        // Not a terminal: no question.
        let scripted = try songbox.run(["rm", "--yes", "title:שיר העמק"])
        #expect(scripted.status == 0 && scripted.lines.first == "removed: 8  להקת הגליל - שיר העמק", "\(scripted.stdout)")
        let none = try songbox.run(["rm", "title:zzzz"])
        #expect(none.status == 1 && none.stderr == "no tracks match title:zzzz\n")
    }

    @Test func aMistypedDatabasePathIsAnErrorAndMakesNothing() throws {
        let typo = folder + "/typo/x.db"
        let listing = try SongboxRunner.run(executable: SongboxRunner.executable, ["--db", typo, "ls"])
        #expect(listing.status == 1)
        #expect(listing.stderr.contains("there is no library at \(typo)"), "\(listing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/typo"))
        let made = try SongboxRunner.run(executable: SongboxRunner.executable, ["--db", typo, "scan", TestLibrary.examples])
        #expect(made.status == 0)
        #expect(made.stderr.contains("Made a new library at \(typo)"))
    }

    /// A config file the user names (`SONGBOX_CONFIG`, `--config`) that is not there, or is a
    /// folder, is an error naming the path: it meant the defaults without a word (issue 25).
    @Test func aNamedConfigThatIsNotThereIsAnErrorWithItsPath() throws {
        let script = folder + "/hello.lua"
        try "print('hello')\n".write(toFile: script, atomically: true, encoding: .utf8)
        let missing = folder + "/conifg"
        for named in [missing, folder] {
            for arguments in [["run", script], ["play", "--output", "null", "--fast", "x"], ["scan"]] {
                let output = try songbox.run(arguments, environment: ["SONGBOX_CONFIG": named])
                #expect(output.status != 0 && output.stdout.isEmpty, "\(arguments) with \(named): \(output.stdout)")
                #expect(output.stderr.contains(named), "\(arguments): \(output.stderr)")
            }
        }
        #expect(try songbox.run(["run", script], environment: ["SONGBOX_CONFIG": missing]).stderr
                    .contains("\(missing): there is no config file here"))
        let daemon = try songbox.run(["daemon", "--config", missing, "--output", "null", "--bind", "none", "--http", "none", "--socket", folder + "/d.sock"])
        #expect(daemon.status == 78, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("\(missing): there is no config file here"), "\(daemon.stderr)")
        // Not named, and not there: the defaults, as before.
        let defaults = try songbox.run(["run", script], environment: ["SONGBOX_CONFIG": "", "XDG_CONFIG_HOME": folder + "/xdg"])
        #expect(defaults.status == 0 && defaults.stdout == "hello\n", "\(defaults.stderr)")
    }

    /// A first `songbox ls` where the default library is made on demand: it says the library is
    /// empty, where it is, and how to fill it.
    @Test func anEmptyLibrarySaysWhereItIsAndHowToFillIt() throws {
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let first = try SongboxRunner.run(executable: SongboxRunner.executable, ["ls"],
                                          environment: ["HOME": home, "XDG_DATA_HOME": "", "SONGBOX_DB": "", "SONGBOX_CONFIG": "/dev/null"])
        #expect(first.status == 1)
        #expect(first.stderr.contains("the library \(home)/.local/share/songbox/library.db is empty: scan your music into it first (songbox scan ~/Music)"),
                "\(first.stderr)")
    }

    /// `show` says the language moods filter on, and whether it is the user's or a guess: it was
    /// never shown, so `edit ID language=he` could not be checked (issue 25).
    @Test func showSaysATracksLanguage() throws {
        let listed = try JSONSerialization.jsonObject(with: Data(try songbox.run(["ls", "--json", "title:אהבה", "limit:1"]).stdout.utf8)) as? [[String: Any]]
        let id = String(try #require(listed?.first?["id"] as? Int))
        let guessed = try songbox.run(["show", id])
        #expect(guessed.lines.contains { $0.hasPrefix("language") && $0.hasSuffix("  he (guessed from its letters)") }, "\(guessed.stdout)")
        #expect(try songbox.run(["edit", id, "language=yi"]).status == 0)
        #expect(try songbox.run(["show", id]).lines.contains { $0.hasPrefix("language") && $0.hasSuffix("  yi") })
        let json = try songbox.run(["show", "--json", id]).stdout
        #expect(json.contains(#""language": "yi""#) && json.contains(#""language_guessed": false"#), "\(json)")
    }

    /// `show` gives a measure to three decimals at most (it printed `tempo 133.20355776772368`);
    /// `show --json` keeps every digit.
    @Test func shownMeasuresHaveAFewDecimals() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let first = try JSONSerialization.jsonObject(with: Data(try songbox.run(["ls", "--json", "tempo>0", "limit:1"]).stdout.utf8)) as? [[String: Any]]
        let id = try #require(first?.first?["id"] as? Int)
        let shown = try songbox.run(["show", String(id)])
        #expect(shown.status == 0, "\(shown.stderr)")
        let tempo = try #require(shown.lines.first { $0.hasPrefix("tempo ") }, "\(shown.stdout)")
        #expect(shown.stdout.range(of: #"\d\.\d{4,}"#, options: .regularExpression) == nil, "\(shown.stdout)")
        #expect(tempo.range(of: #"^tempo +\d+(\.\d{1,3})?$"#, options: .regularExpression) != nil, "\(tempo)")
        let json = try songbox.run(["show", "--json", String(id)])
        #expect(json.stdout.range(of: #"\d\.\d{4,}"#, options: .regularExpression) != nil, "the JSON keeps its digits")
    }
}
