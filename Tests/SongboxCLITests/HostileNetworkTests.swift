import Foundation
import SongboxTestSupport
import Testing

/// Issue 31's holes and faults on the network side, each as the attack was made: a URL that
/// smuggles MPD commands, a station that stalls after its headers, redirects without end or to
/// a file, a password in a URL. The tests' own hostile server (`hostile_http.py`) and real
/// daemons driven by mpc.
@Suite(.serialized) struct HostileNetworkTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    func mpc(_ port: Int, _ arguments: [String]) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
    }

    func daemon(port: Int, plugins: String? = nil) throws -> DaemonProcess {
        let empty = folder + "/no-plugins"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        return try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", plugins ?? empty, "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
    }

    /// Waits until the daemon no longer plays (a track that fails before a sound stops a queue
    /// of such tracks).
    func waitUntilStopped(_ port: Int) throws {
        try waitFor(timeout: 30, "the player to stop") { try !mpc(port, ["status"]).stdout.contains("[playing]") }
    }

    /// Whether the player is past the first second of the queue's item `position` (`#2/3`):
    /// heard, not only headed for.
    func playing(_ port: Int, _ position: String) throws -> Bool {
        let status = try mpc(port, ["status"]).stdout
        return status.range(of: "\\[playing\\] \(position)\\s+0:0[1-9]", options: .regularExpression) != nil
    }

    @Test func aURLCannotSmuggleCommandsIntoAnMPDPort() throws {
        let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        let fakeMPD = try HostileServer(folder: folder, file: tone, impersonatingMPD: true)
        let port = try freePort()
        let daemon = try daemon(port: port)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["volume", "50"]).status == 0)

        // Into songbox's own port: never fetched from at all.
        let smuggled = "/%0Asetvol%207%0Aplugindisable%20alarm%0A"
        #expect(try mpc(port, ["add", "http://127.0.0.1:\(port)\(smuggled)"]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        try daemon.waitForLog("songbox's own port")
        try waitUntilStopped(port)
        #expect(try mpc(port, ["volume"]).stdout.contains("50%"))

        // Into another MPD server's: the request line keeps the URL's encoded form (a %0A stays
        // three characters), and a server that answers neither HTTP nor ICY is not played.
        #expect(try mpc(port, ["clear"]).status == 0)
        #expect(try mpc(port, ["add", fakeMPD.url(smuggled)]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        try waitFor(timeout: 30, "songbox to ask the fake MPD") { fakeMPD.requests.contains(smuggled) }
        try waitUntilStopped(port)
        let lines = fakeMPD.requests.components(separatedBy: CharacterSet.newlines).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!lines.contains("setvol 7") && !lines.contains("plugindisable alarm"), "\(fakeMPD.requests)")
        #expect(lines.contains { $0.hasPrefix("GET \(smuggled) HTTP/") }, "\(fakeMPD.requests)")
        #expect(try mpc(port, ["volume"]).stdout.contains("50%"))
    }

    @Test func skippingAwayFromAStalledStationIsDoneAtOnce() throws {
        let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        let station = try HostileServer(folder: folder, file: tone)
        let port = try freePort()
        let daemon = try daemon(port: port)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let tracks = try songbox.run(["ls", "--json", "sort:id", "limit:2"])
        let paths = try JSONSerialization.jsonObject(with: Data(tracks.stdout.utf8)) as? [[String: Any]] ?? []
        try #require(paths.count == 2)
        #expect(try mpc(port, ["add", station.url("/stall/radio")]).status == 0)
        for track in paths { #expect(try mpc(port, ["add", track["path"] as? String ?? ""]).status == 0) }
        #expect(try mpc(port, ["repeat", "on"]).status == 0)
        #expect(try mpc(port, ["play", "1"]).status == 0)
        // The station answered its headers and sends nothing more.
        try waitFor(timeout: 30, "the station to be asked") { station.requests.contains("GET /stall/radio") }
        Thread.sleep(forTimeInterval: 1)
        #expect(try mpc(port, ["next"]).status == 0)
        try waitFor(timeout: 15, "the next track to be heard") { try playing(port, "#2/3") }
        // And back to it, then away again, and a stop: each done whatever the station does.
        #expect(try mpc(port, ["play", "1"]).status == 0)
        Thread.sleep(forTimeInterval: 1)
        #expect(try mpc(port, ["stop"]).status == 0)
        try waitUntilStopped(port)
        #expect(try mpc(port, ["play", "3"]).status == 0)
        try waitFor(timeout: 15, "track 3 to be heard") { try playing(port, "#3/3") }
    }

    @Test func redirectsAreFollowedToFiveAndOnlyToTheWeb() throws {
        let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        let server = try HostileServer(folder: folder, file: tone)
        let loop = try songbox.run(["play", "--output", "null", "--fast", server.url("/loop/0")])
        #expect(loop.status != 0)
        #expect(loop.stderr.contains("more redirects than songbox follows (5)"), "\(loop.stderr)")
        #expect(!loop.stderr.contains("closed channel"))
        // The first request and five redirects, no more.
        #expect(server.requests.components(separatedBy: "GET /loop/").count - 1 == 6, "\(server.requests)")

        let toFile = try songbox.run(["play", "--output", "null", "--fast", server.url("/to-file")])
        #expect(toFile.status != 0)
        #expect(toFile.stderr.contains("the server redirected to file:///etc/passwd, which is not an http:// or https:// URL"), "\(toFile.stderr)")
        #expect(!toFile.stderr.contains("root:"))
    }

    @Test func aURLsPasswordIsSentAsBasicAuthenticationAndShownToNoOne() throws {
        let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        let server = try HostileServer(folder: folder, file: tone)
        let url = "http://songbox:s3cret@127.0.0.1:\(server.port)/auth/tone.mp3"
        let played = try songbox.run(["play", "--output", "null", "--fast", url])
        #expect(played.status == 0, "\(played.stderr)")
        // Sent as a header, never in the request line.
        #expect(server.requests.contains("GET /auth/tone.mp3 HTTP/1.1"), "\(server.requests)")
        #expect(!server.requests.contains("s3cret"))
        #expect(!played.stdout.contains("s3cret") && !played.stderr.contains("s3cret"), "\(played.stdout)")
        // Without the password: refused in words.
        let refused = try songbox.run(["play", "--output", "null", "--fast", server.url("/auth/tone.mp3")])
        #expect(refused.status != 0 && refused.stderr.contains("401"), "\(refused.stderr)")

        // Kept in the library: listed, shown and served to MPD clients without it.
        let added = try songbox.run(["add-url", url])
        #expect(added.status == 0, "\(added.stderr)")
        let shown = "http://127.0.0.1:\(server.port)/auth/tone.mp3"
        let kept = try JSONSerialization.jsonObject(with: Data(try songbox.run(["ls", "--json", "path:auth"]).stdout.utf8)) as? [[String: Any]]
        let id = try #require(kept?.first?["id"] as? Int)
        for listing in [["ls", "--json", "path:auth"], ["show", String(id)], ["show", "--json", String(id)], ["ls", "path:auth"]] {
            let output = try songbox.run(listing)
            #expect(output.status == 0, "\(listing): \(output.stderr)")
            #expect(listing[0] == "ls" && listing.count == 2 || output.stdout.contains(shown), "\(listing): \(output.stdout)")
            #expect(!output.stdout.contains("s3cret"), "\(listing): \(output.stdout)")
        }
        let port = try freePort()
        let daemon = try daemon(port: port)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try mpc(port, ["add", url]).status == 0)
        let queue = try mpc(port, ["-f", "%file%", "playlist"])
        #expect(queue.stdout.contains(shown) && !queue.stdout.contains("s3cret"), "\(queue.stdout)")
        let listed = try mpc(port, ["search", "file", "auth"])
        #expect(!listed.stdout.contains("s3cret"), "\(listed.stdout)")
        #expect(try mpc(port, ["play"]).status == 0)
        try waitFor(timeout: 30, "the password to reach the server") { server.requests.components(separatedBy: "GET /auth/tone.mp3").count - 1 >= 3 }
        #expect(!daemon.errors.contains("s3cret") && !daemon.output.contains("s3cret"))
    }

    /// A station that answers 404 is said: in the daemon's log, as MPD's `error:` in `status`
    /// (mpc and `songbox status` show it) until `clearerror` (issue 25: it left no trace).
    @Test func aStationThatIsNotThereIsSaidInTheLogAndInStatus() throws {
        let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 1)
        let server = try HostileServer(folder: folder, file: tone)
        let port = try freePort()
        let daemon = try daemon(port: port)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let gone = server.url("/gone.mp3")
        #expect(try mpc(port, ["add", gone]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        let said = "cannot play \(gone): the server answered 404 Not Found"
        try daemon.waitForLog(said)
        try waitUntilStopped(port)
        #expect(try mpc(port, ["status"]).stdout.contains("ERROR: \(said)"))
        let status = try songbox.run(["status"], environment: daemon.clientEnvironment)
        #expect(status.stdout.contains("ERROR: \(said)"), "\(status.stdout)")
        #expect(try mpc(port, ["clearerror"]).status == 0)
        #expect(!(try mpc(port, ["status"]).stdout.contains("ERROR")))
    }
}
