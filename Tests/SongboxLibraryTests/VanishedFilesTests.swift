import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// Unseen is not gone: what a scan does with files it cannot find.
extension ScannerTests {
    /// Ten songs `00.mp3` ... `09.mp3` under `folder`, scanned; returns their paths.
    @discardableResult
    func addTen(in folder: String = "") throws -> [String] {
        let paths = try (0..<10).map { try addSong(folder + String(format: "%02d.mp3", $0), title: "Song \($0)") }
        _ = try scanner.scan([music])
        return paths
    }

    func id(_ path: String) throws -> Int64 { try #require(try store.runner.read { db in
        try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE path = ?", arguments: [path])
    }) }

    func recordPlay(_ id: Int64, _ path: String) throws {
        try store.runner.write { db in
            try db.execute(sql: "INSERT INTO history (track_id, path, kind, reason, played, at) VALUES (?, ?, 'play', 'finished', 1, 100)",
                           arguments: [id, path])
        }
    }

    func playlistTitles(_ name: String) throws -> [String] { try store.playlists.playlist(named: name).tracks.compactMap(\.title) }

    @Test func aVanishedTrackIsMissingWithItsHistoryAndComesBackAsItWas() throws {
        let paths = try addTen()
        let lost = paths[1]
        let lostID = try id(lost)
        try recordPlay(lostID, lost)
        try store.tracks.apply([try TrackEdit(parsing: "rating=5")], to: lostID)
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [try id(paths[0]), lostID, try id(paths[2])])
        try FileManager.default.moveItem(atPath: lost, toPath: root + "/away.mp3")

        let gone = try scanner.scan([music])
        #expect(gone.missing == 1 && gone.removed == 0 && gone.held.isEmpty)
        #expect(try !titles().contains("Song 1"))
        #expect(try store.tracks.matching("song").count == 9)  // the search index agrees
        #expect(try store.tracks.track(id: lostID) == nil)
        #expect(try store.history.statistics().tracks == 9)
        // Positions count the tracks shown; the missing one keeps its place apart.
        #expect(try playlistTitles("Mix") == ["Song 0", "Song 2"])
        try store.playlists.removeFromPlaylist(named: "Mix", positions: [1])
        try store.playlists.addToPlaylist(named: "Mix", trackIDs: [try id(paths[3])])
        #expect(try playlistTitles("Mix") == ["Song 0", "Song 3"])
        let again = try scanner.scan([music])
        #expect(again.missing == 0 && again.removed == 0)  // missing once, counted once

        try FileManager.default.moveItem(atPath: root + "/away.mp3", toPath: lost)
        let back = try scanner.scan([music])
        #expect(back.restored == 1 && back.unchanged == 10)
        let track = try #require(try store.tracks.track(id: lostID))
        #expect(track.path == lost && track.plays == 1 && track.rating == 5)
        #expect(try playlistTitles("Mix") == ["Song 0", "Song 1", "Song 3"])
        #expect(try store.tracks.matching("song").count == 10)
    }

    @Test func aMissingTrackFoundAtANewPathIsRestoredThere() throws {
        let paths = try addTen()
        let lostID = try id(paths[4])
        try recordPlay(lostID, paths[4])
        try FileManager.default.moveItem(atPath: paths[4], toPath: root + "/away.mp3")
        #expect(try scanner.scan([music]).missing == 1)
        try FileManager.default.createDirectory(atPath: music + "/Found", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/away.mp3", toPath: music + "/Found/04.mp3")
        let report = try scanner.scan([music])
        #expect(report.moved == 1 && report.restored == 1 && report.added == 0)
        let track = try #require(try store.tracks.track(id: lostID))
        #expect(track.path == music + "/Found/04.mp3" && track.plays == 1)
    }

    @Test func missingTracksAreDeletedAfterTheGracePeriodAndTheirHistoryStays() throws {
        let paths = try addTen()
        let lostID = try id(paths[0])
        try recordPlay(lostID, paths[0])
        try FileManager.default.removeItem(atPath: paths[0])
        let start = Date()
        #expect(try scanner.scan([music], now: start).missing == 1)
        #expect(try scanner.scan([music], now: start.addingTimeInterval(29 * 86_400)).removed == 0)
        let late = try scanner.scan([music], now: start.addingTimeInterval(31 * 86_400))
        #expect(late.removed == 1)
        let rows = try store.runner.read { db in
            try Row.fetchAll(db, sql: "SELECT track_id, path FROM history").map { ($0[0] as Int64?, $0[1] as String) }
        }
        #expect(rows.count == 1 && rows[0].0 == nil && rows[0].1 == paths[0])
    }

    @Test func anEmptiedFolderIsHeldAndPruneRemovesItsTracks() throws {
        let paths = try addTen()
        let firstID = try id(paths[0])
        try recordPlay(firstID, paths[0])
        for path in paths { try FileManager.default.removeItem(atPath: path) }

        let report = try scanner.scan([music])
        #expect(report.held == [HeldFolder(path: music, said: "the folder is empty (a drive not mounted?)", tracks: 10)])
        #expect(report.missing == 0 && report.removed == 0)
        #expect(try titles().count == 10)
        #expect(try store.tracks.track(id: firstID)?.plays == 1)

        let pruned = try scanner.scan([music], prune: true)
        #expect(pruned.held.isEmpty && pruned.removed == 10)
        #expect(try titles().isEmpty)
    }

    @Test func aFolderWhoseTracksAllVanishedIsHeldEvenWithOtherFilesInIt() throws {
        let paths = try addTen()
        for path in paths { try FileManager.default.removeItem(atPath: path) }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: music + "/notes.txt"))
        let report = try scanner.scan([music])
        #expect(report.held.map(\.reason) == ["none of its 10 tracks were found"])
        #expect(try titles().count == 10)
    }

    @Test func moreThanAFifthGoneAtOnceIsHeld() throws {
        let paths = try addTen()
        for path in paths.prefix(3) { try FileManager.default.removeItem(atPath: path) }
        let report = try scanner.scan([music])
        #expect(report.held.map(\.reason) == ["3 of its 10 tracks were not found (more than a fifth at once)"])
        #expect(report.held.first?.tracks == 3 && report.missing == 0)
        #expect(try titles().count == 10)
        // Two gone is a fifth, not more: marked missing.
        try addSong("00.mp3", title: "Song 0")
        let fewer = try scanner.scan([music])
        #expect(fewer.held.isEmpty && fewer.missing == 2)
    }

    @Test func anEmptySubfolderIsHeldAndTheRestIsScanned() throws {
        let drive = try (0..<3).map { try addSong("Drive/0\($0).mp3", title: "On the drive \($0)") }
        try addTen(in: "Local/")
        for path in drive { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.removeItem(atPath: music + "/Local/09.mp3")
        let report = try scanner.scan([music])
        #expect(report.held == [HeldFolder(path: music + "/Drive", said: "the folder is empty (a drive not mounted?)", tracks: 3)])
        #expect(report.missing == 1)
        #expect(try titles().count == 12)
    }

    @Test func aMovedAlbumIsNotHeld() throws {
        let paths = try addTen(in: "Old/")
        try FileManager.default.createDirectory(atPath: music + "/New", withIntermediateDirectories: true)
        for path in paths.prefix(5) {
            try FileManager.default.moveItem(atPath: path, toPath: music + "/New/" + (path as NSString).lastPathComponent)
        }
        let report = try scanner.scan([music])
        #expect(report.held.isEmpty && report.moved == 5 && report.missing == 0 && report.added == 0)
    }
}
