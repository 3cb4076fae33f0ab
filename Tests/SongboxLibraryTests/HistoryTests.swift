import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// The play history services on a real SQLite library.
@Suite struct HistoryTests {
    let library: PlaylistLibrary
    var store: LibraryStore { library.store }
    let a: Int64, b: Int64, c: Int64
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        library = try PlaylistLibrary()
        a = try library.add("A/01.mp3", title: "One", artist: "First")
        b = try library.add("A/02.mp3", title: "Two", artist: "Second")
        c = try library.add("A/03.mp3", title: "Three", artist: "Third")
    }

    func play(_ id: Int64, at offset: Double, kind: HistoryEntry.Kind = .play) throws {
        try store.history.recordPlay(trackID: id, kind: kind, reason: kind == .play ? "finished" : "skipped",
                             played: kind == .play ? 200 : 4, at: t0 + offset)
    }

    @Test func recordPlayWritesASnapshotAndTheTrackStatistics() throws {
        try store.tracks.apply([try TrackEdit(parsing: "title=Edited One")], to: a)
        let entry = try store.history.recordPlay(trackID: a, kind: .play, reason: "finished", played: 199.5, at: t0 + 0.9)
        #expect(entry.trackID == a)
        #expect(entry.path == library.music + "/A/01.mp3")
        #expect(entry.title == "Edited One")  // as the library shows it, overrides applied
        #expect(entry.artist == "First")
        #expect(entry.kind == .play && entry.reason == "finished" && entry.played == 199.5)
        #expect(entry.at == 1_700_000_000)  // whole seconds
        #expect(entry.track?.plays == 1)

        try play(a, at: 50, kind: .skip)
        let track = try #require(try store.tracks.track(id: a))
        #expect(track.plays == 1 && track.skips == 1 && track.lastPlayed == 1_700_000_000)
    }

    @Test func badPlaysAreRefused() throws {
        #expect(songboxError { try store.history.recordPlay(trackID: 999, kind: .play, reason: "finished", played: 1) }?.code == .notFound)
        for played in [-1, Double.nan, Double.infinity] {
            #expect(songboxError { try store.history.recordPlay(trackID: a, kind: .play, reason: "finished", played: played) }?.code
                    == .invalidArgument)
        }
        #expect(songboxError { try store.history.recordPlay(trackID: a, kind: .play, reason: " ", played: 1) }?.code == .invalidArgument)
        #expect(try store.history.recent().isEmpty)
    }

    @Test func recentHistoryIsNewestFirstAndOutlivesTheTrack() throws {
        try play(a, at: 10)
        try play(b, at: 30, kind: .skip)
        try play(c, at: 20)
        try play(a, at: 30)  // same second as b's skip: the later row first
        #expect(try store.history.recent(limit: 10).map(\.trackID) == [a, b, c, a])
        #expect(try store.history.recent(limit: 2).map(\.kind) == [.play, .skip])
        #expect(try store.history.recent(limit: 0).isEmpty)

        try store.tracks.remove(ids: [c])
        let entries = try store.history.recent()
        #expect(entries.count == 4)
        let removed = try #require(entries.first { $0.title == "Three" })
        #expect(removed.trackID == nil && removed.track == nil)
        #expect(removed.path == library.music + "/A/03.mp3" && removed.artist == "Third")
        #expect(entries[0].track?.title == "One")
    }

    @Test func topTracksCountPlaysInTheWindowWithTiesByLastPlay() throws {
        for offset in [100.0, 200] { try play(a, at: offset) }
        for offset in [150.0, 300] { try play(b, at: offset) }
        for offset in [10.0, 20, 30] { try play(c, at: offset) }
        for offset in [400.0, 410, 420] { try play(a, at: offset, kind: .skip) }  // skips do not count

        let allTime = try store.history.topTracks()
        #expect(allTime.map(\.track.id) == [c, b, a])
        #expect(allTime.map(\.plays) == [3, 2, 2])
        #expect(allTime.map(\.lastPlayed) == [1_700_000_030, 1_700_000_300, 1_700_000_200])

        let recent = try store.history.topTracks(since: t0 + 100, limit: 10)
        #expect(recent.map(\.track.id) == [b, a])  // c's plays are all before the window
        #expect(try store.history.topTracks(since: t0 + 100, limit: 1).map(\.track.id) == [b])
        #expect(try store.history.topTracks(since: t0 + 1000).isEmpty)

        try store.tracks.remove(ids: [c])
        #expect(try store.history.topTracks().map(\.track.id) == [b, a])
    }

    @Test func playsOfATrackNewestFirstWithSkipsWhenAsked() throws {
        try play(a, at: 10)
        try play(a, at: 20, kind: .skip)
        try play(b, at: 25)
        try play(a, at: 30)
        #expect(try store.history.plays(of: a).map(\.at) == [1_700_000_030, 1_700_000_010])
        #expect(try store.history.plays(of: a, includingSkips: true).map(\.kind) == [.play, .skip, .play])
        #expect(try store.history.plays(of: c).isEmpty)
    }
}
