import Foundation
import GRDB
import SongboxServer
import SongboxTestSupport
import Testing

/// Scrobbling end to end (issue 30): the bundled plugins/scrobble.lua in a real daemon, sending
/// to the tests' ListenBrainz and Last.fm on loopback (`ScrobbleServer`, which checks the token,
/// the JSON and the signatures as the services do); and the network grant that gives a plugin
/// `songbox.http`, through `songbox run`.
@Suite(.serialized) struct ScrobbleTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    static let recording = "3f1f5d2e-1b2c-4d5e-8f90-0123456789ab"

    /// Tracks `Song 1`... by `Artist`, on `Album`, 1 s each; Song 1 liked, with a MusicBrainz
    /// recording id.
    func taggedTracks(_ count: Int) throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for n in 1...count {
            var tags = ["-b", "128", "--tt", "Song \(n)", "--ta", "Artist", "--tl", "Album", "--tn", "\(n)"]
            if n == 1 { tags += ["--tv", "TXXX=MusicBrainz Track Id=\(Self.recording)"] }
            _ = try AudioFixtures.tone(in: music, name: String(format: "s%02d", n), seconds: 1, frequency: 300 + 50 * Double(n), lameOptions: tags)
            try FileManager.default.removeItem(atPath: music + String(format: "/s%02d.wav", n))
        }
        try library.scan()
        let liked = folder + "/like.lua"
        try "assert(songbox.library.set(songbox.library.query('title:\"Song 1\"')[1], { liked = true }))\n"
            .write(toFile: liked, atomically: true, encoding: .utf8)
        #expect(try songbox.run(["run", liked]).status == 0)
    }

    /// The config of the scrobbler for `server`: both services, quick retries.
    func scrobbleConfig(_ server: ScrobbleServer, plugins: String) -> String {
        """
        plugins = \(plugins)
        plugin.scrobble.listenbrainz_token = \(ScrobbleServer.token)
        plugin.scrobble.listenbrainz_url = \(server.url())
        plugin.scrobble.lastfm_key = \(ScrobbleServer.apiKey)
        plugin.scrobble.lastfm_secret = \(ScrobbleServer.secret)
        plugin.scrobble.lastfm_url = \(server.url("/2.0/"))
        plugin.scrobble.retry_seconds = 0.2
        plugin.scrobble.retry_max_seconds = 1
        net.scrobble = \(server.url())

        """
    }

    func startDaemon() throws -> DaemonProcess {
        try DaemonProcess(database: songbox.database, folder: folder,
                          arguments: ["--output", "null", "--fast", "--config", folder + "/config"],
                          environment: ["SONGBOX_CONFIG": folder + "/config"])
    }

    /// `songbox scrobble status`, its lines.
    func status() throws -> [String] {
        let status = try songbox.run(["scrobble", "status"], environment: ["SONGBOX_CONFIG": folder + "/config"])
        #expect(status.status == 0, "\(status.stderr)")
        return status.lines
    }

    /// Logs in to the test Last.fm (which says "not yet" once), counts plays while the services
    /// are down, kills the daemon with SIGKILL, counts one more after the restart, then brings
    /// the services back: every listen arrives once, in order, to both; the backlog goes to
    /// ListenBrainz as an import, the liked track with a recording id gets its feedback.
    @Test func listensCountedWhileTheServicesAreDownArriveOnceInOrderAfterAKill() throws {
        try taggedTracks(4)
        let userPlugins = folder + "/user-plugins"
        try FileManager.default.createDirectory(atPath: userPlugins, withIntermediateDirectories: true)
        // A plugin of the user's without a grant, beside the scrobbler with one.
        try "print('stranger http: ' .. type(songbox.http))\n".write(toFile: userPlugins + "/stranger.lua", atomically: true, encoding: .utf8)
        var server = try ScrobbleServer(folder: folder)
        let port = server.port
        try scrobbleConfig(server, plugins: userPlugins).write(toFile: folder + "/config", atomically: true, encoding: .utf8)

        let login = try songbox.run(["scrobble", "login", "lastfm", "--wait", "30"], environment: ["SONGBOX_CONFIG": folder + "/config"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("https://www.last.fm/api/auth/?api_key=\(ScrobbleServer.apiKey)&token=test-token"), "\(login.stdout)")
        #expect(login.stdout.contains("Logged in to Last.fm as tester"), "\(login.stdout)")
        #expect(server.entries.filter { $0["kind"] as? String == "refused" }.map { $0["code"] as? Int } == [14],
                "one 'not yet', then the session: \(server.entries)")
        server.stop()

        var daemon = try startDaemon()
        defer { daemon.signal(SIGKILL) }
        try daemon.waitForLog("plugin scrobble: loaded from ")
        try daemon.waitForOutput("[stranger] stranger http: nil")
        let play = try songbox.run(["play", "title:Song", "sort:track", "-title:\"Song 4\""], environment: daemon.clientEnvironment)
        #expect(play.status == 0, "\(play.stderr)")
        try waitFor(timeout: 30, "three listens queued") { try status().contains("ListenBrainz: 3 listens waiting") }
        #expect(try status() == ["ListenBrainz: 3 listens waiting", "Last.fm: 3 listens waiting"])
        daemon.signal(SIGKILL)
        try daemon.waitForExit()

        daemon = try startDaemon()
        let more = try songbox.run(["play", "title:\"Song 4\""], environment: daemon.clientEnvironment)
        #expect(more.status == 0, "\(more.stderr)")
        try waitFor(timeout: 30, "four listens queued") { try status().contains("Last.fm: 4 listens waiting") }

        server = try ScrobbleServer(folder: folder, port: port)
        try waitFor(timeout: 30, "the listens to arrive") {
            server.listens("listenbrainz").count >= 4 && server.listens("lastfm").count >= 4
        }
        Thread.sleep(forTimeInterval: 1.5)  // time for a listen sent twice to show up
        let titles = ["Song 1", "Song 2", "Song 3", "Song 4"]
        for service in ["listenbrainz", "lastfm"] {
            let listens = server.listens(service)
            #expect(listens.map { $0["track"] as? String } == titles, "\(service): \(listens)")
            #expect(listens.allSatisfy { $0["artist"] as? String == "Artist" && $0["album"] as? String == "Album" })
            let times = listens.compactMap { $0["listened_at"] as? Int }
            #expect(times.count == 4 && times == times.sorted(), "\(times)")
        }
        let brainz = server.listens("listenbrainz")
        #expect(brainz.allSatisfy { $0["listen_type"] as? String == "import" }, "the backlog goes as an import: \(brainz)")
        let info = brainz.first?["additional_info"] as? [String: Any]
        #expect(info?["recording_mbid"] as? String == Self.recording, "\(brainz)")
        #expect(info?["submission_client"] as? String == "songbox")
        #expect(server.listens("lastfm").first?["mbid"] as? String == Self.recording)
        #expect(server.listens("lastfm").allSatisfy { $0["batch"] as? Int == 4 }, "one batch: \(server.listens("lastfm"))")
        let feedback = server.entries.filter { $0["kind"] as? String == "feedback" }
        #expect(feedback.count == 1 && feedback.first?["recording_mbid"] as? String == Self.recording, "\(feedback)")
        #expect(!server.entries.contains { $0["kind"] as? String == "refused" && $0["code"] as? Int != 14 }, "\(server.entries)")
        #expect(try status() == ["ListenBrainz: 0 listens waiting", "Last.fm: 0 listens waiting"])

        // With the services up: the playing track is announced, and its listen goes at once, as `single`.
        let live = try songbox.run(["play", "title:\"Song 2\""], environment: daemon.clientEnvironment)
        #expect(live.status == 0, "\(live.stderr)")
        try waitFor(timeout: 30, "the live listen") { server.listens("listenbrainz").count == 5 && server.listens("lastfm").count == 5 }
        #expect(server.listens("listenbrainz").last?["listen_type"] as? String == "single")
        let nowPlaying = server.entries.filter { $0["kind"] as? String == "now_playing" }
        #expect(Set(nowPlaying.compactMap { $0["service"] as? String }) == ["listenbrainz", "lastfm"], "\(nowPlaying)")
        #expect(nowPlaying.allSatisfy { $0["track"] as? String == "Song 2" }, "\(nowPlaying)")
        daemon.signal(SIGTERM)
        try daemon.waitForExit()
    }

    /// Last.fm not logged in yet holds only Last.fm's listens: ListenBrainz has them at once;
    /// the login hands the session to the running daemon's plugin, which sends what waited.
    @Test func aServiceThatCannotTakeListensDoesNotHoldTheOther() throws {
        try taggedTracks(2)
        let server = try ScrobbleServer(folder: folder)
        // A failure waits an hour here: only the login's message can end Last.fm's wait in time.
        try scrobbleConfig(server, plugins: folder + "/none").replacingOccurrences(of: "retry_max_seconds = 1", with: "retry_max_seconds = 3600")
            .replacingOccurrences(of: "retry_seconds = 0.2", with: "retry_seconds = 3600")
            .write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let daemon = try startDaemon()
        defer { daemon.signal(SIGKILL) }
        try daemon.waitForLog("plugin scrobble: loaded from ")
        #expect(try songbox.run(["play", "title:Song", "sort:track"], environment: daemon.clientEnvironment).status == 0)
        try waitFor(timeout: 30, "ListenBrainz's listens") { server.listens("listenbrainz").count == 2 }
        #expect(server.listens("listenbrainz").map { $0["track"] as? String } == ["Song 1", "Song 2"])
        try waitFor(timeout: 30, "two listens waiting for Last.fm") { try status().contains("Last.fm: 2 listens waiting") }
        #expect(try status() == ["ListenBrainz: 0 listens waiting", "Last.fm: 2 listens waiting",
                                 "  not logged in: run `songbox scrobble login lastfm`"])
        #expect(server.listens("lastfm").isEmpty)

        let login = try songbox.run(["scrobble", "login", "lastfm", "--wait", "30"],
                                    environment: ["SONGBOX_CONFIG": folder + "/config"].merging(daemon.clientEnvironment) { a, _ in a })
        #expect(login.status == 0, "\(login.stderr)")
        // At once, not after the hour the retry would wait.
        try waitFor(timeout: 15, "Last.fm's listens after the login") { server.listens("lastfm").count == 2 }
        #expect(server.listens("lastfm").map { $0["track"] as? String } == ["Song 1", "Song 2"])
        #expect(try status() == ["ListenBrainz: 0 listens waiting", "Last.fm: 0 listens waiting"])
    }

    /// More than a batch: the queue on repeat plays past 50 listens while Last.fm waits for its
    /// login; then Last.fm takes them in batches of at most 50 (`track.scrobble`'s limit) and
    /// ListenBrainz has had them all, in order.
    @Test func aLongQueueGoesToLastFMInBatchesOfFifty() throws {
        try taggedTracks(3)
        let server = try ScrobbleServer(folder: folder)
        try (scrobbleConfig(server, plugins: folder + "/none") + "plugin.scrobble.now_playing = false\n")
            .write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let daemon = try startDaemon()
        defer { daemon.signal(SIGKILL) }
        try daemon.waitForLog("plugin scrobble: loaded from ")
        let control = try ControlClient(path: daemon.socket)
        _ = try control.send("repeat", ["1"])
        let database = try DatabaseQueue(path: songbox.database)
        func plays() throws -> Int {
            try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM history WHERE kind = 'play'") ?? 0 }
        }
        #expect(try songbox.run(["play", "title:Song", "sort:track"], environment: daemon.clientEnvironment).status == 0)
        try waitFor(timeout: 60, "more than 55 plays") { try plays() > 55 }
        _ = try control.send("stop")
        // The player runs ahead on the fast clock; the plugin handles every play, in order.
        Thread.sleep(forTimeInterval: 0.5)  // the stopped track's play is recorded too
        let count = try plays()
        do {
            try waitFor(timeout: 90, "the plugin to catch up") { server.listens("listenbrainz").count >= count }
        } catch {
            Issue.record("\(error): \(try status()), \(server.listens("listenbrainz").count) of \(count) sent")
            return
        }
        #expect(server.listens("listenbrainz").count == count)
        let login = try songbox.run(["scrobble", "login", "lastfm", "--wait", "30"],
                                    environment: ["SONGBOX_CONFIG": folder + "/config"].merging(daemon.clientEnvironment) { a, _ in a })
        #expect(login.status == 0, "\(login.stderr)")
        do {
            try waitFor(timeout: 30, "Last.fm's listens") { server.listens("lastfm").count == count }
        } catch {
            let batches = server.listens("lastfm").map { $0["batch"] as? Int ?? 0 }
            Issue.record("\(error): \(batches.count) of \(count), in batches \(batches); \(try status())")
            return
        }
        let lastfm = server.listens("lastfm"), brainz = server.listens("listenbrainz")
        #expect(lastfm.map { $0["track"] as? String } == brainz.map { $0["track"] as? String }, "the same listens in the same order")
        let batches = lastfm.compactMap { $0["batch"] as? Int }
        #expect(batches == Array(repeating: 50, count: count / 50 * 50) + Array(repeating: count % 50, count: count % 50), "\(batches)")
        #expect(brainz.allSatisfy { ($0["listen_type"] as? String) != nil }, "\(brainz.prefix(2))")
        #expect(try status() == ["ListenBrainz: 0 listens waiting", "Last.fm: 0 listens waiting"])
    }

    /// Off until configured: no options, no queue and nothing sent, whatever the grant.
    @Test func theScrobblerIsOffUntilConfigured() throws {
        try taggedTracks(1)
        let server = try ScrobbleServer(folder: folder)
        try "net.scrobble = \(server.url())\nplugins = \(folder)/none\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        #expect(try status() == ["Scrobbling is off: set plugin.scrobble.listenbrainz_token, or plugin.scrobble.lastfm_key and lastfm_secret, in the config (see docs/scrobbling.md)."])
        let daemon = try startDaemon()
        defer { daemon.signal(SIGKILL) }
        #expect(try songbox.run(["play", "title:\"Song 1\""], environment: daemon.clientEnvironment).status == 0)
        try waitFor(timeout: 30, "the play") { try songbox.run(["history"]).stdout.contains("Song 1") }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(server.entries.isEmpty, "\(server.entries)")
        #expect(try songbox.run(["run", "--dry-run", Fixtures.packageRoot + "/plugins/scrobble.lua"]).status == 0)
    }

    /// A script whose source is `body`, run as `NAME.lua` with `config`; its output.
    func run(_ name: String, config: String, _ body: String) throws -> SongboxRunner.Output {
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let path = folder + "/" + name + ".lua"
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        return try songbox.run(["run", path], environment: ["SONGBOX_CONFIG": folder + "/config"])
    }

    /// `songbox.http` exists only for a name the config grants hosts to; the grant is its
    /// scheme, host and port, every redirect is checked against it, and the answer is bounded.
    @Test func onlyAGrantedPluginHasHTTPAndOnlyToItsHosts() throws {
        let granted = try ScrobbleServer(folder: (folder + "/a").made())
        let other = try ScrobbleServer(folder: (folder + "/b").made())
        let config = "net.probe = \(granted.url())\n"

        let ungranted = try run("stranger", config: config, """
            print(type(songbox.http))
            """)
        #expect(ungranted.status == 0 && ungranted.stdout == "nil\n", "\(ungranted.stderr)")

        let probe = try run("probe", config: config, """
            local http = songbox.http
            local ok = assert(http.request { url = "\(granted.url("/big?bytes=2000"))", max_body = 3000 })
            print("status", ok.status, #ok.body, ok.headers["content-length"], ok.ok)
            print("bounded", http.request { url = "\(granted.url("/big?bytes=2000"))", max_body = 1000 })
            print("redirect", http.request { url = "\(granted.url("/redirect?to="))" .. "\(other.url("/big?bytes=10"))" })
            print("other", http.request { url = "\(other.url("/big?bytes=10"))" })
            print("https", http.request { url = "https://127.0.0.1:\(granted.port)/big" })
            print("named", http.request { url = "http://localhost:\(granted.port)/big" })
            print("args", pcall(http.request, { url = "\(granted.url())", speed = 3 }))
            print("timeout", pcall(http.request, { url = "\(granted.url())", timeout = 0/0 }))
            print("header", pcall(http.request, { url = "\(granted.url())", headers = { ["X-A"] = "a\\r\\nHost: evil" } }))
            print("md5", songbox.hash.md5(""), songbox.hash.md5("The quick brown fox jumps over the lazy dog"))
            """)
        #expect(probe.status == 0, "\(probe.stderr)")
        let lines = probe.lines
        #expect(lines.first == "status\t200\t2000\t2000\ttrue", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("bounded\tnil\tsongbox.http.request: ") && $0.contains("longer than 1000 bytes") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("redirect\tnil\t") && $0.contains("http://127.0.0.1:\(other.port) is not granted to this plugin") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("other\tnil\t") && $0.contains("is not granted") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("https\tnil\t") && $0.contains("127.0.0.1:\(granted.port) is not granted") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("named\tnil\t") && $0.contains("http://localhost:\(granted.port) is not granted") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("args\tfalse\t") && $0.contains("unknown key 'speed'") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("timeout\tfalse\t") && $0.contains("timeout must be seconds from 0 to 60") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("header\tfalse\t") && $0.contains("control character") }, "\(lines)")
        #expect(lines.contains("md5\td41d8cd98f00b204e9800998ecf8427e\t9e107d9d372bb6826bd81d3542a419d6"), "\(lines)")
        #expect(other.entries.isEmpty, "the other server was never reached: \(other.entries)")
        #expect(granted.entries.filter { $0["kind"] as? String == "request" }.count == 3, "\(granted.entries)")
    }

    /// In a daemon: a grant that names songbox's own MPD port does not reach it, a request
    /// waits no longer than its timeout, and one in flight does not hold a SIGTERM.
    @Test func aGrantedPluginNeverReachesSongboxsOwnPortNorHoldsTheDaemon() throws {
        let server = try ScrobbleServer(folder: folder)
        let mpd = try freePort()
        let plugins = folder + "/probe-plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            local sb = require "songbox"
            sb.on("startup", function()
              print("own", sb.http.request { url = "http://127.0.0.1:\(mpd)/" })
              print("timeout", sb.http.request { url = "\(server.url("/slow?seconds=5"))", timeout = 0.5 })
              print("waiting")
              print("stopped", sb.http.request { url = "\(server.url("/slow?seconds=50"))", timeout = 60 })
            end)
            """.write(toFile: plugins + "/probe.lua", atomically: true, encoding: .utf8)
        try "net.probe = http://127.0.0.1:\(mpd), \(server.url())\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", plugins, "--output", "null", "--config", folder + "/config", "--bind", "127.0.0.1:\(mpd)",
        ])
        defer { daemon.signal(SIGKILL) }
        try daemon.waitForOutput("[probe] waiting")
        // The daemon shows a plugin's tabs escaped, as `\t`.
        let lines = daemon.output.split(separator: "\n").map { $0.replacingOccurrences(of: "\\t", with: "\t") }
        #expect(lines.contains { $0.hasPrefix("[probe] own\tnil\t") && $0.contains("songbox's own port") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("[probe] timeout\tnil\t") && $0.contains("no answer") }, "\(lines)")
        let stopping = Date()
        daemon.signal(SIGTERM)
        try daemon.waitForExit(timeout: 20)
        #expect(Date().timeIntervalSince(stopping) < 10, "a request in flight held the daemon")
    }

    /// A grant is checked when the config is read: a path or a password is refused, naming the line.
    @Test func aGrantThatIsNotHostsIsRefusedWithItsLine() throws {
        for (value, words) in [("https://api.example.org/path", "is more than a host"), ("", "a network grant is net.PLUGIN = host, host"),
                               ("ftp://x.org", "is not a host")] {
            let output = try run("probe", config: "\n net.probe = \(value)\n", "print(1)")
            #expect(output.status != 0 && output.stderr.contains("config:2") && output.stderr.contains(words), "\(value): \(output.stderr)")
        }
    }
}

extension String {
    /// This folder, made.
    fileprivate func made() throws -> String {
        try FileManager.default.createDirectory(atPath: self, withIntermediateDirectories: true)
        return self
    }
}
