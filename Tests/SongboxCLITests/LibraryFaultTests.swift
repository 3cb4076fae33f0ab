import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// What the binary says when the library database cannot be used as asked: each message in
/// words, with the path and what to do (docs/troubleshooting.md), never SQLite's text or SQL.
/// The mounts need root (the tests run as root here; root ignores file modes, so a read-only
/// library is a read-only bind mount, not a `chmod`).
@Suite(.serialized) struct LibraryFaultTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// What no message may contain: SQLite's words, SQL, Foundation's error dumps.
    static let raw = ["SQLite", "SELECT", "CREATE", "Error Domain", "UserInfo", "database is locked"]

    func expectFailure(_ output: SongboxRunner.Output, _ message: String, _ command: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status == 1, "\(command): \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.contains(message), "\(command): \(output.stderr)", sourceLocation: sourceLocation)
        for word in Self.raw {
            #expect(!output.stderr.contains(word), "\(command): \(output.stderr)", sourceLocation: sourceLocation)
        }
    }

    func python(_ script: String, _ arguments: [String]) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/python3", ["-c", script] + arguments)
    }

    func mount(_ arguments: [String]) throws {
        let result = try SongboxRunner.run(executable: "/bin/mount", arguments)
        try #require(result.status == 0, "mount \(arguments): \(result.stderr) (these tests need root)")
    }

    func unmount(_ folder: String) {
        _ = try? SongboxRunner.run(executable: "/bin/umount", [folder])
    }

    @Test func aFileThatIsNotALibraryIsSaidToBeOneAndLeftAlone() throws {
        let text = folder + "/notes.db", png = folder + "/cover.db", other = folder + "/other.db"
        try "shopping: milk, bread\n".write(toFile: text, atomically: true, encoding: .utf8)
        // A PNG's signature and the start of its header chunk.
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
                 + [UInt8](repeating: 7, count: 4096)).write(to: URL(fileURLWithPath: png))
        _ = try python("import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1]); db.execute('CREATE TABLE notes(text)'); db.commit()", [other])
        for path in [text, png, other] {
            for command in [["ls"], ["stats"], ["scan", TestLibrary.examples], ["edit", "1", "title=x"]] {
                let output = try SongboxRunner.run(executable: SongboxRunner.executable, ["--db", path] + command)
                expectFailure(output, "\(path): this file is not a songbox library", command)
                #expect(output.stderr.contains("restore it from a backup"))
            }
        }
        // Another program's database keeps its tables and gets none of songbox's.
        let tables = try python("import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute(\"SELECT group_concat(name) FROM sqlite_master\").fetchone()[0])", [other])
        #expect(tables.stdout == "notes\n")
    }

    @Test func inHebrewTheMessageAndItsHintAreHebrew() throws {
        try Catalogs.compile()
        let text = folder + "/notes.db"
        try "shopping: milk, bread\n".write(toFile: text, atomically: true, encoding: .utf8)
        let output = try SongboxRunner.run(executable: SongboxRunner.executable, ["--db", text, "ls"], environment: ["LANG": "he_IL.UTF-8"])
        #expect(output.status == 1)
        #expect(output.stderr == "שגיאה: \(text): הקובץ הזה אינו ספרייה של songbox\n"
                + "  עצה: בדקו את הנתיב שניתן ב־--db או ב־SONGBOX_DB; אם זו הייתה הספרייה שלכם, היא פגומה: שחזרו אותה מגיבוי\n",
                "\(output.stderr)")
    }

    @Test func aDamagedLibraryIsSaidToBeDamagedWithHowToRecover() throws {
        try library.scanExamples()
        // Every page after the first two written over: the schema is readable, the tables not.
        _ = try python("import sys\nf = open(sys.argv[1], 'r+b'); size = f.seek(0, 2); f.seek(2048); f.write(b'\\xff' * (size - 2048)); f.close()",
                       [songbox.database])
        for command in [["ls"], ["stats"], ["show", "1"]] {
            let output = try songbox.run(command)
            expectFailure(output, "the library database is damaged", command)
            #expect(output.stderr.contains("restore it from a backup"))
        }
    }

    @Test func checkFindsDamageThatReadingDoesNotMeet() throws {
        try library.scanExamples()
        let sound = try songbox.run(["check"])
        #expect(sound.status == 0 && sound.stdout == "The library at \(songbox.database) is sound.\n", "\(sound.stdout)\(sound.stderr)")
        // The artist index's entries changed on disk: a listing (which does not use it) works,
        // the check finds the rows missing from it.
        _ = try python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'tracks_by_artist'").fetchone()[0]
            size = c.execute("PRAGMA page_size").fetchone()[0]; c.close()
            f = open(sys.argv[1], 'r+b'); f.seek(root * size - 300); cells = f.read(300)
            f.seek(root * size - 300); f.write(cells.replace(b'e', b'z')); f.close()
            """, [songbox.database])
        #expect(try songbox.run(["ls"]).status == 0)
        let damaged = try songbox.run(["check"])
        expectFailure(damaged, "the library database is damaged", ["check"])
        #expect(damaged.stderr.contains("missing from index tracks_by_artist"), "\(damaged.stderr)")
        #expect(damaged.stderr.contains("restore it from a backup"))
    }

    @Test func aReadOnlyLibraryIsReadAndRefusesChangesInWords() throws {
        let writable = folder + "/rw", readOnly = folder + "/ro"
        for path in [writable, readOnly] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let database = writable + "/library.db"
        let scan = try SongboxRunner.run(executable: SongboxRunner.executable, ["--db", database, "scan", TestLibrary.examples])
        try #require(scan.status == 0, "\(scan.stderr)")
        // The same folder again, read-only (its -wal and -shm are gone: SQLite cannot make them).
        try mount(["--bind", writable, readOnly])
        defer { unmount(readOnly) }
        try mount(["-o", "remount,bind,ro", readOnly])
        let songbox = SongboxRunner(database: readOnly + "/library.db")
        let script = folder + "/count.lua"
        try "print(#songbox.library.query('sort:id'))".write(toFile: script, atomically: true, encoding: .utf8)
        for command in [["ls"], ["ls", "--json"], ["show", "1"], ["stats"], ["history"], ["run", script]] {
            let output = try songbox.run(command)
            #expect(output.status == 0, "\(command): \(output.stderr)")
            #expect(!output.stdout.isEmpty || command == ["history"], "\(command)")
        }
        #expect(try songbox.run(["run", script]).stdout == "16\n")
        for command in [["edit", "1", "title=x"], ["scan", TestLibrary.examples], ["playlist", "save", "x", "artist:a"]] {
            let output = try songbox.run(command)
            expectFailure(output, "the library database is read-only: this command changes it", command)
        }
    }

    @Test func onAFullDiskReadingWorksAndWritingSaysTheDiskIsFull() throws {
        let disk = folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try mount(["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk])
        defer { unmount(disk) }
        let songbox = SongboxRunner(database: disk + "/library.db")
        try #require(try songbox.run(["scan", TestLibrary.examples]).status == 0)
        // Fill what is left (dd stops at ENOSPC).
        _ = try SongboxRunner.run(executable: "/bin/dd", ["if=/dev/zero", "of=\(disk)/fill", "bs=4096"])
        for command in [["ls"], ["show", "1"], ["stats"], ["history"]] {
            let output = try songbox.run(command)
            #expect(output.status == 0, "\(command): \(output.stderr)")
        }
        for command in [["edit", "1", "title=x"], ["scan", TestLibrary.examples], ["playlist", "save", "x", "artist:a"]] {
            let output = try songbox.run(command)
            expectFailure(output, "the disk holding the library database is full: nothing was changed", command)
        }
    }

    @Test func aQueryTooLargeIsRefusedInOneLineBeforeSQLiteSeesIt() throws {
        try library.scanExamples()
        // At the limit: SQLite runs it (no track matches).
        let atLimit = try songbox.run(["ls", (0..<500).map { "w\($0)" }.joined(separator: " OR ")])
        #expect(atLimit.status == 1 && atLimit.stderr.hasPrefix("no tracks match"), "\(atLimit.stderr.prefix(200))")
        let thousand = try songbox.run(["ls", (0..<1_000).map { "w\($0)" }.joined(separator: " OR ")])
        expectFailure(thousand, "Error: the query has too many terms (1000; at most 500)\n", ["ls"])
        #expect(thousand.stderr.count < 200)
        // 25,000 terms do not fit in one argument; a script can ask.
        let script = folder + "/huge.lua"
        try """
            local words = {}
            for i = 1, 25000 do words[#words + 1] = "w" .. i end
            print(select(2, songbox.library.query(table.concat(words, " OR "))))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let huge = try songbox.run(["run", script])
        #expect(huge.stdout == "songbox.library.query: the query is too long (238890 bytes; at most 16384)\n", "\(huge.stderr)")
    }

    /// Twenty processes opening one library that does not exist yet (the default location, made
    /// on demand), five times: each finds the schema made, none sees another's `CREATE TABLE`.
    @Test func manyProcessesCreatingOneLibraryAllSucceed() throws {
        for round in 0..<5 {
            let data = folder + "/data\(round)"
            let processes = try (0..<20).map { _ in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: SongboxRunner.executable)
                process.arguments = ["stats", "--json"]
                var environment = SongboxRunner.environment(["XDG_DATA_HOME": data])
                environment["SONGBOX_DB"] = nil
                process.environment = environment
                let errors = Pipe()
                process.standardOutput = FileHandle.nullDevice
                process.standardError = errors
                try process.run()
                return (process, errors)
            }
            for (process, errors) in processes {
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "round \(round): \(text)")
                #expect(!text.contains("Error"), "round \(round): \(text)")
            }
        }
    }

    /// A process holding SQLite's write lock: python3 in `BEGIN IMMEDIATE` until its input closes.
    func holdWriteLock() throws -> (process: Process, input: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None); db.execute("BEGIN IMMEDIATE")
            print("locked", flush=True); sys.stdin.read()
            """, songbox.database]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableData
        try #require(String(decoding: line, as: UTF8.self).hasPrefix("locked"))
        return (process, input)
    }

    func release(_ holder: (process: Process, input: Pipe)) {
        try? holder.input.fileHandleForWriting.close()
        holder.process.waitUntilExit()
    }

    /// Whether some process holds a `flock` on the library's lock file (a scan running).
    func scanLockIsHeld() throws -> Bool {
        guard FileManager.default.fileExists(atPath: songbox.database + "-lock") else { return false }
        let inode = try FileManager.default.attributesOfItem(atPath: songbox.database + "-lock")[.systemFileNumber] as? UInt64
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return locks.split(separator: "\n").contains { $0.contains("FLOCK") && $0.hasSuffix(":\(inode ?? 0) 0 EOF") }
    }

    @Test func aSecondScanIsRefusedNamingTheFirstAndALockIsWaitedForThenNamed() throws {
        try library.scanExamples()
        _ = try library.add([("new", 1.0)])
        // The first scan waits on the write lock python holds (it has a new file to add),
        // holding its scan lock meanwhile.
        let holder = try holdWriteLock()
        let first = try songbox.start(["scan", music])
        var tries = 0
        while try !scanLockIsHeld(), tries < 1_000 { usleep(10_000); tries += 1 }
        let second = try songbox.run(["scan", TestLibrary.examples])
        expectFailure(second, "another scan of this library is running (pid \(first.processIdentifier))", ["scan"])
        release(holder)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)

        // A write waits for the lock (10 s), then says who holds it.
        let again = try holdWriteLock()
        let edit = try songbox.run(["edit", "1", "title=x"])
        release(again)
        expectFailure(edit, "the library database stayed locked by another process (held by pid", ["edit"])
        #expect(edit.stderr.contains("pid \(again.process.processIdentifier): python3"), "\(edit.stderr)")
    }
}

/// docs/troubleshooting.md lists each message these tests see, with its cause and fix.
@Test func theTroubleshootingPageListsEveryLibraryMessage() throws {
    let page = try String(contentsOfFile: Fixtures.packageRoot + "/docs/troubleshooting.md", encoding: .utf8)
    for message in ["this file is not a songbox library", "the library database is damaged", "the library database is read-only: this command changes it",
                    "the disk holding the library database is full: nothing was changed",
                    "the library database stayed locked by another process (held by pid", "another scan of this library is running (pid",
                    "cannot open the library database", "cannot create the folder of the library database",
                    "the library database could not be read or written (a disk error)", "database operation failed (SQLite error",
                    "the query has too many terms", "the query is too long", "the query is too large for the database",
                    "cannot write the playlist file", "no MPEG audio found"] {
        #expect(page.contains(message), "\(message)")
    }
    let readme = try String(contentsOfFile: Fixtures.packageRoot + "/README.md", encoding: .utf8)
    #expect(readme.contains("(docs/troubleshooting.md)"))
}

/// Failures of files other than the library: said with the path and in words, not as
/// Foundation's `Error Domain=... UserInfo={...}` or libmpg123's own sentences.
@Suite(.serialized) struct FileFaultWordsTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    @Test func aPlaylistWrittenToAReadOnlyFolderSaysSoInWords() throws {
        try library.scanExamples()
        #expect(try songbox.run(["playlist", "save", "mine", "sort:id", "limit:3"]).status == 0)
        let readOnly = folder + "/ro"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        let mounted = try SongboxRunner.run(executable: "/bin/mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readOnly])
        try #require(mounted.status == 0, "mount: \(mounted.stderr) (this test needs root)")
        defer { _ = try? SongboxRunner.run(executable: "/bin/umount", [readOnly]) }
        for file in ["mine.m3u8", "mine.json"] {
            let output = try songbox.run(["playlist", "export", "mine", readOnly + "/" + file])
            #expect(output.status == 1)
            #expect(output.stderr.hasPrefix("Error: \(readOnly)/\(file): cannot write the playlist file (Read-only file system)"),
                    "\(output.stderr)")
            #expect(!output.stderr.contains("Error Domain") && !output.stderr.contains("UserInfo"))
        }
    }

    @Test func aFileWithNoAudioIsSaidWithoutLibmpg123sWords() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try "hello world\n".write(toFile: music + "/text.mp3", atomically: true, encoding: .utf8)
        try Data([UInt8](repeating: 0x55, count: 20_000)).write(to: URL(fileURLWithPath: music + "/noise.mp3"))
        let output = try songbox.run(["scan", music])
        #expect(output.status == 0)
        #expect(output.stdout.contains("unreadable: \(music)/text.mp3: no MPEG audio found\n"), "\(output.stdout)")
        #expect(output.stdout.contains("unreadable: \(music)/noise.mp3: no MPEG audio found\n"), "\(output.stdout)")
        #expect(!output.stdout.contains("I am done") && !output.stdout.contains("Error Domain"))
    }
}
