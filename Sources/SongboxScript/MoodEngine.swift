import Foundation
import SongboxLibrary

/// A mood as the engine scores it: the moods a `+` joins (`"calm+happy"`), each a set of
/// feature ranges or the scores a Lua function gave.
struct MoodSpec: Sendable {
    struct Range: Sendable, Equatable {
        var feature: MoodFeature
        var low: Double
        var high: Double
    }

    enum Rule: Sendable {
        case ranges([Range])
        /// A function mood's answers, by track id (0...1).
        case scores([Int64: Double])
    }

    struct Part: Sendable {
        var name: String
        var rule: Rule
    }

    var label: String
    var parts: [Part]
}

/// One line of why a track scored what it did.
struct MoodReason: Sendable, Equatable {
    var mood: String
    /// A feature (`"energy"`), or `"function"` for a function mood, `"liked"`, `"skips"`.
    var what: String
    var value: Double?
    var range: (low: Double, high: Double)?
    var score: Double

    static func == (a: MoodReason, b: MoodReason) -> Bool {
        a.mood == b.mood && a.what == b.what && a.value == b.value && a.range?.low == b.range?.low
            && a.range?.high == b.range?.high && a.score == b.score
    }
}

struct MoodJudgement: Sendable {
    var score: Double
    var reasons: [MoodReason]
}

/// Scoring, choosing and ordering for `songbox.mood.*` and `songbox.similar`: plain Swift over
/// `MoodTrack`s, so a playlist over 20,000 tracks takes milliseconds.
enum MoodEngine {
    /// A liked track's score goes up by this much (at most to 1).
    static let likedBonus = 0.1
    /// Each early skip in a mood multiplies the track's score in it by this (at most 10 count).
    static let skipFactor = 0.6

    /// How well `track` fits `mood` (0...1) and why; nil when it cannot be told (no feature the
    /// ranges name was measured, or a function mood gave no score for it). `skips`: early skips
    /// by mood name. `explain: false` leaves the reasons out (what a ranking of every track
    /// needs: no allocation per track).
    static func judge(_ track: MoodTrack, _ mood: MoodSpec, skips: [String: [Int64: Int]] = [:],
                      explain: Bool = true) -> MoodJudgement? {
        var product = 1.0
        var reasons: [MoodReason] = []
        for part in mood.parts {
            guard let judged = judge(track, part, explain: explain) else { return nil }
            product *= judged.score
            reasons += judged.reasons
        }
        // The geometric mean: a track must fit every mood joined, not just one of them well.
        var score = mood.parts.isEmpty ? 0 : pow(product, 1 / Double(mood.parts.count))
        for part in mood.parts {
            let count = min(skips[part.name]?[track.id] ?? 0, 10)
            guard count > 0 else { continue }
            let factor = pow(skipFactor, Double(count))
            score *= factor
            if explain { reasons.append(MoodReason(mood: part.name, what: "skips", value: Double(count), score: factor)) }
        }
        if track.liked {
            score = min(1, score + likedBonus)
            if explain { reasons.append(MoodReason(mood: mood.label, what: "liked", value: 1, score: likedBonus)) }
        }
        return MoodJudgement(score: score, reasons: reasons)
    }

    private static func judge(_ track: MoodTrack, _ part: MoodSpec.Part, explain: Bool) -> (score: Double, reasons: [MoodReason])? {
        switch part.rule {
        case .scores(let scores):
            guard let score = scores[track.id] else { return nil }
            return (score, explain ? [MoodReason(mood: part.name, what: "function", score: score)] : [])
        case .ranges(let ranges):
            var total = 0.0, worst = 1.0, measured = 0, reasons: [MoodReason] = []
            for range in ranges {
                guard let value = track.value(range.feature) else { continue }
                let outside = value < range.low ? range.low - value : value > range.high ? value - range.high : 0
                let score = max(0, 1 - outside / range.feature.falloff)
                total += score
                worst = min(worst, score)
                measured += 1
                guard explain else { continue }
                reasons.append(MoodReason(mood: part.name, what: range.feature.rawValue, value: value,
                                          range: (range.low, range.high), score: score))
            }
            guard measured > 0 else { return nil }
            // Half the mean, half the worst range: one range far off pulls the track out of
            // the mood however well the others fit.
            return ((total / Double(measured) + worst) / 2, reasons)
        }
    }

