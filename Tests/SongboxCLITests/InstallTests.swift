import Foundation
import SongboxTestSupport
import Testing

/// `make install`: the binary, the bundled plugins, the catalogs and the shell completions, where
/// the installed songbox finds them (a prefix outside the source tree, so nothing can be found
/// there by accident).
@Suite struct InstallTests {
    @Test func makeInstallPutsEverythingWhereTheInstalledSongboxLooks() throws {
        let prefix = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let make = try SongboxRunner.run(executable: "/usr/bin/make", [
            "-C", Fixtures.packageRoot, "--no-print-directory", "locale", "install", "PREFIX=\(prefix)", "BINARY=\(SongboxRunner.executable)",
        ])
        #expect(make.status == 0, "\(make.stdout)\(make.stderr)")
        for file in ["bin/songbox", "share/locale/he/LC_MESSAGES/songbox.mo",
                     "share/bash-completion/completions/songbox", "share/zsh/site-functions/_songbox",
                     "share/fish/vendor_completions.d/songbox.fish"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        let installed = prefix + "/bin/songbox", library = prefix + "/library.db"
        let environment = ["SONGBOX_CONFIG": "/dev/null", "HOME": prefix]
        // The bundled alarm plugin and its tone are inside the binary.
        _ = try SongboxRunner.run(executable: installed, ["--db", library, "scan", Fixtures.packageRoot + "/examples/music"],
                                  environment: environment)
        #expect(try SongboxRunner.run(executable: installed, ["--db", library, "alarm", "add", "empty", "--at", "07:00",
                                                              "--query", "zzzz", "--timeout", "20s"], environment: environment).status == 0)
        let alarm = try SongboxRunner.run(executable: installed, ["--db", library, "alarm", "test", "empty"], environment: environment)
        #expect(alarm.status == 0 && alarm.stdout.contains("alarm-tone.mp3"), "\(alarm.stdout)\(alarm.stderr)")
        // Its catalogs.
        let hebrew = try SongboxRunner.run(executable: installed, ["--db", library, "show", "999"],
                                           environment: environment.merging(["LANG": "he_IL.UTF-8"]) { $1 })
        #expect(hebrew.stderr.hasPrefix("שגיאה: אין רצועה '999'"), "\(hebrew.stderr)")
        // Completions that bash takes, and zsh and fish scripts for songbox's commands.
        let bash = try SongboxRunner.run(executable: "/bin/bash", ["-c", "source \"$1\" && complete -p songbox", "bash",
                                                                   prefix + "/share/bash-completion/completions/songbox"])
        #expect(bash.stdout.contains("-F _songbox songbox"), "\(bash.stdout)\(bash.stderr)")
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_songbox", encoding: .utf8)
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/songbox.fish", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef songbox") && zsh.contains("alarm"))
        #expect(fish.contains("complete -c 'songbox'") && fish.contains("alarm"))
    }

    /// The binary alone, copied where nothing else of songbox is (as the Pi guide says): its
    /// bundled plugins and alarm tone are inside it, so `alarm test` and a daemon's alarm sound.
    @Test func aCopiedBinaryAloneSoundsAnAlarm() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let binary = home + "/songbox", library = home + "/library.db"
        try FileManager.default.copyItem(atPath: SongboxRunner.executable, toPath: binary)
        let environment = ["SONGBOX_CONFIG": "/dev/null", "HOME": home, "XDG_CACHE_HOME": "", "SONGBOX_SOCKET": ""]
        func songbox(_ arguments: [String]) throws -> SongboxRunner.Output {
            try SongboxRunner.run(executable: binary, ["--db", library] + arguments, environment: environment)
        }
        #expect(try songbox(["scan", Fixtures.packageRoot + "/examples/music"]).status == 0)
        #expect(try songbox(["alarm", "add", "empty", "--at", "07:00", "--query", "zzzz", "--timeout", "20s"]).status == 0)
        let test = try songbox(["alarm", "test", "empty"])
        #expect(test.status == 0 && test.stdout.contains("alarm-tone.mp3"), "\(test.stdout)\(test.stderr)")
        // Written out once, beside nothing but the user's cache.
        let written = try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/songbox")
        #expect(written.count == 1 && written[0].hasPrefix("bundled-"), "\(written)")

        let daemon = try DaemonProcess(database: library, folder: home, arguments: ["--output", "null"],
                                       environment: environment, executable: binary)
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForLog("plugin alarm: loaded from \(home)/.cache/songbox/bundled-")
        let fire = try songbox(["alarm", "fire", "empty"])
        #expect(fire.status == 0, "\(fire.stderr)")
        try daemon.waitForLog("alarm empty: sounding")
        try daemon.waitForLog("alarm empty: fallback to the alarm tone")
    }

    @Test func makeInstallWithoutABuildSaysWhatToDo() throws {
        let prefix = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let make = try SongboxRunner.run(executable: "/usr/bin/make", [
            "-C", Fixtures.packageRoot, "--no-print-directory", "install", "PREFIX=\(prefix)", "BINARY=\(prefix)/nothing",
        ])
        #expect(make.status != 0 && make.stderr.contains("make release first"), "\(make.stderr)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin"))
    }
}
