import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// What the Lua library API's fast path stands on: the change stamp, raw rows, the field list
/// and the hand-written ISO date.
@Suite struct RawRowsTests {
    let folder: String
    let store: LibraryStore

    init() throws {
        (folder, store) = try temporaryStore()
    }

    func insertTrack(_ path: String, title: String?, year: Int? = nil, peak: Double? = nil) throws -> Int64 {
        try store.runner.write { db in
            try db.execute(sql: """
                INSERT INTO tracks (path, size, mtime, duration, added, path_key, title, title_key, year, rg_track_peak)
                VALUES (?, 1, 1, 200.12345, 1700000000, ?, ?, ?, ?, ?)
                """, arguments: [path, path, title, title.map(SearchKey.fold), year, peak])
            return db.lastInsertedRowID
        }
    }

    // MARK: Change stamp

    @Test(arguments: [LibraryStore.Access.single, .shared])
    func theStampChangesWithEveryWrite(_ access: LibraryStore.Access) throws {
        let store = try LibraryStore(path: folder + "/library.db", access: access)
        let first = try store.runner.changeStamp()
        #expect(try store.runner.changeStamp() == first)
        _ = try store.runner.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") }
        #expect(try store.runner.changeStamp() == first, "a read changes nothing")

        // A write by the same store (its writer connection).
        let id = try insertTrack("/a.mp3", title: "A")
        let second = try store.runner.changeStamp()
        #expect(second != first)
        #expect(try store.runner.changeStamp() == second)

        // A write by another connection, in this process and in another.
        let other = try LibraryStore(path: folder + "/library.db")
        try other.tracks.apply([TrackEdit(parsing: "rating=3")], to: id)
        let third = try store.runner.changeStamp()
        #expect(third != second)
        #expect(try store.runner.changeStamp() == third)

        // A trigger's writes count (history updates the track's plays).
        try other.history.recordPlay(trackID: id, kind: .play, reason: "finished", played: 1)
        let fourth = try store.runner.changeStamp()
        #expect(fourth != third)
        try store.history.recordPlay(trackID: id, kind: .play, reason: "finished", played: 1)
        #expect(try store.runner.changeStamp() != fourth)
    }

    @Test func stampsOfTwoStoresDiffer() throws {
        let other = try LibraryStore(path: folder + "/library.db")
        #expect(try store.runner.changeStamp() != other.runner.changeStamp())
    }

    // MARK: Raw rows

