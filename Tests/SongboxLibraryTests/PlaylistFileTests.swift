import Foundation
import GRDB
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// M3U8 and portable JSON playlist files: export, import, round trips, files written by hand.
@Suite struct PlaylistFileTests {
    let library: PlaylistLibrary
    var store: LibraryStore { library.store }
    let a: Int64, b: Int64, c: Int64, d: Int64

    init() throws {
        library = try PlaylistLibrary()
        a = try library.add("נעמי שמר/ירושלים של זהב.mp3", title: "ירושלים של זהב", artist: "נעמי שמר",
                            album: "ירושלים", duration: 215.4, isrc: "ILA126700001",
                            musicBrainzTrackID: "0f6b6a1e-0000-4000-8000-000000000001")
        b = try library.add("Beatles/Help!.mp3", title: "Help!", artist: "The Beatles", album: "Help!", duration: 138.2,
                            isrc: "GBAYE6500001")
        c = try library.add("Beatles/My Song.mp3", title: "Yesterday", artist: "The Beatles", album: "Help!", duration: 125.5)
        d = try library.add("Mabel Grey/Café.mp3", title: "Café", artist: "Mabel Grey", duration: 180)
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [c, a, d, b, c])
    }

    // MARK: Export

    @Test func m3u8PathsAreRelativeInsideTheFilesFolderAndAbsoluteElsewhere() throws {
        let inside = try store.playlists.exportPlaylist(named: "Mix", format: .m3u8, relativeTo: library.music)
        #expect(inside.components(separatedBy: "\n") == [
            "#EXTM3U", "#PLAYLIST:Mix",
            "#EXTINF:126,The Beatles - Yesterday", "Beatles/My Song.mp3",
            "#EXTINF:215,נעמי שמר - ירושלים של זהב", "נעמי שמר/ירושלים של זהב.mp3",
            "#EXTINF:180,Mabel Grey - Café", "Mabel Grey/Café.mp3",
            "#EXTINF:138,The Beatles - Help!", "Beatles/Help!.mp3",
            "#EXTINF:126,The Beatles - Yesterday", "Beatles/My Song.mp3",
            "",
        ])
        let outside = try store.playlists.exportPlaylist(named: "Mix", format: .m3u8, relativeTo: library.folder + "/lists")
        #expect(outside.contains("\n" + library.music + "/Beatles/My Song.mp3\n"))
        // A folder whose name merely starts like the music folder is not inside it.
        let lookalike = try store.playlists.exportPlaylist(named: "Mix", format: .m3u8, relativeTo: library.folder + "/mus")
        #expect(!lookalike.contains("\nic/"))
    }

    @Test func jsonCarriesTagsAndIdentifiers() throws {
        let text = try store.playlists.exportPlaylist(named: "Mix", format: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["songbox_playlist"] as? Int == 1)
        #expect(object["name"] as? String == "Mix")
        let tracks = try #require(object["tracks"] as? [[String: Any]])
        #expect(tracks.count == 5)
        #expect(tracks[1]["title"] as? String == "ירושלים של זהב")
        #expect(tracks[1]["isrc"] as? String == "ILA126700001")
        #expect(tracks[1]["mb_trackid"] as? String == "0f6b6a1e-0000-4000-8000-000000000001")
        #expect(tracks[1]["duration"] as? Double == 215.4)
        #expect(tracks[1]["path"] as? String == library.music + "/נעמי שמר/ירושלים של זהב.mp3")
        #expect(tracks[0]["isrc"] == nil)  // unknown values are left out
        #expect(text.contains("\"path\" : \"/"))  // slashes are not escaped
    }

    // MARK: Round trips

    @Test(arguments: ["music/Mix.m3u8", "lists/Mix.m3u8", "Mix.json", "lists/deeper/Mix.json"])
    func exportThenImportGivesTheSameTracksInOrder(file: String) throws {
        try FileManager.default.createDirectory(atPath: library.folder + "/lists/deeper", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: library.music, withIntermediateDirectories: true)
        let path = library.folder + "/" + file
        #expect(try store.playlists.exportPlaylist(named: "Mix", to: path) == 5)
        let report = try store.playlists.importPlaylist(from: path, name: "Copy")
        #expect(report.name == "Copy" && report.total == 5 && report.matched == 5 && report.unmatched.isEmpty)
        #expect(try library.ids("Copy") == [c, a, d, b, c])
    }

    @Test func aJSONFileFromAnotherLibraryMatchesByIDsThenArtistAndTitle() throws {
        // Paths from another machine: none of them is here.
        let file = """
            {"songbox_playlist": 1, "name": "From a friend", "tracks": [
              {"path": "/elsewhere/1.mp3", "mb_trackid": "0F6B6A1E-0000-4000-8000-000000000001", "title": "x"},
              {"path": "/elsewhere/2.mp3", "isrc": "gbaye6500001"},
              {"path": "/elsewhere/3.mp3", "artist": "THE BEATLES", "title": "yesterday"},
              {"artist": "נָעֳמִי שֶׁמֶר", "title": "יְרוּשָׁלַיִם שֶׁל זָהָב"},
              {"artist": "Nobody", "title": "Nothing", "isrc": "XX0000000000"},
              {"title": "Help!"},
              {},
              "not a track",
              {"path": "\(library.music)/Mabel Grey/Café.mp3"}
            ]}
            """
        let report = try store.playlists.importPlaylist(contents: Data(file.utf8), folder: library.folder)
        #expect(report.name == "From a friend")
        #expect(report.trackIDs == [a, b, c, a, d])
        #expect(report.total == 9)
        #expect(report.unmatched == [
            .init(entry: 5, text: "Nobody - Nothing", reason: "no track with its ISRC; no track by that artist with that title"),
            .init(entry: 6, text: "Help!", reason: "no artist to match the title by"),
            .init(entry: 7, text: "(empty entry)", reason: "nothing to match by (no path, id, or artist and title)"),
            .init(entry: 8, text: "(not an object)", reason: "not a track object"),
        ])
        #expect(try library.ids("From a friend") == [a, b, c, a, d])
    }

    @Test func artistAndTitleMatchesPreferTheSameAlbumThenTheClosestLength() throws {
        let live = try library.add("Beatles/Live/Help!.mp3", title: "Help!", artist: "The Beatles", album: "Live", duration: 160)
        let file = """
            {"songbox_playlist": 1, "name": "Pick", "tracks": [
              {"artist": "The Beatles", "title": "Help!", "album": "Live"},
              {"artist": "The Beatles", "title": "Help!", "duration": 139},
              {"artist": "The Beatles", "title": "Help!", "duration": 158}
            ]}
            """
        let report = try store.playlists.importPlaylist(contents: Data(file.utf8), folder: library.folder)
        #expect(report.trackIDs == [live, b, live])
    }

    // MARK: Files written by hand

    @Test func aHandWrittenM3UWithRelativePathsCRLFAndAMissingFile() throws {
        let lines = [
            "#EXTM3U",
            "# a comment",
            "",
            "music/Beatles/Help!.mp3",
            "#EXTINF:125,The Beatles - Yesterday",
            "./music/../music/Beatles/My Song.mp3",
            "music\\Mabel Grey\\Café.mp3",
            "file://" + library.music.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
                + "/%D7%A0%D7%A2%D7%9E%D7%99%20%D7%A9%D7%9E%D7%A8/"
                + "ירושלים של זהב.mp3".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!,
            "  " + library.music + "/Beatles/Help!.mp3  ",
            "music/missing.mp3",
            "http://radio.example/stream.mp3",
            "C:\\Music\\song.mp3",
        ]
        let path = try library.write("Hand made.m3u", text: lines.joined(separator: "\r\n") + "\r\n")
        let report = try store.playlists.importPlaylist(from: path)
        #expect(report.name == "Hand made")
        #expect(report.total == 8)
        // A stream URL is kept as a remote track (docs/remote.md), named by its URL.
        let stream = try #require(try store.tracks.track(path: "http://radio.example/stream.mp3"))
        #expect(stream.title == "http://radio.example/stream.mp3" && stream.duration == 0)
        #expect(report.trackIDs == [b, c, d, a, b, stream.id])
        #expect(report.unmatched == [
            .init(entry: 10, text: "music/missing.mp3", reason: "no such file"),
            .init(entry: 12, text: "C:\\Music\\song.mp3", reason: "a Windows path (drive C:) that does not exist here"),
        ])
        #expect(try library.ids("Hand made") == [b, c, d, a, b, stream.id])
    }

    @Test func aStationsPLSWithURLsIsImportedAndExportedAsPLSAndM3U8() throws {
        let pls = """
            [playlist]
            NumberOfEntries=2
            File1=http://radio.example:8000/live.mp3
            Title1=Radio Example - Live
            Length1=-1
            File2=music/Beatles/Help!.mp3
            Title2=The Beatles - Help!
            Length2=138
            Version=2
            """
        let path = try library.write("station.pls", text: pls)
        let report = try store.playlists.importPlaylist(from: path)
        let stream = try #require(try store.tracks.track(path: "http://radio.example:8000/live.mp3"))
        #expect(stream.title == "Live" && stream.artist == "Radio Example" && stream.duration == 0)
        #expect(report.trackIDs == [stream.id, b] && report.unmatched.isEmpty)
        // Imported again: the same track, not a second one.
        let again = try store.playlists.importPlaylist(from: path, name: "again")
        #expect(again.trackIDs == [stream.id, b])
        let exported = try store.playlists.exportPlaylist(named: "station", format: .pls)
        #expect(exported.hasPrefix("[playlist]\nFile1=http://radio.example:8000/live.mp3\nTitle1=Radio Example - Live\nLength1=-1\n"))
        #expect(exported.contains("File2=\(library.music)/Beatles/Help!.mp3\nTitle2=The Beatles - Help!\nLength2=138\n"))
        #expect(exported.hasSuffix("NumberOfEntries=2\nVersion=2\n"))
        let m3u = try store.playlists.exportPlaylist(named: "station", format: .m3u8, relativeTo: library.music)
        #expect(m3u.contains("#EXTINF:0,Radio Example - Live\nhttp://radio.example:8000/live.mp3\n"), "\(m3u)")
        // And read back from its own export.
        let back = try library.write("back.pls", text: exported)
        #expect(try store.playlists.importPlaylist(from: back).trackIDs == [stream.id, b])
    }

    @Test func aFileThatIsNotInTheLibraryIsReportedAsSuch() throws {
        try library.write("music/Unscanned/new.mp3", [0xFF, 0xFB])
        let path = try library.write("list.m3u8", text: "music/Unscanned/new.mp3\n")
        let report = try store.playlists.importPlaylist(from: path, name: "Unscanned")
        #expect(report.unmatched.map(\.reason) == ["the file is not in the library (scan its folder)"])
    }

    @Test func aLatin1M3UIsDecoded() throws {
        // "Café" in Latin-1: é is the one byte E9. The file is not UTF-8.
        let bytes = Array("#EXTM3U\nmusic/Mabel Grey/Caf".utf8) + [0xE9] + Array(".mp3\n".utf8)
        let path = try library.write("old.m3u", bytes)
        let report = try store.playlists.importPlaylist(from: path)
        #expect(report.trackIDs == [d])
        #expect(report.unmatched.isEmpty)
    }

    @Test func aWindows1255AndAUTF16M3UAreDecoded() throws {
        // Hebrew in Windows-1255, as old Windows players wrote .m3u files.
        let hebrew = Array("music/".utf8) + Fixtures.windows1255("נעמי שמר") + [0x2F]
            + Fixtures.windows1255("ירושלים של זהב") + Array(".mp3\r\n".utf8)
        #expect(try store.playlists.importPlaylist(from: try library.write("hebrew.m3u", hebrew)).trackIDs == [a])
        // UTF-16LE with a byte order mark (Notepad's "Unicode").
        let text = "#EXTM3U\r\nmusic/Mabel Grey/Café.mp3\r\nmusic/נעמי שמר/ירושלים של זהב.mp3\r\n"
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try store.playlists.importPlaylist(from: try library.write("unicode.m3u", utf16)).trackIDs == [d, a])
    }

    @Test func aPathNotHereFallsBackOnTheEXTINFArtistAndTitle() throws {
        let text = """
            #EXTM3U
            #EXTINF:215,נעמי שמר - ירושלים של זהב
            /media/old-disk/Naomi/01.mp3
            #EXTINF:100,Unknown Artist - Unknown Song
            /media/old-disk/other.mp3
            /media/old-disk/no-extinf.mp3
            """
        let report = try store.playlists.importPlaylist(contents: Data(text.utf8), format: .m3u8, folder: "/", name: "Old disk")
        #expect(report.trackIDs == [a])
        #expect(report.unmatched.map(\.reason) == ["no such file; no track by that artist with that title", "no such file"])
    }

    // MARK: Errors

    @Test func importingOverAnExistingNameNeedsReplace() throws {
        let path = library.folder + "/Mix.m3u8"
        try store.playlists.exportPlaylist(named: "Mix", to: path)
        let error = songboxError { try store.playlists.importPlaylist(from: path) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "a saved playlist named 'Mix' already exists")
        try store.playlists.savePlaylist(named: "Mix", trackIDs: [a], replace: true)
        try store.playlists.importPlaylist(from: path, replace: true)
        #expect(try library.ids("Mix") == [c, a, d, b, c])
    }

    @Test func filesThatAreNotPlaylistsAreRefusedClearly() throws {
        #expect(songboxError { try store.playlists.importPlaylist(from: library.folder + "/none.m3u8") }?.code == .notFound)
        let future = try library.write("future.json", text: #"{"songbox_playlist": 2, "name": "x", "tracks": []}"#)
        #expect(songboxError { try store.playlists.importPlaylist(from: future) }?.message
                == "songbox playlist version 2 is not supported (this songbox reads version 1)")
        let other = try library.write("other.json", text: #"{"tracks": []}"#)
        #expect(songboxError { try store.playlists.importPlaylist(from: other) }?.message
                == "not a songbox playlist: no \"songbox_playlist\" version")
        let broken = try library.write("broken.json", text: "{\"songbox_playlist\": 1,")
        #expect(songboxError { try store.playlists.importPlaylist(from: broken) }?.message == "not a JSON file")
        #expect(try store.playlists.all().map(\.name) == ["Mix"])
    }

    @Test func anUnknownPlaylistCannotBeExported() throws {
        let error = songboxError { try store.playlists.exportPlaylist(named: "Nothing", to: library.folder + "/x.m3u8") }
        #expect(error?.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: library.folder + "/x.m3u8"))
    }

    @Test func aSmartPlaylistExportsWhatItHoldsNow() throws {
        try store.playlists.saveSmartPlaylist(named: "Beatles", query: "artist:beatles sort:title")
        let path = library.folder + "/Beatles.json"
        try store.playlists.exportPlaylist(named: "Beatles", to: path)
        try store.playlists.importPlaylist(from: path, name: "Beatles then")
        #expect(try library.ids("Beatles then") == [b, c])
        #expect(try store.playlists.playlist(named: "Beatles then").kind == .saved)
    }
}
