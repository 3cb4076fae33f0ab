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
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["--db", database] + arguments
        process.environment = Self.environment(environment)
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

    /// The environment songbox runs in under a test: this process's, in English whatever the
    /// machine's locale (a test asks for another language with `LANG`, `LC_ALL`...), and with no
    /// daemon unless a test starts one (a daemon the developer runs is never reached: `isolated`);
    /// then `extra`.
    public static func environment(_ extra: [String: String] = [:], isolated: Bool = true) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["LC_ALL", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LANGUAGE"] { environment[name] = nil }
        environment["LANG"] = "C.UTF-8"
        if isolated { environment["SONGBOX_SOCKET"] = Fixtures.packageRoot + "/.build/no-daemon-in-tests.sock" }
        return environment.merging(extra) { $1 }
    }

    /// Runs any program and captures what it prints.
    public static func run(executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = Self.environment(environment)
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

/// The message catalogs a test runs songbox with: po/*.po compiled by msgfmt (as `make` does)
/// to .build/share/locale, where the songbox in .build/<triple>/debug finds them.
public enum Catalogs {
    public static let directory = Fixtures.packageRoot + "/.build/share/locale"

    /// Compiles each po/LANG.po newer than its .mo, once per test run; throws what msgfmt said.
    public static func compile() throws {
        if let failure = compiled { throw FixtureError(failure) }
    }

    private static let compiled: String? = {
        let po = Fixtures.packageRoot + "/po"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: po)) ?? []).filter { $0.hasSuffix(".po") }
        for file in files {
            let language = String(file.dropLast(3))
            let target = "\(directory)/\(language)/LC_MESSAGES/songbox.mo"
            let modified = { (path: String) in
                (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? nil
            }
            if let made = modified(target), let source = modified(po + "/" + file), made >= source { continue }
            do {
                try FileManager.default.createDirectory(atPath: directory + "/\(language)/LC_MESSAGES", withIntermediateDirectories: true)
                let temporary = target + ".\(getpid()).tmp"
                let output = try SongboxRunner.run(executable: "/usr/bin/msgfmt", ["--check", "-o", temporary, po + "/" + file])
                guard output.status == 0 else { return "msgfmt \(file): \(output.stderr)" }
                guard rename(temporary, target) == 0 else { return "cannot move \(temporary) to \(target)" }
            } catch {
                return "msgfmt \(file): \(error)"
            }
        }
        return nil
    }()
}
