import Testing
@testable import SongboxAudio

@Suite struct PlayQueueTests {
    private func tracks(_ names: String...) -> [PlayableTrack] {
        names.enumerated().map { PlayableTrack(trackID: Int64($0.offset + 1), path: "/music/\($0.element).mp3", duration: 60) }
    }

    private func paths(_ queue: PlayQueue) -> [String] {
        queue.items.map { String($0.track.path.dropFirst(7).dropLast(4)) }
    }

    @Test func idsStayWithTheirItemsAndEveryEditBumpsTheVersion() {
        var queue = PlayQueue()
        let ids = queue.add(tracks("a", "b", "c"))
        #expect(ids == [1, 2, 3])
        #expect(queue.version == 2)
        let moved = queue.move(id: 3, to: 0)
        #expect(moved)
        #expect(paths(queue) == ["c", "a", "b"])
        #expect(queue.position(of: 3) == 0 && queue.item(id: 1)?.track.path == "/music/a.mp3")
        #expect(queue.version == 3)
        let removed = queue.remove(ids: [1])
        #expect(removed == 1)
        #expect(queue.version == 4)
        let none = queue.remove(ids: [42])
        #expect(none == 0)
        #expect(queue.version == 4, "a change that changes nothing keeps the version")
        // Ids are never reused, even after the item left.
        let added = queue.add(tracks("d"))
        #expect(added == [4])
        queue.clear()
        #expect(queue.isEmpty && queue.version == 6)
    }

    /// What MPD's `plchanges` answers: the positions whose item was added or shifted since a
    /// version, not the whole queue.
    @Test func changesSinceAVersionAreTheItemsThatGotANewPlace() {
        var queue = PlayQueue()
        queue.add(tracks("a", "b", "c", "d", "e"))
        let start = queue.version
        #expect(queue.changes(since: start).isEmpty)
        queue.add(tracks("f"))                                   // at the end: only it
        #expect(queue.changes(since: start) == [5])
        let afterAdd = queue.version
        queue.move(id: 2, to: 3)                                 // b from 1 to 3: c, d shift down
        #expect(paths(queue) == ["a", "c", "d", "b", "e", "f"])
        #expect(queue.changes(since: afterAdd) == [1, 2, 3])
        #expect(queue.changes(since: start) == [1, 2, 3, 5])
        let afterMove = queue.version
        queue.remove(ids: [1])                                   // a: everything after shifts
        #expect(queue.changes(since: afterMove) == [0, 1, 2, 3, 4])
        queue.add(tracks("g"), placement: .position(1))
        #expect(paths(queue) == ["c", "g", "d", "b", "e", "f"])
        #expect(queue.changes(since: queue.version - 1) == [1, 2, 3, 4, 5])
        // A version it never had (a client from before a restart, or a made-up one): everything.
        #expect(queue.changes(since: queue.version + 1) == Array(0..<6))
        #expect(queue.changes(since: -1) == Array(0..<6))
        #expect(queue.changes(since: 0) == Array(0..<6))
        // A restored queue: its items date from the restored version; it equals the original.
        var restored = PlayQueue(compact: queue.compactEncoding())!
        #expect(restored == queue)
        #expect(restored.changes(since: queue.version).isEmpty)
        #expect(restored.changes(since: queue.version - 1) == Array(0..<6))
        restored.add(tracks("h"))
        #expect(restored.changes(since: queue.version) == [6])
    }

    @Test func addingNextGoesRightAfterThePlayingItem() {
        var queue = PlayQueue()
        queue.add(tracks("a", "b", "c"))
        queue.add(tracks("x"), placement: .next, current: 2)
        #expect(paths(queue) == ["a", "b", "x", "c"])
        queue.add(tracks("y"), placement: .next)
        #expect(paths(queue).first == "y", "with nothing playing, next is the front")
        queue.add(tracks("z"), placement: .position(99))
        #expect(paths(queue).last == "z")
    }

