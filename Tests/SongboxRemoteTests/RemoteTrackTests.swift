import Foundation
import SongboxAudio
import SongboxTestSupport
import Testing
@testable import SongboxRemote

/// Remote tracks played by the real engine from real servers the tests start: nginx (files,
/// ranges, TLS with a CA of the test's own, redirects, 404, a throttled place) and Icecast 2
/// with a source that sets titles. What is rendered goes to a WAV file and is compared with the
/// local file's own decode.
@Suite(.serialized) struct RemoteTrackTests {
    /// What a queue of URLs played: its samples and events, and whether it ever waited.
    struct Played {
        var samples: [Int16]
        var events: [PlayerEvent]
        var waited: Bool

        var errors: [String] {
            events.compactMap { if case .decodeError(_, let message) = $0 { message } else { nil } }
        }
        var titles: [StreamTitle] {
            events.compactMap { if case .streamTitle(_, let title) = $0 { title } else { nil } }
        }
    }

    /// Plays `urls` in order through `tracks` until the queue ends (or `until` says so, or
    /// `seconds` of wall time pass), as fast as the network allows.
    static func play(_ urls: [String], through tracks: NetworkTracks, in folder: String, seconds: Double = 60, keep: Bool = true,
                     repeating: Bool = false, during: (PlayerEngine) throws -> Void = { _ in },
                     until: (PlayerEngine, [PlayerEvent]) -> Bool = { _, _ in false }) throws -> Played {
        var settings = PlayerSettings()
        settings.remote = RemoteTracks(tracks)
        settings.transitionFade = 0
        let wav = folder + "/played-\(UUID().uuidString).wav"
        let engine = PlayerEngine(output: keep ? WAVOutput(path: wav) : NullOutput(), settings: settings)
        engine.add(urls.map { PlayableTrack.outsideLibrary(url: $0) })
        var modes = engine.modes
        modes.repeat = repeating
        engine.setModes(modes)
        engine.play()
        var events: [PlayerEvent] = [], waited = false
        let deadline = Date().addingTimeInterval(seconds)
        while engine.state != .stopped, Date() < deadline, !until(engine, events) {
            if engine.render() == .waiting {
                waited = true
                Thread.sleep(forTimeInterval: 0.005)
            }
            events += engine.takeEvents()
            try during(engine)
        }
        engine.stop()
        events += engine.takeEvents()
        _ = engine.output.close()
        return Played(samples: keep ? try AudioFixtures.pcm(ofWAV: wav) : [], events: events, waited: waited)
    }

    /// A folder with a 4-second tone (`tone.mp3`) and a page (`page.html`), served by nginx.
    static func withServer<T>(_ body: (NginxServer, String) throws -> T) throws -> T {
        try Fixtures.withTemporaryDirectorySync { folder in
            let root = folder + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            _ = try AudioFixtures.tone(in: root, name: "tone", seconds: 4)
            try "<html><body>not a song</body></html>".write(toFile: root + "/page.html", atomically: true, encoding: .utf8)
            let server = try NginxServer(root: root, folder: folder)
            return try body(server, folder)
        }
    }

