import Foundation
import SongboxTestSupport
import Testing

/// The systemd units of `examples/systemd` as systemd reads them (`systemd-analyze verify`,
/// Debian's systemd), and what they count on: a config mistake is exit status 78, which they do
/// not restart on (issue 25: a fresh Pi's service must start, and a typo must not loop).
@Suite struct SystemdUnitTests {
    /// A copy of `unit` whose ExecStart runs the songbox built here (verify checks it exists).
    func copy(_ unit: String, into folder: String) throws -> String {
        let path = folder + "/" + unit
        let text = try String(contentsOfFile: Fixtures.packageRoot + "/examples/systemd/" + unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/songbox", with: SongboxRunner.executable)
            .replacingOccurrences(of: "%h/.local/bin/songbox", with: SongboxRunner.executable)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func bothUnitsAreWhatSystemdTakes() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runtime = folder + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let system = try SongboxRunner.run(executable: "/usr/bin/systemd-analyze", ["verify", try copy("songbox.service", into: folder)])
        #expect(system.status == 0 && system.stderr.isEmpty, "\(system.stderr)")
        let user = try SongboxRunner.run(executable: "/usr/bin/systemd-analyze", ["--user", "verify", try copy("songbox-user.service", into: folder)],
                                         environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(user.status == 0 && user.stderr.isEmpty, "\(user.stderr)")
        for unit in ["songbox.service", "songbox-user.service"] {
            let text = try String(contentsOfFile: Fixtures.packageRoot + "/examples/systemd/" + unit, encoding: .utf8)
            #expect(text.contains("RestartPreventExitStatus=78") && text.contains("StartLimitBurst="), "\(unit)")
        }
        let systemUnit = try String(contentsOfFile: Fixtures.packageRoot + "/examples/systemd/songbox.service", encoding: .utf8)
        #expect(systemUnit.contains("ReadOnlyPaths=-/mnt/music"), "a missing music folder must not stop the service")
        let userUnit = try String(contentsOfFile: Fixtures.packageRoot + "/examples/systemd/songbox-user.service", encoding: .utf8)
        #expect(userUnit.contains("-%h/.config/songbox") && userUnit.contains("%h/.cache/songbox"), "the offline cache is writable; no config is fine")
    }

    @Test func aDaemonThatCannotStartForItsConfigEndsWithStatus78() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "outptu = null\n".write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let daemon = try SongboxRunner.run(executable: SongboxRunner.executable,
                                           ["--db", folder + "/library.db", "daemon", "--config", folder + "/config", "--bind", "none", "--http", "none",
                                            "--socket", folder + "/control.sock"])
        #expect(daemon.status == 78, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("config:1: unknown setting 'outptu' (did you mean 'output'?)"), "\(daemon.stderr)")
    }
}
