import Foundation
import SongboxLibrary
import Synchronization

/// Scan progress on standard error: a bar redrawn in place on a terminal, plain lines at each
/// tenth otherwise (logs, pipes, CI).
final class ProgressDisplay: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let state = Mutex((lastTenth: 0, shown: 0, drawn: false))

    func update(_ progress: ScanProgress) {
        guard case .read(let done, let total) = progress, total > 0 else { return }
        state.withLock { state in
            // Reader threads report concurrently: never draw the bar going backwards.
            guard done > state.shown else { return }
            state.shown = done
            if isTerminal {
                let width = 30
                let filled = done * width / total
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) files".utf8))
                state.drawn = true
            } else if total >= 1000 {
                let tenth = done * 10 / total
                if tenth > state.lastTenth {
                    state.lastTenth = tenth
                    FileHandle.standardError.write(Data("read \(done)/\(total) files\n".utf8))
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