    // MARK: Playlists

    enum Budget: Sendable, Equatable {
        case seconds(Double)
        case count(Int)
    }

    struct Request: Sendable {
        /// The mood, or nil for a trajectory (`from` and `to`).
        var mood: MoodSpec?
        var from: MoodSpec?
        var to: MoodSpec?
        var budget: Budget
        /// Tracks scoring less are never picked.
        var minimumScore: Double = 0.5
        /// Where the order starts from (a track's point), when given.
        var start: [Float]?
    }

    struct Pick: Sendable {
        var track: MoodTrack
        var score: Double
        var reasons: [MoodReason]
    }

    /// The tracks of `candidates` that fill the request's budget, best first, then ordered so
    /// that neighbours sound alike (nearest neighbour on the feature vector) or, for a
    /// trajectory, from the `from` mood to the `to` mood. No track twice.
    static func playlist(_ candidates: [MoodTrack], _ request: Request, skips: [String: [Int64: Int]] = [:]) -> [Pick] {
        if let mood = request.mood {
            var judged = candidates.compactMap { track -> Pick? in
                guard let judgement = judge(track, mood, skips: skips, explain: false),
                      judgement.score >= request.minimumScore else { return nil }
                return Pick(track: track, score: judgement.score, reasons: [])
            }
            judged.sort { $0.score != $1.score ? $0.score > $1.score : $0.track.id < $1.track.id }
            var picks: [Pick] = [], total = 0.0
            for pick in judged {
                if case .count(let count) = request.budget, picks.count >= count { break }
                if case .seconds(let seconds) = request.budget, total >= seconds { break }
                var explained = pick
                explained.reasons = judge(pick.track, mood, skips: skips)?.reasons ?? []
                picks.append(explained)
                total += pick.track.duration
            }
            return nearestNeighbourOrder(picks, from: request.start)
        }
        guard let from = request.from, let to = request.to else { return [] }
        return trajectory(candidates, from: from, to: to, request, skips: skips)
    }

    /// From one mood to another: each next track is the one that best fits the blend of the two
    /// at its place in the budget (all `from` at the start, all `to` at the end); the picks are
    /// then ordered by how much more they fit `to` than `from`, so the playlist moves one way.
    private static func trajectory(_ candidates: [MoodTrack], from: MoodSpec, to: MoodSpec, _ request: Request,
                                   skips: [String: [Int64: Int]]) -> [Pick] {
        var pool = candidates.compactMap { track -> Judged? in
            let a = judge(track, from, skips: skips, explain: false)?.score, b = judge(track, to, skips: skips, explain: false)?.score
            guard max(a ?? 0, b ?? 0) >= request.minimumScore else { return nil }
            return Judged(track: track, from: a, to: b)
        }
        var chosen: [(judged: Judged, score: Double)] = [], total = 0.0
        while !pool.isEmpty {
            let t: Double
            switch request.budget {
            case .count(let count):
                if chosen.count >= count { return finish(chosen, from: from, to: to, skips: skips) }
                t = count > 1 ? Double(chosen.count) / Double(count - 1) : 0
            case .seconds(let seconds):
                if total >= seconds { return finish(chosen, from: from, to: to, skips: skips) }
                t = min(1, total / seconds)
            }
            func blend(_ j: Judged) -> Double { (1 - t) * (j.from ?? 0) + t * (j.to ?? 0) }
            var best = 0
            for index in pool.indices.dropFirst() {
                let a = blend(pool[index]), b = blend(pool[best])
                if a > b || (a == b && pool[index].track.id < pool[best].track.id) { best = index }
            }
            let pick = pool.remove(at: best)
            chosen.append((judged: pick, score: blend(pick)))
            total += pick.track.duration
        }
        return finish(chosen, from: from, to: to, skips: skips)
    }

    /// A track judged against both ends of a trajectory.
    private struct Judged {
        var track: MoodTrack
        var from: Double?
        var to: Double?
        /// How much more it fits `to` than `from`.
        var lean: Double { (to ?? 0) - (from ?? 0) }
    }

