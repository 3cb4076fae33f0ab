import Foundation
import SongboxServer
import SongboxTestSupport
import Testing

/// What songbox refuses to grow without bound, through the real binary (issue 31): a queue
/// past `max_queue_length` from an MPD client, a plugin or `songbox play`, a daemon that ends
/// promptly while a plugin floods the queue, config numbers without sense, a read-only library,
/// a query of 10,000 `OR` terms.
@Suite(.serialized) struct LimitsTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    /// Sends `commands` to the MPD port one after another; the answer's lines (greeting aside).
    func mpd(_ port: Int, _ commands: [String]) throws -> [String] {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)))
            f = s.makefile("rb")
            f.readline()
            for command in sys.argv[1:]:
                s.sendall(command.encode() + b"\\n")
                while True:
                    line = f.readline().decode().rstrip("\\n")
                    print(line)
                    if line == "OK" or line.startswith("ACK "):
                        break
            """
        return try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", script] + commands).lines
    }

    func queueLength(_ port: Int) throws -> Int? {
        try mpd(port, ["status"]).first { $0.hasPrefix("playlistlength: ") }.flatMap { Int($0.dropFirst("playlistlength: ".count)) }
    }

    @Test func mpdClientsAddUntilTheQueueIsFullThenHearMPDsRefusal() throws {
        let (daemon, port) = try startDaemon(config: "max_queue_length = 5\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        // Sixteen tracks under the root: five are added, as MPD adds until its queue is full.
        #expect(try mpd(port, ["add \"\""]) == ["ACK [51@0] {add} Playlist is too large"])
        #expect(try queueLength(port) == 5)
        #expect(try mpd(port, ["addid \"Mabel Grey/Old Roads/01 - Old Roads.mp3\""]) == ["ACK [51@0] {addid} Playlist is too large"])
        #expect(try mpd(port, ["findadd artist \"Mabel Grey\""]) == ["ACK [51@0] {findadd} Playlist is too large"])
        #expect(try mpd(port, ["save five", "load five"]) == ["OK", "ACK [51@0] {load} Playlist is too large"])
        #expect(try queueLength(port) == 5)
        // Room again once something goes.
        #expect(try mpd(port, ["delete 0", "addid \"Mabel Grey/Old Roads/01 - Old Roads.mp3\""]).last == "OK")
        #expect(try queueLength(port) == 5)
        // `songbox add` (the daemon's own client) says MPD's words as its error.
        let cli = try songbox.run(["add", "Mabel Grey"], environment: daemon.clientEnvironment)
        #expect(cli.status != 0 && cli.stderr.contains("Playlist is too large"), "\(cli.stderr)")
        #expect(try queueLength(port) == 5)
        // mpc says it as MPD's own refusal.
        let mpc = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port), "add", "/"])
        #expect(mpc.status != 0 && mpc.stderr.contains("Playlist is too large"), "\(mpc.stderr)")
    }

    @Test func songboxPlayPlaysTheFirstTracksThatFitAndSaysSo() throws {
        try "max_queue_length = 4\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let played = try songbox.run(["play", "--output", "null", "--fast", "sort:path", "limit:6"],
                                     environment: ["SONGBOX_CONFIG": folder + "/config"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("the queue holds at most 4 tracks (max_queue_length): playing the first 4 of the 6 found"),
                "\(played.stderr)")
        // Through a daemon: the same words.
        let (daemon, _) = try startDaemon(config: "max_queue_length = 4\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let remote = try songbox.run(["play", "sort:path", "limit:6"], environment: daemon.clientEnvironment)
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stderr.contains("playing the first 4 of the 6 found"), "\(remote.stderr)")
    }

    /// Fills the queue with 16,000 items at a time, a thousand times a callback, 20 callbacks a
    /// second, clearing it whenever it is refused: the attack of issue 31, harder.
    static let flood = """
        local sb = require "songbox"
        local id = sb.library.query("limit:1")[1].id
        local many = {}
        for i = 1, 16000 do many[i] = id end
        local rounds, refused = 0, false
        sb.every(0.05, function()
          for k = 1, 1000 do
            local ids, err = sb.queue.add(many)
            if ids then rounds = rounds + 1 else
              if not refused then print("refused: " .. err); refused = true end
              sb.queue.clear()
            end
            if rounds == 5 and ids then print("five rounds") end
          end
        end)
        sb.on("shutdown", function() print("shutdown after " .. rounds .. " rounds") end)
        """

    @Test func aPluginCannotGrowTheQueuePastItsBoundAndTheDaemonStopsPromptlyUnderTheFlood() throws {
        let (daemon, port) = try startDaemon(plugins: ["flood": Self.flood])
        defer { if daemon.isRunning { daemon.signal(SIGKILL) } }
        try daemon.waitForOutput("[flood] refused: songbox.queue.add: the queue is full (at most 16384 items, max_queue_length): "
                                 + "16000 more do not fit, room for 384")
        try daemon.waitForOutput("[flood] five rounds", timeout: 60)
        #expect(try queueLength(port).map { $0 <= 16_384 } == true)
        // Still answering, and ended by SIGTERM within seconds while the plugin keeps at it;
        // the plugin still hears `shutdown`.
        #expect(try mpd(port, ["ping"]) == ["OK"])
        daemon.signal(SIGTERM)
        let status = try daemon.waitForExit(timeout: 5)
        #expect(status == 0, "\(daemon.errors)")
        #expect(daemon.output.contains("[flood] shutdown after "), "\(daemon.output)")
    }

    // MARK: Config numbers

    /// Runs a command that reads the config (`cache stats`) on a config of `lines`.
    func withConfig(_ lines: String) throws -> SongboxRunner.Output {
        try lines.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        return try songbox.run(["cache", "stats"], environment: ["SONGBOX_CONFIG": folder + "/config"])
    }

    @Test(arguments: [
        ("fade = 100000", "fade is seconds from 0 to 10, got '100000'"),
        ("fade = 1e308", "fade is seconds from 0 to 10, got '1e308'"),
        ("fade = -1", "fade is seconds from 0 to 10, got '-1'"),
        ("plugin_restart_pause = 1e308", "plugin_restart_pause is seconds from 0 to 600, got '1e308'"),
        ("sleep_fade = nan", "sleep_fade is seconds from 0 to 600, got 'nan'"),
        ("play_seconds = inf", "play_seconds is seconds from 0 to 86400, got 'inf'"),
        ("skip_after = soon", "skip_after is seconds from 0 to 86400, got 'soon'"),
        ("play_fraction = 1.5", "play_fraction is a share from 0 to 1, got '1.5'"),
        ("rescan_minutes = 1e9", "rescan_minutes is minutes from 0 to 525600, got '1e9'"),
        ("missing_days = 36501", "missing_days is days from 0 to 36500, got '36501'"),
        ("replay_gain_preamp = 16", "replay_gain_preamp is dB from -15 to 15, got '16'"),
        ("plugin_failures = 0", "plugin_failures is a whole number from 1 to 1000, got '0'"),
        ("max_connections = 2.5", "max_connections is a whole number from 1 to 10000, got '2.5'"),
        ("max_queue_length = 1e12", "max_queue_length is a whole number from 1 to 100000, got '1e12'"),
    ])
    func aNumberOutOfItsRangeIsRefusedWithItsKeyValueRangeAndLine(line: String, message: String) throws {
        let refused = try withConfig("# songbox\n\(line)\n")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(folder)/config:2: \(message)"), "\(refused.stderr)")
    }

    @Test func eachRangesEndsAreAccepted() throws {
        let accepted = try withConfig("""
            fade = 10
            sleep_fade = 0
            plugin_restart_pause = 600
            play_seconds = 86400
            rescan_minutes = 525600
            max_queue_length = 100000
            max_connections = 1
            replay_gain_missing_preamp = -15
            """)
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    @Test func theDaemonRefusesAFadeBeyondSense() throws {
        do {
            _ = try startDaemon(config: "fade = 100000\n")
            Issue.record("the daemon started")
        } catch {
            #expect("\(error)".contains("config:1: fade is seconds from 0 to 10, got '100000'"), "\(error)")
        }
    }

    @Test func aMissingCertificateFileOrAFolderForAConfigIsSaidAtOnce() throws {
        let missing = try withConfig("tls_certificates = \(folder)/nowhere.pem\n")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("config:1: cannot trust tls_certificates = \(folder)/nowhere.pem: there is no such file"), "\(missing.stderr)")
        try "not a certificate\n".write(toFile: folder + "/junk.pem", atomically: true, encoding: .utf8)
        let junk = try withConfig("tls_certificates = \(folder)/junk.pem\n")
        #expect(junk.stderr.contains("holds no certificate"), "\(junk.stderr)")
        let aFolder = try withConfig("tls_certificates = \(folder)\n")
        #expect(aFolder.stderr.contains("it is a folder"), "\(aFolder.stderr)")

        let folderConfig = try songbox.run(["cache", "stats"], environment: ["SONGBOX_CONFIG": folder])
        #expect(folderConfig.status != 0)
        #expect(folderConfig.stderr.contains("\(folder): the config file is a folder, not a file"), "\(folderConfig.stderr)")
        #expect(!folderConfig.stderr.contains("code"), "\(folderConfig.stderr)")
    }

    // MARK: A read-only library

    /// Root writes anything: the daemon runs as `nobody` then, in a folder of its own.
    @Test(arguments: ["file", "folder"])
    func aDaemonOnALibraryItCannotWriteRefusesToStart(readOnly: String) throws {
        let home = folder + "/ro-" + readOnly
        try FileManager.default.createDirectory(atPath: home + "/lib", withIntermediateDirectories: true)
        let database = home + "/lib/library.db"
        try FileManager.default.copyItem(atPath: songbox.database, toPath: database)
        _ = try SongboxRunner.run(executable: "/bin/chmod", ["-R", "a+rwX", home])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        if readOnly == "file" {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database)
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: home + "/lib")
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: home + "/lib") }
        let asUser: [String] = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
        let command = asUser + [SongboxRunner.executable, "--db", database, "daemon", "--output", "null", "--bind", "none", "--http", "none",
                                "--socket", home + "/control.sock", "--config", "/dev/null", "--plugins", home]
        // A daemon that started after all is ended by `timeout` (status 124), and the test fails.
        let daemon = try SongboxRunner.run(executable: "/usr/bin/timeout", ["30"] + command, environment: ["HOME": home])
        #expect(daemon.status != 0 && daemon.status != 124)
        #expect(daemon.stderr.contains("read-only"), "\(daemon.stderr)")
    }

    // MARK: Arguments

    /// 10,000 terms joined by `OR` (19,999 words) took 9 seconds in swift-argument-parser, whose
    /// work grows with the square of the words, before the query's limit refused them: now
    /// refused before any parsing, whatever the command. (With the bug this test takes minutes.)
    @Test func tenThousandOrTermsAreRefusedBeforeTheArgumentsAreParsed() throws {
        let words = Array((1...10_000).flatMap { ["w\($0)", "OR"] }.dropLast())
        for command in [["ls"], ["ls", "--json"], ["play", "--output", "null", "--fast"], ["cache", "add"]] {
            let refused = try songbox.run(command + words)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("Error: too many arguments (\(words.count + command.count + 2); at most 4096)"),
                    "\(command): \(refused.stderr.prefix(300))")
            #expect(refused.stderr.contains("a query has at most 500 terms"))
        }
        // Fewer words, still past the query's own limits: its refusal, as before.
        let terms = Array((1...1_000).flatMap { ["w\($0)", "OR"] }.dropLast())
        let tooMany = try songbox.run(["ls"] + terms)
        #expect(tooMany.stderr.contains("the query has too many terms (1000; at most 500)"), "\(tooMany.stderr)")
    }
}
