import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// The binary given a database path or a database it cannot use: a clear error, never a crash,
/// and nothing written.
@Suite struct DatabaseFaultTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    @Test(arguments: [(["--db", "."], [String: String]()), (["--db", "./"], [:]), ([], ["SONGBOX_DB": "."]),
                      (["--db", ""], [:])])
    func aDatabasePathThatIsAFolderOrEmptyIsAClearError(arguments: [String], environment: [String: String]) throws {
        for command in [["stats"], ["scan", TestLibrary.examples], ["ls", "title:x"]] {
            let output = try SongboxRunner.run(executable: SongboxRunner.executable, arguments + command,
                                               environment: environment.merging(["HOME": folder]) { $1 })
            #expect(output.status == 1, "\(command): \(output.stderr)")
            #expect(output.stderr.contains("the database path is a folder") || output.stderr.contains("the database path is empty"),
                    "\(output.stderr)")
            #expect(output.stdout.isEmpty)
        }
    }

    @Test func aLibraryFromANewerSongboxIsRefusedByEveryCommand() throws {
        try library.scanExamples()
        let store = try LibraryStore(path: songbox.database)
        try store.runner.write { db in try db.execute(sql: "UPDATE tracks SET title = 'untouched' WHERE id = 1") }
        _ = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA user_version = 42"); db.commit()
            """, songbox.database])
        for command in [["ls"], ["ls", "title:untouched"], ["scan"], ["stats"], ["edit", "1", "title=changed"]] {
            let output = try songbox.run(command)
            #expect(output.status == 1, "\(command)")
            #expect(output.stderr.contains("the library was written by a newer songbox (schema 42"), "\(command): \(output.stderr)")
        }
        let check = try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA user_version").fetchone()[0], db.execute("SELECT title FROM tracks WHERE id = 1").fetchone()[0])
            """, songbox.database])
        #expect(check.stdout == "42 untouched\n")
    }
}
