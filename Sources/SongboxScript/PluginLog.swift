import Logging
import Synchronization

/// What a daemon's plugin writes to the log (its `print`, `songbox.log.*`, its errors), bounded,
/// so a plugin in a loop cannot fill an SD card through journald (DESIGN rule 12):
/// - a line longer than `Limits.lineLength` characters is cut, saying how much was cut;
/// - a line the same as the one before, beyond `Limits.sameLines` in a row, is folded: it is
///   counted, and said once a window ends (`the same message 9412 more times in 10 s`), or when
///   another line comes;
/// - lines (and fold notes) take tokens from a bucket of `Limits.burst` that refills at
///   `Limits.perSecond`; what finds it empty is dropped and counted, and the next line that gets
///   through says how many were.
/// The notes go to `note` (a warning naming the plugin); the lines let through to `write`.
public final class PluginLog: Sendable {
    public struct Limits: Sendable {
        public var lineLength = 1000
        /// The same line this many times in a row is written (a plugin may mean it); more is folded.
        public var sameLines = 3
        public var burst = 100.0
        public var perSecond = 5.0
        public var foldWindow = 10.0
        /// The last lines written, kept for a look (`pluginlog`, the web app's Plugins page).
        public var recentLines = 20

        public init() {}
    }

    /// A line as the plugin wrote it.
    public enum Line: Sendable, Equatable {
        case printed(String)
        case logged(Logger.Level, String, location: String)
        case error(String)

        /// What the plugin wrote (a printed line with its line break).
        public var text: String {
            switch self {
            case .printed(let text), .logged(_, let text, _), .error(let text): text
            }
        }

        func with(text: String) -> Line {
            switch self {
            case .printed: .printed(text)
            case .logged(let level, _, let location): .logged(level, text, location: location)
            case .error: .error(text)
            }
        }
    }

    private struct State {
        var last: Line?
        /// Whether `last` was written (not dropped): only then are the same lines folded.
        var lastWritten = false
        /// Times `last` was written in a row.
        var sameWritten = 0
        /// Lines the same as `last` since `since`, not written.
        var repeats = 0
        var since = 0.0
        var tokens: Double
        var refilled: Double?
        var dropped = 0
        /// The last lines written, oldest first, with when (`now`'s seconds).
        var recent: [(at: Double, line: Line)] = []
    }

    private let limits: Limits
    private let now: @Sendable () -> Double
    private let write: @Sendable (Line) -> Void
    private let note: @Sendable (String) -> Void
    private let state: Mutex<State>

    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Double,
                write: @escaping @Sendable (Line) -> Void, note: @escaping @Sendable (String) -> Void) {
        self.limits = limits
        self.now = now
        self.write = write
        self.note = note
        state = Mutex(State(tokens: limits.burst))
    }

    /// Writes `line` (cut), or folds or drops it.
    public func log(_ line: Line) {
        let line = cut(line)
        let time = now()
        let (lines, notes) = state.withLock { state -> ([Line], [String]) in
            var notes: [String] = []
            if state.lastWritten, state.last == line {
                if state.repeats == 0, state.sameWritten < limits.sameLines, take(&state, at: time, into: &notes) {
                    state.sameWritten += 1
                    return ([line], notes)
                }
                state.repeats += 1
                if time - state.since >= limits.foldWindow { fold(&state, at: time, into: &notes) }
                return ([], notes)
            }
            fold(&state, at: time, into: &notes)
            state.last = line
            state.since = time
            state.lastWritten = take(&state, at: time, into: &notes)
            state.sameWritten = 1
            guard state.lastWritten else {
                state.dropped += 1
                return ([], notes)
            }
            return ([line], notes)
        }
        for text in notes { note(text) }
        for line in lines { write(line) }
        if !lines.isEmpty, limits.recentLines > 0 {
            state.withLock { state in
                state.recent += lines.map { (at: time, line: $0) }
                state.recent.removeFirst(max(0, state.recent.count - limits.recentLines))
            }
        }
    }

    /// The last lines written (at most `Limits.recentLines`), oldest first, each with how many
    /// seconds ago.
    public var recent: [(secondsAgo: Double, line: Line)] {
        let time = now()
        return state.withLock { $0.recent.map { (secondsAgo: max(0, time - $0.at), line: $0.line) } }
    }

    /// Says the repeats of a window that ended (or of any window, `final`: the plugin stops).
    public func flush(final: Bool = false) {
        let time = now()
        let notes = state.withLock { state -> [String] in
            var notes: [String] = []
            if state.repeats > 0, final || time - state.since >= limits.foldWindow { fold(&state, at: time, into: &notes) }
            if final, state.dropped > 0 {
                notes.append("\(state.dropped) log lines dropped (more than \(Self.rate(limits.perSecond)) a second)")
                state.dropped = 0
            }
            return notes
        }
        for text in notes { note(text) }
    }

    /// The repeats so far said (a fold note takes a token; without one they count as dropped),
    /// and a new window begun.
    private func fold(_ state: inout State, at time: Double, into notes: inout [String]) {
        guard state.repeats > 0 else { return }
        let seconds = max(0, time - state.since)
        let said = "the same message \(state.repeats) more time\(state.repeats == 1 ? "" : "s") in \(seconds < 10 ? Self.rate(seconds) : String(Int(seconds.rounded()))) s"
        if take(&state, at: time, into: &notes) { notes.append(said) } else { state.dropped += state.repeats }
        state.repeats = 0
        state.since = time
    }

    /// A token from the bucket, refilled for the time since; when one is there and lines were
    /// dropped before, the note that says how many.
    private func take(_ state: inout State, at time: Double, into notes: inout [String]) -> Bool {
        if let refilled = state.refilled, time > refilled {
            state.tokens = min(limits.burst, state.tokens + (time - refilled) * limits.perSecond)
        }
        state.refilled = time
        guard state.tokens >= 1 else { return false }
        state.tokens -= 1
        if state.dropped > 0 {
            notes.append("\(state.dropped) log lines dropped (more than \(Self.rate(limits.perSecond)) a second)")
            state.dropped = 0
        }
        return true
    }

    /// A line's text cut to `lineLength` characters (Unicode scalars: bytes stay bounded too).
    private func cut(_ line: Line) -> Line {
        let scalars = line.text.unicodeScalars
        guard scalars.count > limits.lineLength else { return line }
        let kept = scalars.prefix(limits.lineLength)
        let left = scalars.count - limits.lineLength
        return line.with(text: String(String.UnicodeScalarView(kept)) + "… (\(left) more characters cut)")
    }

    /// 5 -> "5", 2.5 -> "2.5".
    private static func rate(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String((value * 10).rounded() / 10)
    }

    /// A logger whose lines go through this bound (`songbox.log.*` of the plugin), at `level`.
    public func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "songbox.plugin") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let log: PluginLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let location = event.metadata?["script"].map { "\($0)" } ?? ""
            log.log(.logged(event.level, "\(event.message)", location: location))
        }
    }
}
