import Foundation
import SongboxLibrary

/// Runs the built `songbox` binary, as a user or a script would.
public struct SongboxRunner: Sendable {
    public struct Output: Sendable {
        public var status: Int32
        /// Standard output as text (bytes that are not UTF-8 read as U+FFFD).
        public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
        /// Standard output exactly.
        public var stdoutBytes: Data
        public var stderr: String
        public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// The database every run passes with `--db`.
    public let database: String

    /// A runner on `database`, made empty when missing: the commands that do not make a
    /// library refuse a path where there is none.
    public init(database: String) {
        self.database = database
        if !FileManager.default.fileExists(atPath: database) { _ = try? LibraryStore(path: database) }
    }

    /// The `songbox` executable next to the test bundle (SwiftPM builds products into one folder).
    public static let executable: String = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // swift-testing on Linux runs `<folder>/songboxPackageTests.xctest`.
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("songbox").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return Fixtures.packageRoot + "/.build/debug/songbox"
    }()

    /// Runs `songbox --db <database> arguments...` and waits for it.
    @discardableResult
    public func run(_ arguments: [String], environment: [String: String] = [:], useDatabase: Bool = true) throws -> Output {
        try Self.run(executable: Self.executable, (useDatabase ? ["--db", database] : []) + arguments, environment: environment)
    }

    /// Starts `songbox --db <database> arguments...` without waiting for it, its output discarded:
    /// for a test that kills it part way (`killOnce`).
    public func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["--db", database] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls `count` every 10 ms, at most `tries` times, until it is positive (something was
    /// committed), then kills `process` with SIGKILL and waits for it. Returns the last count.
    public static func killOnce(_ process: Process, tries: Int, _ count: () -> Int) -> Int {
        var counted = 0
        for _ in 0..<tries where counted == 0 {
            usleep(10_000)
            counted = count()
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return counted
    }

    /// Runs any program and captures what it prints.
    public static func run(executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // No daemon unless a test starts one: a daemon the developer runs is never reached.
        let isolated = ["SONGBOX_SOCKET": Fixtures.packageRoot + "/.build/no-daemon-in-tests.sock"]
        process.environment = ProcessInfo.processInfo.environment.merging(isolated) { $1 }.merging(environment) { $1 }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Files, not pipes: a full pipe would block the child while we wait for it.
        let outPath = folder + "/out", errPath = folder + "/err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Output(status: process.terminationStatus,
                      stdoutBytes: try Data(contentsOf: URL(fileURLWithPath: outPath)),
                      stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }
}