    @Test func rawRowsReadTypedColumnsInOrder() throws {
        let a = try insertTrack("/b.mp3", title: "Bé", year: 1999, peak: 0.5)
        let b = try insertTrack("/a.mp3", title: nil)
        let query = try LibraryQuery.parse("sort:path")
        let rows = try store.runner.readRaw { reader in
            var rows: [[String]] = []
            try reader.forEachRow(of: reader.statement(for: query, selecting: "id, title, year, rg_track_peak, duration",
                                                       evaluated: [:])) { row in
                rows.append([String(row.int64(0)), row.isNull(1) ? "nil" : String(decoding: row.utf8(1), as: UTF8.self),
                             row.isNull(2) ? "nil" : String(row.int64(2)), row.isNull(3) ? "nil" : String(row.double(3)),
                             String(row.double(4))])
            }
            return rows
        }
        #expect(rows == [["\(b)", "nil", "nil", "nil", "200.12345"], ["\(a)", "Bé", "1999", "0.5", "200.12345"]])
        let ids = try store.runner.readRaw { reader in
            try reader.integers(of: reader.statement(for: query, selecting: "id", evaluated: [:]))
        }
        #expect(ids == [b, a])
        #expect(try store.runner.readRaw { reader in try reader.statement(for: query, selecting: "id", evaluated: [:]).isRepeatable })
        #expect(!(try store.runner.readRaw { reader in
            try reader.statement(for: LibraryQuery.parse("random limit:1"), selecting: "id", evaluated: [:]).isRepeatable
        }))
    }

    @Test func rawRowsByIDSkipMissingOnes() throws {
        var ids: [Int64] = []
        for n in 0..<1_203 { ids.append(try insertTrack("/t\(n).mp3", title: "T\(n)")) }
        let wanted = ids.filter { $0 % 3 == 0 } + [999_999]  // more than one chunk of 500, and one not there
        let read = try store.runner.readRaw { reader in
            var read: [Int64] = []
            try reader.forEachRow(ids: wanted, selecting: "id") { read.append($0.int64(0)) }
            return read
        }
        #expect(read.sorted() == ids.filter { $0 % 3 == 0 })
    }

    /// A folder read in pieces: paths after the last piece's, the missing left out; paths
    /// alone come from the index of present paths without touching the table.
    @Test func foldersAreReadInPiecesAndPathsFromTheirIndexAlone() throws {
        for name in ["/m/a/1.mp3", "/m/a/2.mp3", "/m/a/3.mp3", "/m/b/4.mp3", "/n/5.mp3"] { _ = try insertTrack(name, title: nil) }
        try store.runner.write { try $0.execute(sql: "UPDATE tracks SET missing_since = 1 WHERE path = '/m/a/2.mp3'") }
        func piece(after: String?, columns: String) throws -> [String] {
            try store.runner.readRaw { reader in
                var paths: [String] = []
                try reader.forEachRow(under: "/m", after: after, limit: 2, selecting: columns) { paths.append(String(decoding: $0.utf8(0), as: UTF8.self)) }
                return paths
            }
        }
        for columns in ["path", "path, title"] {
            #expect(try piece(after: nil, columns: columns) == ["/m/a/1.mp3", "/m/a/3.mp3"])
            #expect(try piece(after: "/m/a/3.mp3", columns: columns) == ["/m/b/4.mp3"])
        }
        // A path before the folder's (a first piece asked with one) reads from the folder's start.
        #expect(try piece(after: "/a", columns: "path") == ["/m/a/1.mp3", "/m/a/3.mp3"])
        for after in [nil, "/m/a/3.mp3"] {
            let statement = RawReader.piece(under: "/m", after: after, limit: 500, selecting: "path")
            let plan = try store.runner.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("COVERING INDEX tracks_present_paths") }, "\(plan)")
        }
    }

    // MARK: Fields

    @Test func theFieldListIsTrackCodingKeys() {
        #expect(Set(TrackField.all.map(\.name)) == Set(Track.CodingKeys.allCases.map(\.rawValue)))
        #expect(TrackField.all.count == Track.CodingKeys.allCases.count)
        #expect(Array(TrackField.all.prefix(TrackField.listing.count)).map(\.name) == TrackField.listing.map(\.name))
    }

    // MARK: ISO dates

    static func foundation(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    @Test func isoDateIsFoundations() {
        var samples: [Int64] = [
            0, -1, 1, 59, 60, 3_599, 3_600, 86_399, 86_400, -86_400, -86_401, 1_795_330_999, 1_700_000_000,
            951_782_400, 951_868_800, 951_868_799,  // 2000-02-29 and around (400-year leap)
            4_107_542_400, 4_107_456_000,            // 2100-03-01, 2100-02-28 (no leap day)
            -2_203_891_200, -2_208_988_800,          // 1900-03-01, 1900-01-01
            -12_212_553_600, -12_212_553_601,        // 1583-01-01, and the second before (Foundation's Julian days)
            -62_135_596_800, -62_135_596_801,        // year 1
            253_402_300_799, 253_402_300_800,        // 9999-12-31T23:59:59, 10000-01-01
            2_147_483_647, -2_147_483_648, 1_000_000_000_000, -1_000_000_000_000,
        ]
        // Every day boundary of 1899 to 2105, and the seconds around it.
        for day in stride(from: Int64(-25_567), through: 49_674, by: 1) {
            samples += [day * 86_400, day * 86_400 - 1]
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { samples.append(Int64.random(in: -13_000_000_000...260_000_000_000, using: &random)) }
        var failures: [String] = []
        for seconds in samples where FieldValue.isoDate(seconds) != Self.foundation(seconds) {
            failures.append("\(seconds): \(FieldValue.isoDate(seconds)) vs \(Self.foundation(seconds))")
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(FieldValue.isoDate(1_795_330_999) == "2026-11-22T07:03:19Z")
    }
}
