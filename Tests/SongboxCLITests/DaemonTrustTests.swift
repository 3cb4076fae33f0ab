import Foundation
import SongboxTestSupport
import Testing

/// Issue 31's holes and faults around the daemon: one daemon to a library, found through the
/// library; a socket folder another user made is not used; a plugin reads only its own files.
@Suite(.serialized) struct DaemonTrustTests: TestLibrarySuite {
    let library: TestLibrary
    let noPlugins: String

    init() throws {
        library = try TestLibrary()
        noPlugins = library.folder + "/no-plugins"
        try FileManager.default.createDirectory(atPath: noPlugins, withIntermediateDirectories: true)
    }

    func daemonFolder(_ name: String) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A command with no socket named: it finds the daemon through the library, or none.
    func command(_ arguments: [String], environment: [String: String] = [:]) throws -> SongboxRunner.Output {
        try songbox.run(arguments, environment: ["SONGBOX_SOCKET": ""].merging(environment) { $1 })
    }

    @Test func aSecondDaemonOnTheSameLibraryIsRefusedNamingTheFirst() throws {
        try library.scanExamples()
        let first = try DaemonProcess(database: songbox.database, folder: try daemonFolder("first"),
                                      arguments: ["--output", "null", "--plugins", noPlugins])
        defer { first.signal(SIGTERM); _ = try? first.waitForExit() }
        do {
            let second = try DaemonProcess(database: songbox.database, folder: try daemonFolder("second"),
                                           arguments: ["--output", "null", "--plugins", noPlugins])
            second.signal(SIGKILL)
            Issue.record("a second daemon started on the same library")
        } catch let error as FixtureError {
            let said = String(describing: error)
            #expect(said.contains("a songbox daemon (pid \(first.pid)) already serves this library on \(first.socket)"), "\(said)")
        }
        // The first still serves, and a command finds it through the library.
        let status = try command(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("volume:"))
        #expect(try command(["plugin", "ls"]).status == 0)

        // Stopped: commands say there is none, and try nothing else.
        first.signal(SIGTERM)
        try first.waitForExit()
        let none = try command(["status"])
        #expect(none.status != 0)
        #expect(none.stderr.contains("no songbox daemon serves the library \(songbox.database)"), "\(none.stderr)")
        // A daemon killed outright leaves nothing that stops the next one.
        let next = try DaemonProcess(database: songbox.database, folder: try daemonFolder("third"),
                                     arguments: ["--output", "null", "--plugins", noPlugins])
        next.signal(SIGKILL)
        _ = try next.waitForExit()
        let after = try DaemonProcess(database: songbox.database, folder: try daemonFolder("fourth"),
                                      arguments: ["--output", "null", "--plugins", noPlugins])
        defer { after.signal(SIGTERM); _ = try? after.waitForExit() }
        #expect(try command(["status"]).status == 0)
    }

