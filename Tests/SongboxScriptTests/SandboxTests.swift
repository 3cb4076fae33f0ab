import Foundation
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

@Suite struct SandboxTests {
    @Test func absentLibrariesBytecodeCollectorFinalizersAndRequire() throws {
        let lua = try TestRuntime()
        try lua.run("sandbox.lua")
        #expect(lua.printed.all == ["sandbox ok\n"])
        #expect(lua.runtime.stackImbalances == 0)
    }

    @Test func songboxTableIsReadOnly() throws {
        let lua = try TestRuntime()
        try lua.run("songbox_table.lua")
        #expect(lua.printed.all == ["songbox table ok\n"])
    }

    /// Every name a script can reach, against the committed list: a new global is a decision.
    @Test func reachableGlobalsMatchTheCommittedList() throws {
        // With a library, as `songbox run` and plugins have it: its functions are listed too.
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lua = try TestRuntime(library: try LibraryStore(path: folder + "/library.db"))
        let result = try lua.run("globals.lua")
        let listed = try String(contentsOfFile: luaFolder + "/../sandbox-globals.txt", encoding: .utf8)
        let reachable = try #require(result.first?.stringValue)
        #expect(reachable == listed, "update Tests/SongboxScriptTests/sandbox-globals.txt if this change is meant:\n\(reachable)")
        for forbidden in ["io.", "debug.", "package.", "os.execute", "string.dump", "dofile", "loadfile"] {
            #expect(!reachable.contains(forbidden))
        }
    }

    @Test func oneStateCannotChangeAnother() throws {
        let a = try TestRuntime(), b = try TestRuntime()
        try a.run("isolation_a.lua")
        try b.run("isolation_b.lua")
        #expect(b.printed.all == ["isolated\n"])
        #expect(a.printed.all.isEmpty)
    }

    @Test func requireLoadsTextModulesFromConfiguredFolders() throws {
        let lua = try TestRuntime()
        let error = try #require(lua.failure { try $0.run(file: luaFolder + "/require.lua", displayName: "require.lua") })
        #expect(error.kind == .runtime)
        #expect(error.message.hasSuffix("broken.lua:3: broken module"), "\(error)")
        #expect(error.traceback?.contains("require.lua:8: in main chunk") == true, "\(error)")
    }

    @Test func requireRefusesBinaryModules() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("songbox-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("\u{1B}LuaT\0 binary".utf8).write(to: URL(fileURLWithPath: folder + "/bin.lua"))
        let lua = try TestRuntime()
        try lua.runtime.addModulePath(folder)
        let error = try #require(lua.failure { try $0.run(source: "require 'bin'", chunkName: "@main.lua") })
        #expect(error.message.contains("main.lua:1: error loading module 'bin'"), "\(error)")
        #expect(error.message.contains("attempt to load a binary chunk"), "\(error)")
    }
}
