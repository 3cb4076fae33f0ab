import Foundation
import SongboxTestSupport
import Testing

/// The README's commands work as typed: every `$ songbox ...` line of its examples, in order, run
/// by a shell from the project folder with the environment the README gives after `make demo`
/// (songbox on PATH, SONGBOX_DB the demo library; here a library of the test's own).
@Suite struct ReadmeTests {
    @Test func everyCommandOfTheReadmeRunsAsTyped() throws {
        let readme = try String(contentsOfFile: Fixtures.packageRoot + "/README.md", encoding: .utf8)
        let commands = readme.split(separator: "\n").filter { $0.hasPrefix("$ songbox ") }.map { String($0.dropFirst(2)) }
        #expect(commands.count >= 10, "\(commands)")
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binaries = (SongboxRunner.executable as NSString).deletingLastPathComponent
        let environment = ["PATH": binaries + ":/usr/bin:/bin", "SONGBOX_DB": folder + "/library.db", "HOME": folder,
                           "SONGBOX_CONFIG": "/dev/null", "SONGBOX_SOCKET": folder + "/no-daemon.sock"]
        for command in commands {
            let output = try SongboxRunner.run(executable: "/bin/sh", ["-c", "cd \"$1\" && " + command, "readme", Fixtures.packageRoot],
                                               environment: environment)
            #expect(output.status == 0, "\(command): \(output.stderr)")
            #expect(!output.stdout.isEmpty || command.contains("top10.lua"), "\(command) printed nothing")
        }
    }
}