    private static func finish(_ chosen: [(judged: Judged, score: Double)], from: MoodSpec, to: MoodSpec,
                               skips: [String: [Int64: Int]]) -> [Pick] {
        let ordered = chosen.enumerated().sorted { a, b in
            let x = a.element.judged.lean, y = b.element.judged.lean
            return x != y ? x < y : a.offset < b.offset
        }
        return ordered.map { entry in
            let track = entry.element.judged.track
            let reasons = (judge(track, from, skips: skips)?.reasons ?? []) + (judge(track, to, skips: skips)?.reasons ?? [])
            return Pick(track: track, score: entry.element.score, reasons: reasons)
        }
    }

    /// `picks` reordered: the first is the one nearest `start` (or the best scored without a
    /// start), then each next is the nearest to the one before.
    static func nearestNeighbourOrder(_ picks: [Pick], from start: [Float]?) -> [Pick] {
        var left = picks, ordered: [Pick] = []
        ordered.reserveCapacity(picks.count)
        var current = start
        while !left.isEmpty {
            var best = 0
            if let current {
                var nearest = Double.infinity
                for (index, pick) in left.enumerated() {
                    let d = distance(current, point(pick.track))
                    if d < nearest { nearest = d; best = index }
                }
            }
            let pick = left.remove(at: best)
            ordered.append(pick)
            current = point(pick.track)
        }
        return ordered
    }

    // MARK: Similarity

    /// Where a track sits for similarity: its feature vector, else its six features scaled to
    /// about 0..1 (an unmeasured one in the middle).
    static func point(_ track: MoodTrack) -> [Float] {
        if !track.vector.isEmpty { return track.vector }
        let scale: [MoodFeature: (Double, Double)] = [.tempo: (40, 200), .loudness: (-60, 60)]
        return MoodFeature.allCases.map { feature in
            guard let value = track.value(feature) else { return 0.5 }
            let (offset, width) = scale[feature] ?? (0, 1)
            return Float((value - offset) / width)
        }
    }

    /// Euclidean distance over the numbers both have.
    static func distance(_ a: [Float], _ b: [Float]) -> Double {
        var sum: Float = 0
        for (x, y) in zip(a, b) { sum += (x - y) * (x - y) }
        return Double(sum).squareRoot()
    }

    /// The `count` tracks nearest `track` (itself left out), nearest first.
    static func similar(to track: MoodTrack, among tracks: [MoodTrack], count: Int) -> [(track: MoodTrack, distance: Double)] {
        let origin = point(track)
        // Distances by index, sorted: moving 20,000 small pairs, not 20,000 tracks.
        var measured: [(index: Int, distance: Double)] = []
        measured.reserveCapacity(tracks.count)
        for (index, other) in tracks.enumerated() where other.id != track.id {
            measured.append((index, distance(origin, point(other))))
        }
        measured.sort { $0.distance != $1.distance ? $0.distance < $1.distance : tracks[$0.index].id < tracks[$1.index].id }
        return measured.prefix(max(0, count)).map { (track: tracks[$0.index], distance: $0.distance) }
    }

    // MARK: Words

    /// Why, in a line: `calm 0.92: energy 0.21 in 0–0.4 (1.00), tempo 84 in 60–100 (1.00); liked +0.1`.
    static func why(_ score: Double, _ reasons: [MoodReason]) -> String {
        var parts: [String] = []
        for reason in reasons {
            switch reason.what {
            case "liked": parts.append("liked +\(number(reason.score))")
            case "skips": parts.append("skipped \(Int(reason.value ?? 0))× in \(reason.mood) ×\(number(reason.score))")
            case "function": parts.append("\(reason.mood) says \(number(reason.score))")
            default:
                let value = reason.value.map(number) ?? "?"
                let range = reason.range.map { " in \(number($0.low))–\(number($0.high))" } ?? ""
                parts.append("\(reason.mood) \(reason.what) \(value)\(range) (\(number(reason.score)))")
            }
        }
        return "score \(number(score)): " + parts.joined(separator: ", ")
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value.rounded() == value, value.magnitude < 1e9 { return String(Int(value)) }
        return String(format: value.magnitude >= 10 ? "%.1f" : "%.2f", value)
    }
}
