import Foundation
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

/// `songbox.state`: a script's values survive its state and the process, stay its own, and are
/// refused in a dry run.
@Suite struct StateTests {
    let folder: String
    let store: LibraryStore

    init() throws {
        (folder, store) = try temporaryStore()
    }

    /// Copies lua/state.lua to `folder/name`, so that its keys belong to `name`.
    func script(named name: String) throws -> String {
        let path = folder + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: luaFolder + "/state.lua", toPath: path)
        return path
    }

    @Test func valuesSurviveARestartAndBelongToTheirScript() throws {
        let alarm = try script(named: "alarm.lua")
        let first = try TestRuntime(library: store)
        try first.runtime.run(file: alarm, arguments: ["first"])
        #expect(first.printed.all == ["first ok\n"])
        // A new state on a new connection to the same file: what a restart sees.
        let reopened = try LibraryStore(path: folder + "/library.db")
        let second = try TestRuntime(library: reopened)
        try second.runtime.run(file: alarm, arguments: ["second"])
        #expect(second.printed.all == ["second ok\n"])
        #expect(try reopened.state.saved("plugin:alarm:runs").map { String(decoding: $0, as: UTF8.self) } == "2")

        // Another script's name starts with nothing.
        let other = try script(named: "other.lua")
        let third = try TestRuntime(library: store)
        try third.runtime.run(file: other, arguments: ["first"])
        #expect(third.printed.all == ["first ok\n"])
        // Keys are per script name: "alarm" still has its own.
        #expect(try store.state.names(prefix: "plugin:alarm:") == ["plugin:alarm:runs", "plugin:alarm:snooze", "plugin:alarm:אזעקה"])
    }

    @Test func aDryRunReadsButDoesNotWrite() throws {
        let path = folder + "/dry.lua"
        try """
            print(songbox.state.get("runs"))
            print(pcall(songbox.state.set, "runs", 42))
            """.write(toFile: path, atomically: true, encoding: .utf8)
        try store.state.save(Data("41".utf8), as: "plugin:dry:runs")
        let test = try TestRuntime(dryRun: true, library: store)
        try test.runtime.run(file: path)
        #expect(test.printed.all.first == "41\n")
        #expect(test.printed.all.last?.hasPrefix("false\t") == true)
        #expect(test.printed.all.last?.contains("dry run: state.set refused") == true)
        #expect(try store.state.saved("plugin:dry:runs") == Data("41".utf8))
    }

    @Test func aScriptWithoutAFileHasNoState() throws {
        let test = try TestRuntime(library: store)
        let error = test.failure { try $0.run(source: "songbox.state.get('x')") }
        #expect(error?.message.contains("songbox.state needs a script file") == true)
    }
}
