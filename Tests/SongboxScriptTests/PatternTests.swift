import Foundation
import SongboxScript
import Testing

/// The sandbox's string.find, match, gmatch and gsub are songbox's own pattern matcher
/// (Sources/CLuaShim/luapattern.c), which charges its steps to the instruction budget. It must
/// give exactly what Lua's own functions give.
@Suite struct PatternTests {
    /// lua/patterns.lua's canonical text of its corpus of results (one line per case).
    static func corpusText(sandbox: Bool) throws -> [String] {
        let lua = try TestRuntime(sandbox: sandbox)
        let results = try lua.run("patterns.lua")
        let text = try #require(results.first?.stringValue)
        return text.components(separatedBy: "\n")
    }

    @Test func sameResultsAsLuasOwnFunctions() throws {
        let ours = try Self.corpusText(sandbox: true)
        let stock = try Self.corpusText(sandbox: false)
        #expect(ours.count == stock.count)
        #expect(stock.count > 10_000, "the corpus has \(stock.count) cases")
        var differences = 0
        for (mine, theirs) in zip(ours, stock) where mine != theirs {
            differences += 1
            if differences <= 20 { Issue.record("sandbox: \(mine)\nstock:   \(theirs)") }
        }
        #expect(differences == 0)
    }

    /// Random patterns over random subjects (lua/patterns_random.lua), seeded: 5,000 cases a seed,
    /// each through find, match, gsub twice and gmatch.
    @Test(arguments: [1, 2, 3, 4])
    func sameResultsOnRandomPatterns(seed: Int) throws {
        func text(sandbox: Bool) throws -> [String] {
            let lua = try TestRuntime(limits: .init(instructions: 10_000_000_000), sandbox: sandbox)
            let results = try lua.run("patterns_random.lua", [.integer(seed), .integer(5_000)])
            return try #require(results.first?.stringValue).components(separatedBy: "\n")
        }
        let ours = try text(sandbox: true), stock = try text(sandbox: false)
        #expect(ours.count == 25_000 && stock.count == 25_000)
        let differences = zip(ours, stock).filter { $0 != $1 }
        for (mine, theirs) in differences.prefix(10) { Issue.record("sandbox: \(mine)\nstock:   \(theirs)") }
        #expect(differences.isEmpty)
    }

    @Test func theFunctionsAreTheSandboxesOwnAndReachableAsMethods() throws {
        let lua = try TestRuntime()
        let results = try lua.runtime.run(source: """
            local same = string.find == ("").find and string.gsub == ("").gsub
              and string.match == ("").match and string.gmatch == ("").gmatch
            local it = ("a1 b2 c3"):gmatch("(%a)(%d)")
            local first = table.pack(it())
            local second = table.pack(it())
            local third = table.pack(it())
            return same, first[1] .. first[2], second[1] .. second[2], third[1] .. third[2], select("#", it())
            """)
        #expect(results == [.boolean(true), .string("a1"), .string("b2"), .string("c3"), .integer(0)])
        // Lua's own functions are other functions (they are what the differential test compares).
        let stock = try TestRuntime(sandbox: false)
        let sandboxed = try lua.runtime.run(source: "return tostring(string.find)")
        let original = try stock.runtime.run(source: "return tostring(string.find)")
        #expect(sandboxed != original)
    }

    @Test func stepsAreCharged() throws {
        // A search that backtracks about a million steps runs no Lua instructions; it is charged.
        let lua = try TestRuntime(limits: .init(instructions: 100_000_000))
        try lua.runtime.run(source: "return string.rep('a', 60):find(string.rep('a*', 4) .. 'b')")
        #expect(lua.runtime.instructionsUsed > 500_000)
        try lua.runtime.run(source: "return ('hello world'):find('o w')")
        #expect(lua.runtime.instructionsUsed < 1_000)
    }

    @Test func deepPatternsAreTooComplexNotACrash() throws {
        let lua = try TestRuntime()
        let error = try #require(lua.failure {
            try $0.run(source: "return string.rep('a', 10000):match(string.rep('a?', 10000))")
        })
        #expect(error.kind == .runtime)
        #expect(error.message.contains("pattern too complex"), "\(error)")
        #expect(!lua.runtime.isStopped)
    }
}
