import Foundation
import SongboxLibrary
import Synchronization

/// `songbox.mood.*` and `songbox.similar`. Moods live in Lua (`MoodAPI.prelude`: `define`,
/// `list`, the presets of `plugins/moods.lua`, function moods); the heavy part is Swift
/// (`MoodEngine`: scoring ranges, choosing, ordering), over the analyzed tracks kept between
/// calls (`MoodCatalog`) while the library does not change.
enum MoodAPI {
    static func install(on runtime: LuaRuntime, store: LibraryStore) throws(LuaScriptError) {
        let catalog = MoodCatalog(store: store)
        let playlists = runtime.functionPlaylists
        let now = { [weak runtime] in Date(timeIntervalSince1970: runtime?.wallClock() ?? Date().timeIntervalSince1970) }
        func register(_ name: String, writes: Bool = false, _ body: @escaping HostFunction.Body) throws(LuaScriptError) {
            try runtime.register(name, writes: writes) { args in
                do { return try body(args) } catch let error as SongboxError {
                    return [.nil, .string("songbox.\(name): \(error.message)")]
                }
            }
        }
        // (options, resolved): the prelude's `mood.playlist` resolves the names first.
        try register("mood.playlist") { args in
            let options = try Options(args.table(1), now: now())
            let resolved = try args.table(2).tableValue ?? [:]
            var request = MoodEngine.Request(budget: options.budget, minimumScore: options.minimumScore)
            request.mood = try resolved["mood"].map { value throws(LuaFunctionError) in try spec(value) }
            request.from = try resolved["from"].map { value throws(LuaFunctionError) in try spec(value) }
            request.to = try resolved["to"].map { value throws(LuaFunctionError) in try spec(value) }
            guard (request.mood != nil) != (request.from != nil || request.to != nil), (request.from == nil) == (request.to == nil) else {
                throw LuaFunctionError.argument(1, "give mood = NAME, or from = NAME and to = NAME")
            }
            let tracks = try catalog.tracks()
            var candidates = try options.filter(tracks, store: store, playlists: playlists)
            if let start = options.start {
                request.start = tracks.first { $0.id == start }.map(MoodEngine.point)
                candidates.removeAll { $0.id == start }
            }
            let names = [request.mood, request.from, request.to].compactMap { $0 }.flatMap { $0.parts.map(\.name) }
            var skips: [String: [Int64: Int]] = [:]
            for name in Set(names) { skips[name] = try store.tracks.moodSkips(name) }
            let picks = MoodEngine.playlist(candidates, request, skips: skips)
            return [try tables(picks, store: store)]
        }
        // The tracks a playlist with these options would choose from (analyzed, filters applied):
        // what a function mood is asked about.
        try register("mood.candidates") { args in
            let options = try Options(args.optionalTable(1) ?? .table([:]), now: now())
            let ids = try options.filter(try catalog.tracks(), store: store, playlists: playlists).map(\.id)
            let found = try store.tracks.byID(ids)
            return [LibraryAPI.tracks(ids.compactMap { found[$0] })]
        }
        // (track, resolved mood): the score, why, and the reasons; nil and a message when the
        // track cannot be told (not analyzed).
        try register("mood.score") { args in
            let id = try trackID(args, 1)
            let mood = try spec(args.table(2))
            guard let track = try catalog.tracks().first(where: { $0.id == id }) else {
                return [.nil, .string("songbox.mood.score: track \(id) is not analyzed (run songbox analyze)")]
            }
            var skips: [String: [Int64: Int]] = [:]
            for part in mood.parts { skips[part.name] = try store.tracks.moodSkips(part.name) }
            guard let judgement = MoodEngine.judge(track, mood, skips: skips) else {
                return [.nil, .string("songbox.mood.score: track \(id) has none of the features mood '\(mood.label)' names")]
            }
            return [.number(judgement.score), .string(MoodEngine.why(judgement.score, judgement.reasons)),
                    reasons(judgement.reasons)]
        }
        try register("mood.skip", writes: true) { args in
            let id = try trackID(args, 1), name = try args.string(2)
            return [.integer(try store.tracks.recordMoodSkip(id, mood: name))]
        }
        try register("mood.feedback") { args in
            let name = try args.string(1)
            let skips = try store.tracks.moodSkips(name).sorted { $0.key < $1.key }
            return [.array(skips.map { .table(["track_id": .integer(Int($0.key)), "skips": .integer($0.value)]) })]
        }
        try register("mood.forget", writes: true) { args in
            let name = try args.string(1)
            let track: Int64? = try args.isNil(2) ? nil : trackID(args, 2)
            return [.integer(try store.tracks.forgetMoodSkips(name, track: track))]
        }
        // The preset files and their text, read when a script first uses a mood (the prelude
        // keeps the text to itself).
        try register("mood.presets") { [weak runtime] _ in
            let files = runtime?.moodPresetFiles ?? []
            return [.array(files.compactMap { path in
                guard let data = FileManager.default.contents(atPath: path) else { return nil }
                return .table(["path": .string(path), "source": .string(String(decoding: data, as: UTF8.self))])
            })]
        }
        try register("similar") { args in
            let id = try trackID(args, 1)
            let count = try args.isNil(2) ? 10 : args.integer(2)
            guard (0...10_000).contains(count) else { throw LuaFunctionError.argument(2, "count must be from 0 to 10000, got \(count)") }
            let tracks = try catalog.tracks()
            guard let track = tracks.first(where: { $0.id == id }) else {
                return [.nil, .string("songbox.similar: track \(id) is not analyzed (run songbox analyze)")]
            }
            let near = MoodEngine.similar(to: track, among: tracks, count: count)
            let found = try store.tracks.byID(near.map(\.track.id))
            return [.array(near.compactMap { near -> LuaValue? in
                guard let track = found[near.track.id], case .table(var fields) = LibraryAPI.table(track) else { return nil }
                fields["distance"] = .number(near.distance)
                return .table(fields)
            })]
        }
        try runtime.runPrelude(prelude, chunkName: "=songbox")
    }

