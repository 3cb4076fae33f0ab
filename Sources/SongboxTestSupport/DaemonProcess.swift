import Foundation

/// A real `songbox daemon` process for a test: its own socket, its output and log in files.
public final class DaemonProcess: @unchecked Sendable {
    public let socket: String
    public let stdoutPath: String
    public let stderrPath: String
    private let process = Process()

    /// Starts `songbox --db DATABASE daemon --socket SOCKET ARGUMENTS...` and waits until it
    /// listens; in `workingDirectory` when given; without `--socket` when `namingSocket` is
    /// false (the daemon then chooses, as for a user: `socket` is where it said it listens).
    public init(database: String, folder: String, arguments: [String], environment: [String: String] = [:],
                workingDirectory: String? = nil, namingSocket: Bool = true, executable: String = SongboxRunner.executable) throws {
        socket = folder + "/control.sock"
        stdoutPath = folder + "/daemon.out"
        stderrPath = folder + "/daemon.err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        // No TCP port unless the test names one (MPD's or the web app's): tests run side by side,
        // and beside a real MPD.
        let binds = (arguments.contains("--bind") ? [] : ["--bind", "none"]) + (arguments.contains("--http") ? [] : ["--http", "none"])
        process.arguments = ["--db", database, "daemon"] + (namingSocket ? ["--socket", socket] : []) + binds + arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.environment = SongboxRunner.environment(environment, isolated: false)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitFor(timeout: 30, "the daemon to listen") { self.errors.contains("listening on") || !self.process.isRunning }
        guard process.isRunning else { throw FixtureError("the daemon did not start: \(errors)") }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// What the daemon printed (plugins' `print`), and its log.
    public var output: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var errors: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The environment a `songbox` command needs to reach this daemon.
    public var clientEnvironment: [String: String] { ["SONGBOX_SOCKET": socket] }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to end; its exit status (or the signal that ended it, negated).
    @discardableResult
    public func waitForExit(timeout: Double = 30) throws -> Int32 {
        try waitFor(timeout: timeout, "the daemon to end") { !self.process.isRunning }
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// Waits until the daemon's output holds `text` `count` times.
    public func waitForOutput(_ text: String, count: Int = 1, timeout: Double = 30) throws {
        try waitFor(timeout: timeout, "'\(text)' in the daemon's output") {
            self.output.components(separatedBy: text).count - 1 >= count
        }
    }

    /// Waits until the daemon's log (standard error) holds `text` `count` times.
    public func waitForLog(_ text: String, count: Int = 1, timeout: Double = 30) throws {
        try waitFor(timeout: timeout, "'\(text)' in the daemon's log") {
            self.errors.components(separatedBy: text).count - 1 >= count
        }
    }
}

/// Polls `condition` (every 10 ms) until it holds; throws after `timeout` seconds.
public func waitFor(timeout: Double, _ what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while try !condition() {
        guard Date() < deadline else { throw FixtureError("timed out waiting for \(what)") }
        usleep(10_000)
    }
}
