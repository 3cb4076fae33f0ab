import Foundation
import SongboxTestSupport
import Testing

/// `songbox run` end to end, through the built binary.
@Suite struct RunCommandTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
    }

    /// The first line of `text` (Lua shortens long chunk names to "...end/of/path.lua").
    func firstLine(_ text: String) -> String { String(text.prefix { $0 != "\n" }) }

    func script(_ name: String, _ source: String) throws -> String {
        let path = folder + "/" + name
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `songbox run FILE ARG...` with no option is read without swift-argument-parser (`PlainRunCommand`):
    /// it prints, fails and exits as the parsed command does (forced here by `--memory-limit 64`,
    /// the default). A missing file, a syntax error, a runtime error, arguments, library writes.
    @Test(arguments: [
        ("hello.lua", "print('hello', ...)\n", ["a", "ב c"]),
        ("broken.lua", "print(\n", []),
        ("fails.lua", "local sb = require 'songbox'\nprint(#sb.library.query(''))\nerror('no ' .. ...)\n", ["luck"]),
        ("writes.lua", "assert(songbox.playlist.save('Mine', {}, {replace = true}))\nprint(#songbox.playlist.list())\n", []),
    ])
    func thePlainFormRunsAsTheParsedCommand(name: String, source: String, arguments: [String]) throws {
        let path = try script(name, source)
        let quick = try songbox.run(["run", path] + arguments)
        let parsed = try songbox.run(["run", "--memory-limit", "64", path] + arguments)
        #expect(quick.stdout == parsed.stdout)
        #expect(quick.stderr == parsed.stderr)
        #expect(quick.status == parsed.status)
        let missing = try songbox.run(["run", folder + "/nope.lua"])
        let missingParsed = try songbox.run(["run", "--memory-limit", "64", folder + "/nope.lua"])
        #expect(missing.status == 1 && missing.stderr == missingParsed.stderr && missing.status == missingParsed.status)
    }

    /// A Lua string is bytes: `print` writes them as they are, also when they are not UTF-8 (half
    /// a Hebrew letter, Latin-1, NUL).
    @Test func printWritesLuasBytesAsTheyAre() throws {
        let path = try script("bytes.lua", #"print(("א"):sub(1, 1), "caf\xE9", "a\0b")"#)
        let output = try songbox.run(["run", path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdoutBytes == Data([0xD7, 0x09, 0x63, 0x61, 0x66, 0xE9, 0x09, 0x61, 0x00, 0x62, 0x0A]))
    }

    /// songbox.state outlives the process: each run of the script counts one more.
    @Test func stateIsKeptFromOneRunToTheNext() throws {
        let path = try script("counter.lua", """
            local n = (songbox.state.get("runs") or 0) + 1
            assert(songbox.state.set("runs", n))
            print(n)
            """)
        for expected in ["1\n", "2\n", "3\n"] {
            let output = try songbox.run(["run", path])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout == expected)
        }
        let dry = try songbox.run(["run", "--dry-run", path])
        #expect(dry.status == 1 && dry.stderr.contains("dry run: state.set refused"), "\(dry.stderr)")
        #expect(try songbox.run(["run", path]).stdout == "4\n")
    }

    /// Each plugin docs/plugins.md shows passes `songbox run --dry-run --fast`, as the page
    /// advises for checking one: a dry run used to stop at the first `songbox.smart`, on
    /// songbox's own prelude line (issue 25). Its definitions are checked, not stored.
    @Test func thePluginsOfThePluginsPagePassADryRun() throws {
        try library.scanExamples()
        let page = try String(contentsOfFile: Fixtures.packageRoot + "/docs/plugins.md", encoding: .utf8)
        let blocks = page.components(separatedBy: "```lua\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count >= 2)
        for (index, source) in blocks.enumerated() {
            let path = try script("plugin\(index).lua", source)
            let dry = try songbox.run(["run", "--dry-run", "--fast", path])
            #expect(dry.status == 0, "\(source)\n\(dry.stderr)")
            #expect(!dry.stderr.contains("songbox:"), "\(dry.stderr)")
        }
        #expect(try songbox.run(["playlist", "ls"]).stdout.isEmpty, "a dry run stores no playlist")
    }

    @Test func optionsComeFromTheConfigFileByTheScriptsName() throws {
        let config = folder + "/config"
        try """
            plugin.opts.limit = 3
            plugin.opts.ratio = 0.5
            plugin.opts.shuffle = true
            plugin.opts.name = "Top 10"   # quotes dropped
            plugin.opts.genre = folk
            plugin.other.limit = 99
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let opts = try script("opts.lua", """
            local o = songbox.options
            print(math.type(o.limit), o.limit, o.ratio, o.shuffle, o.name, o.genre)
            """)
        let output = try songbox.run(["run", opts], environment: ["SONGBOX_CONFIG": config])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "integer\t3\t0.5\ttrue\tTop 10\tfolk\n")
        // Another script's name gets its own options, or none.
        let plain = try script("plain.lua", "print(next(songbox.options))")
        #expect(try songbox.run(["run", plain], environment: ["SONGBOX_CONFIG": config]).stdout == "nil\n")
    }

    @Test func printsToStdoutAndSeesArguments() throws {
        let hello = try script("hello.lua", """
            print("hello", ...)
            print(#songbox.args, songbox.args[1], songbox.args[2], songbox.dry_run)
            songbox.log.info("logged")
            """)
        let output = try songbox.run(["run", hello, "a", "b c"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "hello\ta\tb c\n2\ta\tb c\tfalse\n")
        #expect(output.stderr.hasPrefix("info: ") && output.stderr.hasSuffix("/hello.lua:3: logged\n"), "\(output.stderr)")
    }

    @Test func aScriptErrorExitsNonZeroWithFileAndLine() throws {
        let bad = try script("bad.lua", "print('before')\nlocal t = nil\nprint(t.x)\n")
        let output = try songbox.run(["run", bad])
        #expect(output.status == 1)
        #expect(output.stdout == "before\n")
        #expect(firstLine(output.stderr).hasSuffix("/bad.lua:3: attempt to index a nil value (local 't')"), "\(output.stderr)")
        #expect(output.stderr.contains("\nstack traceback:\n"))
        #expect(output.stderr.contains("/bad.lua:3: in main chunk"))
    }

    @Test func dryRunIsVisibleAndFlagsPassThrough() throws {
        let show = try script("show.lua", "print(songbox.dry_run, table.concat(songbox.args, ' '))")
        let output = try songbox.run(["run", show, "--x", "-y", "z", "--dry-run"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "true\t--x -y z\n")
    }

    @Test func limitsAreConfigurableAndReported() throws {
        let loop = try script("loop.lua", "local n = 0\nwhile true do n = n + 1 end\n")
        let output = try songbox.run(["run", "--instruction-limit", "100000", loop])
        #expect(output.status == 1)
        #expect(firstLine(output.stderr).hasSuffix("/loop.lua:2: instruction limit of 100000 exceeded"), "\(output.stderr)")

        let bomb = try script("bomb.lua", "local s = 'x'\nwhile true do s = s .. s end\n")
        let memory = try songbox.run(["run", "--memory-limit", "8", bomb])
        #expect(memory.status == 1)
        // (The line is known with Lua up to 5.4.4; see sb_record_location.)
        #expect(firstLine(memory.stderr).contains("/bomb.lua"), "\(memory.stderr)")
        #expect(firstLine(memory.stderr).hasSuffix("memory limit of 8 MB exceeded"), "\(memory.stderr)")
        // Lua runs no message handler for a memory error; the allocator took the traceback.
        #expect(memory.stderr.contains("stack traceback:\n\t") && memory.stderr.contains("/bomb.lua:2: in main chunk"),
                "\(memory.stderr)")
    }

    /// A tree of coroutines that catch each other's budget errors and keep writing state: the
    /// run ends with the budget error (it used to run on for as long as it was let; that no
    /// bridge call succeeds after the stop is LimitTests.aStoppedStateRunsNoCoroutine...).
    @Test func aStoppedScriptEndsInEveryCoroutineAndWritesNoMore() throws {
        let tree = try script("tree.lua", """
            local sb = require "songbox"
            local n = 0
            local function grow()
              while true do
                coroutine.resume(coroutine.create(grow))
                n = n + 1
                pcall(sb.state.set, "n", n)
              end
            end
            grow()
            """)
        let output = try songbox.run(["run", "--instruction-limit", "1000000", tree])
        #expect(output.status == 1)
        #expect(firstLine(output.stderr).hasSuffix("instruction limit of 1000000 exceeded"), "\(output.stderr)")
    }

    /// 24 small tables in Lua, 16 million nodes as a tree: every conversion stops at its bound
    /// with a clear error instead of eating the machine's memory.
    @Test func sharedSubTablesHitTheConversionBoundNotTheMachine() throws {
        let bomb = try script("shared.lua", """
            local sb = require "songbox"
            local t = {}
            for _ = 1, 24 do t = { t, t } end
            local s = ("x"):rep(1 << 20)
            local strings = {}
            for i = 1, 100 do strings[i] = s end
            for _, call in ipairs({
              function() return sb.json.encode(t) end,
              function() return sb.library.find({ year = t }) end,
              function() return sb.json.encode(strings) end,
              function() return sb.state.set("x", t) end,
            }) do
              -- An error, or a soft failure (nil, message) where the function returns those.
              local ok, result, message = pcall(call)
              local err = assert(ok and result == nil and message or not ok and result, "converted")
              print(err:match("too large to convert %b()") or err)
            end
            """)
        let output = try songbox.run(["run", bomb])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines == [
            "too large to convert (over 250000 values; shared tables count each time they appear)",
            "too large to convert (over 250000 values; shared tables count each time they appear)",
            "too large to convert (over 64 MiB of text; shared strings count each time they appear)",
            "too large to convert (over 250000 values; shared tables count each time they appear)",
        ], "\(output.stdout)")
    }

    /// Exporting a playlist over the open library destroyed it; no path (its -wal or -shm, a
    /// symlink to it, the config file) may be written over, and the library stays whole.
    @Test func noScriptWritesOverSongboxsOwnFiles() throws {
        try library.scanExamples()
        let database = songbox.database
        try FileManager.default.createSymbolicLink(atPath: folder + "/innocent.m3u8", withDestinationPath: database)
        let config = folder + "/config"
        try "play_seconds = 240\n".write(toFile: config, atomically: true, encoding: .utf8)
        let attack = try script("attack.lua", """
            local sb = require "songbox"
            sb.playlist.save("Mix", sb.library.query("artist:Mabel"))
            for _, target in ipairs({ ... }) do
              local ok, result, message = pcall(sb.playlist.export, "Mix", target)
              print(ok and message or result)
            end
            print(sb.playlist.export("Mix", "\(folder)/fine.m3u8"))
            """)
        let output = try songbox.run(["run", attack, database, database + "-wal", database + "-shm", folder + "/innocent.m3u8", config],
                                     environment: ["SONGBOX_CONFIG": config])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropLast().allSatisfy { $0.contains("refusing to write over a file songbox manages") }, "\(output.stdout)")
        #expect(output.lines.count == 6 && output.lines.last == "3")
        #expect(try songbox.run(["ls", "artist:Mabel"]).lines.count == 4)  // the library is whole
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "play_seconds = 240\n")
    }

    @Test func aHugeQueryFromAScriptIsAClearErrorAtOnce() throws {
        let huge = try script("huge.lua", """
            local sb = require "songbox"
            local words = {}
            for i = 1, 100000 do words[i] = "w" .. i end
            for _, q in ipairs({ ("x"):rep(1 << 20), table.concat(words, " ") }) do
              local tracks, message = sb.library.query(q)
              print(tracks, message)
            end
            """)
        let output = try songbox.run(["run", huge])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines == ["nil\tsongbox.library.query: the query is too long (1048576 bytes; at most 16384)",
                                 "nil\tsongbox.library.query: the query is too long (688894 bytes; at most 16384)"], "\(output.stdout)")
    }

    /// `songbox run` under `timeout`: a run that never ends fails the test instead of the suite.
    func runBounded(_ arguments: [String]) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/timeout", ["60", SongboxRunner.executable, "--db", songbox.database, "run"] + arguments)
    }

    /// When a run ends, and `--fast` without a player: the clock jumps (an hour's timer does not
    /// wait an hour), periodic timers alone end an unbounded fast run, `--for` bounds a run (a day
    /// of hourly timers in a moment), `songbox.exit` ends it with its status.
    @Test func timersFastRunsAndTheirEnd() throws {
        let hour = try script("hour.lua", "songbox.after(3600, function() print('an hour later') end)\n")
        let waited = try runBounded(["--fast", hour])
        #expect(waited.status == 0 && waited.stdout == "an hour later\n", "\(waited.status) \(waited.stderr)")

        let periodic = try script("periodic.lua", """
            local n = 0
            songbox.every(1, function() n = n + 1 end)
            songbox.after(10.5, function() print("ticks", n) end)
            """)
        let ended = try runBounded(["--fast", periodic])
        #expect(ended.status == 0 && ended.stdout == "ticks\t10\n", "\(ended.status) \(ended.stdout) \(ended.stderr)")

        let day = try script("day.lua", """
            local hours = 0
            songbox.every(3600, function() hours = hours + 1 end)
            songbox.after(86399, function() print("hours", hours) end)
            """)
        let simulated = try runBounded(["--fast", "--for", "24h", day])
        #expect(simulated.status == 0 && simulated.stdout == "hours\t23\n", "\(simulated.stdout) \(simulated.stderr)")
        #expect(try runBounded(["--for", "soon", day]).status == 64)

        let exit = try script("exit.lua", """
            local n = 0
            songbox.every(0.01, function()
              n = n + 1
              if n == 3 then print("leaving"); songbox.exit(3) end
            end)
            songbox.after(60, function() print("never") end)
            """)
        let left = try runBounded([exit])  // real time: periodic timers run until the script exits
        #expect(left.status == 3 && left.stdout == "leaving\n", "\(left.status) \(left.stdout) \(left.stderr)")
    }

    /// Errors a plugin author can act on (issue 17, hole 8).
    @Test func errorsPointWhereTheAuthorCanAct() throws {
        let binary = folder + "/compiled.lua"
        try Data([0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93]).write(to: URL(fileURLWithPath: binary))
        let refused = try songbox.run(["run", binary])
        #expect(refused.status == 1 && firstLine(refused.stderr) == "\(binary): attempt to load a binary chunk (mode is 't')",
                "\(refused.stderr)")

        let object = try script("object.lua", """
            local sb = require "songbox"
            pcall(sb.log.info, "through pcall")
            error(setmetatable({}, { __tostring = function() return "custom error" end }))
            """)
        let raised = try songbox.run(["run", object])
        #expect(raised.status == 1)
        #expect(raised.stderr.contains("/object.lua:2: through pcall"), "\(raised.stderr)")
        #expect(raised.stderr.contains("/object.lua:3: custom error\nstack traceback:"), "\(raised.stderr)")

        let text = try script("text.lua", #"""
            local sb = require "songbox"
            print(sb.json.decode('"\\uD800\\u0041"') == "\u{FFFD}A")
            local ok, result, message = pcall(sb.json.encode, { ["caf\xe9"] = 1, ["caf\xe8"] = 2 })
            print(ok and result or message)
            print(select(2, pcall(sb.library.query, "title:caf\xe9")))
            """#)
        let utf8 = try songbox.run(["run", text])
        #expect(utf8.status == 0, "\(utf8.stderr)")
        #expect(utf8.lines.count == 3 && utf8.lines[0] == "true", "\(utf8.stdout)")
        #expect(utf8.lines[1] == "a string that is not valid UTF-8 (songbox takes text as UTF-8)")
        #expect(utf8.lines[2].hasSuffix("bad argument #1 to 'songbox.library.query' (string is not valid UTF-8 (songbox takes text as UTF-8))"),
                "\(utf8.lines[2])")
    }

    /// The fuzz test (lua/fuzz.lua): every function of the module, every argument shape,
    /// hostile values (extreme and non-finite numbers, empty, 1 MiB, invalid UTF-8 and NUL
    /// strings, cyclic and shared tables, functions, coroutines, metamethods that error or
    /// loop). Each call ends in a Lua error or a result and the process lives to the end. Seeded:
    /// a failure names its seed. Run in a folder of its own (a hostile path must land nowhere).
    @Test(arguments: [1, 7]) func everyFunctionSurvivesHostileValues(seed: Int) throws {
        try library.scanExamples()
        let work = try Fixtures.temporaryDirectory()
        let output = try SongboxRunner.run(executable: "/bin/sh", [
            "-c", "cd \"$1\" && exec /usr/bin/timeout 300 \"$2\" --db \"$3\" run --fast --output null --instruction-limit 5000000000 \"$4\" \"$5\"",
            "fuzz", work, SongboxRunner.executable, songbox.database, luaFolder + "/fuzz.lua", String(seed),
        ])
        #expect(output.status == 0, "seed \(seed): status \(output.status)\n\(output.stderr.suffix(3000))")
        let done = try #require(output.lines.first { $0.hasPrefix("fuzz done: ") }, "seed \(seed): \(output.stdout.suffix(2000))")
        #expect(done.hasPrefix("fuzz done: 96 functions"), "seed \(seed): \(done) (a new function? the fuzz calls it too)")
        #expect(output.lines.last == "false\tbad argument #1 to 'songbox.exit' (integer out of range (at most 2^53 in size))")
    }

    /// The default budget of a script the user starts does not trip over ordinary work: 2,000
    /// `gsub`s over a 9 KB text (100 million instructions stopped it).
    @Test func ordinaryWorkFitsTheDefaultBudget() throws {
        let work = try script("work.lua", """
            local text = ("lorem ipsum dolor "):rep(500)
            local total = 0
            for _ = 1, 2000 do total = total + select(2, text:gsub("%w+", string.upper)) end
            print(total)
            """)
        let output = try songbox.run(["run", work])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "3000000\n")
    }

    /// A callback's error that names no place (raised at level 2, an error object) is told
    /// with the place of the callback, not of songbox's own prelude; one whose __tostring fails
    /// still is a line, and the run goes on.
    @Test func callbackErrorsNameTheCallback() throws {
        let timers = try script("timers.lua", """
            songbox.after(0, function() error("level two", 2) end)
            songbox.after(0, function() error(setmetatable({}, { __tostring = function() return "object" end })) end)
            songbox.after(0, function() error(setmetatable({}, { __tostring = function() error("no") end })) end)
            songbox.after(0, function() print("still running") end)
            """)
        let output = try songbox.run(["run", timers])
        #expect(output.status == 1)
        #expect(output.stdout == "still running\n")
        let lines = output.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(output.stderr)")
        #expect(lines[0].hasSuffix("/timers.lua:1: level two (in the callback defined here)"), "\(lines)")
        #expect(lines[1].hasSuffix("/timers.lua:2: object (in the callback defined here)"), "\(lines)")
        #expect(lines[2].hasSuffix("/timers.lua:3: (an error object that cannot be shown) (in the callback defined here)"), "\(lines)")
    }

    /// `songbox.text` pads and cuts by terminal columns: points take none, wide characters two.
    @Test func textIsPaddedByColumnsNotBytes() throws {
        let text = try script("text.lua", """
            local t = require("songbox").text
            print("[" .. t.pad("אַהֲבָה", 6) .. "]", t.width("אַהֲבָה"), t.width("日本"), t.pad("7", 3, "right"), t.truncate("abcdef", 4))
            print(pcall(t.pad, "x", -1))
            """)
        let output = try songbox.run(["run", text])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.first == "[אַהֲבָה  ]\t4\t4\t  7\tabc…", "\(output.stdout)")
        #expect(output.lines.last?.contains("columns must be from 0 to 10000") == true)
    }

    @Test func requireFindsModulesNextToTheScript() throws {
        _ = try script("util.lua", "return { greet = function(n) return 'hi ' .. n end }")
        let main = try script("main.lua", "print(require('util').greet('there'))")
        let output = try songbox.run(["run", main])
        #expect(output.stdout == "hi there\n", "\(output.stderr)")
    }

    @Test func aMissingScriptIsAClearError() throws {
        let output = try songbox.run(["run", folder + "/missing.lua"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("missing.lua: cannot read the script"), "\(output.stderr)")
    }
}
