import Foundation
import SongboxAudio
import SongboxServer
import SongboxTestSupport
import Testing
@testable import SongboxWiring

/// The daemon watching its music folders (`watch = yes`, the default), as a user meets it: an
/// album copied in appears without anyone asking for an update, as one update once its files
/// are still (a file written in two halves is indexed whole), plugins hear `library_updated`
/// once for it, and a deleted file goes missing.
@Suite(.serialized) struct WatchTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// A daemon on `music` whose plugin prints each `library_updated` as "updated: A C R".
    func daemon(config: String = "") throws -> DaemonProcess {
        let plugins = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try """
            songbox.on("library_updated", function(e) print("updated: " .. e.added .. " " .. e.changed .. " " .. e.removed) end)
            """.write(toFile: plugins + "/updates.lua", atomically: true, encoding: .utf8)
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        return try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--config", folder + "/config", "--music", music, "--plugins", plugins, "--output", "null",
        ])
    }

    func tones(_ names: [String], in destination: String, seconds: Double = 2) throws -> [String] {
        let made = folder + "/made"
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        return try names.map { try AudioFixtures.tone(in: made, name: $0, seconds: seconds) }
    }

    @Test func anAlbumCopiedInIsIndexedOnceItIsStillAndADeletedFileGoesMissing() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let first = try tones(["first"], in: music)[0]
        try FileManager.default.copyItem(atPath: first, toPath: music + "/first.mp3")
        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("updated: 1 0 0")  // the folder is new: scanned at start
        try daemon.waitForLog("watching 1 folder for new music")

        // An album copied in, its last file written in two halves a second apart. (Six tracks
        // in all: one deleted below is less than the fifth that would make a rescan hold the
        // folder as an unplugged drive.)
        let album = music + "/Album"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        let sources = try tones(["one", "two", "four", "five", "three"], in: album, seconds: 3)
        for source in sources.dropLast() { try FileManager.default.copyItem(atPath: source, toPath: album + "/" + (source as NSString).lastPathComponent) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sources[2]))
        #expect(FileManager.default.createFile(atPath: album + "/three.mp3", contents: nil))
        let last = try FileHandle(forWritingTo: URL(fileURLWithPath: album + "/three.mp3"))
        last.write(bytes.prefix(bytes.count / 2))
        Thread.sleep(forTimeInterval: 1)
        last.write(bytes.suffix(from: bytes.count / 2))
        try last.close()

        try daemon.waitForOutput("updated: 5 0 0")
        Thread.sleep(forTimeInterval: 3)
        #expect(daemon.output.components(separatedBy: "updated:").count - 1 == 2, "\(daemon.output)")
        // Each whole: three seconds long.
        let listed = try songbox.run(["ls", "path:Album"])
        let rows = listed.lines.dropFirst()
        #expect(rows.count == 5 && rows.allSatisfy { $0.hasSuffix("0:03") }, "\(listed.stdout)")

        try FileManager.default.removeItem(atPath: album + "/two.mp3")
        try daemon.waitForOutput("updated: 0 0 1")
        let after = try songbox.run(["ls", "path:Album"])
        #expect(after.lines.count == 5 && !after.stdout.contains("two"), "\(after.stdout)")
    }

    /// The unplugged-drive rules stand for the watcher: a music folder that empties at once (a
    /// drive gone from under its mount point) is held, not emptied; its tracks stay.
    @Test func aMusicFolderThatEmptiesIsHeldNotEmptied() throws {
        try FileManager.default.createDirectory(atPath: music + "/Album", withIntermediateDirectories: true)
        for source in try tones(["one", "two", "three"], in: music) {
            try FileManager.default.copyItem(atPath: source, toPath: music + "/Album/" + (source as NSString).lastPathComponent)
        }
        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("updated: 3 0 0")
        try daemon.waitForLog("watching 2 folders for new music")
        try FileManager.default.moveItem(atPath: music + "/Album", toPath: folder + "/elsewhere")
        try daemon.waitForLog("rescan held")
        #expect(!daemon.output.contains("updated: 0 0 3"), "\(daemon.output)")
        #expect(try songbox.run(["ls", "--json"]).stdout.components(separatedBy: "\"id\"").count - 1 == 3, "the tracks stay")
    }

    /// A daemon keeps its hold on the library through its scans, so a command run beside it
    /// never takes the daemon's write-ahead log from under it. (A scan's lock on the database
    /// file itself, when its descriptor closed, dropped the daemon's SQLite locks; the next
    /// command that read the library then deleted the log the daemon still wrote to, and every
    /// play, queue change and rescan after it was lost.)
    @Test func aCommandBesideTheDaemonNeverTakesItsWriteAheadLog() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try tones(["one"], in: music)[0], toPath: music + "/one.mp3")
        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("updated: 1 0 0")  // its scan at start has come and gone
        #expect(try songbox.run(["ls", "--json"]).status == 0)
        #expect(try songbox.run(["stats"]).status == 0)
        let descriptors = "/proc/\(daemon.pid)/fd"
        let open = try FileManager.default.contentsOfDirectory(atPath: descriptors).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)
        }
        #expect(open.contains(songbox.database + "-wal"), "\(open)")
        #expect(!open.contains { $0.hasSuffix("(deleted)") }, "the daemon writes to files nobody will read: \(open)")
    }

    /// A file moved within the music folder keeps its id (so its plays and stickers), and an MPD
    /// client waiting in `idle database` is woken once by the update the watcher made.
    @Test func aMovedFileKeepsItsIdAndAnIdleClientHearsTheUpdateOnce() throws {
        try FileManager.default.createDirectory(atPath: music + "/Old", withIntermediateDirectories: true)
        // Of different lengths: two files alike byte for byte would leave a move ambiguous.
        let sources = try tones(["stay"], in: music, seconds: 2) + tones(["wander"], in: music, seconds: 3)
        for source in sources { try FileManager.default.copyItem(atPath: source, toPath: music + "/Old/" + (source as NSString).lastPathComponent) }
        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("updated: 2 0 0")
        try daemon.waitForLog("watching 2 folders for new music")
        let id = { (name: String) throws -> String? in
            try self.songbox.run(["ls", "--json", "path:" + name]).stdout.firstMatch(of: /"id" *: *(\d+)/).map { String($0.1) }
        }
        let before = try #require(try id("wander"))

        // A client waits for the database to change, on the daemon's socket.
        let socket = daemon.socket
        let heard = Mailbox<[String]>()
        Thread.detachNewThread {
            heard.put(((try? ControlClient(path: socket).send("idle", ["database"])) ?? []).map { "\($0.0): \($0.1)" })
        }
        Thread.sleep(forTimeInterval: 0.5)
        try FileManager.default.createDirectory(atPath: music + "/New", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: music + "/Old/wander.mp3", toPath: music + "/New/wander.mp3")

        try daemon.waitForOutput("updated: 0 1 0")
        let changed = try #require(heard.take(timeout: 20))
        #expect(changed == ["changed: database"], "\(changed)")
        #expect(try id("wander") == before, "the moved file is the same track")
        let moved = try songbox.run(["ls", "--json", "path:wander"]).stdout
        #expect(moved.contains("/New/wander.mp3"), "the track is where it went: \(moved)")
    }

    /// Folders on network shares and FUSE mounts (whose changes made elsewhere inotify does not
    /// hear) are told from local disks by their mount, read from this machine's own mount table.
    @Test func networkAndFUSEMountsAreToldFromLocalDisks() {
        #expect(FolderWatcher.filesystemType(of: "/proc/self") == "proc")
        #expect(FolderWatcher.filesystemType(of: "/dev/shm") == "tmpfs")
        for type in ["nfs", "nfs4", "cifs", "smb3", "fuse.sshfs", "fuse.rclone", "fuse"] { #expect(FolderWatcher.isRemote(type), "\(type)") }
        for type in ["ext4", "vfat", "exfat", "fuseblk", "tmpfs", "btrfs", "overlay"] { #expect(!FolderWatcher.isRemote(type), "\(type)") }
    }

    /// A `.songboxignore` (shell wildcards, as MPD's `.mpdignore`) keeps what it names out of
    /// `songbox scan` in its folder and every folder under it, and the watcher does not rescan
    /// for it; changing the file itself is a change.
    @Test func whatASongboxignoreNamesIsNeitherScannedNorWatched() throws {
        try FileManager.default.createDirectory(atPath: music + "/Album/Demos", withIntermediateDirectories: true)
        let sources = try tones(["keep", "bonus", "demo"], in: music)
        try FileManager.default.copyItem(atPath: sources[0], toPath: music + "/Album/keep.mp3")
        try FileManager.default.copyItem(atPath: sources[1], toPath: music + "/Album/bonus.mp3")
        try FileManager.default.copyItem(atPath: sources[2], toPath: music + "/Album/Demos/demo.mp3")
        try "# not these\nDemos\nb*.mp3\n".write(toFile: music + "/.songboxignore", atomically: true, encoding: .utf8)
        let scan = try songbox.run(["scan", music])
        #expect(scan.status == 0, "\(scan.stderr)")
        let listed = try songbox.run(["ls"])
        #expect(listed.lines.count == 2 && listed.stdout.contains("keep"), "\(listed.stdout)")

        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("watching 2 folders")  // music and Album; not Demos
        try FileManager.default.copyItem(atPath: sources[2], toPath: music + "/Album/Demos/demo2.mp3")
        try FileManager.default.copyItem(atPath: sources[1], toPath: music + "/Album/bonus2.mp3")
        Thread.sleep(forTimeInterval: 4)
        #expect(!daemon.output.contains("updated:"), "\(daemon.output)")
        try "Demos\n".write(toFile: music + "/.songboxignore", atomically: false, encoding: .utf8)
        try daemon.waitForOutput("updated: 2 0 0")  // bonus.mp3 and bonus2.mp3 are no longer ignored
    }

    /// With the inotify watch limit reached (here a limit of 2 in a user namespace of the test's
    /// own, so the machine's is not touched), the daemon says so once, naming the sysctl that
    /// raises it, and falls back to periodic rescans.
    @Test func aReachedWatchLimitIsSaidOnceAndFallsBackToRescans() throws {
        for sub in ["a", "a/b", "a/b/c", "d"] {
            try FileManager.default.createDirectory(atPath: music + "/" + sub, withIntermediateDirectories: true)
        }
        let wrapper = folder + "/limited.sh"
        try """
            #!/bin/sh
            exec unshare -U -r sh -c 'echo 2 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"' \(SongboxRunner.executable) "$@"
            """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        try "".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--config", folder + "/config", "--music", music, "--output", "null", "--plugins", folder,
        ], executable: wrapper)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("rescanning every 15 minutes instead")
        let log = daemon.errors
        #expect(log.contains("the inotify watch limit (fs.inotify.max_user_watches = 2) is reached at"), "\(log)")
        #expect(log.contains("sysctl fs.inotify.max_user_watches=524288"))
        #expect(log.components(separatedBy: "watch limit").count - 1 == 1)
    }

    /// `watch = no` leaves the folders to `update` and `rescan_minutes`, as before.
    @Test func watchNoLeavesTheFoldersAlone() throws {
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let daemon = try daemon(config: "watch = no\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let tone = try tones(["late"], in: music)[0]
        try FileManager.default.copyItem(atPath: tone, toPath: music + "/late.mp3")
        Thread.sleep(forTimeInterval: 4)
        #expect(!daemon.output.contains("updated: 1"), "\(daemon.output)")
        #expect(!daemon.errors.contains("watching"))
    }
}
