import Foundation
import GRDB
import SongboxLibrary
import SongboxScript
import SongboxTestSupport
import Testing

/// `songbox.mood` and `songbox.similar` (lua/moods.lua) on the example library, with features
/// written straight into `audio_features` so that each track's place in every ranking is known.
@Suite struct MoodTests {
    let folder: String
    let store: LibraryStore
    let ids: [Int64]

    init() throws {
        (folder, store) = try exampleStore()
        ids = try store.tracks.matching("sort:id").map(\.id)
        try Self.writeFeatures(ids, in: store)
    }

    /// Track n (0-based, by id) gets energy n/15, valence 1 - n/15, tempo 60 + 8n, loudness
    /// -35 + n, danceability 0.5 and a vector that grows with n.
    static func writeFeatures(_ ids: [Int64], in store: LibraryStore) throws {
        try store.runner.write { db in
            for (n, id) in ids.enumerated() {
                let step = Double(n) / 15
                let vector = (0..<24).map { Float(step) * Float($0 % 3 + 1) }
                var blob = Data()
                for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { blob.append(contentsOf: $0) } }
                try db.execute(sql: """
                    INSERT OR REPLACE INTO audio_features (track_id, size, mtime, version, analyzed, duration, tempo, loudness,
                      energy, danceability, valence, vector, histogram)
                    SELECT id, size, mtime, 1, 0, duration, ?, ?, ?, 0.5, ?, ?, x'' FROM tracks WHERE id = ?
                    """, arguments: [60 + 8 * Double(n), -35 + Double(n), step, 1 - step, blob, id])
            }
        }
    }

    func runtime() throws -> TestRuntime {
        let test = try TestRuntime(library: store)
        test.runtime.moodPresetFiles = [Fixtures.packageRoot + "/plugins/moods.lua"]
        return test
    }

    @Test func moodPlaylistsFromLua() throws {
        let played = ids[3]
        try store.history.recordPlay(trackID: played, kind: .play, reason: "finished", played: 5, at: Date().addingTimeInterval(-3600))
        let test = try runtime()
        try test.run("moods.lua", [.integer(Int(played))])
        #expect(test.printed.all == ["moods ok\n"])
        #expect(test.runtime.stackImbalances == 0)
    }

    @Test func aFailingMoodFunctionNamesItsFileAndLine() throws {
        let test = try runtime()
        let failure = test.failure { try $0.run(file: luaFolder + "/mood_error.lua", displayName: "mood_error.lua") }
        let message = try #require(failure?.message)
        #expect(message.hasPrefix("mood_error.lua:4:"), "\(message)")
        #expect(message.contains("(in mood 'broken')"), "\(message)")
    }

    @Test func aUsersPresetFileWinsOverTheBundledOne() throws {
        let own = folder + "/moods.lua"
        try "require('songbox').mood.define('calm', { tempo = { 170, 200 } })\n".write(toFile: own, atomically: true, encoding: .utf8)
        let test = try runtime()
        test.runtime.moodPresetFiles.append(own)
        let result = try test.runtime.run(source: """
            local calm
            for _, m in ipairs(songbox.mood.list()) do if m.name == "calm" then calm = m end end
            return calm.ranges.tempo[1], calm.ranges.energy == nil, calm.preset
            """)
        #expect(result == [.integer(170), .boolean(true), .boolean(true)])
    }

    @Test func languageIsGuessedFromTheScriptAndCanBeOverridden() throws {
        #expect(TrackLanguage.guess(title: "שיר הערש", artist: "Noga") == "he")
        #expect(TrackLanguage.guess(title: "Paper Boats", artist: "Mabel Grey") == "latin")
        #expect(TrackLanguage.guess(title: "Песня", artist: nil) == "other")
        #expect(TrackLanguage.guess(title: "1999", artist: nil) == "other")
        let id = ids[0]
        let before = try #require(try store.tracks.moodTracks().first { $0.id == id })
        try store.tracks.apply([TrackEdit(parsing: "language=fr")], to: id)
        #expect(try store.tracks.moodTracks().first { $0.id == id }?.language == "fr")
        #expect(before.language != "fr")
        #expect(throws: SongboxError.self) { try TrackEdit(parsing: "language=f1") }
        try store.tracks.apply([TrackEdit(parsing: "language=")], to: id)
        #expect(try store.tracks.moodTracks().first { $0.id == id }?.language == before.language)
    }
}
