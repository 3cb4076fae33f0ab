import Foundation
import SongboxLibrary
import Synchronization

/// Progress on standard error: a bar redrawn in place on a terminal, plain lines at each
/// tenth otherwise (logs, pipes, CI).
final class ProgressDisplay: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let state = Mutex((lastTenth: 0, shown: 0, drawn: false))
    /// What is counted ("files"), and what is done to them ("read"), for the lines; in the
    /// reader's language.
    private let unit: String
    private let verb: String
    /// Off a terminal, the fewest items worth a line at each tenth.
    private let linesFrom: Int

    init(unit: Message = "files", verb: Message = "read", linesFrom: Int = 1000) {
        self.unit = tr(unit)
        self.verb = tr(verb)
        self.linesFrom = linesFrom
    }

    func update(_ progress: ScanProgress) {
        guard case .read(let done, let total) = progress else { return }
        update(done: done, total: total)
    }

    func update(done: Int, total: Int) {
        guard total > 0 else { return }
        state.withLock { state in
            // Reader threads report concurrently: never draw the bar going backwards.
            guard done > state.shown else { return }
            state.shown = done
            if isTerminal {
                let width = 30
                let filled = done * width / total
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) \(unit)".utf8))
                state.drawn = true
            } else if total >= linesFrom {
                let tenth = done * 10 / total
                if tenth > state.lastTenth {
                    state.lastTenth = tenth
                    complain("\(verb) \(done)/\(total) \(unit)")
                }
            }
        }
    }

    /// Clears the bar before the summary is printed.
    func finish() {
        state.withLock { state in
            if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
    }
}
