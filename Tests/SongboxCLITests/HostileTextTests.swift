import Foundation
import SongboxTestSupport
import Testing

/// Text from outside (a station's titles, a file's tags) that holds terminal escapes, BEL and
/// line breaks, through the real binary (issue 31, hole 3): the terminal and the logs get it
/// escaped, MPD clients get one line per field with no control character (DESIGN rule 11).
@Suite(.serialized) struct HostileTextTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// Clears the screen, retitles the terminal, rings, returns the cursor, forges a line, and
    /// an 8-bit CSI (U+009B) for terminals that take one.
    static let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}Morning\rShow\nforged: line\u{9B}31m"
    /// The same as songbox shows it.
    static let shown = #"\e[2J\e]0;pwned\aMorning\rShow\nforged: line\u009b31m"#
    /// The same as an MPD client gets it: a space for each control character (two for U+009B,
    /// two bytes in UTF-8), as MPD clears them from tags.
    static let cleared = " [2J ]0;pwned Morning Show forged: line  31m"

    /// No byte a terminal obeys: C0 controls but the line break, DEL, C1 controls.
    static func obeyedBytes(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var found: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if (byte < 0x20 && byte != 0x0A) || byte == 0x7F { found.append(byte) }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { found.append(bytes[index + 1]) }
        }
        return found
    }

    func station(seconds: Double) throws -> ShoutcastV1Server {
        let serverFolder = folder + "/shoutcast"
        try FileManager.default.createDirectory(atPath: serverFolder, withIntermediateDirectories: true)
        let tone = try AudioFixtures.tone(in: serverFolder, name: "radio", seconds: seconds)
        return try ShoutcastV1Server(folder: serverFolder, file: tone, title: Self.hostile)
    }

    @Test func aStationsTitleIsShownEscapedBySongboxPlay() throws {
        let server = try station(seconds: 3)
        defer { server.stop() }
        // A station plays until stopped (its server closing is a reconnect): Ctrl-C once the
        // title is shown.
        let played = try Background(songbox, ["play", server.url, "--output", "null"], folder: folder)
        #expect(played.wait { played.stdout.contains("now playing:") }, "\(played.stderr)")
        played.signal(SIGINT)
        #expect(played.exitStatus() == 0, "\(played.stderr)")
        let stdout = played.stdout, stderr = played.stderr
        #expect(stdout == "1. \(server.url)\n   now playing: \(Self.shown)\n", "\(stdout.debugDescription)")
        #expect(Self.obeyedBytes(stdout).isEmpty, "\(stdout.debugDescription)")
        #expect(Self.obeyedBytes(stderr).isEmpty, "\(stderr.debugDescription)")
    }

    @Test func aDaemonsStatusItsPluginsAndMPDClientsGetTheTitleDefused() throws {
        let server = try station(seconds: 30)
        defer { server.stop() }
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            songbox.on("stream_title", function(e)
              print("title: " .. e.title)
              songbox.log.warn("logged: " .. e.title)
            end)
            """.write(toFile: plugins + "/titles.lua", atomically: true, encoding: .utf8)
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", plugins, "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(try songbox.run(["add", server.url], environment: daemon.clientEnvironment).status == 0)
        #expect(try songbox.run(["toggle"], environment: daemon.clientEnvironment).status == 0)
        // The plugin's print and log line: one line each, escaped.
        try daemon.waitForOutput("[titles] title: \(Self.shown)\n")
        try daemon.waitForLog("logged: \(Self.shown)\n")
        #expect(Self.obeyedBytes(daemon.output).isEmpty, "\(daemon.output.debugDescription)")
        #expect(Self.obeyedBytes(daemon.errors).isEmpty, "\(daemon.errors.debugDescription)")

        let status = try songbox.run(["status"], environment: daemon.clientEnvironment)
        #expect(status.status == 0, "\(status.stderr)")
        // `songbox status` is the daemon's MPD client: it shows what the protocol carried.
        #expect(status.lines.first == Self.cleared, "\(status.stdout)")
        #expect(Self.obeyedBytes(status.stdout).isEmpty, "\(status.stdout.debugDescription)")

        // A client reading `currentsong` byte for byte: one `key: value` line a field, the title a
        // space where each control character was, as MPD clears them from tags.
        let client = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)))
            f = s.makefile("rb")
            f.readline()
            s.sendall(b"currentsong\\n")
            out = b""
            while not (out.endswith(b"OK\\n") or b"ACK" in out):
                out += f.readline()
            sys.stdout.buffer.write(out)
            """])
        #expect(client.status == 0, "\(client.stderr)")
        let lines = client.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "OK")
        #expect(lines.dropLast().allSatisfy { line in
            line.split(separator: ": ", maxSplits: 1).first.map { $0.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") } } == true
        }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("Title: ") } == ["Title: " + Self.cleared], "\(lines)")
        #expect(Self.obeyedBytes(client.stdout).isEmpty, "\(client.stdout.debugDescription)")
    }

    @Test func tagsWithControlCharactersAreShownEscapedByLsAndShow() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try Fixtures.writeMP3(to: music + "/tagged.mp3", v2: ID3v2Tag(version: 4, frames: [
            .text("TIT2", "Title\u{1B}]0;pwned\u{07}"), .text("TPE1", "Artist\r\nforged: row"),
            .text("TALB", "Album\u{1B}[2J"),
        ]), audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try library.scan()

        let listed = try songbox.run(["ls"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines.count == 2, "\(listed.stdout)")
        #expect(listed.stdout.contains(#"Artist\r\nforged: row"#) && listed.stdout.contains(#"Title\e]0;pwned\a"#)
                && listed.stdout.contains(#"Album\e[2J"#), "\(listed.stdout)")
        #expect(Self.obeyedBytes(listed.stdout).isEmpty, "\(listed.stdout.debugDescription)")

        let shown = try songbox.run(["show", "1"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.lines.contains { $0.hasPrefix("artist") && $0.hasSuffix(#"Artist\r\nforged: row"#) }, "\(shown.stdout)")
        #expect(shown.lines.contains { $0.hasPrefix("title") && $0.hasSuffix(#"Title\e]0;pwned\a"#) }, "\(shown.stdout)")
        #expect(!shown.lines.contains { $0.hasPrefix("forged") })
        #expect(Self.obeyedBytes(shown.stdout).isEmpty, "\(shown.stdout.debugDescription)")
    }
}
