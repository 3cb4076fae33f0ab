import Foundation
import Logging
import SongboxLibrary
import SongboxPlayback
import SongboxScript
import SongboxTestSupport
import Testing
@testable import SongboxAudio

/// The player wired to a real library: history rows, saved state, the threaded player.
@Suite struct PlaybackSessionTests {
    /// A scanned library of the shared tones, and its tracks by file name.
    private func library() throws -> (store: LibraryStore, folder: String, tracks: [String: Track]) {
        let tones = try Tones.get()
        let folder = try Fixtures.temporaryDirectory()
        let store = try LibraryStore(path: folder + "/library.db")
        _ = try LibraryScanner(store: store, logger: Logger(label: "test")).scan([tones.three, tones.thirty, tones.twoMono])
        let tracks = try store.tracks.matching("")
        return (store, folder, Dictionary(uniqueKeysWithValues: tracks.map { (($0.path as NSString).lastPathComponent, $0) }))
    }

    /// The queue takes each library track with its album and place on it, read both ways the
    /// library gives tracks to play: the crossfade's album rule works from these.
    @Test func queuedTracksKnowTheirPlaceOnTheirAlbum() throws {
        let library = try TestLibrary()
        try library.scanExamples()
        let store = try LibraryStore(path: library.songbox.database)
        let query = "album:\"Old Roads\" sort:path"
        for tracks in [try store.tracks.playable(matching: query), try store.tracks.playable(try store.tracks.matching(query))] {
            let places = tracks.compactMap(\.album)
            #expect(places.count == 2)
            #expect(places.count == 2 && places[0].isFollowed(by: places[1]) && !places[1].isFollowed(by: places[0]), "\(places)")
        }
        let other = try store.tracks.playable(matching: "album:\"Northern Skies\"").compactMap(\.album)
        let oldRoads = try store.tracks.playable(matching: query).first?.album
        #expect(other.count == 1 && other.first?.album != oldRoads?.album)
    }

    @Test func playsAndSkipsBecomeHistoryRowsAndTheStateIsSaved() throws {
        let (store, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = PlaybackSession(store: store, output: WAVOutput(path: folder + "/out.wav"), fast: true)
        let playable = try store.tracks.playable([tracks["thirty.mp3"]!, tracks["three.mp3"]!, tracks["two-mono.mp3"]!])
        let events = session.subscribe()
        // Skip the 30 s track after 12 s heard: rendered and skipped in one job on the audio
        // thread, so a fast output cannot play past the skip first (polling the clock raced).
        session.player.perform { engine in
            engine.settings.transitionFade = 0
            engine.add(playable)
            engine.play()
            engine.run(seconds: 12)
            engine.next()
        }
        session.player.waitUntilStopped()
        // A subscriber gets each event after it has been recorded: up to `stopped`, all are.
        var seen: [String] = []
        while let event = events.take(timeout: 10) {
            seen.append(event.event.name)
            if event.event.name == "stopped" { break }
        }
        #expect(seen.filter { $0 == "track_ended" }.count == 3)
        #expect(seen.last == "stopped")

        let history = try store.history.recent(limit: 10).reversed().map { ($0.title ?? $0.path, $0.kind, $0.reason) }
        #expect(history.map(\.1) == [.skip, .play, .play])
        #expect(history.map(\.2) == ["skipped", "finished", "finished"])
        #expect(try store.tracks.track(id: tracks["thirty.mp3"]!.id)?.skips == 1)
        #expect(try store.tracks.track(id: tracks["three.mp3"]!.id)?.plays == 1)
        session.shutdown()

        // A new session picks up the saved queue (ended: nothing current, three items).
        let again = PlaybackSession(store: store, output: NullOutput(), fast: true)
        let snapshot = again.player.status.snapshot
        #expect(snapshot.queue.items.map(\.track.trackID) == playable.map(\.trackID))
        #expect(snapshot.state == .stopped)
        again.shutdown()
    }

    @Test func aSessionStoppedMidTrackResumesThereAfterARestart() throws {
        let (store, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = PlaybackSession(store: store, output: NullOutput(), fast: true)
        let playable = try store.tracks.playable([tracks["thirty.mp3"]!])
        first.player.perform { engine in
            engine.add(playable)
            engine.setVolume(70)
            engine.setModes(PlaybackModes(repeat: true))
            engine.play()
        }
        let deadline = Date().addingTimeInterval(30)
        while first.player.status.clock < 20 {
            try #require(Date() < deadline, "20 s of the track never played")
            Thread.sleep(forTimeInterval: 0.001)
        }
        first.shutdown()   // a clean stop: the position is saved with the state
        #expect(try store.history.recent(limit: 5).map(\.reason) == ["stopped"], "20 s of 30 is a play")

        let second = PlaybackSession(store: store, output: WAVOutput(path: folder + "/resumed.wav"), fast: true)
        let restored = second.player.status.snapshot
        #expect(restored.volume == 70 && restored.modes.repeat)
        second.player.perform { engine in
            engine.setModes(PlaybackModes())
            engine.play()
        }
        second.player.waitUntilStopped()
        second.shutdown()
        let resumed = try AudioFixtures.pcm(ofWAV: folder + "/resumed.wav").count / 2
        #expect(resumed > 5 * 44_100 && resumed < 15 * 44_100, "the rest of the track, from about 20 s: \(resumed) frames")
    }

    @Test func eventsArriveAsAnAsyncSequence() async throws {
        let tones = try Tones.get()
        let (stream, sink) = Player.eventStream()
        let player = Player(output: NullOutput(), fast: true, onEvent: sink)
        player.perform { engine in
            engine.add([PlayableTrack(trackID: 1, path: tones.twoMono, duration: 2)])
            engine.play()
        }
        var names: [String] = []
        for await event in stream {
            names.append(event.name)
            if case .stopped = event { break }
        }
        #expect(names == ["queue_changed", "track_started", "track_ended", "stopped"])
        player.shutdown()
    }

    @Test func realTimePacingAndCommandsFromAnotherThread() throws {
        let tones = try Tones.get()
        let player = Player(output: NullOutput())
        player.perform { engine in
            engine.add([PlayableTrack(trackID: 1, path: tones.thirty, duration: 30)])
            engine.play()
        }
        let start = Date()
        var written = 0
        while written == 0, Date().timeIntervalSince(start) < 10 {
            Thread.sleep(forTimeInterval: 0.05)
            written = player.perform { engine in (engine.output as? NullOutput)?.framesWritten ?? -1 }
        }
        let elapsed = Date().timeIntervalSince(start)
        // Paced to real time: no more than the time waited (plus the lead and a chunk) is written,
        // far from the whole 30 s track, which unpaced takes a few milliseconds.
        #expect(written > 0)
        #expect(Double(written) / 44_100 < elapsed + 1, "\(written) frames after \(elapsed) s")
        player.perform { $0.pause() }
        // The pause's short fade-out plays first: wait for the state it ends in, within a bound.
        let asked = Date()
        while player.status.snapshot.state != .paused, Date().timeIntervalSince(asked) < 10 { Thread.sleep(forTimeInterval: 0.01) }
        let paused = player.status.snapshot
        #expect(paused.state == .paused)
        player.shutdown()
        #expect(player.status.snapshot.state == .stopped)
    }
}
