import Foundation
import SongboxRemote
import SongboxTestSupport
import Testing

/// Remote tracks kept in the library and offline (`songbox add-url`, `songbox cache`), against
/// a real nginx the tests start and stop: tags read from the copy, played from the cache with
/// the server gone, a download killed with SIGKILL and resumed by range, eviction by the size
/// limit, pins.
@Suite(.serialized) struct OfflineCacheTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
        // The config `environment` names, empty until a test writes it (a named file must exist).
        try "".write(toFile: library.folder + "/config", atomically: true, encoding: .utf8)
    }

    /// An example track (tagged): what the server serves.
    static let song = TestLibrary.examples + "/Mabel Grey/Old Roads/01 - Old Roads.mp3"

    /// The cache and config of this test's own.
    var environment: [String: String] { ["XDG_CACHE_HOME": folder + "/cache", "SONGBOX_CONFIG": folder + "/config"] }

    func run(_ arguments: [String]) throws -> SongboxRunner.Output {
        try songbox.run(arguments, environment: environment)
    }

    /// nginx serving a copy of one example track (tagged) and a 20-second tone.
    func serve(slowRate: Int = 8_000, port: Int? = nil) throws -> NginxServer {
        let serverFolder = folder + "/nginx"
        let root = serverFolder + "/www"
        if !FileManager.default.fileExists(atPath: root + "/song.mp3") {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.song, toPath: root + "/song.mp3")
            _ = try AudioFixtures.tone(in: root, name: "long", seconds: 20)
        }
        return try NginxServer(root: root, folder: serverFolder, slowRate: slowRate, restartingOn: port)
    }

    @Test func aURLIsKeptWithItsTagsAndPlaysFromItsCopyWhenTheServerIsGone() throws {
        let server = try serve()
        let url = server.url("/files/song.mp3")
        let added = try run(["add-url", url])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Mabel Grey - Old Roads"), "\(added.stdout)")
        let listed = try run(["ls", "--json", "remote:yes"])
        #expect(listed.stdout.contains("\"title\": \"Old Roads\""), "\(listed.stdout)")
        #expect(try run(["ls", "cached:yes"]).stdout.contains("Old Roads"))
        #expect(listed.stdout.contains("\"path\": \"\(url)\""), "\(listed.stdout)")

        // Analysis measures a remote track from its offline copy, as the local file would be.
        let analyzed = try run(["analyze"])
        #expect(analyzed.status == 0 && !analyzed.stdout.contains("undecodable:"), "\(analyzed.stdout)\(analyzed.stderr)")
        let measured = try run(["ls", "--json", "remote:yes", "loudness:-70..0"])
        #expect(measured.stdout.contains("\"path\": \"\(url)\""), "\(measured.stdout)\(measured.stderr)")
        let analysis = { (track: String) throws -> [String: Any]? in
            let shown = try JSONSerialization.jsonObject(with: try run(["show", "--json", track]).stdoutBytes) as? [String: Any]
            return shown?["analysis"] as? [String: Any]
        }
        let local = try #require(try analysis(Self.song))
        let remote = try #require(try analysis(url))
        for measure in ["track_gain", "true_peak", "brightness"] {
            #expect(remote[measure] as? Double != nil && remote[measure] as? Double == local[measure] as? Double, "\(measure): \(remote)")
        }

        // Lua sees the flags on the track, and queries by them.
        try """
            local t = songbox.library.query("cached:yes")[1]
            print(t.path, t.cached, t.keep_offline, #songbox.library.query("keep_offline:yes"))
            """.write(toFile: folder + "/flags.lua", atomically: true, encoding: .utf8)
        let flags = try run(["run", folder + "/flags.lua"])
        #expect(flags.stdout == "\(url)\ttrue\tfalse\t0\n", "\(flags.stdout)\(flags.stderr)")

        // A station's playlist link is kept as the station: nothing downloaded.
        let station = server.url("/files/station.pls")
        try "[playlist]\nFile1=\(server.url("/files/song.mp3"))\n".write(toFile: folder + "/nginx/www/station.pls", atomically: true, encoding: .utf8)
        let link = try run(["add-url", station, "--title", "Songbox FM"])
        #expect(link.stdout.hasPrefix("Kept the stream \(station) as track"), "\(link.stdout)\(link.stderr)")
        #expect(!FileManager.default.fileExists(atPath: OfflineCache(folder: folder + "/cache/songbox/tracks").file(of: station) + ".part"))

        server.stop()
        let wav = folder + "/played.wav"
        let played = try run(["play", "cached:yes", "--output", "wav:" + wav])
        #expect(played.status == 0, "\(played.stderr)")
        // The copy's PCM is the local file's, sample for sample.
        #expect(difference(try AudioFixtures.pcm(ofWAV: wav), try AudioFixtures.referencePCM(of: Self.song)) == nil)
        // Counted like a local track.
        #expect(try run(["ls", "--json", "remote:yes"]).stdout.contains("\"plays\": 1"))

        // A live stream (no length) is kept as it is: no download.
        let stream = try run(["add-url", "http://127.0.0.1:1/nothing.mp3", "--title", "Nothing FM"])
        #expect(stream.status == 1)
        #expect(stream.stderr.contains("cannot keep http://127.0.0.1:1/nothing.mp3: the connection was refused"), "\(stream.stderr)")
    }

    /// FLAC, Ogg Vorbis and Opus files on the network: kept with their tags (Hebrew included)
    /// and their exact length, and played from the copy with the server gone, as the reference
    /// decoder decodes the file.
    @Test(arguments: [AudioFixtures.Encoding.flac, .vorbis, .opus])
    func everyFormatIsKeptWithItsTagsAndPlaysFromItsCopy(encoding: AudioFixtures.Encoding) throws {
        let root = folder + "/nginx/www"
        try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let rate = encoding == .opus ? 48_000 : 44_100
        let wav = try AudioFixtures.signal(folder + "/source/song.wav", frames: 2 * rate + 321, rate: rate)
        let file = root + "/song.\(encoding.suffix)"
        try AudioFixtures.encode(wav, as: encoding, to: file)
        try AudioFixtures.run("/usr/bin/python3", ["-c", """
            import mutagen, sys
            f = mutagen.File(sys.argv[1])
            f["title"] = "שיר הערב"; f["artist"] = "להקת הגליל"; f["album"] = "Far Songs"
            f.save()
            """, file])
        let server = try NginxServer(root: root, folder: folder + "/nginx")
        let url = server.url("/files/song.\(encoding.suffix)")
        let added = try run(["add-url", url])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "Added track \(try #require(added.stdout.split(separator: " ").dropFirst(2).first)) להקת הגליל - שיר הערב (0:02).\n",
                "\(added.stdout)")
        let listed = try run(["ls", "--json", "remote:yes"])
        #expect(listed.stdout.contains("\"album\": \"Far Songs\""), "\(listed.stdout)")
        #expect(listed.stdout.contains("\"duration\": 2.007,"), "the exact length: \(listed.stdout)")

        server.stop()
        let played = folder + "/played.wav"
        let play = try run(["play", "remote:yes", "--output", "wav:" + played])
        #expect(play.status == 0, "\(play.stderr)")
        let pcm = try AudioFixtures.pcm(ofWAV: played)
        let reference = try AudioFixtures.reference(of: file, encoding: encoding, channels: 2).stereo16
        #expect(pcm.count == (2 * rate + 321) * 2)
        let largest = largestDifference(pcm, reference)
        #expect(largest != nil && largest! <= (encoding.isLossless ? 0 : 1), "\(String(describing: largest))")
    }

    @Test func aDownloadKilledMidwayIsNeverPlayedAsWholeAndResumesFromItsLastByte() throws {
        var server = try serve(slowRate: 4_000)
        let url = server.url("/slow/long.mp3")
        // Kept in the library first (the first download is quick, elsewhere), then its copy dropped.
        let fast = server.url("/files/long.mp3")
        #expect(try run(["add-url", fast]).status == 0)
        #expect(try run(["cache", "rm", "remote:yes"]).status == 0)
        try FileManager.default.removeItem(atPath: folder + "/cache")
        let sqlite = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import sqlite3; c = sqlite3.connect('\(songbox.database)'); c.execute("UPDATE tracks SET path = ? WHERE path = ?", ('\(url)', '\(fast)')); c.commit()
            """])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")

        let downloading = try songbox.start(["cache", "add", "remote:yes"], environment: environment)
        let partial = folder + "/cache/songbox/tracks/" + OfflineCache.name(of: url) + ".part"
        try waitFor(timeout: 20, "part of the download") { (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0 > 8_000 }
        kill(downloading.processIdentifier, SIGKILL)
        downloading.waitUntilExit()
        let had = try #require(FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)
        #expect(!FileManager.default.fileExists(atPath: String(partial.dropLast(5))))
        #expect(try run(["ls", "cached:yes"]).stdout.isEmpty)
        #expect(try run(["ls", "keep_offline:yes"]).stdout.contains("0:20"))
        // The partial file takes room: `cache stats` counts it (and says how it goes on).
        let stats = try run(["cache", "stats"])
        #expect(stats.stdout.contains("1 partial download (") && stats.stdout.contains("): the same add-url or cache add resumes it"),
                "\(stats.stdout)")
        let json = try JSONSerialization.jsonObject(with: try run(["cache", "stats", "--json"]).stdoutBytes) as? [String: Any]
        #expect(json?["partial_bytes"] as? Int == had, "\(String(describing: json))")

        // The rest, at full speed: asked for from the byte it stopped at.
        server.stop()
        server = try serve(slowRate: 10_000_000, port: server.port)
        let resumed = try run(["cache", "add", "remote:yes"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(server.accessLog.contains("\"bytes=\(had)-\" 206"), "\(server.accessLog)")
        let copy = String(partial.dropLast(5))
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: folder + "/nginx/www/long.mp3"))
        #expect(try run(["ls", "cached:yes"]).stdout.contains("0:20"))
    }

    @Test func copiesPastTheLimitAreEvictedLeastRecentlyPlayedFirstAndPinnedOnesStay() throws {
        let server = try serve()
        try "cache_size = 1M\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        #expect(try run(["add-url", server.url("/files/long.mp3")]).status == 0)
        #expect(try run(["add-url", server.url("/files/song.mp3")]).status == 0)
        #expect(try run(["ls", "cached:yes"]).lines.count == 3)
        // The song is played after the long tone was kept: the tone is the one used longest ago.
        #expect(try run(["play", "path:song", "--output", "null"]).status == 0)
        // Room for the song (30 KB), not for the tone (320 KB) beside it.
        try "cache_size = 100K\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        #expect(try run(["add-url", server.url("/files/song.mp3")]).status == 0)
        let cached = try run(["ls", "cached:yes"])
        #expect(cached.lines.count == 2 && cached.stdout.contains("Old Roads"), "\(cached.stdout)")
        // Pinned copies stay whatever the limit: the tone is downloaded again and kept.
        #expect(try run(["cache", "add", "path:long"]).status == 0)
        #expect(try run(["ls", "cached:yes"]).lines.count == 3)
        let stats = try run(["cache", "stats", "--json"])
        #expect(stats.stdout.contains("\"pinned\": 1") && stats.stdout.contains("\"tracks\": 2"), "\(stats.stdout)")
        // A remote track removed from the library takes its copy with it.
        let copy = folder + "/cache/songbox/tracks/" + OfflineCache.name(of: server.url("/files/long.mp3"))
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(try run(["rm", "--yes", "path:long"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: copy))
        // A playlist's remote tracks: unpinned and dropped, then pinned and downloaded again.
        #expect(try run(["playlist", "save", "Offline", "remote:yes"]).status == 0)
        #expect(try run(["cache", "rm", "--playlist", "Offline"]).stdout == "Deleted 1 offline copy.\n")
        #expect(try run(["ls", "cached:yes"]).stdout.isEmpty)
        let pinned = try run(["cache", "add", "--playlist", "Offline"])
        #expect(pinned.status == 0 && pinned.stdout.contains("Old Roads"), "\(pinned.stdout)\(pinned.stderr)")
        #expect(try run(["ls", "keep_offline:yes", "cached:yes"]).stdout.contains("Old Roads"))
    }
}

/// A full disk (issue 31): the cache folder on a 2 MB tmpfs of the test's own.
extension OfflineCacheTests {
    /// Mounts a tmpfs of `size` on a new folder; unmounted by the returned closure.
    func smallDisk(size: String = "2m") throws -> (folder: String, unmount: () -> Void) {
        let disk = folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try SongboxRunner.run(executable: "/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", disk])
        guard mounted.status == 0 else { throw FixtureError("cannot mount a tmpfs (tests run as root): \(mounted.stderr)") }
        return (disk, { _ = try? SongboxRunner.run(executable: "/bin/umount", ["-l", disk]) })
    }

    /// `bytes` of noise as `NAME.mp3` in the server's folder (what is served as audio/mpeg).
    func serveNoise(_ name: String, bytes: Int) throws {
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
            .write(to: URL(fileURLWithPath: folder + "/nginx/www/\(name).mp3"))
    }

    func partials(_ disk: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: disk)) ?? []).filter { $0.hasSuffix(".part") }
    }

    @Test func aFileTheDiskOrTheCacheCannotHoldIsRefusedBeforeAByteIsWritten() throws {
        let server = try serve()
        let (disk, unmount) = try smallDisk()
        defer { unmount() }
        try serveNoise("big", bytes: 4 << 20)
        try "cache_folder = \(disk)\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        // `cache add` of a track kept while its file was small (its copy since deleted), now big.
        let grown = server.url("/files/grown.mp3")
        try FileManager.default.copyItem(atPath: Self.song, toPath: folder + "/nginx/www/grown.mp3")
        #expect(try run(["add-url", grown]).status == 0)
        #expect(try run(["cache", "rm", "path:" + grown]).status == 0)
        try FileManager.default.removeItem(atPath: folder + "/nginx/www/grown.mp3")
        try serveNoise("grown", bytes: 4 << 20)
        for command in [["add-url", server.url("/files/big.mp3"), "--keep-offline"], ["cache", "add", "path:" + grown]] {
            let refused = try run(command)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("not enough room: the file is 4.0 MB, and the disk holding \(disk) has"), "\(refused.stderr)")
            #expect(partials(disk).isEmpty)
        }
        // Not pinned, a copy past cache_size would be evicted at once: refused, said how to keep it.
        try "cache_folder = \(disk)\ncache_size = 1M\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        try serveNoise("middle", bytes: 1_500_000)
        let past = try run(["add-url", server.url("/files/middle.mp3")])
        #expect(past.stderr.contains("the file is 1.4 MB, more than the cache may hold (cache_size 1.0 MB)"), "\(past.stderr)")
        #expect(partials(disk).isEmpty)
    }

    @Test func aDiskThatFillsDuringTheDownloadStopsItInWordsAndLeavesNoPartialFile() throws {
        let server = try serve(slowRate: 300_000)
        let (disk, unmount) = try smallDisk()
        defer { unmount() }
        try serveNoise("middle", bytes: 1_500_000)
        try "cache_folder = \(disk)\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let url = server.url("/slow/middle.mp3")
        let download = Process()
        download.executableURL = URL(fileURLWithPath: SongboxRunner.executable)
        download.arguments = ["--db", songbox.database, "add-url", url, "--keep-offline"]
        download.environment = SongboxRunner.environment(environment)
        let said = folder + "/add-url.err"
        _ = FileManager.default.createFile(atPath: said, contents: nil)
        download.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: said))
        download.standardOutput = FileHandle.nullDevice
        try download.run()
        // The room was there when it began; another program takes it meanwhile.
        let partial = disk + "/" + OfflineCache.name(of: url) + ".part"
        try waitFor(timeout: 20, "the download to begin") {
            ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) > 100_000
        }
        _ = try SongboxRunner.run(executable: "/bin/dd", ["if=/dev/zero", "of=\(disk)/filler", "bs=64k"])
        download.waitUntilExit()
        #expect(download.terminationStatus != 0)
        let message = try String(contentsOfFile: said, encoding: .utf8)
        #expect(message.contains("the disk holding \(disk) is full ("), "\(message)")
        #expect(message.contains("of 1.4 MB written); the partial file was deleted"), "\(message)")
        #expect(partials(disk).isEmpty, "\(partials(disk))")
        // The same command again on the full disk: refused before it begins.
        let again = try run(["add-url", url, "--keep-offline"])
        #expect(again.stderr.contains("not enough room"), "\(again.stderr)")
        #expect(!again.stderr.contains("NSCocoaErrorDomain") && !again.stderr.contains("Code="), "\(again.stderr)")
        let stats = try run(["cache", "stats"])
        #expect(stats.stdout.hasPrefix("0 tracks kept offline"), "\(stats.stdout)")
        #expect(!stats.stdout.contains("partial"))
    }
}