    @Test(arguments: [(uid_t(65534), "it belongs to another user (uid 65534)"), (getuid(), "others may use it (mode 777)")])
    func aSocketFolderAnotherUserCouldHaveMadeIsNotUsed(owner: uid_t, reason: String) throws {
        let runtime = try daemonFolder("run")
        let taken = runtime + "/songbox"
        try FileManager.default.createDirectory(atPath: taken, withIntermediateDirectories: true)
        chmod(taken, 0o777)
        #expect(chown(taken, owner, owner) == 0, "this test needs root to give a folder to another user")
        let environment = ["XDG_RUNTIME_DIR": runtime]
        let daemon = try DaemonProcess(database: songbox.database, folder: try daemonFolder("daemon"),
                                       arguments: ["--output", "null", "--plugins", noPlugins], environment: environment,
                                       namingSocket: false)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(daemon.errors.contains("not using the socket folder \(taken): \(reason); the socket is /tmp/songbox-\(getuid())-"),
                "\(daemon.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: taken).isEmpty)
        // Commands find it all the same, through the library.
        let status = try command(["status"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        // The folder it made is its own, closed to others, and gone with it.
        let chosen = daemon.errors.components(separatedBy: "the socket is ").last?.components(separatedBy: "/control.sock").first ?? ""
        var info = stat()
        #expect(lstat(chosen, &info) == 0 && info.st_uid == getuid() && info.st_mode & 0o777 == 0o700)
        daemon.signal(SIGTERM)
        try daemon.waitForExit()
        #expect(!FileManager.default.fileExists(atPath: chosen))
    }

    @Test func aPluginReadsOnlyItsOwnFilesWhereverTheDaemonStarts() throws {
        try library.scanExamples()
        let plugins = try daemonFolder("plugins")
        // Its own folder, beside the library, holding a link to a file outside it.
        let own = (songbox.database as NSString).deletingLastPathComponent + "/plugins/reader"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: own + "/link.m3u", withDestinationPath: "/etc/passwd")
        try "#EXTM3U\nnothing.mp3\n".write(toFile: own + "/mine.m3u", atomically: true, encoding: .utf8)
        try """
            for _, path in ipairs{"etc/passwd", "../../../../../../../etc/passwd", "/etc/passwd", "link.m3u", "mine.m3u"} do
              local report, message = songbox.playlist.import(path, {name = "x", replace = true})
              if report then
                local lines = {}
                for _, entry in ipairs(report.unmatched) do lines[#lines + 1] = entry.text end
                print(path .. " => read: " .. table.concat(lines, "|"))
              else
                print(path .. " => " .. message)
              end
            end
            print("done")
            """.write(toFile: plugins + "/reader.lua", atomically: true, encoding: .utf8)
        // As systemd starts it: in /.
        let daemon = try DaemonProcess(database: songbox.database, folder: try daemonFolder("daemon"),
                                       arguments: ["--output", "null", "--plugins", plugins], workingDirectory: "/")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("done")
        let output = daemon.output
        #expect(!output.contains("root:"), "\(output)")
        #expect(output.contains("[reader] etc/passwd => songbox.playlist.import: no such playlist file"), "\(output)")
        for refused in ["../../../../../../../etc/passwd", "/etc/passwd", "link.m3u"] {
            #expect(output.contains("[reader] \(refused) => songbox.playlist.import: a plugin may use files only in its own folder (\(own))"),
                    "\(refused): \(output)")
        }
        #expect(output.contains("mine.m3u => read: nothing.mp3"), "\(output)")
    }

    /// The API fuzz (`lua/fuzz.lua`) as a daemon plugin: every function, every argument shape,
    /// hostile values and hostile paths (outside its folder, through a link, devices, /proc).
    /// The daemon lives through it, and nothing outside the plugin's folder is read or written.
    @Test func everyPluginFunctionSurvivesHostileValuesAndPaths() throws {
        try library.scanExamples()
        let plugins = try daemonFolder("plugins")
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/Tests/SongboxScriptTests/lua/fuzz.lua", toPath: plugins + "/fuzz.lua")
        let own = (songbox.database as NSString).deletingLastPathComponent + "/plugins/fuzz"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: own + "/link-out", withDestinationPath: "/etc")
        let passwd = FileManager.default.contents(atPath: "/etc/passwd")
        let config = folder + "/config"
        try "plugin.fuzz.seed = 5\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(database: songbox.database, folder: try daemonFolder("daemon"),
                                       arguments: ["--output", "null", "--fast", "--plugins", plugins, "--config", config])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("fuzz done: ", timeout: 600)
        let done = daemon.output.components(separatedBy: "\n").first { $0.contains("fuzz done: ") } ?? ""
        let functions = Int(done.components(separatedBy: "fuzz done: ").last?.split(separator: " ").first ?? "") ?? 0
        #expect(functions > 80, "\(done)")
        #expect(daemon.isRunning)
        #expect(!daemon.errors.contains("plugin fuzz: disabled"), "\(daemon.errors.suffix(2000))")
        #expect(FileManager.default.contents(atPath: "/etc/passwd") == passwd)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/fuzz-escape.m3u8"))
        var info = stat()
        #expect(stat("/dev/zero", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(try command(["status"]).status == 0)
    }

    /// The daemon says what it serves (library, config, music, then where it listens), scans a
    /// music folder new to the library at start, and refuses a --music folder that is not there
    /// (issue 25).
    /// With no daemon and no socket (cron's bare environment: no XDG_RUNTIME_DIR), no command
    /// falls back to MPD's port: a server listening on 127.0.0.1:6600, as another library's
    /// daemon or someone's MPD would, hears nothing. The server runs in a network namespace of
    /// the test's own (`unshare -rn`), so port 6600 of the machine is not touched; that it
    /// answers is shown by a command that names it.
    @Test func withNoDaemonNoCommandTalksToAServerOnTheMPDPort() throws {
        try library.scanExamples()
        let heard = folder + "/heard", listener = folder + "/listener.py"
        try """
            import socket, sys
            server = socket.socket()
            server.bind(("127.0.0.1", 6600))
            server.listen()
            open(sys.argv[1] + ".ready", "w").close()
            while True:
                client, _ = server.accept()
                client.sendall(b"OK MPD 0.23.5\\n")
                client.settimeout(2)
                with open(sys.argv[1], "a") as record:
                    record.write("a connection\\n")
                    try:
                        record.write(client.recv(4096).decode(errors="replace"))
                    except OSError:
                        pass
                client.close()
            """.write(toFile: listener, atomically: true, encoding: .utf8)
        let commands = [["alarm", "add", "wake", "--at", "07:00"], ["alarm", "fire", "wake"], ["alarm", "dismiss"],
                        ["autoplay", "on"], ["status"], ["next"], ["plugin", "ls"]]
        func bare(_ setting: String = "") -> String {
            "env -i PATH=/usr/bin:/bin HOME='\(folder)' \(setting) '\(SongboxRunner.executable)' --db '\(songbox.database)'"
        }
        let script = """
            set -u
            ip link set lo up || exit 97
            python3 '\(listener)' '\(heard)' & listener=$!
            for _ in $(seq 200); do [ -e '\(heard).ready' ] && break; sleep 0.05; done
            [ -e '\(heard).ready' ] || exit 98
            \(commands.map { "\(bare()) \($0.joined(separator: " ")) >/dev/null 2>&1" }.joined(separator: "\n"))
            cp '\(heard)' '\(heard).before' 2>/dev/null || : > '\(heard).before'
            \(bare("MPD_HOST=127.0.0.1")) status >/dev/null 2>&1
            kill $listener
            """
        let run = try SongboxRunner.run(executable: "/usr/bin/unshare", ["-rn", "sh", "-c", script])
        try #require(run.status == 0, "the namespace and its listener: \(run.stderr)")
        let before = (try? String(contentsOfFile: heard + ".before", encoding: .utf8)) ?? ""
        #expect(before.isEmpty, "a command with no daemon reached the server on 6600: \(before)")
        let after = (try? String(contentsOfFile: heard, encoding: .utf8)) ?? ""
        #expect(after.contains("a connection"), "the server on 6600 answers a command that names it")
    }

    @Test func aDaemonSaysWhatItServesAndScansAFolderNewToTheLibrary() throws {
        let music = Fixtures.packageRoot + "/examples/music"
        do {
            let refused = try DaemonProcess(database: songbox.database, folder: try daemonFolder("refused"),
                                            arguments: ["--output", "null", "--plugins", noPlugins, "--music", folder + "/nowhere"])
            refused.signal(SIGKILL)
            Issue.record("a daemon started with a --music folder that does not exist")
        } catch let error as FixtureError {
            #expect(String(describing: error).contains("the music folder \(folder)/nowhere does not exist"), "\(error)")
        }
        // No config at its usual place: the defaults, said.
        let config = folder + "/xdg/songbox/config"
        let daemon = try DaemonProcess(database: songbox.database, folder: try daemonFolder("daemon"),
                                       arguments: ["--output", "null", "--plugins", noPlugins, "--music", music],
                                       environment: ["XDG_CONFIG_HOME": folder + "/xdg", "SONGBOX_CONFIG": ""])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(daemon.errors.contains("songbox daemon: library \(songbox.database), config none (\(config) is not there: the defaults), music \(music)"),
                "\(daemon.errors)")
        try daemon.waitForLog("rescan: ")
        #expect(daemon.errors.contains("new to the library"))
        let listed = try command(["ls"])
        #expect(listed.status == 0 && listed.lines.count > 5, "\(listed.stdout)\(listed.stderr)")
    }

    /// A daemon with no sound device does not show "playing" for ever: the output's error is
    /// in the log and in MPD's `error:` at once, and once the player has waited for the device
    /// as long as it does, playback pauses at its place, said in the log (issue 25).
    @Test func aDaemonWithNoSoundDeviceSaysSoAndPauses() throws {
        try library.add([("long", 30)])
        let daemon = try DaemonProcess(database: songbox.database, folder: try daemonFolder("daemon"),
                                       arguments: ["--output", "alsa:songbox-missing", "--plugins", noPlugins, "--config", "/dev/null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let mpc = { (arguments: [String]) in
            try SongboxRunner.run(executable: "/usr/bin/mpc", arguments, environment: ["MPD_HOST": daemon.socket])
        }
        #expect(try command(["play", "path:long"]).status == 0)
        let said = "output alsa:songbox-missing: cannot open ALSA device \"songbox-missing\""
        try daemon.waitForLog(said)
        #expect(try mpc(["status"]).stdout.contains("ERROR: alsa:songbox-missing: cannot open ALSA device"))
        try daemon.waitForLog("no audio for 15 s, playback paused; play to try again", timeout: 120)
        let paused = try mpc(["status"]).stdout
        #expect(paused.contains("[paused]") && paused.contains("ERROR: alsa:songbox-missing"), "\(paused)")
        let status = try command(["status"])
        #expect(status.stdout.contains("[paused]") && status.stdout.contains("ERROR: alsa:songbox-missing"), "\(status.stdout)")
        #expect(try mpc(["clearerror"]).status == 0)
        #expect(!(try mpc(["status"]).stdout.contains("ERROR")))
        // Asked to play again, it tries the device again, and says so.
        #expect(try mpc(["play"]).status == 0)
        try daemon.waitForLog(said, count: 2)
    }

    /// A daemon stopped (or killed) while it played plays on from its place when it starts
    /// again, as MPD does; `restore_paused = yes` has it wait there (issue 25).
    @Test func aDaemonStoppedWhilePlayingPlaysOnWhenItStartsAgain() throws {
        try library.scanExamples()
        func start(_ name: String, config: String = "") throws -> DaemonProcess {
            let path = folder + "/config-" + name
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            return try DaemonProcess(database: songbox.database, folder: try daemonFolder(name),
                                     arguments: ["--output", "null", "--plugins", noPlugins, "--config", path])
        }
        func playing() throws -> Bool { try command(["status"]).stdout.contains("[playing]") }
        let first = try start("first")
        #expect(try command(["play", "sort:id"]).status == 0)
        try waitFor(timeout: 10, "the first daemon to play") { try playing() }
        first.signal(SIGTERM)
        try first.waitForExit()

        let second = try start("second")
        try waitFor(timeout: 10, "the second daemon to play on") { try playing() }
        #expect(second.errors.contains("playing on where it stopped"))
        second.signal(SIGKILL)
        _ = try second.waitForExit()

        let third = try start("third", config: "restore_paused = yes\n")
        defer { third.signal(SIGTERM); _ = try? third.waitForExit() }
        Thread.sleep(forTimeInterval: 1)
        #expect(try !playing())
        #expect(try command(["play"]).status == 0)
        try waitFor(timeout: 10, "the third daemon to play when asked") { try playing() }
    }
}
