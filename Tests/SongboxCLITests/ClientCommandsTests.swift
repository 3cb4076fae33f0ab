import Foundation
import SongboxTestSupport
import Testing

/// `songbox status`, `toggle`, `queue`, ...: the remote control, against songbox's daemon and
/// against a real MPD.
@Suite(.serialized) struct ClientCommandsTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    func run(_ arguments: [String], _ environment: [String: String]) throws -> SongboxRunner.Output {
        try songbox.run(arguments, environment: environment)
    }

    @Test func theRemoteControlDrivesTheDaemon() throws {
        let daemon = try DaemonProcess(database: songbox.database, folder: folder,
                                       arguments: ["--plugins", folder, "--output", "null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let environment = daemon.clientEnvironment
        #expect(try run(["add", "Mabel Grey", "The Lanterns/Morning Light"], environment).status == 0)
        let queue = try run(["queue"], environment)
        #expect(queue.lines.prefix(2) == [" 1. Mabel Grey - Northern Skies (0:07)", " 2. Mabel Grey - Old Roads (0:04)"], "\(queue.stdout)")
        let toggled = try run(["toggle"], environment)
        #expect(toggled.lines.count == 3 && toggled.lines[1].hasPrefix("[playing] #1/"), "\(toggled.stdout)")
        #expect(try run(["queue"], environment).lines.first?.hasPrefix(">") == true)
        #expect(try run(["vol", "60"], environment).lines.last?.hasPrefix("volume: 60%") == true)
        #expect(try run(["vol", "-10"], environment).lines.last?.hasPrefix("volume: 50%") == true)
        let next = try run(["next"], environment)
        #expect(next.lines.first == "Mabel Grey - Old Roads", "\(next.stdout)")
        #expect(try run(["seek", "50%"], environment).status == 0)
        let paused = try run(["pause"], environment)
        #expect(paused.lines.dropFirst().first?.hasPrefix("[paused] #2/") == true, "\(paused.stdout)")
        #expect(try run(["sleep", "track"], environment).stdout == "Playback stops at the end of the track.\n")
        // Without an argument, what the timer is: paused, the minutes wait.
        #expect(try run(["sleep"], environment).stdout == "Playback stops at the end of the track.\n")
        #expect(try run(["sleep", "45"], environment).status == 0)
        #expect(try run(["sleep"], environment).stdout == "Playback stops in 45 minutes.\n")
        #expect(try run(["sleep", "off"], environment).status == 0)
        #expect(try run(["sleep"], environment).stdout == "The sleep timer is off.\n")
        #expect(try run(["crossfade", "4"], environment).stdout == "crossfade: 4\n")
        #expect(try run(["crossfade"], environment).stdout == "crossfade: 4\n")
        let tooLong = try run(["crossfade", "31"], environment)
        #expect(tooLong.status != 0 && tooLong.stderr.contains("from 0 to 30"), "\(tooLong.stderr)")
        #expect(try run(["crossfade", "0"], environment).stdout == "crossfade: 0\n")
        #expect(try run(["search", "title", "river"], environment).stdout == "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3\n")
        let none = try run(["search", "zzzz"], environment)
        #expect(none.status == 1 && none.stdout.isEmpty)
        #expect(try run(["stop"], environment).status == 0)
        #expect(try run(["clear"], environment).status == 0)
        #expect(try run(["queue"], environment).stdout.isEmpty)
        let wrong = try run(["vol", "loud"], environment)
        #expect(wrong.status != 0 && wrong.stderr.contains("the volume is a number"), "\(wrong.stderr)")
    }

    /// `songbox announce` and MPD's `sendmessage announce`: taken while music plays (the chime
    /// first with --chime), a bad duck refused, a file refused from MPD (only URLs), and refused
    /// with the reason when nothing plays.
    @Test func announcementsReachTheDaemonsPlayer() throws {
        let daemon = try DaemonProcess(database: songbox.database, folder: folder,
                                       arguments: ["--plugins", folder, "--output", "null"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let environment = daemon.clientEnvironment
        let bell = folder + "/bell.wav"
        try AudioFixtures.run("sox", ["-n", "-r", "22050", "-c", "1", "-b", "16", bell, "synth", "0.5", "sine", "1000"])
        #expect(try run(["add", "Mabel Grey"], environment).status == 0)
        #expect(try run(["toggle"], environment).status == 0)
        let announced = try run(["announce", bell, "--duck", "-20", "--chime"], environment)
        #expect(announced.status == 0 && announced.stdout == "Announced over the music.\n", "\(announced.stderr)")
        let loud = try run(["announce", bell, "--duck", "5"], environment)
        #expect(loud.status != 0 && loud.stderr.contains("from -60 to 0"), "\(loud.stderr)")
        let socket = try #require(environment["SONGBOX_SOCKET"])
        let file = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", socket, "sendmessage", "announce", bell])
        #expect(file.status != 0 && file.stderr.contains("announce takes a URL"), "\(file.stderr)")
        // A text, said by espeak-ng: from the CLI and from any MPD client.
        let said = try run(["announce", "--say", "The doorbell rang", "--chime"], environment)
        #expect(said.status == 0 && said.stdout == "Announced over the music.\n", "\(said.stderr)")
        let spoken = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", socket, "sendmessage", "say", "השעה שבע"])
        #expect(spoken.status == 0, "\(spoken.stderr)")
        let both = try run(["announce", bell, "--say", "Hello"], environment)
        #expect(both.status != 0 && both.stderr.contains("a file or URL, or --say TEXT: one of them"), "\(both.stderr)")
        let tooLong = try run(["announce", "--say", String(repeating: "la ", count: 400)], environment)
        #expect(tooLong.status != 0 && tooLong.stderr.contains("at most 1000 characters"), "\(tooLong.stderr)")
        #expect(try run(["stop"], environment).status == 0)
        let stopped = try run(["announce", bell], environment)
        #expect(stopped.status != 0 && stopped.stderr.contains("nothing plays"), "\(stopped.stderr)")
        let stoppedSay = try run(["announce", "--say", "Hello"], environment)
        #expect(stoppedSay.status != 0 && stoppedSay.stderr.contains("nothing plays"), "\(stoppedSay.stderr)")
    }

    /// A daemon without espeak-ng (a PATH that has none): a text is refused, from the CLI and
    /// from MPD, with what to install; the music plays on.
    @Test func withoutEspeakTheDaemonSaysWhatToInstall() throws {
        let daemon = try DaemonProcess(database: songbox.database, folder: folder,
                                       arguments: ["--plugins", folder, "--output", "null"], environment: ["PATH": "/nonexistent"])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let environment = daemon.clientEnvironment
        #expect(try run(["add", "Mabel Grey"], environment).status == 0)
        #expect(try run(["toggle"], environment).status == 0)
        let said = try run(["announce", "--say", "The doorbell rang", "--chime"], environment)
        #expect(said.status != 0 && said.stderr.contains("text to speech needs espeak-ng, which is not installed (Debian: apt install espeak-ng)"),
                "\(said.stderr)")
        let socket = try #require(environment["SONGBOX_SOCKET"])
        let spoken = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", socket, "sendmessage", "say", "Hello"])
        #expect(spoken.status != 0 && spoken.stderr.contains("needs espeak-ng"), "\(spoken.stderr)")
        #expect(try run(["status"], environment).stdout.contains("[playing]"))
    }

    @Test func theRemoteControlDrivesARealMPDToo() throws {
        let mpd = try ReferenceMPD(music: TestLibrary.examples, folder: folder + "/mpd", settings: """
            password "s3cret@read,add,control,admin"
            default_permissions "read"
            """)
        defer { mpd.stop() }
        let port = mpd.port
        // mpc's password@host: the password is sent first (MPD lets nobody without it add).
        let environment = ["MPD_HOST": "s3cret@127.0.0.1", "MPD_PORT": String(port), "SONGBOX_SOCKET": folder + "/no-daemon.sock"]
        try waitFor(timeout: 20, "MPD to answer") { try run(["status"], environment).status == 0 }
        // MPD builds its database first.
        _ = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "s3cret@127.0.0.1", "--port", String(port), "--wait", "update"])
        let withoutPassword = ["MPD_HOST": "127.0.0.1", "MPD_PORT": String(port), "SONGBOX_SOCKET": folder + "/no-daemon.sock"]
        #expect(try run(["add", "Mabel Grey"], withoutPassword).status != 0)
        #expect(try run(["add", "Mabel Grey"], environment).status == 0)
        #expect(try run(["queue"], environment).lines.count == 3)
        let playing = try run(["toggle"], environment)
        #expect(playing.lines.first == "Mabel Grey - Northern Skies" && playing.lines[1].hasPrefix("[playing] #1/3"), "\(playing.stdout)")
        #expect(try run(["vol", "-10"], environment).status == 0 || true)  // MPD's null output may have no mixer
        #expect(try run(["search", "title", "river"], environment).stdout == "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3\n")
        #expect(try run(["stop"], environment).status == 0)
        let sleep = try run(["sleep", "5"], environment)
        #expect(sleep.status != 0 && sleep.stderr.contains("sleep"), "a songbox command: MPD answers it is unknown")
    }
}
