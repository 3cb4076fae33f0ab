import ArgumentParser
import Foundation
import SongboxAnalysis
import SongboxAudio
import SongboxFiles
import SongboxLibrary
import SongboxWiring
import Synchronization

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: tr("Measure tempo, key, loudness and moods of the tracks not yet analyzed."),
        discussion: helpParagraphs(tr("""
            QUERY picks the tracks (all when empty); those analyzed already, as their files are now,
            are left alone, so an interrupted run goes on where it stopped and a changed file is
            done again. Runs at low priority on every core, one track a core. See docs/moods.md
            for what is measured. A file that cannot be decoded is listed and skipped.
            Exit status 0 when the run completed (even with undecodable files), 1 when no track
            matches the query; when the library fails (a full disk) the run stops with its error,
            keeping every track committed before.
            """)))

    @OptionGroup var library: LibraryOptions

    @Option(help: ArgumentHelp(tr("Tracks analyzed at once (default: one per core)."), valueName: "n"))
    var jobs: Int?

    // `.allUnrecognized`: a negated term such as `-artist:x` is query text, not an unknown option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Query words (all tracks when empty)."), valueName: "query"))
    var query: [String] = []

    func validate() throws {
        try QueryArguments.refuseUnknownOptions(query, known: ["--jobs"])
        if let jobs, jobs < 1 { throw ValidationError(tr("--jobs must be at least 1")) }
    }

    func run() throws {
        // Niceness is per thread on Linux and inherited: set before the workers start, it
        // covers them all, so playback on the same machine keeps its share.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 15)
        let store = try library.openStore()
        // Each track is committed (an interrupted run resumes), but not synced: features can be measured again.
        try store.runner.skipSyncPerCommit()
        let text = QueryArguments.join(query)
        // Remote tracks are analyzed from their offline copies.
        let cache = try Wiring.load().offlineCache
        let (pending, done) = try store.tracks.tracksToAnalyze(matching: text, copy: cache.completeFile(of:),
                                                              evaluated: LibraryOptions.functionPlaylists.evaluated(reachedBy: text, in: store))
        guard !pending.isEmpty else {
            if done == 0 { throw List.nothingFound(query, in: store) }
            print(tr(tr(count: done, "The \(done) matching track is analyzed.", "All \(done) matching tracks are analyzed.")))
            return
        }
        let workers = min(pending.count, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        let display = ProgressDisplay(unit: Message("tracks"), verb: Message("analyzed"), linesFrom: 10)
        let started = ContinuousClock.now
        let run = AnalysisRun(store: store, tracks: pending, display: display)
        run.start(workers: workers)
        display.finish()
        let outcome = run.outcome
        for failure in outcome.failures.sorted(by: { $0.path < $1.path }) {
            print(tr("undecodable: \(FileName.display(failure.path)): \(failure.reason)"))
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let speed = seconds > 0 ? outcome.audioSeconds / seconds : 0
        let analyzed = tr(count: outcome.analyzed, "Analyzed \(outcome.analyzed) track", "Analyzed \(outcome.analyzed) tracks")
        let cores = tr(count: workers, "on \(workers) core", "on \(workers) cores")
        var summary = tr("\(analyzed) (\(Self.clock(outcome.audioSeconds)) of audio) in \(seconds, digits: 1) s, \(speed, digits: 0)x real time \(cores): \(outcome.failures.count) undecodable, \(done) already analyzed")
        if outcome.changed > 0 { summary += tr(", \(outcome.changed) changed while analyzed (left for the next run)") }
        print(summary)
        if let stopped = outcome.stopped { throw stopped }
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.isFinite ? max(0, seconds) : 0)
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }
}

/// A pool of worker threads over a list of tracks: each worker takes the next track, decodes it
/// with its own decoder (freed before the next), analyzes it and commits the result.
final class AnalysisRun: Sendable {
    struct Outcome: Sendable {
        var analyzed = 0
        var changed = 0
        var audioSeconds = 0.0
        var failures: [(path: String, reason: String)] = []
        /// What stopped the run: the library failed (a full disk, a lost share). Every track
        /// committed before it stays.
        var stopped: (any Error)?
    }

    private let store: LibraryStore
    private let tracks: [AnalysisCandidate]
    private let display: ProgressDisplay
    private let next = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let state = Mutex(Outcome())

    init(store: LibraryStore, tracks: [AnalysisCandidate], display: ProgressDisplay) {
        self.store = store
        self.tracks = tracks
        self.display = display
    }

    var outcome: Outcome { state.withLock { $0 } }

    /// Runs `workers` threads until every track is done; returns when they all have.
    func start(workers: Int) {
        let group = DispatchGroup()
        for index in 0..<workers {
            group.enter()
            let thread = Thread { [self] in
                work()
                group.leave()
            }
            thread.name = "songbox-analyze-\(index)"
            // The analysis state is on the heap: 1 MB of stack is plenty.
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
    }

    private func work() {
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < tracks.count, state.withLock({ $0.stopped == nil }) else { return }
            let track = tracks[index]
            do {
                let features = try TrackAnalysis.analyze(track.file, channels: track.channels)
                let stored = try store.tracks.saveFeatures(features, of: track)
                state.withLock { outcome in
                    if stored {
                        outcome.analyzed += 1
                        outcome.audioSeconds += features.duration
                    } else {
                        outcome.changed += 1
                    }
                }
            } catch let error as DecodeError {
                state.withLock { $0.failures.append((track.path, error.message)) }
            } catch {
                // Not the file's fault: the next track would fail the same way.
                state.withLock { $0.stopped = $0.stopped ?? error }
                return
            }
            let done = finished.add(1, ordering: .relaxed).newValue
            display.update(done: done, total: tracks.count)
        }
    }
}