    static func local(_ folder: String, _ name: String = "tone.mp3") throws -> [Int16] {
        let decoder = try MP3Decoder(path: folder + "/www/" + name, rate: AudioFormat.streamRate)
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 8192)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if frames == 0 { return samples }
            samples += buffer[0..<frames * 2]
        }
    }

    @Test func aRemoteFilePlaysSampleForSampleAsTheLocalFileOverHTTPAndTrustedHTTPS() throws {
        try Self.withServer { server, folder in
            let expected = try Self.local(folder)
            let plain = try Self.play([server.url("/files/tone.mp3")], through: NetworkTracks(), in: folder)
            #expect(plain.errors == [])
            #expect(difference(plain.samples, expected) == nil)
            let trusted = NetworkTracks(trusting: server.certificateAuthority)
            let secure = try Self.play([server.url("/files/tone.mp3", tls: true)], through: trusted, in: folder)
            #expect(secure.errors == [])
            #expect(difference(secure.samples, expected) == nil)
        }
    }

    @Test func anUntrustedCertificateIsRefusedAndTheQueueGoesOn() throws {
        try Self.withServer { server, folder in
            let played = try Self.play([server.url("/files/tone.mp3", tls: true), server.url("/files/tone.mp3")],
                                       through: NetworkTracks(), in: folder)
            #expect(played.errors.count == 1)
            #expect(played.errors.first?.contains("certificate is not trusted") == true, "\(played.errors)")
            #expect(difference(played.samples, try Self.local(folder)) == nil)
        }
    }

    /// Nothing listens on the port: said in words at the first refusal (not retried for the
    /// connection's 10 seconds), and the next track plays.
    @Test func aRefusedConnectionIsSaidAndTheQueueGoesOn() throws {
        try Self.withServer { server, folder in
            let nobody = "http://127.0.0.1:\(try freePort())/tone.mp3"
            let played = try Self.play([nobody, server.url("/files/tone.mp3")], through: NetworkTracks(), in: folder)
            #expect(played.errors == ["the connection was refused"])
            #expect(difference(played.samples, try Self.local(folder)) == nil)

            // On repeat, a queue whose every track fails before a sound of it stops after one
            // round instead of trying them for ever.
            let round = try Self.play([nobody, nobody], through: NetworkTracks(), in: folder, seconds: 20, repeating: true)
            #expect(round.errors == ["the connection was refused", "the connection was refused"])

            // A name that is no server's (`.invalid` never resolves) is said as such.
            let unnamed = try Self.play(["http://songbox-test.invalid/tone.mp3"], through: NetworkTracks(), in: folder, seconds: 60)
            #expect(unnamed.errors == ["the server's name songbox-test.invalid was not found"])
            #expect(round.events.contains { if case .stopped = $0 { true } else { false } }, "\(round.events)")
        }
    }

    /// Stations are linked by a playlist naming their streams: the streams it lists are tried
    /// in order (here the first refuses, the second is busy), a relative one is found beside the playlist, one
    /// playlist may lead to another; an HLS recording whose one piece is missing and playlists
    /// that only lead to playlists are said.
    @Test func aStationsPlaylistLinkPlaysTheFirstStreamItListsThatAnswers() throws {
        try Self.withServer { server, folder in
            let root = folder + "/www"
            let nobody = "http://127.0.0.1:\(try freePort())/tone.mp3"
            let files: [String: String] = [
                "station.pls": "[playlist]\nNumberOfEntries=3\nFile1=\(nobody)\nTitle1=Songbox FM\n"
                    + "File2=\(server.url("/busy/tone.mp3"))\nTitle2=Songbox FM (busy)\n"
                    + "File3=\(server.url("/files/tone.mp3"))\nTitle3=Songbox FM (backup)\nVersion=2\n",
                "relative.m3u": "#EXTM3U\n#EXTINF:-1,Relative FM\ntone.mp3\n",
                "nested.m3u": server.url("/files/station.pls") + "\n",
                "hls.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment1.aac\n#EXT-X-ENDLIST\n",
                "loop.pls": "[playlist]\nFile1=\(server.url("/files/loop.pls"))\n",
                "empty.pls": "[playlist]\nFile1=file:///home/someone/song.mp3\n",
            ]
            for (name, text) in files { try text.write(toFile: root + "/" + name, atomically: true, encoding: .utf8) }
            let played = try Self.play(["station.pls", "relative.m3u", "nested.m3u", "hls.m3u8", "loop.pls", "empty.pls"].map { server.url("/files/" + $0) },
                                       through: NetworkTracks(), in: folder)
            #expect(played.errors == ["the server answered 404 Not Found for \(server.url("/files/segment1.aac"))",
                                      "its playlists lead only to more playlists", "a playlist with no http:// or https:// stream in it"])
            let tone = try Self.local(folder)
            #expect(difference(played.samples, tone + tone + tone) == nil)
        }
    }

    @Test func aStationsPlaylistNamesItsStreams() throws {
        let listed = PlaylistStream.streams(in: Data("[playlist]\nFile1=http://a.example/live\nTitle1=Radio א\nFile2=/b/live.mp3\n".utf8),
                                                listedAt: "https://radio.example/links/listen.pls")
        // Each knows the playlist that listed it: where it leads is checked against that (FetchPolicy).
        let list = "https://radio.example/links/listen.pls"
        #expect(listed == [PlaylistStream(url: "http://a.example/live", name: "Radio א", listedBy: list),
                           PlaylistStream(url: "https://radio.example/b/live.mp3", name: nil, listedBy: list)])
        #expect(PlaylistStream.isPlaylist(type: "audio/x-scpls", url: "http://a.example/listen"))
        #expect(PlaylistStream.isPlaylist(type: "text/plain; charset=utf-8", url: "http://a.example/listen.m3u"))
        #expect(!PlaylistStream.isPlaylist(type: "audio/mpeg", url: "http://a.example/listen.m3u"))
        #expect(!PlaylistStream.isPlaylist(type: "text/plain", url: "http://a.example/song.mp3"))
    }

    @Test func serverErrorsPagesAndRedirectLoopsAreClearErrorsAndARedirectIsFollowed() throws {
        try Self.withServer { server, folder in
            let played = try Self.play([server.url("/missing/tone.mp3"), server.url("/files/page.html"),
                                        server.url("/loop/tone.mp3"), server.url("/moved/tone.mp3")],
                                       through: NetworkTracks(), in: folder)
            #expect(played.errors.count == 3, "\(played.errors)")
            #expect(played.errors.first == "the server answered 404 Not Found")
            #expect(played.errors.dropFirst().first == "not audio: the server sent text/html")
            #expect(played.errors.last?.contains("redirects go round in a circle") == true, "\(played.errors)")
            #expect(difference(played.samples, try Self.local(folder)) == nil)
        }
    }

    @Test func aThrottledServerIsAPauseNotASkip() throws {
        try Self.withServer { server, folder in
            // 8 kB a second: half of what 128 kbit/s audio needs.
            let played = try Self.play([server.url("/slow/tone.mp3")], through: NetworkTracks(), in: folder)
            #expect(played.waited)
            #expect(played.errors == [])
            #expect(difference(played.samples, try Self.local(folder)) == nil)
        }
    }

    @Test func aSeekInARemoteFileFetchesFromTheByteItNeeds() throws {
        try Self.withServer { server, folder in
            let expected = try Self.local(folder)
            var before: Int?
            let played = try Self.play([server.url("/files/tone.mp3")], through: NetworkTracks(), in: folder, during: { engine in
                if before == nil, engine.elapsed >= 0.5 {
                    before = Int((engine.elapsed * 44_100).rounded()) * 2
                    engine.seek(to: 3)
                }
            })
            #expect(played.errors == [])
            #expect(played.events.contains { if case .seeked = $0 { true } else { false } })
            let after = played.samples.count - (before ?? 0)
            let offset = after - (expected.count - 3 * 44_100 * 2)
            print("seek offset", offset)
            #expect(difference(Array(played.samples.suffix(40_000)), Array(expected.suffix(40_000))) == nil)
        }
    }

    /// A FLAC file on the network plays as the file here does, knows its length, and a seek
    /// fetches from the seek point's byte (a range request) and lands on the very sample.
    @Test func aRemoteFLACFilePlaysAndSeeksSampleForSampleAsTheFileHere() throws {
        try Self.withServer { server, folder in
            let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 25 * 44_100)
            try AudioFixtures.encode(wav, as: .flac, to: folder + "/www/sweep.flac")
            let expected = try AudioFixtures.pcm(ofWAV: wav)  // lossless: the source itself
            let whole = try Self.play([server.url("/files/sweep.flac")], through: NetworkTracks(), in: folder)
            #expect(whole.errors == [])
            #expect(difference(whole.samples, expected) == nil)

            var length: Double?, sought = false
            let played = try Self.play([server.url("/files/sweep.flac")], through: NetworkTracks(), in: folder, during: { engine in
                if !sought, engine.elapsed >= 0.5 {
                    sought = true
                    length = engine.duration
                    engine.seek(to: 12)
                }
            })
            #expect(played.errors == [])
            #expect(length == 25)
            let rest = expected.count - 12 * 44_100 * 2
            #expect(difference(Array(played.samples.suffix(rest)), Array(expected.suffix(rest))) == nil)
            let ranges = server.accessLog.split(separator: "\n").filter { $0.contains("sweep.flac \"bytes=") }
            #expect(ranges.count == 1, "\(server.accessLog)")
        }
    }

    /// MP4 (AAC and ALAC, the index first or last), WAV and AIFF files on the network are read
    /// whole into memory and then play as the same file here does, with their length; a seek
    /// lands where it does in the file here.
    @Test(arguments: [AudioFixtures.Encoding.aac, .alac, .wav24, .aiff])
    func aFileThatMustBeWholePlaysAndSeeksAsTheFileHere(encoding: AudioFixtures.Encoding) throws {
        try Self.withServer { server, folder in
            let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 6 * 44_100)
            let name = "sweep.\(encoding.suffix)"
            let path = try AudioFixtures.encode(wav, as: encoding, to: folder + "/www/" + name)
            let local = try AudioFile.decoder(path: path, rate: AudioFormat.streamRate)
            var expected: [Int16] = [], buffer = [Int16](repeating: 0, count: 8192)
            while case .frames(let frames) = try buffer.withUnsafeMutableBufferPointer({ try local.decode(into: $0) }) {
                expected += buffer[0..<frames * 2]
            }
            let whole = try Self.play([server.url("/files/" + name)], through: NetworkTracks(), in: folder)
            #expect(whole.errors == [])
            #expect(difference(whole.samples, expected) == nil)

            var length: Double?, sought = false
            let played = try Self.play([server.url("/files/" + name)], through: NetworkTracks(), in: folder, during: { engine in
                if !sought, engine.elapsed >= 0.25 {
                    sought = true
                    length = engine.duration
                    engine.seek(to: 4)
                }
            })
            #expect(played.errors == [])
            #expect(length.map { abs($0 - 6) < 0.05 } == true, "\(String(describing: length))")
            let rest = expected.count - 4 * 44_100 * 2
            #expect(difference(Array(played.samples.suffix(rest)), Array(expected.suffix(rest))) == nil)
        }
    }

    /// An MP4 whose index comes after its audio (as ffmpeg writes it without `+faststart`)
    /// plays too; a file on the network larger than songbox holds in memory is said.
    @Test func anMP4WithItsIndexLastPlays() throws {
        try Self.withServer { server, folder in
            let wav = try AudioFixtures.signal(folder + "/sweep.wav", frames: 2 * 44_100)
            try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "alac", folder + "/www/late.m4a"])
            let played = try Self.play([server.url("/files/late.m4a")], through: NetworkTracks(), in: folder)
            #expect(played.errors == [])
            #expect(difference(played.samples, try AudioFixtures.pcm(ofWAV: wav)) == nil)
        }
    }

    @Test func aServerThatDiesMidTrackIsReconnectedToFromTheByteItStoppedAt() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let root = folder + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            _ = try AudioFixtures.tone(in: root, name: "tone", seconds: 4)
            var server: NginxServer? = try NginxServer(root: root, folder: folder)
            let port = server!.port
            let url = server!.url("/slow/tone.mp3")
            var restarted = false
            let played = try Self.play([url], through: NetworkTracks(retryWaits: [.milliseconds(500), .seconds(1), .seconds(2)]),
                                       in: folder, during: { engine in
                if !restarted, engine.elapsed >= 1 {
                    restarted = true
                    server?.stop()
                    server = try NginxServer(root: root, folder: folder, restartingOn: port)
                }
            })
            #expect(restarted)
            #expect(played.errors == [])
            #expect(difference(played.samples, try Self.local(folder)) == nil)

            // Gone for good: tried again, then a clear error.
            var stopped = false
            let lost = try Self.play([url], through: NetworkTracks(retryWaits: [.milliseconds(100), .milliseconds(200)]),
                                     in: folder, during: { engine in
                if !stopped, engine.elapsed >= 1 {
                    stopped = true
                    server?.stop()
                }
            })
            #expect(lost.errors.count == 1)
            #expect(lost.errors.first?.hasPrefix("the connection was lost and could not be made again") == true, "\(lost.errors)")
        }
    }

    @Test func aLiveStreamAnnouncesEachTitleWithItsStationAndAStationThatStopsIsAClearError() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let icecast = try IcecastServer(folder: folder)
            let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 4)
            // At its real rate (128 kbit/s): a station.
            let source = try icecast.source(mount: "/live.mp3", file: tone, bytesPerSecond: 16_000)
            try source.setTitle("שיר ראשון - First")
            var second = false
            let played = try Self.play([icecast.url("/live.mp3")], through: NetworkTracks(retryWaits: [.milliseconds(100), .milliseconds(200)]),
                                       in: folder, seconds: 30, during: { engine in
                if !second, engine.streamTitle != nil {
                    second = true
                    try source.setTitle("Second Song")
                }
                if engine.streamTitle?.title == "Second Song" { source.stop() }
            })
            #expect(played.titles.map(\.title) == ["שיר ראשון - First", "Second Song"])
            #expect(played.titles.allSatisfy { $0.station == "Songbox Test Radio" })
            #expect(played.errors.count == 1, "\(played.errors)")
            #expect(played.errors.first?.contains("could not be made again") == true, "\(played.errors)")
            #expect(played.samples.count > 44_100)
        }
    }

    @Test func aShoutcastOneStreamThatAnswersICYPlaysWithItsTitleOnce() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 4)
            let server = try ShoutcastV1Server(folder: folder, file: tone, title: "Старое радио")
            // The server sends the file and closes: songbox connects again, as to a station.
            let played = try Self.play([server.url], through: NetworkTracks(), in: folder, seconds: 30,
                                       until: { engine, _ in engine.elapsed >= 6 })
            #expect(played.errors == [])
            #expect(played.titles == [StreamTitle(title: "Старое радио", station: "Old Shoutcast")])
            let expected = try MP3Decoder(path: tone, rate: AudioFormat.streamRate)
            var local = [Int16](repeating: 0, count: 2 * 44_100 * 2)
            _ = try local.withUnsafeMutableBufferPointer { try expected.read(into: $0) }
            // Its first two seconds are the file's.
            #expect(difference(Array(played.samples.prefix(local.count)), local) == nil)
            #expect(played.samples.count >= 6 * 44_100 * 2)
        }
    }

    /// The process's resident memory, in bytes.
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    @Test func anHourOfAStreamSentAsFastAsTheSourceCanKeepsMemoryFlat() throws {
        try Fixtures.withTemporaryDirectorySync { folder in
            let icecast = try IcecastServer(folder: folder)
            let tone = try AudioFixtures.tone(in: folder, name: "tone", seconds: 4)
            // 2 MB a second: 125 times real time.
            let source = try icecast.source(mount: "/fast.mp3", file: tone, bytesPerSecond: 2_000_000)
            defer { source.stop() }
            var early: Int?
            let played = try Self.play([icecast.url("/fast.mp3")], through: NetworkTracks(), in: folder, seconds: 240, keep: false,
                                       during: { engine in
                if early == nil, engine.elapsed >= 300 { early = Self.residentBytes() }
            }, until: { engine, _ in engine.elapsed >= 3600 })
            let late = Self.residentBytes()
            #expect(played.errors == [])
            #expect(early != nil)
            // Five minutes in, then an hour: what the buffer holds stays the same.
            let grown = late - (early ?? late)
            print("memory after 5 min \(early ?? 0), after an hour \(late), grown \(grown)")
            #expect(grown < 8 << 20, "grew by \(grown) bytes")
        }
    }
}
