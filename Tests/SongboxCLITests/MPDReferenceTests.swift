import Foundation
import SongboxTestSupport
import Testing

/// The answers issue 27 found wrong, each compared with Debian's MPD on the same music in the
/// same run (`mpd/reference.py` sends the same requests to both): relative queue positions,
/// AlbumArtist's fallback to Artist, searches of the file name, the older filter syntax,
/// `listfiles`, `single`, a command list over the limit, and a client that half-closes.
@Suite(.serialized) struct MPDReferenceTests: TestLibrarySuite {
    let library: TestLibrary

    /// The example library with a cover, a folder of scans and a README beside the songs (what
    /// `listfiles` shows and the library does not hold). Without the album tagged in an 8-bit
    /// Hebrew code page: songbox reads its tags as Hebrew, MPD as Latin-1.
    init() throws {
        library = try TestLibrary()
        try FileManager.default.copyItem(atPath: TestLibrary.examples, toPath: library.music)
        try FileManager.default.removeItem(atPath: library.music + "/נגה שחר/ימים טובים")
        try Data(repeating: 0xFF, count: 1234).write(to: URL(fileURLWithPath: library.music + "/Mabel Grey/Old Roads/cover.jpg"))
        try FileManager.default.createDirectory(atPath: library.music + "/Mabel Grey/Old Roads/scans", withIntermediateDirectories: true)
        try library.scan()
    }

    /// `reference.py` with `parts`, against songbox (at `address`: its TCP port when nil) and
    /// against MPD: each request's answer, by request, in order.
    func answers(_ parts: [String], songboxAddress: ((DaemonProcess, Int) -> String)? = nil)
        throws -> (songbox: [[String]], mpd: [[String]], raw: String) {
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/reference.py"
        let (daemon, port) = try MPDServerTests.startDaemon(on: library)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let address = songboxAddress?(daemon, port) ?? "127.0.0.1:\(port)"
        let ours = try SongboxRunner.run(executable: "/usr/bin/python3", [script, address] + parts)
        let mpd = try ReferenceMPD(music: music, folder: folder + "/mpd")
        defer { mpd.stop() }
        let theirs = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1:\(mpd.port)"] + parts)
        #expect(ours.status == 0 && theirs.status == 0, "songbox: \(ours.stderr)\nMPD: \(theirs.stderr)")
        return (Self.blocks(ours.lines), Self.blocks(theirs.lines), "songbox:\n\(ours.stdout)\nMPD:\n\(theirs.stdout)")
    }

    /// The lines split at each `>> request`.
    static func blocks(_ lines: [String]) -> [[String]] {
        var blocks: [[String]] = []
        for line in lines {
            if line.hasPrefix(">> ") || blocks.isEmpty { blocks.append([line]) } else { blocks[blocks.count - 1].append(line) }
        }
        return blocks
    }

    /// Every answer of `parts` the same from songbox as from MPD.
    func expectSameAnswers(_ parts: [String], atLeast count: Int) throws {
        let (songbox, mpd, raw) = try answers(parts)
        #expect(mpd.count >= count, "\(raw)")
        #expect(songbox.count == mpd.count, "\(raw)")
        for (ours, theirs) in zip(songbox, mpd) {
            #expect(ours == theirs, "\(theirs.first ?? "")\nsongbox: \(ours.dropFirst())\nMPD:     \(theirs.dropFirst())")
        }
    }

    /// `add URI +N`, `addid URI -N`, `move`, `moveid` with `+N`/`-N`: counted from the current
    /// song (`+0` right after it, `-0` in its place), with MPD's errors past the ends, for the
    /// current song itself, and with no current song.
    @Test func relativePositionsCountFromTheCurrentSongAsInMPD() throws {
        try expectSameAnswers(["positions"], atLeast: 30)
    }

    /// A song without an AlbumArtist tag is listed, counted, found and filtered by its Artist.
    @Test func albumArtistFallsBackToArtistAsInMPD() throws {
        try expectSameAnswers(["albumartist"], atLeast: 12)
    }

    /// `file` and `filename` (pairs and expressions) match the song's URI: whole with `find`
    /// and `==`, a piece of it with `search` and `contains`.
    @Test func fileSearchesMatchTheSongsURIAsInMPD() throws {
        try expectSameAnswers(["files"], atLeast: 7)
    }

    /// `find base`, `modified-since` as a pair, `sort Last-Modified`, `list file`, `search any ""`.
    @Test func theOlderSyntaxListFileAndAnEmptySearchAnswerAsInMPD() throws {
        try expectSameAnswers(["old-syntax"], atLeast: 10)
    }

