import Foundation
import Logging
import SongboxScript
import Testing

@Suite struct BridgeTests {
    @Test func jsonLogArgsOptionsAndArgumentErrors() throws {
        let lua = try TestRuntime()
        try lua.runtime.setArguments(["one", "two"])
        try lua.runtime.setOptions(["volume": 40, "name": "x", "list": ["a", "b"]])
        let results = try lua.run("bridge.lua", ["one", "two"])
        #expect(results == [.integer(1), .string("two"), .array([.integer(3)])])
        #expect(lua.printed.all == ["bridge ok\n"])
        let logs = lua.logs.all
        #expect(logs.map(\.level) == [.info, .debug, .warning, .error])
        #expect(logs.first?.message == "info 1 nil true")
        #expect(logs.first?.location == "bridge.lua:53")
        #expect(logs.last?.message.hasPrefix("table: ") == true)
        #expect(lua.runtime.stackImbalances == 0)
    }

    @Test func hostFunctionsTakeAndReturnTables() throws {
        let lua = try TestRuntime()
        try lua.runtime.register("test.echo") { args in (1...max(args.count, 1)).map { try? args.value($0) }.map { $0 ?? .nil } }
        try lua.runtime.register("test.sum") { args in
            let list = try args.table(1).arrayValue ?? []
            return [.integer(list.compactMap(\.intValue).reduce(0, +))]
        }
        let results = try lua.runtime.run(source: """
            local t = songbox.test.echo({ a = { 1, 2, { b = "c" } }, n = 1.5, t = true })
            assert(t.a[3].b == "c" and t.n == 1.5 and t.t == true)
            assert(select("#", songbox.test.echo(1, nil, 3)) == 3)
            return songbox.test.sum { 1, 2, 3 }, songbox.test.echo("é")
            """, chunkName: "@echo.lua")
        #expect(results == [.integer(6), .string("é")])
    }

    @Test func hostErrorsAreLuaErrorsWithTheCallersLine() throws {
        let lua = try TestRuntime()
        try lua.runtime.register("test.fail") { _ in throw LuaFunctionError.message("it failed") }
        try lua.runtime.register("test.argument") { _ in throw LuaFunctionError.argument(2, "must be positive") }
        struct Other: Error, CustomStringConvertible { var description: String { "disk on fire" } }
        try lua.runtime.register("test.other") { _ in throw Other() }
        let results = try lua.runtime.run(source: """
            local ok1, e1 = pcall(function() songbox.test.fail() end)
            local ok2, e2 = pcall(function() songbox.test.argument(1, -1) end)
            local ok3, e3 = pcall(songbox.test.other)
            return e1, e2, e3
            """, chunkName: "@host.lua")
        #expect(results == [
            .string("host.lua:1: it failed"),
            .string("host.lua:2: bad argument #2 to 'argument' (must be positive)"),
            .string("test.other: disk on fire"),
        ])
        let error = try #require(lua.failure { try $0.run(source: "\nsongbox.test.fail()", chunkName: "@x.lua") })
        #expect(error.message == "x.lua:2: it failed")
        #expect(lua.runtime.stackImbalances == 0)
    }

    @Test func dryRunRefusesWritingFunctions() throws {
        for dryRun in [false, true] {
            let lua = try TestRuntime(dryRun: dryRun)
            try lua.runtime.register("test.save", writes: true) { _ in [true] }
            try lua.runtime.register("test.read") { _ in ["read"] }
            let results = try lua.runtime.run(source: """
                local ok, err = pcall(songbox.test.save)
                return songbox.dry_run, songbox.test.read(), ok, err
                """, chunkName: "@dry.lua")
            if dryRun {
                #expect(results == [true, "read", false, "dry run: test.save refused"])
            } else {
                #expect(results == [false, "read", true, true])
            }
        }
    }

    @Test func resultsOverTheMemoryCapAreAnErrorNotACrash() throws {
        let lua = try TestRuntime(limits: .init(instructions: 100_000_000, memory: 4 << 20))
        try lua.runtime.register("test.big") { _ in [.array(Array(repeating: .string(String(repeating: "x", count: 100)), count: 100_000))] }
        let error = try #require(lua.failure { try $0.run(source: "local t = songbox.test.big()", chunkName: "@big.lua") })
        #expect(error.kind == .memoryLimit, "\(error)")
    }

    @Test func errorsNameFileAndLineWithATraceback() throws {
        let lua = try TestRuntime()
        let runtime = try #require(lua.failure { try $0.run(source: "local x = nil\nlocal function f() return x.y end\nf()", chunkName: "@plugins/top10.lua") })
        #expect(runtime.kind == .runtime)
        #expect(runtime.message == "plugins/top10.lua:2: attempt to index a nil value (upvalue 'x')")
        #expect(runtime.traceback?.hasPrefix("stack traceback:") == true)
        #expect(runtime.traceback?.contains("plugins/top10.lua:3: in main chunk") == true)

        let syntax = try #require(lua.failure { try $0.run(source: "local = 1", chunkName: "@bad.lua") })
        #expect(syntax.kind == .syntax)
        #expect(syntax.message.hasPrefix("bad.lua:1:"))

        let binary = try #require(lua.failure { try $0.run(source: "\u{1B}LuaT\0", chunkName: "@bin.lua") })
        #expect(binary.kind == .syntax)
        #expect(binary.message.contains("attempt to load a binary chunk (mode is 't')"))

        let object = try #require(lua.failure { try $0.run(source: "error({})", chunkName: "@obj.lua") })
        #expect(object.message == "(error object is a table value)")

        let unreadable = try #require(lua.failure { try $0.run(file: "/nonexistent/x.lua") })
        #expect(unreadable.kind == .unreadable)
    }

    @Test func valuesRoundTrip() throws {
        let lua = try TestRuntime()
        try lua.runtime.register("test.echo") { args in [try args.value(1)] }
        let values: [LuaValue] = [
            nil, true, false, 0, -7, .integer(Int.max), 1.5, -0.25, "", "שלום עולם 🎵", [], [1, 2, 3], ["k": "v", "n": ["a": [1, "b"]]],
        ]
        for value in values {
            let back = try lua.runtime.run(source: "return songbox.test.echo(...)", arguments: [value])
            #expect(back == [value] || (value == [] && back == [.table([:])]), "\(value)")
        }
    }
}
