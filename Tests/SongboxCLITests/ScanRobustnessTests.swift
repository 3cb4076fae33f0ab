import Foundation
import GRDB
import SongboxLibrary
import SongboxTestSupport
import Testing

/// The scanner under hostile conditions: tag bombs, kill -9, folders it may not read.
@Suite(.serialized) struct ScanRobustnessTests {
    let folder: String
    let songbox: SongboxRunner

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        songbox = SongboxRunner(database: folder + "/library.db")
    }

    /// Runs songbox under Python's resource module, returning its peak memory in KiB.
    func peakMemory(_ arguments: [String]) throws -> (output: SongboxRunner.Output, kilobytes: Int) {
        let script = """
            import resource, subprocess, sys
            result = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            sys.stdout.write(result.stdout)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(result.returncode)
            """
        let output = try SongboxRunner.run(executable: "/usr/bin/python3",
                                           ["-c", script, SongboxRunner.executable, "--db", songbox.database] + arguments)
        let kilobytes = Int(output.lines.last ?? "") ?? .max
        return (output, kilobytes)
    }

    @Test func a200MBTagFrameIsIndexedInUnder64MB() throws {
        let music = folder + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try Fixtures.writeHugeFrameMP3(to: music + "/bomb.mp3", frameSize: 200 << 20,
                                       audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try Fixtures.writeHugeFrameMP3(to: music + "/priv.mp3", frameID: "PRIV", frameSize: 15 << 20, version: 4,
                                       audio: try Fixtures.audio("tone-stereo-48k-vbr.mp3"))
        let (output, kilobytes) = try peakMemory(["scan", music])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("2 added"))
        #expect(output.stdout.contains("warning: \(music)/bomb.mp3"))
        #expect(kilobytes < 64 * 1024, "peak \(kilobytes) KiB")
        let store = try LibraryStore(path: songbox.database)
        let bomb = try #require(try store.tracks.track(path: music + "/bomb.mp3"))
        #expect(bomb.title == "After the huge frame")
        #expect(bomb.hasPicture)
        #expect(bomb.duration == 1.0)
        let priv = try #require(try store.tracks.track(path: music + "/priv.mp3"))
        #expect(priv.title == "After the huge frame")
        #expect(priv.duration == 2.0)
    }

    @Test func killMinus9DuringAScanLeavesEveryCommittedRow() throws {
        let music = folder + "/music"
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        let count = 3000
        for index in 0..<count {
            let album = music + "/Album \(index / 20)"
            if index % 20 == 0 { try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true) }
            try Fixtures.writeMP3(to: album + "/\(index).mp3",
                                  v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "Song \(index)"), .text("TPE1", "Artist \(index % 50)")]),
                                  audio: audio)
        }
        let process = try songbox.start(["scan", music])
        // Kill it once some batches are committed, mid-scan.
        let committed = SongboxRunner.killOnce(process, tries: 400) {
            (try? DatabaseQueue(path: songbox.database).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") ?? 0 }) ?? 0
        }
        #expect(process.terminationReason == .uncaughtSignal)

        let queue = try DatabaseQueue(path: songbox.database)
        let integrity = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let survived = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") ?? 0 }
        #expect(survived >= committed && survived > 0)

        let rescan = try songbox.run(["scan", music])
        #expect(rescan.status == 0)
        #expect(rescan.stdout.contains("\(count - survived) added"))
        // Not a terminal: progress is plain lines on standard error.
        if count - survived >= 1000 { #expect(rescan.stderr.contains("read ")) }
        #expect(try LibraryStore(path: songbox.database).history.statistics().tracks == count)
    }

    @Test func anUnreadableFolderIsReportedAndKeepsItsTracks() throws {
        let music = folder + "/music"
        try FileManager.default.createDirectory(atPath: music + "/open", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: music + "/locked", withIntermediateDirectories: true)
        let audio = try Fixtures.audio("tone-mono-44k.mp3")
        try Fixtures.writeMP3(to: music + "/open/a.mp3", v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "Open")]), audio: audio)
        try Fixtures.writeMP3(to: music + "/locked/b.mp3", v2: ID3v2Tag(version: 4, frames: [.text("TIT2", "Locked")]), audio: audio)
        // Root reads every folder; scan as an unprivileged user then.
        let asUser: [String] = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        func scan() throws -> SongboxRunner.Output {
            let command = asUser + [SongboxRunner.executable, "--db", songbox.database, "scan", music]
            return try SongboxRunner.run(executable: command[0], Array(command.dropFirst()))
        }
        // The library is made by the scan, as that user (the runner made one as root).
        try FileManager.default.removeItem(atPath: songbox.database)
        let first = try scan()
        #expect(first.stdout.contains("2 added"), "\(first.stdout)\(first.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: music + "/locked")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: music + "/locked") }
        let second = try scan()
        #expect(second.status == 0)
        #expect(second.stdout.contains("unavailable: \(music)/locked"))
        #expect(second.stdout.contains("0 removed"))
        #expect(try LibraryStore(path: songbox.database).history.statistics().tracks == 2)
    }
}
