import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// The store when another process holds the database, or the database is not what it expects.
@Suite struct StoreFaultTests {
    /// Another connection that holds the write lock until `release` is called.
    final class LockHolder: @unchecked Sendable {
        let queue: DatabaseQueue
        init(_ path: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true  // the point: a transaction left open
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        }
        func release() throws { try queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") } }
    }

    @Test func aLockHeldPastTheTimeoutIsRetriedThenNamedAsTheCause() throws {
        let (folder, _) = try temporaryStore()
        let store = try LibraryStore(path: folder + "/library.db", busyTimeout: 0.05)
        let holder = try LockHolder(folder + "/library.db")
        #expect {
            try store.playlists.savePlaylist(named: "Mix", trackIDs: [])
        } throws: { error in
            (error as? SongboxError)?.message.hasPrefix("the library database stayed locked by another process") == true
        }
        // Released while the store is retrying: the write goes through.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.15) { try? holder.release() }
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [])
        #expect(try store.playlists.playlistExists(named: "Mix"))
    }

    @Test func aLibraryFromANewerSongboxIsRefusedAndLeftAsItIs() throws {
        let (folder, _) = try temporaryStore()
        let path = folder + "/library.db"
        try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 99") }
        #expect {
            _ = try LibraryStore(path: path)
        } throws: { error in
            (error as? SongboxError)?.message.contains("written by a newer songbox (schema 99") == true
        }
        #expect(try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 99)
    }

    @Test func anUnknownMigrationIsRefused() throws {
        let (folder, _) = try temporaryStore()
        let path = folder + "/library.db"
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        #expect(throws: SongboxError.self) { _ = try LibraryStore(path: path) }
    }

    @Test func aDroppedTableIsReportedNotRecreatedSilently() throws {
        let (folder, _) = try temporaryStore()
        let path = folder + "/library.db"
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "DROP TABLE highlights") }
        #expect {
            _ = try LibraryStore(path: path)
        } throws: { error in
            (error as? SongboxError)?.message == "the library database is damaged: no highlights table"
        }
    }

    @Test(arguments: ["", ".", "./", "/tmp/"])
    func aPathThatIsNoDatabaseFileIsAClearError(path: String) throws {
        #expect(throws: SongboxError.self) { _ = try LibraryStore(path: path) }
    }
}
