import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing

/// `songbox playlist ...` and `songbox history` end to end, on the bundled example library.
@Suite struct PlaylistCommandTests: TestLibrarySuite {
    let library: TestLibrary
    let examples = TestLibrary.examples

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    /// Runs songbox, requires success, and parses its JSON output.
    func json<T>(_ arguments: [String], as type: T.Type = [String: Any].self,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        let output = try songbox.run(arguments)
        try #require(output.status == 0, "\(arguments): \(output.stderr)", sourceLocation: sourceLocation)
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? T, sourceLocation: sourceLocation)
    }

    func ids(_ query: String...) throws -> [Int] {
        try json(["ls", "--json"] + query, as: [[String: Any]].self).compactMap { $0["id"] as? Int }
    }

    func playlistIDs(_ name: String) throws -> [Int] {
        let shown = try json(["playlist", "show", "--json", name])
        return try #require(shown["tracks"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
    }

    @Test func exportNeverWritesOverTheLibrary() throws {
        try library.scanExamples()
        #expect(try songbox.run(["playlist", "save", "Mix", "artist:Mabel"]).status == 0)
        for target in [songbox.database, songbox.database + "-wal"] {
            let output = try songbox.run(["playlist", "export", "Mix", target])
            #expect(output.status != 0)
            #expect(output.stderr.contains("refusing to write over a file songbox manages"), "\(output.stderr)")
        }
        #expect(try songbox.run(["ls", "artist:Mabel"]).lines.count == 4)
    }

    /// An export is written whole to a new file and renamed over the old one: a reader of the
    /// old file (another inode) never sees half of the new one, and a failed export leaves the
    /// old file as it was.
    @Test func anExportReplacesTheFileWholeOrNotAtAll() throws {
        try library.scanExamples()
        #expect(try songbox.run(["playlist", "save", "Mix", "artist:Mabel"]).status == 0)
        let file = folder + "/mix.m3u8"
        try "old contents\n".write(toFile: file, atomically: false, encoding: .utf8)
        let before = try #require(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int)
        #expect(try songbox.run(["playlist", "export", "Mix", file]).status == 0)
        let after = try #require(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int)
        #expect(after != before, "written in place, not renamed over")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("#EXTM3U\n"))
        // A failed export (no such playlist) leaves the file alone.
        let exported = try String(contentsOfFile: file, encoding: .utf8)
        #expect(try songbox.run(["playlist", "export", "Nope", file]).status != 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == exported)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("mix.m3u8") && $0 != "mix.m3u8" }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func saveListShowAndDelete() throws {
        let save = try songbox.run(["playlist", "save", "Road trip", "artist:The Lanterns", "sort:-track"])
        #expect(save.status == 0, "\(save.stderr)")
        #expect(save.stdout == "Saved playlist 'Road trip': 4 tracks.\n")
        let lanterns = try ids("artist:The Lanterns", "sort:-track")
        #expect(lanterns.count == 4)
        #expect(try playlistIDs("Road trip") == lanterns)  // the order the query gave

        let listed = try json(["playlist", "ls", "--json"], as: [[String: Any]].self)
        #expect(listed.count == 1)
        #expect(listed[0]["name"] as? String == "Road trip")
        #expect(listed[0]["kind"] as? String == "saved")
        #expect(listed[0]["tracks"] as? Int == 4)
        let table = try songbox.run(["playlist", "ls"])
        #expect(table.lines.first?.hasPrefix("NAME") == true)
        #expect(table.lines.dropFirst().first?.hasPrefix("Road trip  saved") == true)
        let shown = try songbox.run(["playlist", "show", "Road trip"])
        #expect(shown.lines.count == 5)
        #expect(shown.lines.first?.hasPrefix("#  ID") == true)

        // playlist:NAME in any query; the shell took the quotes away, songbox puts them back.
        #expect(Set(try ids("playlist:Road trip")) == Set(lanterns))
        #expect(try ids("playlist:Road trip", "title:love").count == 2)

        let again = try songbox.run(["playlist", "save", "Road trip", "artist:Mabel Grey"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("a saved playlist named 'Road trip' already exists"))
        #expect(again.stderr.contains("--replace"))
        #expect(try songbox.run(["playlist", "save", "--replace", "Road trip", "artist:Mabel Grey"]).status == 0)
        #expect(try playlistIDs("Road trip").count == 3)

        let removed = try songbox.run(["playlist", "rm", "Road trip"])
        #expect(removed.stdout == "Deleted playlist 'Road trip'.\n")
        #expect(try songbox.run(["playlist", "ls"]).stdout.isEmpty)
        let missing = try songbox.run(["playlist", "show", "Road trip"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no playlist named 'Road trip'"))
        #expect(missing.stderr.contains("hint: list playlists with `songbox playlist ls`"))
        #expect(try songbox.run(["playlist", "rm", "Road trip"]).status != 0)
    }

    @Test func aSmartPlaylistFollowsThePlaysRecorded() throws {
        let smart = try songbox.run(["playlist", "smart", "Top 10", "plays>0", "sort:-plays", "limit:10"])
        #expect(smart.status == 0, "\(smart.stderr)")
        #expect(smart.stdout == "Smart playlist 'Top 10' (plays>0 sort:-plays limit:10): 0 tracks now.\n")
        #expect(try ids("playlist:Top 10").isEmpty)

        // The player will record plays through this same service.
        let store = try LibraryStore(path: songbox.database)
        let all = try ids()
        let (first, second) = (Int64(all[3]), Int64(all[7]))
        for _ in 0..<2 { try store.history.recordPlay(trackID: second, kind: .play, reason: "finished", played: 120) }
        try store.history.recordPlay(trackID: first, kind: .play, reason: "finished", played: 120)
        try store.history.recordPlay(trackID: first, kind: .skip, reason: "skipped", played: 2)

        #expect(try playlistIDs("Top 10") == [Int(second), Int(first)])
        #expect(Set(try ids("playlist:Top 10")) == [Int(first), Int(second)])
        #expect(Set(try ids("playlist:\"Top 10\"")) == [Int(first), Int(second)])
        let listed = try json(["playlist", "ls", "--json"], as: [[String: Any]].self)
        #expect(listed[0]["kind"] as? String == "smart")
        #expect(listed[0]["query"] as? String == "plays>0 sort:-plays limit:10")
        #expect(listed[0]["tracks"] as? Int == 2)

        let shown = try json(["playlist", "show", "--json", "Top 10"])
        #expect(shown["kind"] as? String == "smart")

        let bad = try songbox.run(["playlist", "smart", "Broken", "year:1960..abc"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("query:"))
        let loop = try songbox.run(["playlist", "smart", "Loop", "playlist:Loop"])
        #expect(loop.status != 0)
        #expect(loop.stderr.contains("would include itself"))
    }

    @Test(arguments: ["m3u8", "json"])
    func exportThenImportGivesTheSamePlaylist(format: String) throws {
        #expect(try songbox.run(["playlist", "save", "Mix", "random", "limit:6"]).status == 0)
        let original = try playlistIDs("Mix")
        let file = folder + "/Mix." + format
        let export = try songbox.run(["playlist", "export", "Mix", file])
        #expect(export.stdout == "Wrote 6 tracks of 'Mix' to \(file).\n", "\(export.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix(format == "json" ? "{" : "#EXTM3U\n"))

        let imported = try songbox.run(["playlist", "import", file, "--name", "Copy"])
        #expect(imported.stdout == "Imported 'Copy': 6 of 6 entries matched.\n", "\(imported.stderr)")
        #expect(try playlistIDs("Copy") == original)

        // --format wins over the extension.
        let other = folder + "/Mix.txt"
        #expect(try songbox.run(["playlist", "export", "--format", format, "Mix", other]).status == 0)
        let report = try json(["playlist", "import", "--json", "--format", format, "--name", "Copy 2", other])
        #expect(report["matched"] as? Int == 6)
        #expect(try playlistIDs("Copy 2") == original)
    }

    @Test func importReportsWhatItCouldNotMatch() throws {
        // The playlist sits above the music (reached through a symlink): paths are relative to it.
        try FileManager.default.createSymbolicLink(atPath: folder + "/music", withDestinationPath: examples)
        let text = "#EXTM3U\r\n"
            + "music/The Lanterns/Morning Light/01 - Morning Light.mp3\r\n"
            + "#EXTINF:10,Nobody - Nothing\r\n"
            + "music/The Lanterns/Morning Light/99 - Missing.mp3\r\n"
            + "file://" + (examples + "/The Lanterns/Morning Light/03 - Paper Boats.mp3")
                .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)! + "\r\n"
        let file = folder + "/Found.m3u"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let output = try songbox.run(["playlist", "import", file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines == [
            "unmatched: entry 4: music/The Lanterns/Morning Light/99 - Missing.mp3: no such file; no track by that artist with that title",
            "Imported 'Found': 2 of 3 entries matched, 1 unmatched.",
        ])
        let tracks = try json(["playlist", "show", "--json", "Found"])["tracks"] as? [[String: Any]]
        #expect(tracks?.compactMap { $0["title"] as? String } == ["Morning Light", "Paper Boats"])
    }

    @Test func renameAndErrors() throws {
        #expect(try songbox.run(["playlist", "save", "One", "artist:Mabel Grey"]).status == 0)
        let renamed = try songbox.run(["playlist", "rename", "One", "Two"])
        #expect(renamed.stdout == "Renamed playlist 'One' to 'Two'.\n")
        #expect(try playlistIDs("Two").count == 3)
        let missing = try songbox.run(["playlist", "export", "Nothing", folder + "/x.m3u8"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no playlist named 'Nothing'"))
        let noFile = try songbox.run(["playlist", "import", folder + "/none.m3u8"])
        #expect(noFile.status != 0)
        #expect(noFile.stderr.contains("no such playlist file"))
        for command in ["ls", "show", "save", "smart", "rename", "rm", "export", "import"] {
            let help = try songbox.run(["playlist", command, "--help"], useDatabase: false)
            #expect(help.status == 0, "\(command)")
        }
    }

    @Test func historyListsPlaysNewestFirstAndTheTopTracks() throws {
        #expect(try songbox.run(["history"]).stdout.isEmpty)
        let store = try LibraryStore(path: songbox.database)
        let all = try ids()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        try store.history.recordPlay(trackID: Int64(all[0]), kind: .play, reason: "finished", played: 100, at: start)
        try store.history.recordPlay(trackID: Int64(all[1]), kind: .skip, reason: "skipped", played: 3.5, at: start + 60)
        try store.history.recordPlay(trackID: Int64(all[1]), kind: .play, reason: "finished", played: 200, at: start + 120)
        try store.history.recordPlay(trackID: Int64(all[1]), kind: .play, reason: "finished", played: 200, at: start + 180)

        let recent = try json(["history", "--json", "--limit", "3"], as: [[String: Any]].self)
        #expect(recent.map { $0["kind"] as? String } == ["play", "play", "skip"])
        #expect(recent.map { $0["track_id"] as? Int } == [all[1], all[1], all[1]])
        #expect(recent[2]["played"] as? Double == 3.5)
        #expect(recent[0]["at"] as? String == "2023-11-14T22:16:20Z")

        let table = try songbox.run(["history"])
        #expect(table.lines.count == 5)
        #expect(table.lines[0].hasPrefix("WHEN"))

        let top = try json(["history", "--top", "--json"], as: [[String: Any]].self)
        #expect(top.map { $0["id"] as? Int } == [all[1], all[0]])
        #expect(top.map { $0["plays_in_window"] as? Int } == [2, 1])
        #expect(try songbox.run(["history", "--since", "3"]).status != 0)  // --since goes with --top
    }
}
