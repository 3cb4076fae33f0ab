import Foundation
import GRDB
import Logging
import SongboxLibrary
import SongboxPlayback
import SongboxScript
import SongboxTestSupport
import Synchronization
import Testing
@testable import SongboxAudio

/// The one path of player events: the track each event carries, what is committed and when,
/// and what a subscriber that falls behind loses.
@Suite struct EventPipelineTests {
    private func library() throws -> (store: LibraryStore, folder: String, tracks: [Track]) {
        let tones = try Tones.get()
        let folder = try Fixtures.temporaryDirectory()
        let store = try LibraryStore(path: folder + "/library.db")
        _ = try LibraryScanner(store: store, logger: Logger(label: "test")).scan([tones.three, tones.twoMono])
        return (store, folder, try store.tracks.matching("sort:path"))
    }

    /// Whether anyone committed to the library since the last call (SQLite's data_version, read
    /// on a connection of its own).
    private final class CommitWatch {
        let queue: DatabaseQueue
        var last: Int

        init(_ path: String) throws {
            queue = try DatabaseQueue(path: path)
            last = try queue.read { try Int.fetchOne($0, sql: "PRAGMA data_version")! }
        }

        func committed() throws -> Bool {
            let now = try queue.read { try Int.fetchOne($0, sql: "PRAGMA data_version")! }
            defer { last = now }
            return now != last
        }
    }

    @Test func anEndedTrackIsTheTrackAsItWasWhenItStarted() throws {
        let (store, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let playback = SteppedPlayback(store: store, output: NullOutput(), restore: false, report: { _ in })
        let events = playback.pipeline.subscribe()
        let first = tracks[0]
        playback.engine.settings.transitionFade = 0
        playback.engine.add(try store.tracks.playable([first]))
        playback.engine.play()
        playback.pump()
        // Renamed while it plays: the events about this play still name it as it started.
        try store.tracks.apply([try TrackEdit(parsing: "title=Renamed")], to: first.id)
        _ = playback.engine.run()
        playback.pump()
        var delivered: [PlaybackEvent] = []
        while let event = events.take(timeout: 0) { delivered.append(event) }
        let started = try #require(delivered.first { $0.event.name == "track_started" })
        let ended = try #require(delivered.first { $0.event.name == "track_ended" })
        #expect(started.track?.title == first.title)
        #expect(ended.track?.title == first.title, "the track as it was, not read again")
        #expect(try store.tracks.track(id: first.id)?.title == "Renamed")
        #expect(delivered.allSatisfy { $0.emitted > 0 && $0.emitted <= MonotonicClock.seconds })
    }

    @Test func aTrackChangeIsOneCommitAndWhatDidNotChangeIsNotWrittenAgain() throws {
        let (store, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let watch = try CommitWatch(folder + "/library.db")
        let recorder = PlaybackRecorder(store: store, report: { _ in })
        let engine = PlayerEngine(output: NullOutput())
        engine.settings.transitionFade = 0
        engine.add(try store.tracks.playable(tracks))
        engine.play()
        recorder.commit(engine.takeEvents(), state: engine.snapshot)
        #expect(try watch.committed())
        // The same place again: nothing to write, no commit (a paused player writes nothing).
        let place = engine.snapshot
        recorder.commit([], state: place)
        #expect(try !watch.committed(), "\(place)")

        // The first track ends and the next starts: the play and the new place, one transaction.
        _ = engine.run(seconds: 3.5)
        let change = engine.takeEvents()
        #expect(change.map(\.name).contains("track_ended") && change.map(\.name).contains("track_started"))
        try store.runner.write { db in try db.execute(sql: "UPDATE saved_state SET updated = 0") }
        _ = try watch.committed()
        recorder.commit(change, state: engine.snapshot)
        #expect(try watch.committed())
        #expect(try store.history.recent(limit: 5).count == 1)
        let updated = try store.runner.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, updated FROM saved_state").map {
                ($0["name"] as String, $0["updated"] as Int64)
            })
        }
        #expect(updated[PlaybackRecorder.stateName]! > 0, "the place is written with the play")
        #expect(updated[PlaybackRecorder.queueStateName] == 0, "the queue did not change: not written again")

