import Foundation
import SongboxTestSupport
import Testing

/// The pages of `docs/` are true as typed: every `$ ` line of their shell blocks runs, page by
/// page, in a shell from a folder that has the project's `examples/` and `plugins/`, on a fresh
/// home whose library holds the example library (`~/.local/share/songbox/library.db`), and what
/// the page shows under a line is in what it printed.
///
/// A comment line just before a block says how it runs (words separated by commas):
/// `<!-- docs-test: daemon -->` with the library's daemon running (on the null output, the
/// example library its music folder; `mpc` reaches it), `both` once alone and once with the
/// daemon (a script behaves the same either way), `varies` when what it prints differs from
/// machine to machine (paths, timings, random picks: only the exit status is checked), and
/// `skip REASON` for a block that needs what a test has not (a network station, a sound card).
///
/// A shown line is compared with digits and runs of spaces made alike (a count, a time or a
/// column's width may differ, a word may not); `...` stands for lines left out, and in a line for
/// text left out (a path of the machine's). A block whose first shown line is an error
/// (`Error:`) must fail; any other must succeed.
@Suite struct DocsTests {
    /// One `$ ` line of a page and what the page shows under it.
    struct Step {
        var command: String
        var shown: [String]
    }

    struct Block {
        var page: String
        var line: Int
        var modes: Set<String>
        var steps: [Step]
    }

    static let pages: [String] = {
        let folder = Fixtures.packageRoot + "/docs"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().filter { !blocks(ofPage: $0).isEmpty }
    }()

    /// The shell sessions of `docs/PAGE`: its fenced blocks with a `$ ` line.
    static func blocks(ofPage page: String) -> [Block] {
        guard let text = try? String(contentsOfFile: Fixtures.packageRoot + "/docs/" + page, encoding: .utf8) else { return [] }
        var blocks: [Block] = []
        var current: Block?
        var previous = ""
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let block = current {
                    if !block.steps.isEmpty { blocks.append(block) }
                    current = nil
                } else {
                    current = Block(page: page, line: index + 1, modes: modes(previous), steps: [])
                }
            } else if var block = current {
                if line.hasPrefix("$ ") {
                    block.steps.append(Step(command: String(line.dropFirst(2)), shown: []))
                } else if !block.steps.isEmpty {
                    block.steps[block.steps.count - 1].shown.append(line)
                }
                current = block
            }
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { previous = line }
        }
        return blocks
    }

    /// The words of a `<!-- docs-test: ... -->` line.
    static func modes(_ line: String) -> Set<String> {
        guard line.hasPrefix("<!-- docs-test:"), let end = line.range(of: "-->") else { return [] }
        let words = line[line.index(line.startIndex, offsetBy: 15)..<end.lowerBound]
        return Set(words.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).components(separatedBy: " ")[0] })
    }

    /// Whether a printed line (normalized) is the shown one: equal, with `...` in the shown
    /// line standing for any text (a path of the machine's).
    static func matches(_ printed: String, shown: String) -> Bool {
        let parts = normalized(shown).components(separatedBy: "...")
        guard parts.count > 1 else { return printed == parts[0] }
        guard printed.hasPrefix(parts[0]), printed.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = printed.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.count >= parts[parts.count - 1].count
    }

    /// A line as compared: digits and runs of spaces made alike.
    static func normalized(_ line: String) -> String {
        var result = ""
        var last: Character = " "
        for character in line {
            let mapped: Character = character.isNumber && character.isASCII ? "#" : (character.isWhitespace ? " " : character)
            if (mapped == "#" || mapped == " ") && mapped == last { continue }
            result.append(mapped)
            last = mapped
        }
        return result.trimmingCharacters(in: .whitespaces)
    }

    @Test(arguments: pages)
    func shellBlocksRunAsShown(page: String) throws {
        let session = try DocsSession()
        defer { session.close() }
        for block in Self.blocks(ofPage: page) where !block.modes.contains("skip") {
            let runs = block.modes.contains("both") ? [false, true] : [block.modes.contains("daemon")]
            for withDaemon in runs {
                try session.daemon(running: withDaemon)
                for step in block.steps {
                    try session.check(step, of: block, withDaemon: withDaemon)
                }
            }
        }
    }
}

/// A fresh home with the example library, and the library's daemon when a block needs it.
final class DocsSession {
    let folder: String
    let home: String
    let work: String
    let database: String
    var daemon: DaemonProcess?

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        home = folder + "/home"
        work = folder + "/work"
        database = home + "/.local/share/songbox/library.db"
        for path in [home, work, home + "/run"] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        // The runtime folder is the user's own and closed to others, as systemd makes it.
        chmod(home + "/run", 0o700)
        for name in ["examples", "plugins"] {
            try FileManager.default.createSymbolicLink(atPath: work + "/" + name, withDestinationPath: Fixtures.packageRoot + "/" + name)
        }
        let scan = try run("songbox scan examples/music")
        guard scan.status == 0 else { throw FixtureError("the example library did not scan: \(scan.stderr)") }
    }

    func close() {
        daemon?.signal(SIGTERM)
        _ = try? daemon?.waitForExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The environment the page's reader has: songbox on PATH, this home, and no socket named
    /// (the library's own daemon is found through the library, as for a user); `mpc` reaches it.
    var environment: [String: String] {
        let binaries = (SongboxRunner.executable as NSString).deletingLastPathComponent
        var environment = ["PATH": binaries + ":/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": home + "/run",
                           "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
                           "XDG_CACHE_HOME": home + "/.cache", "SONGBOX_SOCKET": "", "SONGBOX_DB": "", "SONGBOX_CONFIG": ""]
        if let daemon { environment["MPD_HOST"] = daemon.socket }
        return environment
    }

    func run(_ command: String) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/bin/sh", ["-c", "cd \"$1\" && " + command, "docs", work], environment: environment)
    }

    /// Starts or stops the daemon.
    func daemon(running: Bool) throws {
        if running, daemon == nil {
            daemon = try DaemonProcess(database: database, folder: folder, arguments: ["--output", "null", "--music", work + "/examples/music"],
                                       environment: environment, workingDirectory: work)
        } else if !running, let running = daemon {
            running.signal(SIGTERM)
            #expect(try running.waitForExit() == 0, "\(running.errors)")
            daemon = nil
        }
    }

    func check(_ step: DocsTests.Step, of block: DocsTests.Block, withDaemon: Bool) throws {
        let place = "docs/\(block.page):\(block.line)\(withDaemon ? " (with a daemon)" : "")"
        let printed: [String]
        var status: Int32 = 0
        if step.command.hasPrefix("songbox daemon") {
            // The page's own daemon: the one this session runs, its log what it printed.
            try daemon(running: true)
            printed = (daemon?.errors ?? "").components(separatedBy: "\n")
        } else {
            let output = try run(step.command)
            printed = (output.stdout + "\n" + output.stderr).components(separatedBy: "\n")
            status = output.status
        }
        let shown = step.shown.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && $0 != "..." }
        let fails = shown.first.map { ["Error:", "שגיאה:"].contains(where: $0.hasPrefix) } ?? false
        #expect(fails ? status != 0 : status == 0, "\(place): \(step.command) ended with \(status):\n\(printed.joined(separator: "\n"))")
        guard !block.modes.contains("varies") else { return }
        let got = printed.map(DocsTests.normalized)
        for line in shown where !got.contains(where: { DocsTests.matches($0, shown: line) }) {
            Issue.record("\(place): \(step.command) did not print\n  \(line)\nbut:\n\(printed.joined(separator: "\n"))")
        }
    }
}
