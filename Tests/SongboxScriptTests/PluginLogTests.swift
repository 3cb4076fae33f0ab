import Foundation
import SongboxScript
import Synchronization
import Testing

/// `PluginLog` on a manual clock: what a plugin's flood of lines becomes in the log, second by
/// second (the daemon end to end: PluginBoundsTests).
@Suite struct PluginLogTests {
    final class Recorder: Sendable {
        let time = Mutex(0.0)
        let written = Mutex<[String]>([])

        func log(_ limits: PluginLog.Limits = PluginLog.Limits()) -> PluginLog {
            PluginLog(limits: limits, now: { self.time.withLock { $0 } },
                      write: { line in self.written.withLock { $0.append(line.text) } },
                      note: { text in self.written.withLock { $0.append("note: " + text) } })
        }

        func pass(_ seconds: Double) { time.withLock { $0 += seconds } }
        func take() -> [String] { written.withLock { list in defer { list = [] }; return list } }
    }

    @Test func theSameLineIsSaidOnceAWindowWithItsCount() {
        let recorder = Recorder()
        let log = recorder.log()
        // 640 lines in 10 s (a 64th of a second apart: exact sums): the first three, then the
        // count once the window ended (the plugin's thread looks after each job).
        for _ in 0..<640 {
            log.log(.error("stuck"))
            recorder.pass(1.0 / 64)
        }
        #expect(recorder.take() == ["stuck", "stuck", "stuck"])
        log.flush()
        #expect(recorder.take() == ["note: the same message 637 more times in 10 s"])
        // Going on: nothing more until the next window ends; a line within it says it at once.
        for _ in 0..<320 {
            log.log(.error("stuck"))
            recorder.pass(1.0 / 64)
        }
        log.flush()
        #expect(recorder.take() == [])
        recorder.pass(5)
        log.flush()
        #expect(recorder.take() == ["note: the same message 320 more times in 10 s"])
        log.log(.error("stuck"))
        log.log(.printed("moved on\n"))
        #expect(recorder.take() == ["note: the same message 1 more time in 0 s", "moved on\n"])
    }

    @Test func aLineSaidTwiceIsWrittenTwice() {
        let recorder = Recorder()
        let log = recorder.log()
        for line in ["denied", "denied", "done"] { log.log(.printed(line)) }
        #expect(recorder.take() == ["denied", "denied", "done"])
    }

    @Test func aFloodIsCutToTheBucketAndTheDroppedAreCounted() {
        let recorder = Recorder()
        var limits = PluginLog.Limits()
        limits.burst = 10
        limits.perSecond = 2
        let log = recorder.log(limits)
        for index in 0..<1000 { log.log(.logged(.info, "line \(index)", location: "x.lua:1")) }
        #expect(recorder.take() == (0..<10).map { "line \($0)" })
        recorder.pass(1)
        for index in 1000..<1010 { log.log(.logged(.info, "line \(index)", location: "x.lua:1")) }
        #expect(recorder.take() == ["note: 990 log lines dropped (more than 2 a second)", "line 1000", "line 1001"])
        // Stopping says what was dropped since.
        log.flush(final: true)
        #expect(recorder.take() == ["note: 8 log lines dropped (more than 2 a second)"])
    }

    @Test func aLongLineIsCutSayingHowMuch() {
        let recorder = Recorder()
        var limits = PluginLog.Limits()
        limits.lineLength = 10
        let log = recorder.log(limits)
        let word = "שָׁלוֹם", marked = word.unicodeScalars.count
        log.log(.error(word + String(repeating: "x", count: 100)))
        // Cut by Unicode scalars: the points count, the bytes stay bounded.
        #expect(recorder.take() == [word + String(repeating: "x", count: 10 - marked) + "… (\(100 + marked - 10) more characters cut)"])
    }
}
