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
        let words = (1...1_001).map { "w\($0)" }
        for arguments in [["ls"] + words, ["ls", "--json"] + words] {
            let output = try songbox.run(arguments)
            #expect(output.status == 1)
            #expect(output.stderr.hasPrefix("Error: the query has too many terms (1001; at most 1000)"), "\(output.stderr.prefix(300))")
            #expect(output.stderr.count < 400)  // no SQL, no echo of the query
        }
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
}