    // MARK: Arguments

    /// The options of `mood.playlist` and `mood.candidates`, checked.
    struct Options {
        static let known: Set<String> = ["mood", "from", "to", "minutes", "count", "query", "language", "not_played_within",
                                         "start_from", "min_score"]
        /// The most `minutes` may ask for: a week.
        static let longest = 7 * 24 * 60.0
        var budget = MoodEngine.Budget.count(20)
        var minimumScore = 0.5
        var query: String?
        var language: String?
        /// Tracks played after this (Unix seconds) are left out.
        var playedSince: Double?
        var start: Int64?

        init(_ value: LuaValue, now: Date) throws(LuaFunctionError) {
            guard let fields = value.tableValue else { throw LuaFunctionError.argument(1, "expected a table with named fields") }
            if let unknown = fields.keys.sorted().first(where: { !Self.known.contains($0) }) {
                throw LuaFunctionError.argument(1, "unknown option '\(unknown)' (known: \(Self.known.sorted().joined(separator: ", ")))")
            }
            switch (fields["minutes"], fields["count"]) {
            case (let minutes?, .none):
                guard let m = minutes.doubleValue, m > 0, m <= Self.longest else {
                    throw LuaFunctionError.argument(1, "'minutes' must be a number from 0 to \(Int(Self.longest)) (a week)")
                }
                budget = .seconds(m * 60)
            case (.none, let count?):
                guard let n = count.intValue, (1...10_000).contains(n) else {
                    throw LuaFunctionError.argument(1, "'count' must be an integer from 1 to 10000")
                }
                budget = .count(n)
            case (.none, .none): break
            case (_?, _?): throw LuaFunctionError.argument(1, "give 'minutes' or 'count', not both")
            }
            if let score = fields["min_score"] {
                guard let s = score.doubleValue, s >= 0, s <= 1 else { throw LuaFunctionError.argument(1, "'min_score' must be from 0 to 1") }
                minimumScore = s
            }
            query = try Self.text(fields["query"], "query")
            language = try Self.text(fields["language"], "language")?.lowercased()
            if let window = fields["not_played_within"] {
                do throws(LuaFunctionError) {
                    playedSince = try LibraryAPI.since(window, now: now, argument: 1).timeIntervalSince1970
                } catch {
                    throw LuaFunctionError.argument(1, "'not_played_within' must be like \"2d\", \"1w\", \"12h\" or a number of days")
                }
            }
            if let start = fields["start_from"] {
                guard let id = LibraryAPI.trackID(start) else { throw LuaFunctionError.argument(1, "'start_from' must be a track or a track id") }
                self.start = id
            }
        }

        static func text(_ value: LuaValue?, _ key: String) throws(LuaFunctionError) -> String? {
            guard let value else { return nil }
            guard let text = value.stringValue else { throw LuaFunctionError.argument(1, "'\(key)' must be a string, got \(value.typeName)") }
            return text
        }

        /// The tracks these options allow, in id order (`playlists` evaluates the function
        /// playlists the query reaches).
        func filter(_ tracks: [MoodTrack], store: LibraryStore, playlists: ScriptPlaylistHost) throws(SongboxError) -> [MoodTrack] {
            let allowed = try query.map { text throws(SongboxError) in
                Set(try store.tracks.files(matching: text, evaluated: playlists.evaluated(reachedBy: text, in: store)).map(\.id))
            }
            return tracks.filter { track in
                if let allowed, !allowed.contains(track.id) { return false }
                if let language, track.language != language { return false }
                if let playedSince, let last = track.lastPlayed, Double(last) >= playedSince { return false }
                return true
            }
        }
    }

