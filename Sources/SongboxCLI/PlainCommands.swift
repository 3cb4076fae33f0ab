import Foundation

/// `[--db PATH] run FILE [ARG...]` with no option anywhere (no argument starts with `-`): the
/// plain way to run a script, without swift-argument-parser's start-up, which was half of the
/// instructions of `songbox run hello.lua`. It runs what `Run` runs; errors are reported as
/// swift-argument-parser reports them.
struct PlainRunCommand {
    let database: String?
    let file: String
    let arguments: [String]

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        let database = SongboxProgram.takeDatabase(&rest)
        guard rest.first == "run", rest.count >= 2 else { return nil }
        rest = rest.dropFirst()
        guard !rest.contains(where: { $0.hasPrefix("-") }) else { return nil }
        self.database = database
        file = rest.removeFirst()
        self.arguments = Array(rest)
    }

    func run() {
        do {
            try Run.run(file: file, arguments: arguments, database: database, limits: .userScript, dryRun: false,
                        output: nil, fast: false)
        } catch {
            SongboxProgram.exit(withError: error)
        }
    }
}

/// `[--db PATH] scan [PATH...]` with no option (no argument starts with `-`): what a cron job or
/// a hook runs after music is copied in, without swift-argument-parser's start-up (about 120 M
/// instructions, a fifth of a rescan that finds nothing to do). It runs what `Scan` runs.
struct PlainScanCommand {
    let database: String?
    let paths: [String]

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        let database = SongboxProgram.takeDatabase(&rest)
        guard rest.first == "scan", !rest.dropFirst().contains(where: { $0.hasPrefix("-") }) else { return nil }
        self.database = database
        paths = Array(rest.dropFirst())
    }

    func run() {
        do {
            try Scan.run(paths: paths, prune: false, database: database)
        } catch {
            SongboxProgram.exit(withError: error)
        }
    }
}
