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
    /// Tracks whose files this scan did not find: marked missing, kept with their history.
    public var missing = 0
    /// Missing tracks whose files are back: the same id, history, overrides and playlist places.
    public var restored = 0
    /// Tracks deleted for good: missing for longer than the grace period, or pruned.
    public var removed = 0
    public var unchanged = 0
    /// Files left out because the user removed them with `songbox rm`.
    public var excluded = 0
    /// Files that could not be indexed, with the reason.
    public var unreadable: [(path: String, reason: String)] = []
    /// Indexed files with something worth knowing (an oversized tag that was skipped ...).
    public var warnings: [(path: String, message: String)] = []
    public var unavailable: [UnavailableFolder] = []
    /// Folders whose files vanished in a way that looks like a drive that is not there rather
    /// than files that were deleted: nothing under them was marked missing.
    public var held: [HeldFolder] = []
    /// The folders and files scanned, absolute and with symlinks resolved.
    public var roots: [String] = []
    public var symlinkLoops: [String] = []
    /// Entries named like music files that are not files (dangling symlinks, FIFOs, folders), and
    /// files of a kind of audio songbox does not play, and why.
    public var skipped: [(path: String, reason: String)] = []
    public var elapsed: Duration = .zero
}

/// A folder whose vanished tracks a scan kept as they were, and why.
public struct HeldFolder: Sendable, Equatable {
    public var path: String
    /// Why, in English (`reason`) and in the reader's language (`said.localized`).
    public var said: Message
    /// Tracks under it that the scan did not find and left alone.
    public var tracks: Int

    public var reason: String { said.description }
}

/// Where a scan is, for a progress display.
public enum ScanProgress: Sendable {
    case walked(files: Int)
    case read(done: Int, total: Int)
}

/// Indexes folders of music files (MP3, FLAC, Ogg Vorbis, Opus, WAV, AIFF) into the library.
///
/// Unseen is not gone: a track whose file is not found is marked missing (hidden, history
/// kept) and deleted only after `missingGrace`; and when the files vanished as a drive that is
/// not mounted makes them vanish (an empty folder, another filesystem, all or most of a folder
/// at once), nothing is marked unless the scan is told to `prune`.
public struct LibraryScanner: Sendable {
    public let store: LibraryStore
    public let logger: Logger
    /// Reader threads; all cores by default.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Files per write transaction.
    public var batchSize = 500
    /// How long a missing track is kept before a scan deletes it.
    public var missingGrace: TimeInterval = 30 * 86_400