    /// `listfiles` lists the folder on disk: bare names, files that are no songs (a cover)
    /// with their sizes, folders the library does not know (empty ones), each with its time.
    /// MPD 0.23 also lists the folder above the music for `..`: songbox lists nothing outside it.
    @Test func listfilesGivesTheFolderOnDiskAsMPDDoes() throws {
        let (songbox, mpd, raw) = try answers(["listfiles"])
        #expect(mpd.count == 4 && songbox == mpd, "\(raw)")
        #expect(mpd.first?.contains("file: cover.jpg") == true && mpd.first?.contains("directory: scans") == true, "\(raw)")
        let (daemon, port) = try MPDServerTests.startDaemon(on: library)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/reference.py"
        let outside = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1:\(port)", "outside"])
        #expect(outside.lines.filter { !$0.hasPrefix(">> ") } == Array(repeating: "ACK [50@0] {listfiles} No such directory", count: 3),
                "\(outside.stdout)\(outside.stderr)")
    }

    /// In single mode without repeat, the end of a song leaves the next one paused at its start
    /// (and `oneshot` turns itself off there), as in MPD; songbox stopped and lost the place.
    @Test func singleModePausesOnTheNextSongAsMPDDoes() throws {
        try expectSameAnswers(["single"], atLeast: 14)
    }

    /// What MPD 0.24 has that 0.23 answers too, as Debian's MPD answers it: `playlist`,
    /// `clearerror`, `config` on TCP, regular expressions (`=~`, `!~`, in `find`, `search`,
    /// `count`, `list`, on `any` and `file`), songs' `Last-Modified`, `tagtypes`
    /// clear/enable/disable, tags of a queued stream (`addtagid`, `cleartagid`, refused for a
    /// file), sticker comparisons, `save` twice. Where MPD 0.24 words an answer otherwise than
    /// 0.23, songbox answers as 0.24: each such answer is listed here with its reason.
    @Test func mpd024AdditionsThatMPD023HasAnswerAsInMPD() throws {
        let (songbox, mpd, raw) = try answers(["shared24"])
        #expect(mpd.count >= 50, "\(raw)")
        #expect(songbox.count == mpd.count, "\(raw)")
        let newer: [String: (answer: [String], reason: String)] = [
            ">> sticker find song \"\" mood ~ x": (["ACK [2@0] {sticker} bad operator \"~\""],
                                                  "MPD 0.24 names the operator (StickerCommands.cxx: \"bad operator {:?}\")"),
            ">> sticker get song \"Mabel Grey/Old Roads/01 - Old Roads.mp3\" nothing":
                (["ACK [50@0] {sticker} no such sticker: \"nothing\""], "MPD 0.24 names the sticker (\"no such sticker: {:?}\")"),
        ]
        for (ours, theirs) in zip(songbox, mpd) {
            if let newer = newer[theirs[0]] {
                #expect(Array(ours.dropFirst()) == newer.answer, "\(theirs[0]): \(newer.reason)")
                #expect(ours != theirs, "\(theirs[0]) is listed as answered otherwise by MPD 0.23, but is the same")
                continue
            }
            #expect(ours == theirs, "\(theirs.first ?? "")\nsongbox: \(ours.dropFirst())\nMPD:     \(theirs.dropFirst())")
        }
    }

    /// A command list over MPD's limit ends the connection: no answer, nothing of the list run,
    /// and the lines after it not run as commands of their own (songbox ACKed, then ran them).
    @Test func aCommandListOverTheLimitClosesTheConnectionAndRunsNothing() throws {
        let (songbox, mpd, raw) = try answers(["list-limit"])
        #expect(mpd.first == ["answer: closed"], "\(raw)")
        #expect(songbox == mpd, "\(raw)")
        #expect(mpd.last?.contains("repeat: 0") == true, "\(raw)")
    }

    /// Requests sent in one write are answered in order, as MPD answers them: those answered on
    /// the event loop (`status`, `ping`) never overtake those that read the library, a command
    /// list or an idle, and a `noidle` after the idle was answered gets nothing.
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let (songbox, mpd, raw) = try answers(["pipelined"])
        #expect(mpd.first?.first?.contains("'changed: options'") == true, "\(raw)")
        #expect(songbox == mpd, "\(raw)")
        let (local, _, localRaw) = try answers(["pipelined"]) { daemon, _ in daemon.socket }
        #expect(local == mpd, "\(localRaw)")
    }

    /// `printf 'status\nping\n' | nc -N HOST PORT`: the client shuts its side after sending, and
    /// still reads both answers, on TCP as from MPD, and on the daemon's socket.
    @Test func aClientThatHalfClosesGetsItsAnswers() throws {
        let (songbox, mpd, raw) = try answers(["half-close"])
        #expect(mpd == [["['state: stop', 'OK', 'OK']"]], "\(raw)")
        #expect(songbox == mpd, "\(raw)")
        let (local, _, localRaw) = try answers(["half-close"]) { daemon, _ in daemon.socket }
        #expect(local == mpd, "\(localRaw)")
    }
}
