import Foundation
import SongboxTestSupport
import Testing

/// Internet radio and remote files as a user meets them: `songbox play URL` in the foreground,
/// and a daemon that mpc drives, with a plugin that hears the station's titles. Real Icecast 2
/// and nginx servers, started by the tests.
@Suite(.serialized) struct RadioTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    func mpc(_ port: Int, _ arguments: [String]) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
    }

    /// A daemon with the plugins of `plugins`, to the null output, on a free port.
    func daemon(plugins: String) throws -> (daemon: DaemonProcess, port: Int) {
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", plugins, "--output", "null", "--bind", "127.0.0.1:\(port)",
        ])
        return (daemon, port)
    }

    /// A daemon whose plugin prints each stream title it hears ("title: TITLE / STATION"),
    /// playing `url`.
    func playStation(_ url: String) throws -> (daemon: DaemonProcess, port: Int) {
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            songbox.on("stream_title", function(e) print("title: " .. e.title .. " / " .. (e.station or "?")) end)
            """.write(toFile: plugins + "/titles.lua", atomically: true, encoding: .utf8)
        let (daemon, port) = try daemon(plugins: plugins)
        #expect(try mpc(port, ["add", url]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        return (daemon, port)
    }

    /// The daemon plays, with no error said in `status` or the log.
    func expectPlaying(_ daemon: DaemonProcess, _ port: Int) throws {
        let status = try mpc(port, ["status"])
        #expect(status.stdout.contains("[playing]") && !status.stdout.contains("ERROR"), "\(status.stdout)")
        #expect(!daemon.errors.contains("cannot play"), "\(daemon.errors)")
    }

    /// nginx serving a tone of `seconds` as /files/tone.mp3, and its web folder.
    func nginx(toneSeconds seconds: Double) throws -> (server: NginxServer, root: String) {
        let serverFolder = folder + "/nginx"
        let root = serverFolder + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = try AudioFixtures.tone(in: root, name: "tone", seconds: seconds)
        return (try NginxServer(root: root, folder: serverFolder), root)
    }

    @Test func mpcAndPluginsFollowAStationsTitles() throws {
        let serverFolder = folder + "/icecast"
        try FileManager.default.createDirectory(atPath: serverFolder, withIntermediateDirectories: true)
        let icecast = try IcecastServer(folder: serverFolder)
        let tone = try AudioFixtures.tone(in: serverFolder, name: "radio", seconds: 4)
        let source = try icecast.source(mount: "/radio.mp3", file: tone, bytesPerSecond: 16_000)
        defer { source.stop() }
        try source.setTitle("Morning Show")

        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            songbox.on("stream_title", function(e)
              print("title: " .. e.title .. " / " .. (e.station or "?") .. " / " .. e.track.path)
            end)
            """.write(toFile: plugins + "/titles.lua", atomically: true, encoding: .utf8)
        let (daemon, port) = try daemon(plugins: plugins)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let url = icecast.url("/radio.mp3")
        #expect(try mpc(port, ["add", url]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        try daemon.waitForOutput("title: Morning Show / Songbox Test Radio / \(url)")
        let format = ["-f", "%title% ; %name% ; %file%", "current"]
        let current = try mpc(port, format)
        #expect(current.stdout == "Morning Show ; Songbox Test Radio ; \(url)\n", "\(current.stdout) \(current.stderr)")
        try source.setTitle("Evening News")
        try daemon.waitForOutput("title: Evening News / Songbox Test Radio")
        #expect(try mpc(port, format).stdout == "Evening News ; Songbox Test Radio ; \(url)\n")
        // A stream has no length: the queue shows no time for it.
        let queue = try mpc(port, ["-f", "[%time%]%file%", "playlist"])
        #expect(queue.stdout == "\(url)\n", "\(queue.stdout)")
        // A station saved in a stored playlist, and loaded back.
        #expect(try mpc(port, ["save", "Stations"]).status == 0)
        #expect(try mpc(port, ["-f", "%file%", "playlist", "Stations"]).stdout == "\(url)\n")
        #expect(try mpc(port, ["clear"]).status == 0)
        #expect(try mpc(port, ["load", "Stations"]).status == 0)
        #expect(try mpc(port, ["-f", "%file%", "playlist"]).stdout == "\(url)\n")
        // The station by its playlist link (Icecast serves one for each mount): played from the stream it lists.
        let link = url + ".m3u"
        #expect(try mpc(port, ["clear"]).status == 0)
        #expect(try mpc(port, ["add", link]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        try daemon.waitForOutput("title: Evening News / Songbox Test Radio / \(link)")
        #expect(try mpc(port, format).stdout == "Evening News ; Songbox Test Radio ; \(link)\n")
        // `load` of the link puts the streams it lists in the queue, as MPD does; a URL that is
        // not a playlist is refused in words.
        #expect(try mpc(port, ["clear"]).status == 0)
        let loaded = try mpc(port, ["load", link])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try mpc(port, ["-f", "%file%", "playlist"]).stdout == "\(url)\n")
        let notAList = try mpc(port, ["load", url])
        #expect(notAList.status != 0 && notAList.stderr.contains("cannot load \(url): not a playlist: the server sent audio/mpeg"),
                "\(notAList.stderr)")
    }

    /// Ogg stations: Icecast relays a chained stream (one logical stream per song, as an Ogg
    /// station's software sends it), Vorbis or Opus; each song's comments are its title, for
    /// plugins and mpc, as an MP3 station's ICY titles are.
    @Test(arguments: [AudioFixtures.Encoding.vorbis, .opus])
    func anOggStationPlaysWithEachSongsTitle(encoding: AudioFixtures.Encoding) throws {
        let serverFolder = folder + "/icecast-\(encoding)"
        try FileManager.default.createDirectory(atPath: serverFolder + "/source", withIntermediateDirectories: true)
        let icecast = try IcecastServer(folder: serverFolder)
        var chained = Data()
        for (index, tags) in [["ARTIST=Songbox Choir", "TITLE=First Light"], ["TITLE=שיר הערב"]].enumerated() {
            let wav = try AudioFixtures.signal(serverFolder + "/source/\(index).wav", frames: 3 * 44_100)
            let path = serverFolder + "/\(index).\(encoding.suffix)"
            let options = tags.flatMap { encoding == .opus ? ["--comment", $0] : ["-c", $0] }
            if encoding == .opus {
                try AudioFixtures.run("opusenc", ["--quiet", "--bitrate", "96"] + options + [wav, path])
            } else {
                try AudioFixtures.run("oggenc", ["-Q", "-q", "2"] + options + ["-o", path, wav])
            }
            chained += try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let station = serverFolder + "/station.\(encoding.suffix)"
        try chained.write(to: URL(fileURLWithPath: station))
        // Sent at the pace it plays (6 seconds of audio).
        let source = try icecast.source(mount: "/radio.\(encoding.suffix)", file: station, bytesPerSecond: chained.count / 6,
                                        contentType: "application/ogg")
        defer { source.stop() }

        let (daemon, port) = try playStation(icecast.url("/radio.\(encoding.suffix)"))
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("title: Songbox Choir - First Light / Songbox Test Radio")
        try daemon.waitForOutput("title: שיר הערב / Songbox Test Radio")
        // The station loops: whichever song plays now, mpc shows its title and the station.
        let current = try mpc(port, ["-f", "%title% ; %name%", "current"]).stdout
        #expect(["Songbox Choir - First Light ; Songbox Test Radio\n", "שיר הערב ; Songbox Test Radio\n"].contains(current), "\(current)")
        try expectPlaying(daemon, port)
    }

    /// An AAC station (ADTS frames, as most AAC and AAC+ stations send) plays with its ICY
    /// titles, as an MP3 station does.
    @Test func anAACStationPlaysWithItsTitles() throws {
        let serverFolder = folder + "/icecast-aac"
        try FileManager.default.createDirectory(atPath: serverFolder + "/source", withIntermediateDirectories: true)
        let icecast = try IcecastServer(folder: serverFolder)
        let wav = try AudioFixtures.signal(serverFolder + "/source/sweep.wav", frames: 4 * 44_100)
        let aac = serverFolder + "/radio.aac"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "96k", "-f", "adts", aac])
        let size = try FileManager.default.attributesOfItem(atPath: aac)[.size] as? Int ?? 0
        let source = try icecast.source(mount: "/radio.aac", file: aac, bytesPerSecond: size / 4, contentType: "audio/aac")
        defer { source.stop() }
        try source.setTitle("Morning Show")

        let (daemon, port) = try playStation(icecast.url("/radio.aac"))
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("title: Morning Show / Songbox Test Radio")
        try source.setTitle("Evening News")
        try daemon.waitForOutput("title: Evening News / Songbox Test Radio")
        try expectPlaying(daemon, port)
    }

    /// A remote Ogg Vorbis file plays as the same file here does, sample for sample.
    @Test func aRemoteOggFilePlaysAsTheFileDoes() throws {
        let (nginx, root) = try nginx(toneSeconds: 1)
        let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 100_000)
        try AudioFixtures.encode(wav, as: .vorbis, to: root + "/sweep.ogg")
        let remote = folder + "/remote.wav", local = folder + "/local.wav"
        let played = try songbox.run(["play", nginx.url("/files/sweep.ogg"), "--output", "wav:" + remote])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try songbox.run(["scan", root]).status == 0)
        let here = try songbox.run(["play", "path:sweep.ogg", "--output", "wav:" + local])
        #expect(here.status == 0, "\(here.stderr)")
        let (heard, expected) = (try AudioFixtures.pcm(ofWAV: remote), try AudioFixtures.pcm(ofWAV: local))
        #expect(expected.count == 100_000 * 2)
        #expect(heard == expected, "\(heard.count / 2) frames against \(expected.count / 2)")
    }

    /// An HLS station (ffmpeg's HLS muxer: MPEG-TS pieces of AAC) played with `songbox play`
    /// in the foreground sounds as its AAC frames sent whole do.
    @Test func anHLSStationPlaysInTheForegroundAsItsFramesDo() throws {
        let (nginx, root) = try nginx(toneSeconds: 1)
        let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 4 * 44_100)
        try FileManager.default.createDirectory(atPath: root + "/hls", withIntermediateDirectories: true)
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "96k", "-f", "adts", root + "/sweep.aac"])
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", root + "/sweep.aac", "-c", "copy", "-f", "hls", "-hls_time", "1",
                                         "-hls_playlist_type", "vod", "-hls_segment_filename", root + "/hls/piece%02d.ts", root + "/hls/station.m3u8"])
        let station = folder + "/station.wav", whole = folder + "/whole.wav"
        let played = try songbox.run(["play", nginx.url("/files/hls/station.m3u8"), "--output", "wav:" + station])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try songbox.run(["play", nginx.url("/files/sweep.aac"), "--output", "wav:" + whole]).status == 0)
        let (heard, expected) = (try AudioFixtures.pcm(ofWAV: station), try AudioFixtures.pcm(ofWAV: whole))
        #expect(expected.count >= 4 * 44_100 * 2)
        #expect(difference(heard, expected) == nil)
    }

    /// A station linked by a `.pls` whose stream says no title of its own is shown with the
    /// playlist's `Title1=`, as MPD shows it: `currentsong` had no title at all (issue 25).
    @Test func aStationsPlaylistTitleIsWhatMPDClientsSee() throws {
        let (nginx, root) = try nginx(toneSeconds: 30)
        try "[playlist]\nNumberOfEntries=1\nFile1=\(nginx.url("/files/tone.mp3"))\nTitle1=Songbox FM\n"
            .write(toFile: root + "/station.pls", atomically: true, encoding: .utf8)
        let (daemon, port) = try daemon(plugins: folder)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let link = nginx.url("/files/station.pls")
        #expect(try mpc(port, ["add", link]).status == 0)
        #expect(try mpc(port, ["play"]).status == 0)
        var current = ""
        try waitFor(timeout: 30, "the station's title") {
            current = try mpc(port, ["-f", "%title% ; %name% ; %file%", "current"]).stdout
            return current != "" && !current.hasPrefix(" ;")
        }
        #expect(current == "Songbox FM ; Songbox FM ; \(link)\n", "\(current)")
    }

    @Test func songboxPlaysAURLInTheForegroundAndSaysWhenItCannot() throws {
        let (nginx, _) = try nginx(toneSeconds: 2)
        let wav = folder + "/played.wav"
        let url = nginx.url("/files/tone.mp3")
        let played = try songbox.run(["play", url, "--output", "wav:" + wav])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.lines.first == "1. \(url)")
        #expect(try AudioFixtures.pcm(ofWAV: wav).count == 2 * 44_100 * 2)

        let missing = try songbox.run(["play", nginx.url("/missing/tone.mp3"), "--output", "wav:" + wav])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot play \(nginx.url("/missing/tone.mp3")): the server answered 404 Not Found; skipped"),
                "\(missing.stderr)")
    }
}
