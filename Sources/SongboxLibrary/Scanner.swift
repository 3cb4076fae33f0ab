import Foundation
import GRDB
import Logging
import Synchronization

/// What a scan did.
public struct ScanReport: Sendable {
    public var added = 0
    public var updated = 0
    /// Files found at a new path with the same audio and tags as a vanished one: the track keeps
    /// its id, statistics, overrides and playlist places.
    public var moved = 0
    public var removed = 0
    public var unchanged = 0
    /// Files left out because the user removed them with `songbox rm`.
    public var excluded = 0
    /// Files that could not be indexed, with the reason.
    public var unreadable: [(path: String, reason: String)] = []
    /// Indexed files with something worth knowing (an oversized tag that was skipped ...).
    public var warnings: [(path: String, message: String)] = []
    public var unavailable: [UnavailableFolder] = []
    /// The folders and files scanned, absolute and with symlinks resolved.
    public var roots: [String] = []
    public var symlinkLoops: [String] = []
    public var elapsed: Duration = .zero
}

/// Where a scan is, for a progress display.
public enum ScanProgress: Sendable {
    case walked(files: Int)
    case read(done: Int, total: Int)
}

/// Indexes folders of MP3 files into the library.
public struct LibraryScanner: Sendable {
    public let store: LibraryStore
    public let logger: Logger
    /// Reader threads; all cores by default.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Files per write transaction.
    public var batchSize = 500

    public init(store: LibraryStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Scans `roots` (folders or files). With no roots, scans the folders scanned before.
    public func scan(_ roots: [String], now: Date = Date(),
                     progress: @escaping @Sendable (ScanProgress) -> Void = { _ in }) throws(SongboxError) -> ScanReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = ScanReport()

        let roots = Self.normalise(roots)
        report.roots = roots
        var walker = FolderWalker()
        var availableRoots: [String] = []
        for root in roots where walker.walk(root: root) { availableRoots.append(root) }
        let scannedRoots = availableRoots
        report.unavailable = walker.unavailable
        report.symlinkLoops = walker.loops
        progress(.walked(files: walker.files.count))

        let known = try store.read { db in try KnownFiles(db, roots: scannedRoots) }
        var toRead: [FoundFile] = []
        var seen = Set<String>()
        for file in walker.files {
            seen.insert(file.path)
            if known.excluded.contains(file.path) {
                report.excluded += 1
            } else if let track = known.tracks[file.path], track.size == file.size, track.mtime == file.mtime {
                report.unchanged += 1
            } else if let failure = known.unreadable[file.path], failure.size == file.size, failure.mtime == file.mtime {
                report.unreadable.append((file.path, failure.reason))
            } else {
                toRead.append(file)
            }
        }

        // Tracks whose files are gone, unless their folder is unavailable as a whole.
        let blockedPrefixes = walker.unavailable.map { $0.path + "/" }
        let vanished = known.tracks.values.filter { track in
            !seen.contains(track.path) && !blockedPrefixes.contains { track.path.hasPrefix($0) }
        }
        let moves = MoveCandidates(vanished)
        let added = Int(now.timeIntervalSince1970)

        let outcome = try readAndStore(toRead, known: known, moves: moves, added: added, progress: progress)
        report.added = outcome.added
        report.updated = outcome.updated
        report.moved = outcome.moved
        report.unreadable += outcome.unreadable
        report.warnings = outcome.warnings

        let gone = moves.remaining()
        let vanishedUnreadable = known.unreadable.keys.filter { path in
            !seen.contains(path) && !blockedPrefixes.contains { path.hasPrefix($0) }
        }
        try store.write { db in
            for id in gone { try db.execute(sql: "DELETE FROM tracks WHERE id = ?", arguments: [id]) }
            if !gone.isEmpty { try LibraryStore.closePlaylistGaps(in: db) }
            for path in vanishedUnreadable { try db.execute(sql: "DELETE FROM unreadable WHERE path = ?", arguments: [path]) }
            for root in scannedRoots {
                try db.execute(sql: "INSERT OR IGNORE INTO folders (path, added) VALUES (?, ?)", arguments: [root, added])
            }
        }
        report.removed = gone.count
        report.unreadable.sort { $0.path < $1.path }
        report.elapsed = clock.now - start
        return report
    }

    /// The folders a scan without arguments goes over.
    public func rememberedFolders() throws(SongboxError) -> [String] {
        try store.read { db in try String.fetchAll(db, sql: "SELECT path FROM folders ORDER BY path") }
    }

    /// Absolute, symlink-free, without roots nested inside other roots.
    public static func normalise(_ roots: [String]) -> [String] {
        let unique = Array(Set(roots.map(FilePaths.resolved))).sorted()
        return unique.filter { root in !unique.contains { $0 != root && root.hasPrefix($0 == "/" ? "/" : $0 + "/") } }
    }

    private struct Outcome: Sendable {
        var added = 0, updated = 0, moved = 0
        var unreadable: [(path: String, reason: String)] = []
        var warnings: [(path: String, message: String)] = []
    }

