import Foundation
import SongboxServer
import SongboxTestSupport
import Testing

extension TestLibrarySuite {
    /// A daemon on the suite's library with these plugins and `config`, playing in real time to
    /// the null output, for MPD clients on a TCP port.
    func startDaemon(plugins: [String: String] = [:], config: String = "") throws -> (DaemonProcess, port: Int) {
        let pluginFolder = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: pluginFolder, withIntermediateDirectories: true)
        for (name, source) in plugins { try source.write(toFile: pluginFolder + "/" + name + ".lua", atomically: true, encoding: .utf8) }
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", pluginFolder, "--output", "null", "--config", folder + "/config", "--bind", "127.0.0.1:\(port)",
        ])
        return (daemon, port)
    }
}

/// The MPD protocol server with real MPD clients: mpc and python-mpd2 against a real daemon
/// on the example library, and clients that abuse it.
@Suite(.serialized) struct MPDServerTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }


    /// A daemon on a library of a test's own (no plugins, no config), on a free TCP port.
    static func startDaemon(on own: TestLibrary) throws -> (DaemonProcess, port: Int) {
        let port = try freePort()
        let daemon = try DaemonProcess(database: own.songbox.database, folder: own.folder, arguments: [
            "--plugins", own.folder, "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
        return (daemon, port)
    }

    func mpc(_ port: Int, _ arguments: [String]) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
    }

    /// Every command of `mpc help` (`mpd/mpc_every.py`), against songbox and against Debian's
    /// MPD on the same music: the same exit status for each, and the same lines where the output
    /// is the music's. What differs is listed here with its reason; a new difference, or a
    /// listed one that is gone, fails the test (issue 27).
    @Test func everyMpcCommandAnswersAsAgainstMPD() throws {
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/mpc_every.py"
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let songbox = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(port)])
        let mpd = try ReferenceMPD(music: TestLibrary.examples, folder: folder + "/mpd")
        defer { mpd.stop() }
        let reference = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(mpd.port)])
        #expect(songbox.status == 0 && reference.status == 0, "\(songbox.stderr)\(reference.stderr)")
        // (songbox's line, MPD's line, why): nil where that server prints no such line.
        let differences: [(songbox: String?, mpd: String?, reason: String)] = [
            ("disable 1 -> 1", "disable 1 -> 0", "songbox plays on one output at a time: the one in use is left for another, not disabled"),
            ("toggleoutput 1 -> 1", "toggleoutput 1 -> 0", "the same, toggled off"),
            ("toggleoutput 1 -> 1", "toggleoutput 1 -> 0", "and back on (it was never off)"),
            ("    ימים טובים", nil, "a title tagged in the old Hebrew code page (Windows-1255): songbox reads it as Hebrew"),
            (nil, "    éîéí èåáéí", "MPD shows the same bytes as Latin-1"),
            ("sendmessage mpc-test hello -> 0", "sendmessage mpc-test hello -> 1", "every message reaches songbox's plugins, so a channel needs no client (MPD: nobody is subscribed)"),
            ("volume 50 -> 0", "volume 50 -> 1", "songbox's volume is its own, in software; the reference MPD's null output has no mixer"),
            ("    mixrampdb: -17.000000", "    mixrampdb: 0.000000",
             "songbox's MixRamp level defaults to -17 dB (mixramp_db), where its analysis's points are useful; MPD's 0 dB is never reached by music"),
        ]
        var ours = songbox.lines, theirs = reference.lines
        for difference in differences {
            if let line = difference.songbox {
                let index = ours.firstIndex(of: line)
                #expect(index != nil, "listed but gone from songbox's answers: \(line) (\(difference.reason))")
                if let index { ours.remove(at: index) }
            }
            if let line = difference.mpd {
                let index = theirs.firstIndex(of: line)
                #expect(index != nil, "listed but gone from MPD's answers: \(line) (\(difference.reason))")
                if let index { theirs.remove(at: index) }
            }
        }
        #expect(ours.count > 100)
        #expect(ours == theirs, "songbox:\n\(ours.joined(separator: "\n"))\nMPD:\n\(theirs.joined(separator: "\n"))")
    }

    @Test func mpcDrivesTheLibraryTheQueueAndThePlayer() throws {
        #expect(try songbox.run(["playlist", "save", "Evening", "artist:\"Mabel Grey\""]).status == 0)
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["version"]).stdout == "mpd version: 0.24.0\n")
        #expect(try mpc(port, ["ls"]).lines.contains("Mabel Grey"))
        // mpc lists the stored playlists from the top's `lsinfo`, as MPD answers it (it was empty: issue 25).
        #expect(try mpc(port, ["lsplaylists"]).lines == ["Evening"])
        #expect(try mpc(port, ["add", "Mabel Grey"]).status == 0)
        #expect(try mpc(port, ["playlist"]).lines == ["Mabel Grey - Northern Skies", "Mabel Grey - Old Roads", "Mabel Grey - The River's Lullaby"])
        let playing = try mpc(port, ["play", "2"])
        #expect(playing.lines.first == "Mabel Grey - Old Roads", "\(playing.stdout)\(playing.stderr)")
        #expect(playing.lines.dropFirst().first?.hasPrefix("[playing] #2/3") == true)
        let current = try mpc(port, ["-f", "%artist% / %album% / %title% / %file%", "current"])
        #expect(current.stdout == "Mabel Grey / Old Roads / Old Roads / Mabel Grey/Old Roads/01 - Old Roads.mp3\n", "\(current.stdout)\(current.stderr)")
        let paused = try mpc(port, ["pause"])
        #expect(paused.lines.dropFirst().first?.hasPrefix("[paused]") == true, "\(paused.stdout)\(paused.stderr)")
        let options = try mpc(port, ["volume", "40"]).lines.last ?? ""
        #expect(options.hasPrefix("volume: 40%"), "\(options)")
        #expect(try mpc(port, ["repeat", "on"]).lines.last?.contains("repeat: on") == true)
        #expect(try mpc(port, ["random", "on"]).lines.last?.contains("random: on") == true)
        #expect(try mpc(port, ["search", "title", "river"]).lines == ["Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"])
        #expect(try mpc(port, ["list", "artist"]).lines.count == 5)
        #expect(try mpc(port, ["del", "1"]).status == 0)
        #expect(try mpc(port, ["playlist"]).lines.count == 2)
        #expect(try mpc(port, ["clear"]).status == 0)
        #expect(try mpc(port, ["playlist"]).lines.isEmpty)
        let unknown = try mpc(port, ["sendmessage", "bad channel!", "x"])
        #expect(unknown.status != 0 && unknown.stderr.contains("invalid channel name"), "\(unknown.stderr)")
    }

    @Test func pythonMpd2DrivesEveryCommandGroupAndPluginsHearMessages() throws {
        let listener = """
            local sb = require "songbox"
            sb.on("message", function(e) print("message " .. e.channel .. " " .. e.text) end)
            assert(sb.subscribe("doorbell") == true and sb.subscribe("doorbell") == false)
            """
        let smart = try songbox.run(["playlist", "smart", "Hebrew songs", "path:שחר"])
        #expect(smart.status == 0, "\(smart.stderr)")
        let (daemon, port) = try startDaemon(plugins: ["listener": listener])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let session = try SongboxRunner.run(executable: "/usr/bin/python3", [
            Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/session.py", "127.0.0.1", String(port),
        ])
        #expect(session.status == 0, "\(session.stdout)\n\(session.stderr)")
        #expect(session.lines == ["ok server", "ok database", "ok queue", "ok stored playlists", "ok playback", "ok command lists", "ok idle",
                                  "ok stickers", "ok messages", "session done"], "\(session.stderr)")
        try daemon.waitForOutput("message nobody-listens to-plugins")
        #expect(daemon.output.contains("message alarm snooze"))
        // The client's rating and like are songbox's overrides.
        let shown = try songbox.run(["ls", "--json", "title:river"])
        #expect(shown.stdout.contains("\"rating\": 4") && shown.stdout.contains("\"liked\": true"), "\(shown.stdout)")
    }

    /// A smart playlist a plugin defines by a function is read by MPD clients from that plugin's
    /// live state, on its own thread: while another plugin is busy in a long callback the answer
    /// does not wait for it; while the defining plugin itself is busy, the client waiting for it
    /// holds no other client up, and gets the answer once the plugin is free.
    @Test func aPluginsFunctionPlaylistIsReadByMPDClientsWhilePluginsAreBusy() throws {
        // Busy on a message to `channel` until a playlist named "release" exists.
        func spinning(on channel: String) -> String {
            """
            sb.on("message", function(e)
              if e.channel ~= "\(channel)" then return end
              print("spinning")
              while not sb.playlist.get("release") do end
              print("released")
            end)
            """
        }
        let live = DaemonTests.livePlaylist(of: "title:=\"Old Roads\"") + "\n" + spinning(on: "spin-live") + "\nprint('ready')\n"
        let busy = "local sb = require 'songbox'\n" + spinning(on: "spin") + "\nprint('ready')\n"
        let (daemon, port) = try startDaemon(plugins: ["live": live, "busy": busy])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("[live] ready")
        try daemon.waitForOutput("[busy] ready")

        #expect(try mpc(port, ["sendmessage", "spin", "now"]).status == 0)
        try daemon.waitForOutput("[busy] spinning")
        let read = try mpc(port, ["-f", "%title%", "playlist", "Live"])
        #expect(read.status == 0 && read.lines == ["Old Roads"], "\(read.stdout)\(read.stderr)")
        #expect(daemon.output.contains("[live] evaluated 1\n"), "answered by the live state: \(daemon.output)")
        #expect(!daemon.output.contains("[busy] released"), "the other plugin is still busy")

        #expect(try mpc(port, ["sendmessage", "spin-live", "now"]).status == 0)
        try daemon.waitForOutput("[live] spinning")
        let waiting = Process()
        waiting.executableURL = URL(fileURLWithPath: "/usr/bin/mpc")
        waiting.arguments = ["--host", "127.0.0.1", "--port", String(port), "-f", "%title%", "playlist", "Live"]
        let answer = Pipe()
        waiting.standardOutput = answer
        waiting.standardError = answer
        try waiting.run()
        // Another client is answered meanwhile (the plugin answers no one until it is released).
        #expect(try mpc(port, ["status"]).status == 0)
        #expect(try mpc(port, ["-f", "%title%", "search", "title", "Old Roads"]).lines == ["Old Roads"])
        #expect(try songbox.run(["playlist", "save", "release", "title:=\"Old Roads\""]).status == 0)
        let answered = String(decoding: answer.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0 && answered == "Old Roads\n", "\(answered)")
        try daemon.waitForOutput("[live] evaluated 2\n")
        try daemon.waitForOutput("[busy] released")
        try daemon.waitForOutput("[live] released")
    }

    /// `crossfade N` is real: the config's length, then the client's, in `status` as `xfade`
    /// (absent when off, as MPD leaves it out); a length past 30 s is held at 30.
    @Test func mpcSetsTheCrossfadeAndStatusShowsIt() throws {
        let (daemon, port) = try startDaemon(config: "crossfade = 3\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["crossfade"]).stdout == "crossfade: 3\n")
        #expect(try mpc(port, ["crossfade", "5"]).status == 0)
        #expect(try mpc(port, ["crossfade"]).stdout == "crossfade: 5\n")
        let status = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import mpd, sys
            c = mpd.MPDClient(); c.connect("127.0.0.1", int(sys.argv[1]))
            print(c.status().get("xfade")); c.crossfade(0); print(c.status().get("xfade")); c.crossfade(99); print(c.status().get("xfade"))
            """, String(port)])
        #expect(status.lines == ["5", "None", "30"], "\(status.stderr)")
    }

    /// `mixrampdb` and `mixrampdelay` do what MPD documents: the level, shown as `mixrampdb`;
    /// a delay turns MixRamp on (shown as `mixrampdelay`), `nan` turns it off (not shown);
    /// a level out of range is refused with MPD's argument error.
    @Test func mixRampLevelAndDelayAsMPDHasThem() throws {
        let (daemon, port) = try startDaemon(config: "crossfade = 3\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let status = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import mpd, sys
            c = mpd.MPDClient(); c.connect("127.0.0.1", int(sys.argv[1]))
            def show(): s = c.status(); print(s.get("mixrampdb"), s.get("mixrampdelay"))
            show(); c.mixrampdb(-20); c.mixrampdelay(1.5); show(); c.mixrampdelay("nan"); show()
            try: c.mixrampdb(5)
            except mpd.CommandError as e: print(e)
            """, String(port)])
        #expect(status.lines == ["-17.000000 None", "-20.000000 1.500000", "-20.000000 None",
                                 "[2@0] {mixrampdb} mixrampdb is from -96 to 0, got 5"], "\(status.stderr)")
    }

    /// A crossfade a client set is kept across a restart, as MPD keeps it in its state file;
    /// until one is set, the config's is the one used.
    @Test func theCrossfadeAClientSetIsKeptAcrossARestart() throws {
        let (first, port) = try startDaemon(config: "crossfade = 3\n")
        #expect(try mpc(port, ["crossfade"]).stdout == "crossfade: 3\n")
        first.signal(SIGTERM)
        #expect(try first.waitForExit() == 0)
        let (second, again) = try startDaemon(config: "crossfade = 3\n")
        #expect(try mpc(again, ["crossfade"]).stdout == "crossfade: 3\n", "the config's, nothing chosen")
        #expect(try mpc(again, ["crossfade", "7"]).status == 0)
        second.signal(SIGTERM)
        #expect(try second.waitForExit() == 0)
        let (third, last) = try startDaemon(config: "crossfade = 3\n")
        defer { third.signal(SIGTERM); _ = try? third.waitForExit() }
        #expect(try mpc(last, ["crossfade"]).stdout == "crossfade: 7\n", "the one a client chose")
    }

    /// The configured outputs are MPD's outputs: one plays at a time, `enable` moves playback
    /// to another at the same place, and the one in use cannot be disabled (refused, not faked).
    @Test func mpcListsTheConfiguredOutputsAndMovesPlaybackBetweenThem() throws {
        let room = folder + "/room.wav"
        let (daemon, port) = try startDaemon(config: "output = null\noutput = wav:\(room)\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["outputs"]).lines == ["Output 1 (null) is enabled", "Output 2 (wav:\(room)) is disabled"])
        #expect(try mpc(port, ["add", "Mabel Grey"]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        let moved = try mpc(port, ["enable", "2"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try mpc(port, ["outputs"]).lines == ["Output 1 (null) is disabled", "Output 2 (wav:\(room)) is enabled"])
        try waitFor(timeout: 10, "the music is written to the second output") {
            ((try? FileManager.default.attributesOfItem(atPath: room)[.size] as? Int) ?? 0) > 100_000
        }
        #expect(try mpc(port, ["status"]).stdout.contains("[playing]"))
        let refused = try mpc(port, ["disable", "2"])
        #expect(refused.status != 0 && refused.stderr.contains("one output at a time"), "\(refused.stderr)")
        #expect(try mpc(port, ["disable", "1"]).status == 0, "disabling one not in use changes nothing")
        #expect(try mpc(port, ["enable", "3"]).stderr.contains("No such audio output"))
        #expect(try mpc(port, ["toggleoutput", "1"]).status == 0)
        #expect(try mpc(port, ["outputs"]).lines.first == "Output 1 (null) is enabled")
    }

    /// Home Assistant's MPD integration, call for call (python-mpd2's asyncio client): its
    /// updates, its services and its artwork lookup all work against songbox.
    @Test func homeAssistantsCallsWork() throws {
        #expect(try songbox.run(["playlist", "save", "Evening", "artist:\"Mabel Grey\"", "sort:path"]).status == 0)
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let session = try SongboxRunner.run(executable: "/usr/bin/python3", [
            Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/home_assistant.py", "127.0.0.1", String(port), "Evening",
        ])
        #expect(session.status == 0, "\(session.stdout)\n\(session.stderr)")
        #expect(session.lines.filter { $0.hasPrefix("ok ") } == ["ok connect and update", "ok play a playlist", "ok transport and volume",
                                                                "ok repeat and shuffle", "ok play a file, artwork, stop, clear"],
                "\(session.stdout)\n\(session.stderr)")
        #expect(session.lines.contains { $0.hasPrefix("artwork ") }, "\(session.stdout)")
    }

    /// A pause is a pause the moment it is asked for, though its fade plays on: `pause 0`,
    /// `pause` or `play` sent during that fade call it off (Home Assistant's pause then play
    /// once found the pause going on regardless).
    @Test func playPressedWhileAPauseFadesOutCallsItOff() throws {
        let (daemon, port) = try startDaemon(config: "fade = 5\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["add", "Mabel Grey"]).status == 0)
        let states = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import socket, time
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=20); f = s.makefile("rwb"); f.readline()
            def ask(command):
                f.write(command.encode() + b"\\n"); f.flush()
                lines = []
                while (line := f.readline().decode().rstrip("\\n")) not in ("OK",) and not line.startswith("ACK"):
                    lines.append(line)
                return next((l.split(": ")[1] for l in lines if l.startswith("state: ")), line)
            for command in ["play", "pause 1", "pause 0", "pause", "pause", "pause 1", "play"]:
                ask(command)
                print(command, ask("status"))
            time.sleep(6)
            print("after the fade", ask("status"))
            """])
        #expect(states.lines == ["play play", "pause 1 pause", "pause 0 play", "pause pause", "pause play", "pause 1 pause", "play play",
                                 "after the fade play"], "\(states.stdout)\(states.stderr)")
    }

    @Test func clientsThatAbuseThePortLeaveTheDaemonAndTheMusicAlone() throws {
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let abuse = try SongboxRunner.run(executable: "/usr/bin/python3", [
            Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/abuse.py", "127.0.0.1", String(port), String(daemon.pid),
        ])
        #expect(abuse.status == 0, "\(abuse.stdout)\n\(abuse.stderr)")
        #expect(abuse.lines == ["ok 1 MiB line", "ok 8 KiB line", "ok garbage bytes", "ok command lists", "ok 200 connections",
                                "ok unread replies", "ok still playing"], "\(abuse.stderr)")
        #expect(try ControlClient(path: daemon.socket).send("ping").isEmpty)
    }

    /// 200 clients that never read their answers hold no thread and little memory: another
    /// client is answered, the music plays on, and each of them is dropped after its timeout.
    @Test func clientsThatNeverReadHoldNothingTheOthersNeed() throws {
        let (daemon, port) = try startDaemon(config: "max_connections = 300\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let unread = try SongboxRunner.run(executable: "/usr/bin/python3", [
            Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/unread.py", "127.0.0.1", String(port), daemon.socket, String(daemon.pid),
        ])
        #expect(unread.status == 0, "\(unread.stdout)\n\(unread.stderr)")
        #expect(unread.lines == ["ok 200 unread clients", "ok another client is answered", "ok memory bounded", "ok still playing",
                                 "ok unread clients dropped"], "\(unread.stderr)")
        #expect(try ControlClient(path: daemon.socket).send("ping").isEmpty)
    }

    /// `listall` tells each folder once, before its first file, also where one folder's name
    /// begins another's ("b", "bc") or sorts among them ("a b", "a-c" before "a/").
    @Test func listallTellsEachFolderOnceBeforeItsFiles() throws {
        let own = try TestLibrary()
        for folder in ["a/b", "a/bc/d", "a b", "a-c"] {
            try FileManager.default.createDirectory(atPath: own.music + "/" + folder, withIntermediateDirectories: true)
        }
        try own.add([("a/b/one", 0.2), ("a/bc/two", 0.2), ("a/bc/d/three", 0.2), ("a b/four", 0.2), ("a-c/five", 0.2), ("six", 0.2)])
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let listing = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import socket
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=20); f = s.makefile("rwb"); f.readline()
            for command in [b'listall', b'listall "a"', b'listallinfo "a/bc"']:
                f.write(command + b"\\n"); f.flush()
                while (line := f.readline().decode().rstrip("\\n")) != "OK":
                    if line.startswith(("directory:", "file:")): print(line)
                print("--")
            """])
        #expect(listing.lines == [
            "directory: a b", "file: a b/four.mp3", "directory: a-c", "file: a-c/five.mp3",
            "directory: a", "directory: a/b", "file: a/b/one.mp3", "directory: a/bc", "directory: a/bc/d", "file: a/bc/d/three.mp3",
            "file: a/bc/two.mp3", "file: six.mp3", "--",
            "directory: a/b", "file: a/b/one.mp3", "directory: a/bc", "directory: a/bc/d", "file: a/bc/d/three.mp3", "file: a/bc/two.mp3", "--",
            "directory: a/bc/d", "file: a/bc/d/three.mp3", "file: a/bc/two.mp3", "--",
        ], "\(listing.stdout)\(listing.stderr)")
    }

    @Test func albumArtIsTheCoverBesideTheSongInPieces() throws {
        // A library of its own: a tone and a 50 KB "cover" beside it (any bytes: sent as they are).
        let own = try TestLibrary()
        try own.add([("tone", 1)])
        var bytes = [UInt8](repeating: 0, count: 50_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index / 251) }
        try Data(bytes).write(to: URL(fileURLWithPath: own.music + "/Cover.JPG"))
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let fetch = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import hashlib, socket, mpd
            raw = socket.create_connection(("127.0.0.1", \(port))).makefile("rwb")
            raw.readline(); raw.write(b"albumart tone.mp3 0\\n"); raw.flush()
            print(raw.readline().decode().strip(), raw.readline().decode().strip())
            c = mpd.MPDClient(); c.connect("127.0.0.1", \(port))
            art = c.albumart("tone.mp3")
            print(len(art["binary"]), hashlib.sha256(art["binary"]).hexdigest())
            try:
                c.albumart("nothing-here.mp3"); print("no error")
            except mpd.CommandError as error:
                print(str(error))
            """])
        #expect(fetch.status == 0, "\(fetch.stdout) \(fetch.stderr)")
        let digest = try SongboxRunner.run(executable: "/usr/bin/sha256sum", [own.music + "/Cover.JPG"]).stdout.prefix(64)
        #expect(fetch.lines.first == "size: 50000 binary: 8192", "\(fetch.stdout)")
        #expect(fetch.lines.dropFirst().first == "50000 \(digest)", "\(fetch.stdout)")
        #expect(fetch.lines.last?.contains("[50@0] {albumart}") == true, "\(fetch.stdout)")
    }

    @Test func readPictureSendsTheEmbeddedPictureInPieces() throws {
        // An unsynchronised tag, so the picture is read back through its unsynchronisation.
        let own = try TestLibrary()
        try FileManager.default.createDirectory(atPath: own.music, withIntermediateDirectories: true)
        let picture = ImageFixtures.png(width: 64, height: 48, filler: 100_000)
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        try Fixtures.writeMP3(to: own.music + "/pictured.mp3", v2: ID3v2Tag(version: 3, frames: [
            .picture(ImageFixtures.jpeg(width: 1, height: 1), mime: "image/jpeg", type: 4), .picture(picture, mime: "image/png", type: 3),
        ], unsynchronised: true), audio: audio)
        try Fixtures.writeMP3(to: own.music + "/plain.mp3", audio: audio)
        try Data(ImageFixtures.jpeg(width: 2, height: 2)).write(to: URL(fileURLWithPath: own.music + "/cover.jpg"))
        try own.scan()
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let fetch = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import hashlib, socket, mpd
            raw = socket.create_connection(("127.0.0.1", \(port))).makefile("rwb")
            raw.readline(); raw.write(b"readpicture pictured.mp3 0\\n"); raw.flush()
            print(raw.readline().decode().strip(), raw.readline().decode().strip(), raw.readline().decode().strip())
            c = mpd.MPDClient(); c.connect("127.0.0.1", \(port))
            art = c.readpicture("pictured.mp3")
            print(art["type"], len(art["binary"]), hashlib.sha256(art["binary"]).hexdigest())
            print(c.readpicture("plain.mp3"))
            raw.read(8192); raw.readline(); assert raw.readline() == b"OK\\n"
            raw.write(b"readpicture pictured.mp3 999999\\n"); raw.flush()
            print(raw.readline().decode().strip())
            """])
        #expect(fetch.status == 0, "\(fetch.stdout) \(fetch.stderr)")
        try Data(picture).write(to: URL(fileURLWithPath: own.folder + "/picture.png"))
        let digest = try SongboxRunner.run(executable: "/usr/bin/sha256sum", [own.folder + "/picture.png"]).stdout.prefix(64)
        #expect(fetch.lines.first == "size: \(picture.count) type: image/png binary: 8192", "\(fetch.stdout)")
        #expect(fetch.lines.dropFirst().first == "image/png \(picture.count) \(digest)", "\(fetch.stdout)")
        // No embedded picture: an empty answer, as MPD gives (the cover file is albumart's).
        #expect(fetch.lines.dropFirst(2).first == "{}", "\(fetch.stdout)")
        #expect(fetch.lines.last == "ACK [2@0] {readpicture} Bad file offset", "\(fetch.stdout)")
    }

    /// `Format:` as MPD gives it on the same files: a lossless file's bits per sample (16- and
    /// 24-bit FLAC, 16-bit WAV), `f` for Vorbis. Where MPD's answer is its decoder's output
    /// rather than the file's (MP3, Opus, a 24-bit WAV), songbox says what the file holds
    /// (docs/mpd-compatibility.md).
    @Test func formatGivesTheBitsOfALosslessFileAsMPDDoes() throws {
        let own = try TestLibrary()
        let source = own.folder + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: own.music, withIntermediateDirectories: true)
        let cd = try AudioFixtures.signal(source + "/cd.wav", frames: 44_100)
        let studio = try AudioFixtures.signal(source + "/studio.wav", frames: 48_000, rate: 48_000, bits: 24)
        try AudioFixtures.encode(cd, as: .flac, to: own.music + "/cd.flac")
        try AudioFixtures.encode(studio, as: .flac, to: own.music + "/studio.flac")
        try AudioFixtures.encode(cd, as: .vorbis, to: own.music + "/cd.ogg")
        try AudioFixtures.encode(cd, as: .wav16, to: own.music + "/cd.wav")
        try AudioFixtures.encode(studio, as: .wav24, to: own.music + "/studio.wav")
        try own.scan()
        let mpd = try ReferenceMPD(music: own.music, folder: own.folder + "/mpd")
        defer { mpd.stop() }
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        func formats(_ port: Int) throws -> [String: String] {
            let raw = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
                import socket
                f = socket.create_connection(("127.0.0.1", \(port))).makefile("rwb")
                f.readline(); f.write(b"lsinfo\\n"); f.flush()
                while (line := f.readline().decode().strip()) not in ("OK", "") and not line.startswith("ACK"):
                    if line.startswith(("file: ", "Format: ")): print(line)
                """])
            var found: [String: String] = [:], file = ""
            for line in raw.lines {
                if line.hasPrefix("file: ") { file = String(line.dropFirst(6)) }
                if line.hasPrefix("Format: ") { found[file] = String(line.dropFirst(8)) }
            }
            return found
        }
        let songbox = try formats(port), reference = try formats(mpd.port)
        #expect(songbox == ["cd.flac": "44100:16:2", "studio.flac": "48000:24:2", "cd.ogg": "44100:f:2", "cd.wav": "44100:16:2",
                            "studio.wav": "48000:24:2"], "\(songbox)")
        for file in ["cd.flac", "studio.flac", "cd.ogg", "cd.wav"] {
            #expect(songbox[file] == reference[file], "\(file): MPD says \(reference[file] ?? "nothing")")
        }
    }

    @Test func readPictureSendsTheCoverOfAFLACAnOpusAndAnMP4FileAndDecodersListsThem() throws {
        let own = try TestLibrary()
        try FileManager.default.createDirectory(atPath: own.music, withIntermediateDirectories: true)
        let picture = ImageFixtures.png(width: 64, height: 48, filler: 30_000)
        let png = own.folder + "/cover.png", wav = own.folder + "/tone.wav"
        try Data(picture).write(to: URL(fileURLWithPath: png))
        try AudioFixtures.run("sox", ["-R", "-D", "-r", "48000", "-c", "2", "-n", "-b", "16", wav, "synth", "1", "sine", "440"])
        try AudioFixtures.run("flac", ["-s", "-f", "--picture=3||||\(png)", wav, "-o", own.music + "/pictured.flac"])
        try AudioFixtures.run("opusenc", ["--quiet", "--picture", "3||||\(png)", wav, own.music + "/pictured.opus"])
        // ALAC with the cover in `covr`, as mutagen (Picard) writes it.
        let m4a = own.music + "/pictured.m4a"
        // 24-bit mono, for `status`'s audio: what the file holds, not the output's 16-bit stereo.
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-ac", "1", "-c:a", "alac", "-sample_fmt", "s32p", m4a])
        let covered = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import sys
            from mutagen.mp4 import MP4, MP4Cover
            audio = MP4(sys.argv[1])
            audio["covr"] = [MP4Cover(open(sys.argv[2], "rb").read(), imageformat=MP4Cover.FORMAT_PNG)]
            audio.save()
            """, m4a, png])
        try #require(covered.status == 0, "mutagen: \(covered.stderr)")
        try own.scan()
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let fetch = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import hashlib, mpd
            c = mpd.MPDClient(); c.connect("127.0.0.1", \(port))
            for name in ["pictured.flac", "pictured.opus", "pictured.m4a"]:
                art = c.readpicture(name)
                print(art["type"], len(art["binary"]), hashlib.sha256(art["binary"]).hexdigest())
            for plugin in c.decoders():
                print(plugin["plugin"], ",".join(plugin["suffix"] if isinstance(plugin["suffix"], list) else [plugin["suffix"]]))
            c.add("pictured.m4a"); c.play()
            import time
            for _ in range(100):
                audio = c.status().get("audio")
                if audio: break
                time.sleep(0.05)
            print("audio", audio)
            """])
        #expect(fetch.status == 0, "\(fetch.stdout) \(fetch.stderr)")
        let digest = try SongboxRunner.run(executable: "/usr/bin/sha256sum", [png]).stdout.prefix(64)
        #expect(Array(fetch.lines.prefix(3)) == Array(repeating: "image/png \(picture.count) \(digest)", count: 3), "\(fetch.stdout)")
        // `decoders` lists what plays, as MPD lists its plugins.
        #expect(fetch.lines.last == "audio 48000:24:1", "the file's format: \(fetch.stdout)")
        #expect(Array(fetch.lines.dropFirst(3).dropLast()) == ["mpg123 mp3,mp2", "flac flac", "oggflac ogg,oga", "vorbis ogg,oga",
                                                     "opus opus,ogg,oga", "mp4 m4a,m4b,mp4", "pcm wav,aiff,aif,aifc"], "\(fetch.stdout)")
    }

    /// Tag values with line breaks (a comment written on Windows: CR LF; a bare CR; NUL) come out
    /// on one line each: the framing holds for every client.
    @Test func tagValuesWithLineBreaksKeepTheFraming() throws {
        let own = try TestLibrary()
        try FileManager.default.createDirectory(atPath: own.music, withIntermediateDirectories: true)
        try Fixtures.writeMP3(to: own.music + "/notes.mp3", v2: ID3v2Tag(version: 3, frames: [
            .text("TIT2", "Line\rbreaks"), .comment("first line\r\nsecond line\nthird"),
        ]), audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try own.scan()
        let (daemon, port) = try Self.startDaemon(on: own)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let answer = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import socket
            f = socket.create_connection(("127.0.0.1", \(port))).makefile("rwb"); f.readline()
            for command in [b"tagtypes all", b"search title breaks", b"lsinfo notes.mp3", b"add notes.mp3", b"playlistinfo"]:
                f.write(command + b"\\n"); f.flush()
                for line in iter(f.readline, b"OK\\n"):
                    assert line.endswith(b"\\n") and b": " in line and b"\\r" not in line, (command, line)
                    if line.startswith((b"Comment", b"Title")): print(line.decode().rstrip("\\n"))
            """])
        #expect(answer.status == 0, "\(answer.stdout)\(answer.stderr)")
        #expect(answer.lines.prefix(2) == ["Title: Line breaks", "Comment: first line  second line third"], "\(answer.stdout)")
        #expect(answer.lines.count == 6, "\(answer.stdout)")
    }

    @Test func passwordsGivePermissionsOverTCPAndTheSocketHasThemAll() throws {
        let (daemon, port) = try startDaemon(config: """
            default_permissions = read
            password = family@read,add,player
            password = owner@read,add,player,control,admin
            """)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let session = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import mpd
            c = mpd.MPDClient(); c.connect("127.0.0.1", \(port))
            def refused(call, *args):
                try:
                    call(*args); return "allowed"
                except mpd.CommandError as error:
                    return str(error)[:5]
            print(len(c.find("artist", "Mabel Grey")), refused(c.add, "Mabel Grey"), refused(c.play), refused(c.clear))
            print("add" in c.commands(), "add" in c.notcommands(), refused(c.password, "wrong"))
            c.password("family")
            print(refused(c.add, "Mabel Grey"), refused(c.play), refused(c.clear), refused(c.update))
            c.password("owner")
            print(refused(c.clear), refused(c.update))
            """])
        #expect(session.status == 0, "\(session.stdout) \(session.stderr)")
        // `clear` needs `player` and `update` `control`, as in MPD's own table (they needed
        // `control` and `admin`: issue 26).
        #expect(session.lines == ["3 [4@0] [4@0] [4@0]", "False True [3@0]", "allowed allowed allowed [4@0]", "allowed allowed"],
                "\(session.stdout)")
        // The socket (the CLI's way in) has every permission, whatever the passwords.
        #expect(try songbox.run(["clear"], environment: daemon.clientEnvironment).status == 0)
    }

    /// MPD 0.24's additions that Debian's MPD (0.23) lacks, so cannot be compared in the same
    /// run: checked with python-mpd2 and raw lines against what MPD 0.24's protocol.rst and
    /// src/command/*.cxx say (`mpd/mpd24.py`): `searchcount`, filters (`starts_with`, `prio`,
    /// `added-since`, `eq_cs`..., regular expressions, one that backtracking engines stall on),
    /// `stickernames`/`stickertypes`/`stickernamestypes`, `sticker inc/dec` and `find` with its
    /// operators, sort and window, `save` modes, `playlistlength`, ranges in `listplaylist` and
    /// `playlistmove`, `searchplaylist`, `protocol`, `tagtypes available/reset`, `Last-Modified`
    /// and `Added` on songs, `bitrate` in `status`, `addtagid`/`cleartagid`, `config` (on the
    /// socket only) and `getfingerprint` (none: no Chromaprint, as MPD built without it).
    @Test func mpd024CommandsAnswerAsMPD024Documents() throws {
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let session = try SongboxRunner.run(executable: "/usr/bin/python3", [
            Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/mpd24.py", "127.0.0.1", String(port), daemon.socket,
        ])
        #expect(session.lines == ["ok greeting", "ok searchcount", "ok filters", "ok stickers", "ok stored playlists", "ok protocol",
                                  "ok tagtypes", "ok times", "ok status", "ok queue tags", "ok config and fingerprint", "ok bounds",
                                  "mpd24 done"],
                "\(session.stdout)\n\(session.stderr)")
    }

    /// Each command needs the permission MPD's own command table gives it, and `commands` and
    /// `notcommands` say so: both come from songbox's one table (`MPDCommandTable`), compared
    /// here with Debian's MPD permission by permission, on every command both know; MPD 0.24's
    /// new commands (0.23 has not them) with the permissions 0.24's `AllCommands.cxx` gives.
    @Test func permissionsAreMPDsOwnPermissionByPermission() throws {
        let passwords = ["a@read,add", "p@read,player", "c@read,control", "ad@read,admin"]
        let (daemon, port) = try startDaemon(config: "default_permissions = read\n" + passwords.map { "password = \($0)\n" }.joined())
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/permissions.py"
        let ours = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(port)])
        let mpd = try ReferenceMPD(music: TestLibrary.examples, folder: folder + "/mpd",
                                   settings: "default_permissions \"read\"\n" + passwords.map { "password \"\($0)\"\n" }.joined())
        defer { mpd.stop() }
        let theirs = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(mpd.port)])
        func levels(_ output: SongboxRunner.Output) -> [String: Set<String>] {
            Dictionary(output.lines.map { line in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), Set(parts.count > 1 ? parts[1].split(separator: " ").map(String.init) : []))
            }, uniquingKeysWith: { first, _ in first })
        }
        let (songbox, reference) = (levels(ours), levels(theirs))
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr)\(theirs.stderr)")
        let known = (songbox["all"] ?? []).intersection(reference["all"] ?? [])
        #expect(known.count > 80, "\(known.sorted())")
        for level in ["read", "add", "player", "control", "admin"] {
            let mine = (songbox[level] ?? []).intersection(known), mpds = (reference[level] ?? []).intersection(known)
            #expect(mine == mpds, "\(level): only songbox \(mine.subtracting(mpds).sorted()), only MPD \(mpds.subtracting(mine).sorted())")
        }
        // Served and listed alike (`listfiles` was served but not listed).
        #expect(songbox["read"]?.contains("listfiles") == true)
        // The first level that may run each: MPD's PERMISSION_NONE and _READ are both `read` here.
        let newer = ["protocol": "read", "searchcount": "read", "searchplaylist": "read", "playlistlength": "read", "playlist": "read",
                     "addtagid": "add", "cleartagid": "add", "config": "admin", "stickernames": "admin",
                     "stickertypes": "admin", "stickernamestypes": "admin"]
        for (command, level) in newer {
            let first = ["read", "add", "player", "control", "admin"].first { songbox[$0]?.contains(command) == true }
            #expect(first == level, "\(command): \(first ?? "none")")
        }
    }

    /// A wrong number of arguments is refused by the table with MPD's words (`wrong number`,
    /// `too few`, `too many`), before the command reads them; so are bad values of the
    /// commands the table reads into their type. Compared with Debian's MPD line by line.
    @Test func argumentErrorsAreMPDsWords() throws {
        let requests = ["setvol", "status 1", "add", "play 1 2", "find", "load a b c d", "seek 1", "listall a b", "ping x",
                        "pause 2", "setvol 101", "setvol -1", "setvol x", "volume 200", "volume -200", "repeat x", "random 2", "single 2", "seekcur x",
                        "seek 0 x", "seek 0 -1", "crossfade x", "replay_gain_mode loud", "partition x", "idle x", "nosuchcommand x",
                        "delete 99", "deleteid 99", "move 0 99", "moveid 99 0", "swap 0 99", "swapid 1 99"]
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/mpd/answers.py"
        let ours = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(port)] + requests)
        let mpd = try ReferenceMPD(music: TestLibrary.examples, folder: folder + "/mpd")
        defer { mpd.stop() }
        let theirs = try SongboxRunner.run(executable: "/usr/bin/python3", [script, "127.0.0.1", String(mpd.port)] + requests)
        #expect(theirs.lines.count == requests.count, "\(theirs.stderr)")
        for (index, request) in requests.enumerated() {
            #expect(ours.lines.dropFirst(index).first == theirs.lines.dropFirst(index).first, "\(request)")
        }
    }

    @Test func ncmpcppShowsTheQueueAndThePlayingSong() throws {
        let (daemon, port) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["add", "Mabel Grey"]).status == 0)
        #expect(try mpc(port, ["play", "1"]).status == 0)
        // ncmpcpp in a tmux pane of its own (its own server socket, its own home for its config).
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.config/ncmpcpp", withIntermediateDirectories: true)
        try "message_delay_time = 1\n".write(toFile: home + "/.config/ncmpcpp/config", atomically: true, encoding: .utf8)
        let tmux = ["-L", "songbox-test-\(port)"]
        let environment = ["HOME": home, "TERM": "xterm-256color"]
        // Started from Python with every other descriptor closed: the tmux server it leaves
        // behind must keep nothing of ours open (Foundation's Process waits on its own socket).
        let started = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import subprocess, sys
            sys.exit(subprocess.run(["/usr/bin/tmux", "-L", "\(tmux[1])", "new-session", "-d", "-x", "120", "-y", "30",
                                     "ncmpcpp -h 127.0.0.1 -p \(port)"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, close_fds=True).returncode)
            """], environment: environment)
        #expect(started.status == 0, "\(started.stderr)")
        defer {
            // kill-server leaves a server whose ncmpcpp lost its daemon: both are ended by name.
            _ = try? SongboxRunner.run(executable: "/usr/bin/pkill", ["-9", "-f", "ncmpcpp -h 127.0.0.1 -p \(port)"])
            _ = try? SongboxRunner.run(executable: "/usr/bin/pkill", ["-9", "-f", "tmux -L \(tmux[1]) "])
        }
        // ncmpcpp draws the playing song and the queue's header in separate updates: all of
        // them are waited for (the header once came a moment after the song).
        let shown = ["Playing: Mabel Grey \"Northern Skies\"", "Playlist (3 items", "Northern Skies", "Old Roads", "The River's Lullaby"]
        var pane = ""
        do {
            try waitFor(timeout: 20, "ncmpcpp to show the queue and the playing song") {
                pane = try SongboxRunner.run(executable: "/usr/bin/tmux", tmux + ["capture-pane", "-p"], environment: environment).stdout
                return shown.allSatisfy(pane.contains)
            }
        } catch {
            Issue.record("\(error)\n\(pane)")
        }
        for text in shown { #expect(pane.contains(text), "\(pane)") }
    }
}
