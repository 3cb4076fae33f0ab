import Foundation
import SongboxTestSupport
import Testing

/// myMPD, the MPD web client most Pi owners use, as its source talks to an MPD 0.23 server
/// (`mpd/mympd.py` replays it on raw sockets): each part runs against songbox and against
/// Debian's MPD on the same music, and both must get through it alike (issue 27).
@Suite(.serialized) struct MyMPDTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    /// `mympd.py` with `parts` against songbox and against MPD: the lines each printed.
    func replay(_ parts: [String]) throws -> (songbox: SongboxRunner.Output, mpd: SongboxRunner.Output) {
        try replay(script: "mympd.py", { $0 + parts })
    }

    /// A client's replay (`mpd/SCRIPT`, given `HOST PORT` and what `arguments` adds to them)
    /// against songbox and against MPD on the same music: the lines each printed.
    func replay(script name: String, _ arguments: (_ server: [String]) -> [String])
        throws -> (songbox: SongboxRunner.Output, mpd: SongboxRunner.Output) {
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/" + name
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let songbox = try SongboxRunner.run(executable: "/usr/bin/python3", [script] + arguments(["127.0.0.1", String(port), "songbox"]))
        let mpd = try ReferenceMPD(music: TestLibrary.examples, folder: folder + "/mpd")
        defer { mpd.stop() }
        let reference = try SongboxRunner.run(executable: "/usr/bin/python3", [script] + arguments(["127.0.0.1", String(mpd.port), "mpd"]))
        return (songbox, reference)
    }

    /// M.A.L.P., the Android client, as its source talks to a server (`mpd/malp.py`): its
    /// connection (`commands`, `tagtypes`, idle), the now-playing view, the library browsed by
    /// AlbumArtist and MusicBrainz ids, and playing, saving and loading, against songbox as
    /// against MPD (issue 27).
    @Test func malpsSessionRunsAgainstSongboxAsAgainstMPD() throws {
        let (songbox, mpd) = try replay(script: "malp.py") { Array($0.prefix(2)) }
        let parts = ["ok connect", "ok status", "ok library", "ok playing"]
        #expect(mpd.lines == parts, "MPD: \(mpd.stdout)\(mpd.stderr)")
        #expect(songbox.lines == parts, "songbox: \(songbox.stdout)\(songbox.stderr)")
    }

    /// myMPD waits with `idle ... neighbor mount` (every name MPD knows, used or not), and sends
    /// `noidle` after its idle was answered: MPD answers nothing to that, so the next answer
    /// it reads is its next command's (songbox answered `OK`, and myMPD read every answer one
    /// line late; before that it ACKed `neighbor` and myMPD retried in a tight loop).
    @Test func idleTakesEveryNameMPDKnowsAndALateNoidleGetsNoAnswer() throws {
        let (songbox, mpd) = try replay(["idle"])
        #expect(mpd.lines == ["ok idle", "done"], "MPD: \(mpd.stdout)\(mpd.stderr)")
        #expect(songbox.lines == ["ok idle", "done"], "songbox: \(songbox.stdout)\(songbox.stderr)")
    }

    /// After each play and skip myMPD writes `lastPlayed`, `playCount`, `lastSkipped`,
    /// `skipCount` (MPD below 0.24: read, then set), and `elapsed`, `rating`, `like` as the user
    /// acts: songbox takes them all without an error (its player's counts stay the truth), and
    /// reads back the rating and like that were set, as MPD does.
    @Test func myMPDsStickerWritesAreTakenAndRatingAndLikeReadBack() throws {
        let (songbox, mpd) = try replay(["stickers"])
        #expect(mpd.lines == ["ok stickers", "done"], "MPD: \(mpd.stdout)\(mpd.stderr)")
        #expect(songbox.lines == ["ok stickers", "done"], "songbox: \(songbox.stdout)\(songbox.stderr)")
    }

    /// songbox greets with 0.24, so myMPD takes its paths for MPD 0.24 (`features.c`,
    /// `stickerdb.c`): `stickertypes` (it then keeps to song stickers), `tagtypes available`,
    /// `sticker inc` for plays and skips, sticker searches with an operator, sort and window,
    /// `stickernamestypes`, `starts_with`, a queue search with sort and window, `Added`, a
    /// range of a playlist: none gets an error. Against songbox only (MPD 0.23 has none).
    @Test func myMPDsPathsForMPD024RunWithoutAnError() throws {
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/mympd.py"
        let songbox = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(port), "songbox", "mpd24"])
        #expect(songbox.lines == ["ok mpd24", "done"], "songbox: \(songbox.stdout)\(songbox.stderr)")
    }

    /// myMPD's start-up as its source runs it (`partitions_connect`: `binarylimit` in a command
    /// list, `commands`, `tagtypes all`, `tagtypes`, its tags in a command list, `stats`,
    /// `listpartitions`, `status`, `currentsong`, then its idle; the sticker connection's
    /// `commands` and `idle sticker`) gets no error from songbox, as from MPD.
    @Test func myMPDsStartUpRunsWithoutAnError() throws {
        let (songbox, mpd) = try replay(["start-up"])
        #expect(mpd.lines == ["ok start-up", "done"], "MPD: \(mpd.stdout)\(mpd.stderr)")
        #expect(songbox.lines == ["ok start-up", "done"], "songbox: \(songbox.stdout)\(songbox.stderr)")
    }
}