    /// Reads `files` on `workers` threads, each with its own libmpg123 handle, and stores the
    /// results in batches, one transaction each.
    private func readAndStore(_ files: [FoundFile], known: KnownFiles, moves: MoveCandidates, added: Int,
                              progress: @escaping @Sendable (ScanProgress) -> Void) throws(SongboxError) -> Outcome {
        guard !files.isEmpty else { return Outcome() }
        struct Shared {
            var pending: [(FoundFile, Result<ProbedFile, SongboxError>)] = []
            var outcome = Outcome()
            var failure: SongboxError?
            var done = 0
        }
        let shared = Mutex(Shared())
        let next = Atomic<Int>(0)
        let store = self.store
        let batchSize = self.batchSize
        let knownPaths = known.tracks

        @Sendable func flush(_ batch: [(FoundFile, Result<ProbedFile, SongboxError>)]) {
            guard !batch.isEmpty else { return }
            // In path order, so a small library gets the same ids on every machine.
            let batch = batch.sorted { $0.0.path < $1.0.path }
            do {
                let counts = try store.write { db in
                    try TrackWriter.store(batch, knownPaths: knownPaths, moves: moves, added: added, in: db)
                }
                shared.withLock { state in
                    state.outcome.added += counts.added
                    state.outcome.updated += counts.updated
                    state.outcome.moved += counts.moved
                    state.outcome.unreadable += counts.unreadable
                    state.outcome.warnings += counts.warnings
                }
            } catch {
                shared.withLock { $0.failure = $0.failure ?? SongboxError.database(error, at: store.path) }
            }
        }

        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, files.count))) { _ in
            let reader: MP3Reader
            do throws(SongboxError) { reader = try MP3Reader() } catch {
                shared.withLock { $0.failure = $0.failure ?? error }
                return
            }
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < files.count, shared.withLock({ $0.failure == nil }) else { break }
                let file = files[index]
                let result: Result<ProbedFile, SongboxError>
                do throws(SongboxError) { result = .success(try reader.read(path: file.path)) } catch { result = .failure(error) }
                let (batch, done) = shared.withLock { state -> ([(FoundFile, Result<ProbedFile, SongboxError>)], Int) in
                    state.pending.append((file, result))
                    state.done += 1
                    guard state.pending.count >= batchSize else { return ([], state.done) }
                    defer { state.pending = [] }
                    return (state.pending, state.done)
                }
                if done % 100 == 0 || done == files.count { progress(.read(done: done, total: files.count)) }
                flush(batch)
            }
        }
        let rest = shared.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        flush(rest)
        let final = shared.withLock { $0 }
        if let failure = final.failure { throw failure }
        return final.outcome
    }
}

/// What the database knows about files under the scanned roots.
struct KnownFiles: Sendable {
    struct Entry: Sendable { let id: Int64; let path: String; let size: Int64; let mtime: Int64 }
    var tracks: [String: Entry] = [:]
    var unreadable: [String: (size: Int64, mtime: Int64, reason: String)] = [:]
    var excluded = Set<String>()

    init(_ db: Database, roots: [String]) throws {
        for root in roots {
            // Paths under the root: `path = root` or `path` in [root + "/", root + "0") — a range
            // SQLite can answer from the unique index on path.
            let arguments: StatementArguments = [root, root + "/", root + "0"]
            let condition = "path = ? OR (path >= ? AND path < ?)"
            let rows = try Row.fetchCursor(db, sql: "SELECT id, path, size, mtime FROM tracks WHERE \(condition)", arguments: arguments)
            while let row = try rows.next() {
                let entry = Entry(id: row[0], path: row[1], size: row[2], mtime: row[3])
                tracks[entry.path] = entry
            }
            for row in try Row.fetchAll(db, sql: "SELECT path, size, mtime, reason FROM unreadable WHERE \(condition)", arguments: arguments) {
                unreadable[row[0]] = (row[1], row[2], row[3])
            }
            excluded.formUnion(try String.fetchAll(db, sql: "SELECT path FROM excluded WHERE \(condition)", arguments: arguments))
        }
    }
}

/// Vanished tracks that a newly found file may be the moved copy of, by file size.
final class MoveCandidates: Sendable {
    private let bySize: Mutex<[Int64: [Int64]]>

    init(_ vanished: [KnownFiles.Entry]) {
        bySize = Mutex(Dictionary(grouping: vanished, by: \.size).mapValues { $0.map(\.id) })
    }

    /// Ids of vanished tracks with this file size, for the writer to compare further.
    func candidates(size: Int64) -> [Int64] { bySize.withLock { $0[size] ?? [] } }

    /// Marks a vanished track as moved, so it is not removed.
    func claim(_ id: Int64, size: Int64) {
        bySize.withLock { $0[size]?.removeAll { $0 == id } }
    }

    /// Vanished tracks nobody claimed: to be removed.
    func remaining() -> [Int64] { bySize.withLock { $0.values.flatMap { $0 } } }
}
