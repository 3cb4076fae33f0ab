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

    /// A plugin writing a new 1 MB key again and again (issue 31, fault 4) is refused once its
    /// state would pass 8 MiB, in words and without an error; replacing or removing keys works
    /// on, and another script's state is its own.
    @Test func aScriptsStateIsCappedAndARefusedWriteSaysSo() throws {
        let path = folder + "/hoarder.lua"
        try """
            local big = string.rep("x", 1000000)
            local kept, refused = 0, nil
            for i = 1, 20 do
              local ok, message = songbox.state.set("key" .. i, big)
              if not ok then refused = message; break end
              kept = kept + 1
            end
            print(kept, refused)
            -- The same key again takes no more room; a removed key makes room for a new one.
            print(songbox.state.set("key1", big), songbox.state.set("key1", nil), songbox.state.set("new", big))
            print(songbox.state.set("small", 1))
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let test = try TestRuntime(library: store)
        try test.runtime.run(file: path)
        let lines = test.printed.all
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.hasPrefix("8\tsongbox.state.set: not kept: the state would hold 9000") == true, "\(lines)")
        #expect(lines.first?.contains("more than the 8388608 a script may keep (8 MiB); remove keys with songbox.state.set(key, nil)") == true)
        #expect(lines.dropFirst().first == "true\ttrue\ttrue\n")
        #expect(lines.last == "true\n")
        let names = try store.state.names(prefix: "plugin:hoarder:")
        #expect(names.count == 9 && !names.contains("plugin:hoarder:key1") && !names.contains("plugin:hoarder:key9"), "\(names)")
        let kept = try names.reduce(0) { $0 + $1.utf8.count + (try store.state.saved($1)?.count ?? 0) }
        #expect(kept <= 8 << 20)

        // Another script's state is counted on its own.
        try "print(songbox.state.set('one', string.rep('y', 1000000)))".write(toFile: folder + "/other.lua", atomically: true, encoding: .utf8)
        let other = try TestRuntime(library: store)
        try other.runtime.run(file: folder + "/other.lua")
        #expect(other.printed.all == ["true\n"])
    }

    @Test func aScriptWithoutAFileHasNoState() throws {
        let test = try TestRuntime(library: store)
        let error = test.failure { try $0.run(source: "songbox.state.get('x')") }
        #expect(error?.message.contains("songbox.state needs a script file") == true)
    }
}
