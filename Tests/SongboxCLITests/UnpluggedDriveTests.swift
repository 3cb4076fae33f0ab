import Foundation
import SongboxFiles
import SongboxLibrary
import SongboxTestSupport
import Testing

/// The music on a drive that is unplugged and plugged back, under real scans of the binary:
/// a tmpfs mounted on the music folder (mounting needs root; without it the drive is played by
/// emptying the folder, and the test says so).
@Suite(.serialized) struct UnpluggedDriveTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    func mount(_ folder: String) throws -> Bool {
        try SongboxRunner.run(executable: "/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", folder]).status == 0
    }

    func unmount(_ folder: String) throws {
        let result = try SongboxRunner.run(executable: "/bin/umount", [folder])
        try #require(result.status == 0, "umount: \(result.stderr)")
    }

    /// Copies the files of `from` into `to`, keeping their modification times (as the drive had them).
    func copyFiles(from: String, to: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: from) { try copyFile(from + "/" + name, to: to + "/" + name) }
    }

    func copyFile(_ from: String, to: String) throws {
        let result = try SongboxRunner.run(executable: "/bin/cp", ["-p", from, to])
        try #require(result.status == 0, "cp: \(result.stderr)")
    }

    func listing() throws -> [[String: Any]] {
        let output = try songbox.run(["ls", "--json", "sort:id"])
        try #require(output.status == 0, "\(output.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aScanWithTheDriveUnpluggedKeepsTheLibraryAndItsHistory() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        var mounted = try mount(music)
        if !mounted {
            print("note: cannot mount a tmpfs here (mounting needs root): the unplugged drive is an emptied folder")
        }
        defer { if mounted { try? unmount(music) } }
        try library.add([("one", 1), ("two", 1), ("three", 1), ("four", 1), ("five", 1)])
        #expect(try songbox.run(["play", "--output", "null", "--fast", "id:=1"]).status == 0)
        #expect(try songbox.run(["edit", "2", "rating=5"]).status == 0)
        #expect(try songbox.run(["playlist", "save", "Mix", "id:2..4"]).status == 0)
        let before = try listing()
        #expect(before.count == 5 && before[0]["plays"] as? Int == 1)

        // Unplugged: the mount point is an empty folder on another filesystem.
        let backup = folder + "/backup"
        try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
        try copyFiles(from: music, to: backup)
        if mounted {
            try unmount(music)
            mounted = false
        } else {
            for name in try FileManager.default.contentsOfDirectory(atPath: music) { try FileManager.default.removeItem(atPath: music + "/" + name) }
        }
        let unplugged = try songbox.run(["scan"])
        #expect(unplugged.status == 1)
        #expect(unplugged.stdout.contains("held: \(music): the folder is empty (a drive not mounted?); its 5 tracks not found stay as they were"))
        #expect(unplugged.stdout.contains("0 missing, 0 removed"))
        let after = try listing()
        #expect(after.map { $0["id"] as? Int } == before.map { $0["id"] as? Int })
        #expect(after[0]["plays"] as? Int == 1 && after[1]["rating"] as? Int == 5)
        #expect(try songbox.run(["playlist", "show", "Mix"]).lines.count == 4)

        if try mount(music) {
            // A file left in the bare mount point: not empty, but not the drive it was either.
            try unmount(music)
            let one = try #require(try FileManager.default.contentsOfDirectory(atPath: backup).sorted().first)
            try copyFile(backup + "/" + one, to: music + "/" + one)
            let stray = try songbox.run(["scan", music])
            #expect(stray.status == 1)
            #expect(stray.stdout.contains("held: \(music): it is on another filesystem than when it was scanned"), "\(stray.stdout)")
            #expect(try listing().count == 5)
            try FileManager.default.removeItem(atPath: music + "/" + one)
            // Plugged back: a new tmpfs (another device number) with the same files.
            mounted = try mount(music)
            try #require(mounted)
        }
        try copyFiles(from: backup, to: music)
        let back = try songbox.run(["scan"])
        #expect(back.status == 0, "\(back.stdout)")
        #expect(back.stdout.contains("0 added, 0 updated, 0 moved, 0 missing, 0 removed, 5 unchanged"), "\(back.stdout)")
        let restored = try listing()
        #expect(restored.map { $0["id"] as? Int } == before.map { $0["id"] as? Int })
        #expect(restored[0]["plays"] as? Int == 1 && restored[1]["rating"] as? Int == 5)
    }

    @Test func aDeletedFileIsMissingThenBackWithItsPlays() throws {
        let paths = try library.add([("a", 1), ("b", 1), ("c", 1), ("d", 1), ("e", 1), ("f", 1)])
        #expect(try songbox.run(["play", "--output", "null", "--fast", "id:=3"]).status == 0)
        try FileManager.default.moveItem(atPath: paths[2], toPath: folder + "/c.mp3")
        let gone = try songbox.run(["scan"])
        #expect(gone.status == 0)
        #expect(gone.stdout.contains("1 missing, 0 removed"))
        #expect(try listing().count == 5)
        #expect(try songbox.run(["stats"]).stdout.contains("missing     1"))

        try FileManager.default.moveItem(atPath: folder + "/c.mp3", toPath: paths[2])
        let back = try songbox.run(["scan"])
        #expect(back.stdout.contains("6 unchanged, 0 unreadable, 1 restored"), "\(back.stdout)")
        #expect(try listing().first { $0["id"] as? Int == 3 }?["plays"] as? Int == 1)

        // The files really were deleted: --prune says so, and their tracks go at once.
        for path in paths.prefix(3) { try FileManager.default.removeItem(atPath: path) }
        #expect(try songbox.run(["scan"]).status == 1)
        let pruned = try songbox.run(["scan", "--prune"])
        #expect(pruned.status == 0)
        #expect(pruned.stdout.contains("0 missing, 3 removed"))
        #expect(try listing().count == 3)
    }
}

/// File names are bytes: a name that is not UTF-8 is indexed, listed and played like any other.
@Suite struct ByteFileNameTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    @Test func namesThatAreNotUTF8AreIndexedListedAndPlayed() throws {
        try library.add([("plain", 1), ("latin", 1), ("stray", 1)])
        // Renamed to bytes an old FAT copy leaves: Latin-1 "café", and a lone continuation byte.
        let names: [(from: String, to: [UInt8])] = [
            ("latin.mp3", Array("caf".utf8) + [0xE9] + Array(".mp3".utf8)),
            ("stray.mp3", [0x80] + Array("x.mp3".utf8)),
        ]
        for (from, to) in names {
            let target = FileName.string(fromBytes: Array((music + "/").utf8) + to)
            let status = FileName.withSystemPath(target) { rename(music + "/" + from, $0) }
            try #require(status == 0)
        }
        let scan = try songbox.run(["scan", music, "--prune"])
        #expect(scan.status == 0, "\(scan.stdout)")
        #expect(scan.stdout.contains("2 moved"), "\(scan.stdout)")  // the same audio under new names
        #expect(scan.stdout.contains("0 unreadable"))
        let listing = try songbox.run(["ls"])
        #expect(listing.stdout.contains("caf\u{FFFD}.mp3") && listing.stdout.contains("\u{FFFD}x.mp3"), "\(listing.stdout)")
        let play = try songbox.run(["play", "--output", "null", "--fast", "sort:id"])
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.lines.count == 3 && play.stdout.contains("caf\u{FFFD}.mp3"), "\(play.stdout)")
        #expect(play.stderr.contains("Played 3 tracks: 3 plays"), "\(play.stderr)")
    }
}
