import Foundation
import SongboxScript
import Testing

@Suite struct LimitTests {
    static let instructionEscapes = [
        "loop", "pcall_loop", "pcall_catch_all", "xpcall_handler", "coroutine_loop", "coroutine_wrap", "coroutine_tree", "yield_loop",
        "sort_comparator", "gsub_callback", "gsub_pcall", "close_loop", "close_in_coroutine", "close_in_wrap",
        "pattern_backtracking", "pattern_gmatch", "pattern_gsub", "pattern_match", "pattern_balance", "pattern_backref",
        "plain_find", "table_move", "table_insert_len",
    ]

    /// The pattern escapes backtrack in C, between two instructions: the sandbox's matcher
    /// (luapattern.c) counts its steps and charges them, so they are stopped like a Lua loop.
    @Test(arguments: instructionEscapes)
    func instructionBudgetStopsEveryLoop(_ escape: String) throws {
        let lua = try TestRuntime(limits: .init(instructions: 1_000_000))
        let error = try #require(lua.failure { try $0.run(file: luaFolder + "/limits.lua", displayName: "limits.lua", arguments: [.string(escape)]) })
        #expect(error.kind == .instructionLimit, "\(error)")
        #expect(error.message.hasPrefix("limits.lua:"), "\(error)")
        #expect(error.message.hasSuffix(": instruction limit of 1000000 exceeded"), "\(error)")
        #expect(lua.runtime.isStopped)
        #expect(lua.runtime.stackImbalances == 0)
        // The stopped state runs nothing more; the host and other states go on.
        let again = try #require(lua.failure { try $0.run(source: "return 1") })
        #expect(again.kind == .stopped)
        #expect(try TestRuntime().runtime.run(source: "return 1 + 1") == [.integer(2)])
    }

    /// Hooks are per thread in Lua 5.4: once the budget stops the state, every coroutine (old or
    /// new) must stop too, and no bridge call may succeed from any of them.
    @Test func aStoppedStateRunsNoCoroutineAndTheBridgeRefusesEveryCall() throws {
        let lua = try TestRuntime(limits: .init(instructions: 1_000_000))
        let calls = Captured<Bool>()  // whether the state was stopped at each call that got through
        try lua.runtime.register("tick") { [weak runtime = lua.runtime] _ in
            calls.append(runtime?.isStopped ?? true)
            return []
        }
        let error = try #require(lua.failure { try $0.run(file: luaFolder + "/limits.lua", displayName: "limits.lua", arguments: ["coroutine_tree"]) })
        #expect(error.kind == .instructionLimit, "\(error)")
        #expect(error.message.hasSuffix(": instruction limit of 1000000 exceeded"), "\(error)")
        #expect(calls.all.contains(false))  // the tree called the bridge before the stop ...
        #expect(!calls.all.contains(true))  // ... and never after it
        #expect(lua.runtime.stackImbalances == 0)
    }

    static let memoryEscapes = ["string_rep", "string_rep_pcall", "table_growth", "string_doubling", "string_table", "memory_pcall"]

    @Test(arguments: memoryEscapes)
    func memoryCapStopsEveryBomb(_ escape: String) throws {
        let lua = try TestRuntime(limits: .init(instructions: 1_000_000_000, memory: 16 << 20))
        let error = try #require(lua.failure { try $0.run(file: luaFolder + "/limits.lua", displayName: "limits.lua", arguments: [.string(escape)]) })
        #expect(error.kind == .memoryLimit, "\(error)")
        #expect(error.message.hasPrefix("limits.lua:"), "\(error)")
        #expect(error.message.hasSuffix("memory limit of 16 MB exceeded"), "\(error)")
        #expect(lua.runtime.memoryUsed <= 16 << 20)
    }

    @Test func deepRecursionIsALuaError() throws {
        let lua = try TestRuntime(limits: .init(instructions: 1_000_000_000, memory: 512 << 20))
        let error = try #require(lua.failure { try $0.run(file: luaFolder + "/limits.lua", displayName: "limits.lua", arguments: ["recursion"]) })
        #expect(error.kind == .runtime, "\(error)")
        #expect(error.message.contains("limits.lua:102: stack overflow"), "\(error)")
        // Under the default cap the stack hits the memory limit first, which is as clean.
        let capped = try TestRuntime(limits: .init(instructions: 1_000_000_000, memory: 16 << 20))
        let cappedError = try #require(capped.failure { try $0.run(file: luaFolder + "/limits.lua", displayName: "limits.lua", arguments: ["recursion"]) })
        #expect(cappedError.kind == .memoryLimit || cappedError.message.contains("stack overflow"), "\(cappedError)")
    }

    @Test func budgetIsPerCallAndCounted() throws {
        let lua = try TestRuntime(limits: .init(instructions: 200_000))
        for _ in 0..<5 {
            try lua.runtime.run(source: "local x = 0 for i = 1, 20000 do x = x + i end return x")
        }
        #expect(lua.runtime.instructionsUsed > 0)
        #expect(lua.runtime.instructionsUsed <= 200_000)
        #expect(!lua.runtime.isStopped)
    }

    @Test func closingAStateIsBounded() throws {
        // Objects with finalizers cannot be made, so closing runs no script code.
        var lua: TestRuntime? = try TestRuntime()
        try lua?.runtime.run(source: """
            local mt = {}
            for i = 1, 1000 do setmetatable({}, mt) end
            mt.__gc = function() while true do end end
            """)
        lua = nil
        #expect(lua == nil)
    }
}
