import Foundation
import Logging
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// The scanner against real folders, real libmpg123 and a real SQLite database.
@Suite struct ScannerTests {
    let root: String
    let music: String
    let store: LibraryStore

    init() throws {
        root = try Fixtures.temporaryDirectory()
        music = root + "/Music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        store = try LibraryStore(path: root + "/library.db")
    }

    var scanner: LibraryScanner { LibraryScanner(store: store, logger: Logger(label: "test")) }

    @discardableResult
    func addSong(_ relativePath: String, title: String, artist: String = "Artist",
                 audio: String = "tone-mono-44k.mp3") throws -> String {
        let path = music + "/" + relativePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Fixtures.writeMP3(to: path, v2: ID3v2Tag(version: 4, frames: [
            .text("TIT2", title), .text("TPE1", artist),
        ]), audio: try Fixtures.audio(audio))
        return path
    }

    func titles() throws -> [String] {
        try store.tracks.matching("sort:title").compactMap(\.title)
    }

    /// Gives a file a new mtime, as an editor that rewrites it would.
    func touch(_ path: String, secondsAgo: Int) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-Double(secondsAgo))],
                                              ofItemAtPath: path)
    }

    @Test func indexesEveryMP3RecursivelyAndIgnoresOtherFiles() throws {
        try addSong("A/One/01.mp3", title: "One")
        try addSong("A/One/02.MP3", title: "Two")
        try addSong("B/deep/er/still/03.mp3", title: "Three")
        try Data("cover".utf8).write(to: URL(fileURLWithPath: music + "/A/One/cover.jpg"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: music + "/notes.txt"))
        let report = try scanner.scan([music])
        #expect(report.added == 3)
        #expect(report.unreadable.isEmpty)
        #expect(try titles() == ["One", "Three", "Two"])
    }

    @Test func aRescanReadsOnlyWhatChanged() throws {
        let one = try addSong("01.mp3", title: "One")
        let two = try addSong("02.mp3", title: "Two")
        for (index, title) in ["Three", "Five", "Six", "Seven"].enumerated() { try addSong("0\(index + 3).mp3", title: title) }
        _ = try scanner.scan([music])

        let unchanged = try scanner.scan([music])
        #expect(unchanged.unchanged == 6 && unchanged.added == 0 && unchanged.updated == 0 && unchanged.missing == 0)

        try addSong("01.mp3", title: "One (remastered)")
        try touch(one, secondsAgo: 5)
        try FileManager.default.removeItem(atPath: two)
        try addSong("08.mp3", title: "Four")
        let changed = try scanner.scan([music])
        #expect(changed.updated == 1)
        #expect(changed.missing == 1 && changed.removed == 0 && changed.held.isEmpty)
        #expect(changed.added == 1)
        #expect(changed.unchanged == 4)
        #expect(try titles() == ["Five", "Four", "One (remastered)", "Seven", "Six", "Three"])
    }

    @Test func anUpdatedFileKeepsItsIdStatisticsAndOverrides() throws {
        let path = try addSong("01.mp3", title: "Before")
        _ = try scanner.scan([music])
        let id = try #require(try store.tracks.track(path: path)).id
        try store.tracks.apply([try TrackEdit(parsing: "rating=5")], to: id)
        try store.runner.write { db in
            try db.execute(sql: "INSERT INTO history (track_id, path, kind, reason, played, at) VALUES (?, ?, 'play', 'finished', 1, 100)",
                           arguments: [id, path])
        }
        try addSong("01.mp3", title: "After")
        try touch(path, secondsAgo: 3)
        _ = try scanner.scan([music])
        let track = try #require(try store.tracks.track(path: path))
        #expect(track.id == id && track.title == "After" && track.rating == 5 && track.plays == 1)
    }

    @Test func aMovedFileKeepsItsIdAndPlays() throws {
        let old = try addSong("Old/01.mp3", title: "Wanderer", artist: "Mover")
        _ = try scanner.scan([music])
        let id = try #require(try store.tracks.track(path: old)).id
        try store.runner.write { db in
            try db.execute(sql: "INSERT INTO history (track_id, path, kind, reason, played, at) VALUES (?, ?, 'play', 'finished', 1, 100)",
                           arguments: [id, old])
        }
        try FileManager.default.createDirectory(atPath: music + "/New", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: old, toPath: music + "/New/01.mp3")
        let report = try scanner.scan([music])
        #expect(report.moved == 1 && report.added == 0 && report.removed == 0)
        let moved = try #require(try store.tracks.track(path: music + "/New/01.mp3"))
        #expect(moved.id == id && moved.plays == 1)
    }

    @Test func aMissingFolderRemovesNothing() throws {
        try addSong("01.mp3", title: "One")
        _ = try scanner.scan([music])
        try FileManager.default.moveItem(atPath: music, toPath: root + "/unmounted")
        let report = try scanner.scan([music])
        #expect(report.removed == 0)
        #expect(report.unavailable.map { $0.path } == [music])
        #expect(try titles() == ["One"])
    }

    @Test func symlinkLoopsEndAndLinkedFoldersAreFollowedOnce() throws {
        try addSong("A/01.mp3", title: "One")
        let outside = root + "/Elsewhere"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Fixtures.writeMP3(to: outside + "/ext.mp3", v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "Linked")]),
                              audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try FileManager.default.createSymbolicLink(atPath: music + "/A/loop", withDestinationPath: music)
        try FileManager.default.createSymbolicLink(atPath: music + "/linked", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: music + "/linked-again", withDestinationPath: outside)
        let report = try scanner.scan([music])
        #expect(report.added == 2)
        #expect(report.symlinkLoops.count == 2)
        #expect(try titles() == ["Linked", "One"])
    }

    @Test func entriesThatAreNotFilesAreReportedAndALinkedFileIsIndexedOnceUnderItsRealPath() throws {
        let real = try addSong("song.mp3", title: "Real")
        try FileManager.default.createSymbolicLink(atPath: music + "/0-link.mp3", withDestinationPath: real)
        try FileManager.default.createSymbolicLink(atPath: music + "/dangling.mp3", withDestinationPath: root + "/nowhere.mp3")
        #expect(mkfifo(music + "/pipe.mp3", 0o644) == 0)
        try addSong("album.mp3/inside.mp3", title: "Inside")
        let report = try scanner.scan([music])
        #expect(report.added == 2)
        #expect(try store.tracks.track(path: real)?.title == "Real")
        #expect(report.skipped.map(\.path) == [music + "/album.mp3", music + "/dangling.mp3", music + "/pipe.mp3"])
        #expect(report.skipped.map(\.reason) == ["a folder named like a music file (its contents are scanned)",
                                                 "cannot be read: No such file or directory (a dangling symlink)",
                                                 "a FIFO, not a file"])
    }

    @Test func everyFileIsAccountedForAndBadOnesAreListedWithTheReason() throws {
        try addSong("good.mp3", title: "Good")
        try Data().write(to: URL(fileURLWithPath: music + "/empty.mp3"))
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: music + "/text.mp3"))
        let report = try scanner.scan([music])
        #expect(report.added == 1)
        #expect(report.unreadable.map { $0.path } == [music + "/empty.mp3", music + "/text.mp3"])
        #expect(report.unreadable.allSatisfy { !$0.reason.isEmpty })
        // Unchanged bad files are not re-read, but still listed.
        let again = try scanner.scan([music])
        #expect(again.unreadable.count == 2 && again.unchanged == 1)
        #expect(try store.tracks.unreadableFiles().count == 2)
    }

    @Test func removedTracksStayOutOfLaterScans() throws {
        try addSong("keep.mp3", title: "Keep")
        try addSong("drop.mp3", title: "Drop")
        _ = try scanner.scan([music])
        let drop = try store.tracks.matching("title:drop")
        #expect(try store.tracks.remove(ids: drop.map(\.id)) == 1)
        let report = try scanner.scan([music])
        #expect(report.excluded == 1 && report.added == 0)
        #expect(try titles() == ["Keep"])
        #expect(FileManager.default.fileExists(atPath: music + "/drop.mp3"))
    }

    @Test func aScanWithoutFoldersGoesOverTheFoldersScannedBefore() throws {
        try addSong("01.mp3", title: "One")
        _ = try scanner.scan([music])
        #expect(try scanner.rememberedFolders() == [music])
    }

    @Test func manyFilesOnAllCoresInSeveralBatches() throws {
        var scanner = self.scanner
        scanner.batchSize = 7
        for index in 0..<60 { try addSong(String(format: "%02d.mp3", index), title: "Song \(index)") }
        let report = try scanner.scan([music])
        #expect(report.added == 60)
        #expect(try store.history.statistics().tracks == 60)
    }

    @Test func scansKeepTheSearchIndexInStep() throws {
        var scanner = self.scanner
        scanner.batchSize = 4
        for index in 0..<10 { try addSong(String(format: "%02d.mp3", index), title: "Melody \(index)", artist: "אַהֲרֹן") }
        _ = try scanner.scan([music])
        try addSong("03.mp3", title: "Changed Tune")
        try touch(music + "/03.mp3", secondsAgo: 7)
        try FileManager.default.removeItem(atPath: music + "/04.mp3")
        _ = try scanner.scan([music])

        #expect(try store.tracks.matching("title:melody").count == 8)  // 04 is missing, 03 changed
        #expect(try store.tracks.matching("title:tune").count == 1)
        #expect(try store.tracks.matching("אהרן").count == 8)  // the changed file has another artist
        let (indexed, live) = try store.runner.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM track_search") ?? 0,
             try Int.fetchOne(db, sql: "SELECT live FROM search_index_state") ?? 0)
        }
        #expect(indexed == 9)
        #expect(live == 1)
    }
}
