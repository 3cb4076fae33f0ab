import Foundation
import SongboxTestSupport
import Testing

/// What a daemon's plugin can grow, through the real daemon (issue 31): its log (fault 3), and
/// its name, which names its folder (the smaller hole).
@Suite(.serialized) struct PluginBoundsTests: TestLibrarySuite {
    let library: TestLibrary
    let plugins: String

    init() throws {
        library = try TestLibrary()
        plugins = library.folder + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    }

    func daemon() throws -> DaemonProcess {
        try DaemonProcess(database: songbox.database, folder: folder, arguments: ["--plugins", plugins, "--output", "null"])
    }

    /// A megabyte line, then 50,000 times the same print, the same error, and 50,000 different
    /// warnings, as fast as Lua goes: the log gets a cut line, each repeated line three times and
    /// a fold note, about a hundred lines, and how many were dropped (said at the latest when
    /// the plugin stops).
    @Test func aPluginLoggingInALoopIsCutFoldedAndRateLimited() throws {
        try """
            songbox.after(0, function()
              songbox.log.info(string.rep("x", 1048576))
              for i = 1, 50000 do print("the same print") end
              for i = 1, 50000 do songbox.log.error("the same error") end
              for i = 1, 50000 do songbox.log.warn("warning number " .. i) end
              songbox.after(2, function() print("flood done") end)
            end)
            """.write(toFile: plugins + "/flood.lua", atomically: true, encoding: .utf8)
        let daemon = try daemon()
        // Once the flood is over, SIGTERM (a stop cuts a callback short: it would cut the flood).
        try daemon.waitForOutput("flood done")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let log = daemon.errors, output = daemon.output
        // Bounded: without the bound this was 150,000 lines and 4 MB.
        #expect(log.utf8.count < 20_000, "\(log.utf8.count) bytes of log")
        #expect(output.utf8.count < 1_000, "\(output)")
        #expect(log.contains("flood.lua:2: " + String(repeating: "x", count: 1000) + "… (1047576 more characters cut)\n"), "\(log.prefix(300))")
        #expect(output == String(repeating: "[flood] the same print\n", count: 3) + "[flood] flood done\n", "\(output)")
        #expect(log.components(separatedBy: "the same error").count - 1 == 3)
        #expect(log.contains(try Regex(#"warning: plugin flood: the same message 49997 more times in [0-9.]+ s\nerror: .*the same error\n"#)), "\(log)")
        #expect(log.contains(try Regex(#"error: .*the same error\nwarning: plugin flood: the same message 49997 more times in [0-9.]+ s\n"#)), "\(log)")
        // Of the 50,000 warnings some got through as the bucket refilled; each other one is
        // counted in a note that precedes the next line let through.
        let warnings = log.components(separatedBy: ": warning number ").count - 1
        #expect(log.contains(": warning number 1\n") && (90..<1000).contains(warnings), "\(warnings)")
        let dropped = log.matches(of: try Regex(#"warning: plugin flood: (\d+) log lines dropped \(more than 5 a second\)\n"#))
            .compactMap { $0.output[1].substring.flatMap { Int($0) } }
        #expect(warnings + dropped.reduce(0, +) == 50_000, "\(warnings) written, \(dropped) dropped")
    }

    /// `...lua` would be plugin `..`, whose own folder is the library's; a hidden file, a name
    /// with a control character: refused, said in the log with the file; the others load.
    @Test func aPluginFileWhoseNameIsNoNameIsRefused() throws {
        for name in ["...lua", ".hidden.lua", "bell\u{07}.lua", "good.lua"] {
            try """
                print("loaded " .. #songbox.state.keys())
                songbox.state.set("was here", true)
                """.write(toFile: plugins + "/" + name, atomically: true, encoding: .utf8)
        }
        let daemon = try daemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        try daemon.waitForOutput("[good] loaded 0")
        try daemon.waitForLog("plugin good: loaded from")
        let log = daemon.errors
        #expect(log.contains("warning: plugin file \(plugins)/...lua: not loaded: its name '..' starts with a dot"), "\(log)")
        #expect(log.contains("warning: plugin file \(plugins)/.hidden.lua: not loaded: its name '.hidden' starts with a dot"), "\(log)")
        #expect(log.contains(#"not loaded: its name 'bell\a' holds a control character"#), "\(log)")
        #expect(daemon.output == "[good] loaded 0\n", "\(daemon.output)")
        let listed = try songbox.run(["plugin", "ls"], environment: daemon.clientEnvironment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines.count == 2 && listed.lines.last?.hasPrefix("good ") == true, "\(listed.stdout)")
    }
}