    @Test func theUserLanePlaysBeforeAutoplayAdditions() {
        var queue = PlayQueue()
        queue.add(tracks("a"))
        queue.add(tracks("auto1", "auto2"), lane: .autoplay)
        queue.add(tracks("mine"), current: 1)
        #expect(paths(queue) == ["a", "mine", "auto1", "auto2"])
        // Autoplay items that already played are behind the current one: not in the way.
        queue.add(tracks("later"), current: queue.items[2].id)
        #expect(paths(queue) == ["a", "mine", "auto1", "later", "auto2"])
        #expect(queue.items.map(\.lane) == [.user, .user, .autoplay, .user, .autoplay])
    }

    @Test func shuffleKeepsEveryItemAndPutsThePlayingOneFirst() {
        var queue = PlayQueue()
        queue.add(tracks("a", "b", "c", "d", "e", "f", "g", "h"))
        var generator = SeededRandom(seed: 7)
        queue.shuffle(current: 5, using: &generator)
        #expect(queue.items.first?.id == 5)
        #expect(Set(queue.items.map(\.id)) == Set(1...8))
        #expect(queue.items.map(\.id) != [5, 1, 2, 3, 4, 6, 7, 8], "seed 7 moves things around")
        var again = PlayQueue()
        again.add(tracks("a", "b", "c", "d", "e", "f", "g", "h"))
        var same = SeededRandom(seed: 7)
        again.shuffle(current: 5, using: &same)
        #expect(again.items == queue.items, "the same seed gives the same order")
    }

    @Test func theRulesForPlaysAndSkips() {
        let rules = PlayCountRules()
        #expect(rules.count(reason: .finished, played: 30, duration: 30) == .play)
        #expect(rules.count(reason: .stopped, played: 15, duration: 30) == .play, "half the track")
        #expect(rules.count(reason: .skipped, played: 240, duration: 1200) == .play, "four minutes of a long track")
        #expect(rules.count(reason: .skipped, played: 12, duration: 60) == .skip)
        #expect(rules.count(reason: .replaced, played: 12, duration: 60) == .skip)
        #expect(rules.count(reason: .skipped, played: 9.9, duration: 60) == nil, "too short to be a skip")
        #expect(rules.count(reason: .stopped, played: 20, duration: 60) == nil, "stopping is not a skip")
        #expect(rules.count(reason: .error, played: 59, duration: 60) == nil, "a failed file is never a play")
        #expect(rules.count(reason: .finished, played: 0, duration: 0) == nil)
    }

    @Test func fadeCurves() {
        #expect(Gain.volume(from: 0, to: 100, fraction: 0.25, curve: .linear) == 25)
        // Logarithmic: even steps in decibels, so halfway from 100 to 1 is 10 (-20 dB of -40 dB).
        #expect(abs(Gain.volume(from: 100, to: 1, fraction: 0.5, curve: .logarithmic) - 10) < 1e-9)
        #expect(Gain.volume(from: 100, to: 0, fraction: 1, curve: .logarithmic) == 0)
        #expect(Gain.volume(from: 0, to: 100, fraction: 0, curve: .logarithmic) == 0, "silence is silence")
        #expect(abs(Gain.volume(from: 0, to: 100, fraction: 0.5, curve: .logarithmic) - 100 * pow(10, -1.5)) < 1e-9)
        // An hour-long fade (an alarm's fade-in) on the player's clock.
        let hour = Fade(from: 0, to: 100, start: 10, length: 3600, curve: .linear)
        #expect(hour.volume(at: 10) == 0 && hour.volume(at: 1810) == 50 && hour.volume(at: 3610) == 100)
        #expect(!hour.isDone(at: 3609.9) && hour.isDone(at: 3610))
        let logHour = Fade(from: 100, to: 1, start: 0, length: 3600, curve: .logarithmic)
        #expect(abs(logHour.volume(at: 1800) - 10) < 1e-9)
    }
}

import Foundation