    public init(store: LibraryStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Scans `roots` (folders or files). With `prune`, vanished files are taken as deleted
    /// whatever the folder looks like, and their tracks are removed at once.
    public func scan(_ roots: [String], now: Date = Date(), prune: Bool = false,
                     progress: @escaping @Sendable (ScanProgress) -> Void = { _ in }) throws(SongboxError) -> ScanReport {
        let lock = try LibraryLock.scan(database: store.path)
        defer { withExtendedLifetime(lock) {} }
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
        report.skipped = walker.skipped
        progress(.walked(files: walker.files.count))

        let known = try store.runner.read { db in try KnownFiles(db, roots: scannedRoots) }
        var toRead: [FoundFile] = []
        // What was found, by track id, and the unreadable files' paths: one lookup of each path.
        var seenTracks = Set<Int64>()
        var seenUnreadable = Set<String>()
        var backUnchanged: [Int64] = []
        for file in walker.files {
            let track = known.tracks[file.path]
            if let track { seenTracks.insert(track.id) }
            let failure = known.unreadable.isEmpty ? nil : known.unreadable[file.path]
            if failure != nil { seenUnreadable.insert(file.path) }
            if !known.excluded.isEmpty, known.excluded.contains(file.path) {
                report.excluded += 1
            } else if let track, track.size == file.size, track.mtime == file.mtime,
                      !Self.lyricsFileChanged(track, walker: walker) {
                report.unchanged += 1
                if track.missingSince != nil { backUnchanged.append(track.id) }
            } else if let failure, failure.size == file.size, failure.mtime == file.mtime {
                report.unreadable.append((file.path, failure.reason))
            } else {
                toRead.append(file)
            }
        }

        // Tracks whose files were not found, unless their folder is unavailable as a whole or
        // looks like a drive that is not there.
        let unseen = known.tracks.values.filter { track in
            !seenTracks.contains(track.id) && !walker.unavailable.contains { FilePaths.isInside(track.path, $0.path) }
        }
        // A file found at a new path claims its vanished track first: a moved track is not lost.
        let moves = MoveCandidates(unseen)
        let added = Int(now.timeIntervalSince1970)

        let outcome = try readAndStore(toRead, known: known, moves: moves, added: added, progress: progress)
        report.added = outcome.added
        report.updated = outcome.updated
        report.moved = outcome.moved
        report.unreadable += outcome.unreadable
        report.warnings = outcome.warnings

        let unclaimed = Set(moves.remaining())
        let lost = unseen.filter { unclaimed.contains($0.id) }
        report.held = prune ? [] : VanishGuard(roots: scannedRoots, known: known, lost: lost, walker: walker).holds()
        let held = report.held
        let goneTracks = lost.filter { track in !held.contains { FilePaths.isInside(track.path, $0.path) } }
        let expiry = Int64(added) - Int64(missingGrace.rounded(.down))
        let newlyMissing = goneTracks.filter { $0.missingSince == nil && !prune }.map(\.id)
        let deleted = goneTracks.filter { track in prune || track.missingSince.map { $0 <= expiry } ?? false }.map(\.id)
        let wasMissing = known.tracks.values.filter { $0.missingSince != nil }.map(\.id)
        let blocked = walker.unavailable.map(\.path) + held.map(\.path)
        let vanishedUnreadable = known.unreadable.keys.filter { path in
            !seenUnreadable.contains(path) && !blocked.contains { FilePaths.isInside(path, $0) }
        }
        let restoredInPlace = backUnchanged
        let devices = walker.rootDevices.filter { root, _ in !held.contains { $0.path == root } }
        let restored = try store.runner.write { db in
            for id in newlyMissing {
                try db.execute(sql: "UPDATE tracks SET missing_since = ? WHERE id = ?", arguments: [added, id])
            }
            for id in restoredInPlace { try db.execute(sql: "UPDATE tracks SET missing_since = NULL WHERE id = ?", arguments: [id]) }
            // The search index holds what the library view shows: out go the missing, back the restored.
            let flipped = newlyMissing + restoredInPlace
            if !flipped.isEmpty {
                try db.execute(sql: SearchIndex.refreshSQL(flipped.map(String.init).joined(separator: ","), many: true))
            }
            for id in deleted { try db.execute(sql: "DELETE FROM tracks WHERE id = ?", arguments: [id]) }
            if !deleted.isEmpty { try PlaylistStore.closePlaylistGaps(in: db) }
            for path in vanishedUnreadable { try db.execute(sql: "DELETE FROM unreadable WHERE path = ?", arguments: [path]) }
            for root in scannedRoots {
                try db.execute(sql: """
                    INSERT INTO folders (path, added, device) VALUES (?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET device = coalesce(excluded.device, device)
                    """, arguments: [root, added, devices[root].map { Int64(bitPattern: $0) }])
            }
            return try Int.fetchOne(db, sql: """
                SELECT count(*) FROM tracks WHERE missing_since IS NULL AND id IN (SELECT value FROM json_each(?))
                """, arguments: [LibrarySQL.jsonList(wasMissing)]) ?? 0
        }
        report.missing = newlyMissing.count
        report.removed = deleted.count
        report.restored = restored
        report.unreadable.sort { $0.path < $1.path }
        report.elapsed = clock.now - start
        return report
    }

    /// An `.lrc` beside the track came, went or changed since the last scan: its file is read again.
    static func lyricsFileChanged(_ track: KnownFiles.Entry, walker: FolderWalker) -> Bool {
        let hasLRC = walker.hasLyricsFile(beside: track.path)
        guard hasLRC || track.lrcMtime != nil else { return false }
        return LRCFile.beside(track.path)?.mtime != track.lrcMtime
    }

    /// The folders a scan without arguments goes over.
    public func rememberedFolders() throws(SongboxError) -> [String] { try store.tracks.musicFolders() }

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

    /// Reads `files` on `workers` threads, each with its own reader (a libmpg123 handle), and stores the
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
            // In path order, so a small library gets the same ids on every machine. The order is
            // found by index: sorting the results themselves copied each one some 200 times.
            let batch = batch.indices.sorted { batch[$0].0.path < batch[$1].0.path }.map { batch[$0] }
            do {
                let counts = try store.runner.write { db in
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
            let reader: TrackFileReader
            do throws(SongboxError) { reader = try TrackFileReader() } catch {
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
    struct Entry: Sendable {
        let id: Int64, path: String, size: Int64, mtime: Int64
        /// When a scan last found its file gone (unix seconds); nil while it is there.
        let missingSince: Int64?
        /// The modification time of the `.lrc` beside it when it was read.
        var lrcMtime: Int64? = nil
    }
    var tracks: [String: Entry] = [:]
    /// The filesystem each root was on when it was last scanned.
    var devices: [String: UInt64] = [:]
    var unreadable: [String: (size: Int64, mtime: Int64, reason: String)] = [:]
    var excluded = Set<String>()

    init(_ db: Database, roots: [String]) throws {
        for root in roots {
            // Paths under the root: `path = root` or `path` in [root + "/", root + "0") — a range
            // SQLite can answer from the unique index on path.
            let arguments: StatementArguments = [root, root + "/", root + "0"]
            let condition = "path = ? OR (path >= ? AND path < ?)"
            // Read raw, by column index: a rescan of an unchanged library is mostly this read.
            let statement = RowStatement(sql: "SELECT id, path, size, mtime, missing_since, lrc_mtime FROM tracks WHERE \(condition)",
                                         arguments: arguments)
            try RawReader(db: db, reuse: StatementReuse()).forEachRow(of: statement) { row in
                let entry = Entry(id: row.int64(0), path: row.text(1) ?? "", size: row.int64(2), mtime: row.int64(3),
                                  missingSince: row.isNull(4) ? nil : row.int64(4), lrcMtime: row.isNull(5) ? nil : row.int64(5))
                tracks[entry.path] = entry
            }
            for row in try Row.fetchAll(db, sql: "SELECT path, size, mtime, reason FROM unreadable WHERE \(condition)", arguments: arguments) {
                unreadable[row[0]] = (row[1], row[2], row[3])
            }
            excluded.formUnion(try String.fetchAll(db, sql: "SELECT path FROM excluded WHERE \(condition)", arguments: arguments))
            if let device = try Int64.fetchOne(db, sql: "SELECT device FROM folders WHERE path = ?", arguments: [root]) {
                devices[root] = UInt64(bitPattern: device)
            }
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

/// Tells files that were deleted from files that cannot be seen. When the tracks a scan did not
/// find look like a drive that is not there, their folder is held: nothing under it changes.
struct VanishGuard {
    let roots: [String]
    let known: KnownFiles
    /// Tracks not found (nor found moved), outside unavailable folders.
    let lost: [KnownFiles.Entry]
    let walker: FolderWalker

    /// More than this share of a folder's tracks gone at once holds it.
    static let heldShare = 0.2

    func holds() -> [HeldFolder] {
        // Only tracks that were there last time: a missing one vanishing again says nothing.
        let lost = self.lost.filter { $0.missingSince == nil }
        var holds: [HeldFolder] = []
        // An empty folder under a root: a mount point inside the music folder.
        for folder in walker.emptyFolders where !roots.contains(folder) {
            let count = lost.count { FilePaths.isInside($0.path, folder) }
            if count > 0 { holds.append(HeldFolder(path: folder, said: "the folder is empty (a drive not mounted?)", tracks: count)) }
        }
        for root in roots {
            let gone = lost.filter { track in
                FilePaths.isInside(track.path, root) && !holds.contains { FilePaths.isInside(track.path, $0.path) }
            }
            guard !gone.isEmpty else { continue }
            let present = known.tracks.values.count { $0.missingSince == nil && FilePaths.isInside($0.path, root) }
            let reason: Message
            if walker.emptyFolders.contains(root) {
                reason = Message("the folder is empty (a drive not mounted?)")
            } else if let before = known.devices[root], let now = walker.rootDevices[root], before != now {
                reason = Message("it is on another filesystem than when it was scanned (a drive not mounted?)")
            } else if gone.count == present {
                reason = Message("none of its \(present) tracks were found")
            } else if Double(gone.count) > Double(present) * Self.heldShare {
                reason = Message("\(gone.count) of its \(present) tracks were not found (more than a fifth at once)")
            } else {
                continue
            }
            holds.append(HeldFolder(path: root, said: reason, tracks: gone.count))
        }
        return holds.sorted { $0.path < $1.path }
    }
}