    static func trackID(_ args: LuaArguments, _ n: Int) throws(LuaFunctionError) -> Int64 {
        guard let id = args.trackID(n) else { throw LuaFunctionError.type(n, expected: "track or id") }
        return id
    }

    /// A resolved mood from the prelude: `{label =, parts = {{name =, ranges = {energy = {lo, hi}}}
    /// or {name =, ids = {...}, scores = {...}}}}`.
    static func spec(_ value: LuaValue) throws(LuaFunctionError) -> MoodSpec {
        guard let fields = value.tableValue, let label = fields["label"]?.stringValue, let parts = fields["parts"]?.arrayValue else {
            throw LuaFunctionError.argument(2, "a resolved mood is {label =, parts =}")
        }
        var spec = MoodSpec(label: label, parts: [])
        for part in parts {
            guard let fields = part.tableValue, let name = fields["name"]?.stringValue else {
                throw LuaFunctionError.argument(2, "each part of a mood needs a name")
            }
            if let ranges = fields["ranges"]?.tableValue {
                var list: [MoodSpec.Range] = []
                for (key, range) in ranges.sorted(by: { $0.key < $1.key }) {
                    guard let feature = MoodFeature(rawValue: key) else {
                        throw LuaFunctionError.argument(2, "mood '\(name)': unknown feature '\(key)'")
                    }
                    guard let pair = range.arrayValue, pair.count == 2, let low = pair[0].doubleValue, let high = pair[1].doubleValue,
                          low <= high else {
                        throw LuaFunctionError.argument(2, "mood '\(name)': \(key) must be {low, high} with low <= high")
                    }
                    list.append(MoodSpec.Range(feature: feature, low: low, high: high))
                }
                spec.parts.append(MoodSpec.Part(name: name, rule: .ranges(list)))
            } else {
                let ids = fields["ids"]?.arrayValue ?? [], scores = fields["scores"]?.arrayValue ?? []
                guard ids.count == scores.count else { throw LuaFunctionError.argument(2, "mood '\(name)': ids and scores differ in length") }
                var table: [Int64: Double] = [:]
                for (id, score) in zip(ids, scores) {
                    guard let id = id.intValue, let score = score.doubleValue, score >= 0, score <= 1 else {
                        throw LuaFunctionError.argument(2, "mood '\(name)': a score must be from 0 to 1 for a track id")
                    }
                    table[Int64(id)] = score
                }
                spec.parts.append(MoodSpec.Part(name: name, rule: .scores(table)))
            }
        }
        return spec
    }

    // MARK: Results

    static func reasons(_ reasons: [MoodReason]) -> LuaValue {
        .array(reasons.map { reason in
            var t: [String: LuaValue] = ["mood": .string(reason.mood), "feature": .string(reason.what), "score": .number(reason.score)]
            if let value = reason.value { t["value"] = .number(value) }
            if let range = reason.range { t["range"] = .array([.number(range.low), .number(range.high)]) }
            return .table(t)
        })
    }

    /// The picks as track tables with `score`, `why` (a line) and `reasons`.
    static func tables(_ picks: [MoodEngine.Pick], store: LibraryStore) throws(SongboxError) -> LuaValue {
        let byID = try store.tracks.byID(picks.map(\.track.id))
        return .array(picks.compactMap { pick -> LuaValue? in
            guard let track = byID[pick.track.id], case .table(var fields) = LibraryAPI.table(track) else { return nil }
            fields["score"] = .number(pick.score)
            fields["why"] = .string(MoodEngine.why(pick.score, pick.reasons))
            fields["reasons"] = reasons(pick.reasons)
            fields["language"] = .string(pick.track.language)
            return .table(fields)
        })
    }
}

/// The analyzed tracks, read once and kept while the library's change stamp stays the same
/// (what makes a playlist over 20,000 tracks take milliseconds after the first).
final class MoodCatalog: Sendable {
    private let store: LibraryStore
    private let kept = Mutex<(stamp: StatementRunner.ChangeStamp, tracks: [MoodTrack])?>(nil)

    init(store: LibraryStore) { self.store = store }

    func tracks() throws(SongboxError) -> [MoodTrack] {
        let stamp = try store.runner.changeStamp()  // first: a change after it shows in the next stamp
        if let kept = kept.withLock({ $0 }), kept.stamp == stamp { return kept.tracks }
        let tracks = try store.tracks.moodTracks()
        kept.withLock { $0 = (stamp, tracks) }
        return tracks
    }
}