        // And it all comes back.
        let restored = try #require(PlaybackRecorder(store: store, report: { _ in }).savedSnapshot())
        #expect(restored.queue == engine.snapshot.queue)
        #expect(restored.current == engine.snapshot.current)
    }

    /// In real time the place is saved beside the events, not in their way: another writer
    /// holding the library (a scan, a slow SD card) delays the save, not what plugins hear.
    @Test func aPlaceSaveThatWaitsForTheDiskHoldsUpNoEvent() throws {
        let (_, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A short lock wait: were the save in the events' way, they would wait for it to give up.
        let store = try LibraryStore(path: folder + "/library.db", busyTimeout: 2)
        let reports = Mutex<[String]>([])
        let pipeline = EventPipeline(recorder: PlaybackRecorder(store: store, report: { message in
            reports.withLock { $0.append(message) }
        }), savesInBackground: true)
        let events = pipeline.subscribe()
        let engine = PlayerEngine(output: NullOutput())
        var holdsTheLock = Configuration()
        holdsTheLock.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: folder + "/library.db", configuration: holdsTheLock)
        try blocker.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }

        engine.add(try store.tracks.playable(tracks))
        for volume in [30.0, 60.0, 90.0] {
            engine.setVolume(volume)
            pipeline.handle(engine.takeEvents().map { ($0, MonotonicClock.seconds) }, status: engine.status)
        }
        var delivered: [String] = []
        while let event = events.take(timeout: 0) { delivered.append(event.event.name) }
        #expect(delivered == ["queue_changed", "volume_changed", "volume_changed", "volume_changed"])
        #expect(reports.withLock { $0 }.isEmpty, "nothing gave up waiting")

        try blocker.inDatabase { try $0.execute(sql: "COMMIT") }
        pipeline.tick(engine.status)
        pipeline.flush()
        #expect(reports.withLock { $0 }.isEmpty)
        let saved = try #require(PlaybackRecorder(store: store, report: { _ in }).savedSnapshot())
        #expect(saved.queue.items.count == tracks.count, "the place is saved once the lock is gone")
    }

    @Test func aStateSavedByAnEarlierSongboxIsRestored() throws {
        let (store, folder, tracks) = try library()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var queue = PlayQueue()
        queue.add(try store.tracks.playable(tracks))
        let old = PlayerSnapshot(queue: queue, current: queue.items[1].id, elapsed: 1.25, state: .paused, volume: 40)
        try store.state.save(try JSONEncoder().encode(old), as: PlaybackRecorder.stateName)
        #expect(PlaybackRecorder(store: store, report: { _ in }).savedSnapshot() == old)
    }

    @Test func theQueueIsSavedAsCompactTextThatComesBackTheSame() {
        var queue = PlayQueue()
        queue.add([PlayableTrack(trackID: 7, path: "/music/a\tb/line\nbreak \\ x.mp3", duration: 241.5,
                                 highlight: HighlightRange(start: 65, end: 95)),
                   PlayableTrack(trackID: 8, path: "/music/שיר.mp3", duration: 3)])
        queue.add([PlayableTrack(trackID: 9, path: "/music/c.mp3", duration: 1)], lane: .autoplay)
        _ = queue.remove(ids: [queue.items[1].id])
        let restored = PlayQueue(compact: queue.compactEncoding())
        #expect(restored == queue)
        #expect(PlayQueue(compact: Data("{\"items\": []}".utf8)) == nil, "an older JSON save is not taken for it")
    }

    @Test func aSubscriberThatFallsBehindLosesOnlyValuesThatANewerEventSaysAgain() {
        let mailbox = Mailbox<PlaybackEvent>(capacity: 8) { $0.coalescingKind }
        let item = QueueItem(id: 1, track: PlayableTrack(trackID: 1, path: "/a.mp3", duration: 3), lane: .user)
        for volume in 0..<100 {
            mailbox.put(PlaybackEvent(.volumeChanged(volume: Double(volume))))
            if volume % 10 == 0 { mailbox.put(PlaybackEvent(.trackStarted(item: item, position: 0, reason: .next))) }
        }
        mailbox.put(PlaybackEvent(.trackEnded(item: item, reason: .finished, played: 3, duration: 3, counted: .play)))
        let kept = mailbox.takeAvailable().map(\.event)
        #expect(kept.filter { $0.name == "track_started" }.count == 10, "never dropped")
        #expect(kept.last?.name == "track_ended")
        #expect(kept.contains(.volumeChanged(volume: 99)), "the newest value is kept")
        #expect(kept.count <= 8 + 11)
        #expect(kept.filter { $0.name == "volume_changed" }.count < 8)
        #expect(mailbox.dropped == 100 + 11 - kept.count)
    }
}
