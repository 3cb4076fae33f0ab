import Foundation
import GRDB
import Logging
import SongboxTestSupport
import Testing

@testable import SongboxLibrary

/// Tags, exact lengths, pictures and lyrics of FLAC, Ogg Vorbis, Opus, FLAC in Ogg, WAV and AIFF
/// files that Debian's own encoders write (flac, oggenc, opusenc, sox, ffmpeg), read by the
/// scanner's readers and compared with what the encoders were given and what `metaflac` says.
@Suite struct FormatTagTests {
    let directory: String
    /// The sources and pictures the encoders read, apart from the files under test.
    let sources: String

    init() throws {
        directory = try Fixtures.temporaryDirectory()
        sources = try Fixtures.temporaryDirectory()
    }

    /// A stereo sine of exactly `frames` frames at `rate`, as a 16-bit WAV among the sources.
    func source(frames: Int, rate: Int = 44_100, channels: Int = 2, name: String = "source") throws -> String {
        let wav = sources + "/\(name)-\(rate)-\(frames).wav"
        try AudioFixtures.run("sox", ["-R", "-D", "-r", "\(rate)", "-c", "\(channels)", "-n", "-b", "16", wav,
                                      "synth", "\(frames)s", "sine", "440", "vol", "0.5"])
        return wav
    }

    /// A PNG of `width` × `height` pixels, made by sox's spectrogram (no image tool needed).
    func picture(_ name: String, width: Int = 128, height: Int = 65) throws -> String {
        let png = sources + "/\(name).png"
        let wav = try source(frames: 4410, name: name)
        try AudioFixtures.run("sox", [wav, "-n", "spectrogram", "-r", "-x", "\(width)", "-y", "\(height)", "-o", png])
        return png
    }

    func read(_ path: String) throws -> ProbedFile { try TrackFileReader().read(path: path) }

    func art(_ path: String) throws -> (ArtFacts, [UInt8]) {
        let found = try #require(try ArtLocator.find(path, in: .embedded).facts)
        return (found, try ArtLocator.read(found, offset: 0, length: found.size))
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func flacTagsInHebrewSeveralArtistsGainsLyricsAndTheFrontCoverFirst() throws {
        let wav = try source(frames: 100_003)
        let back = try picture("back", width: 100, height: 65), front = try picture("front")
        let flac = directory + "/a.flac"
        try AudioFixtures.run("flac", ["-s", "-f", "--picture=4||back||\(back)", "--picture=3||front||\(front)",
                                       "-T", "TITLE=ירושלים של זהב", "-T", "ARTIST=נעמי שמר", "-T", "ARTIST=Shuli Natan",
                                       "-T", "ALBUM=זהב", "-T", "ALBUMARTIST=Various", "-T", "TRACKNUMBER=3", "-T", "TRACKTOTAL=12",
                                       "-T", "DISCNUMBER=1/2", "-T", "DATE=1967-05-15", "-T", "GENRE=Folk", "-T", "ISRC=ILA016700001",
                                       "-T", "MUSICBRAINZ_TRACKID=1d2b6b5a-8d5a-4a52-9d9d-7f6a1f0c1a11",
                                       "-T", "MUSICBRAINZ_ALBUMID=9e6d0bd2-0a42-4a6c-a56e-12ee1b7a9a6b",
                                       "-T", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "-T", "REPLAYGAIN_TRACK_PEAK=0.988",
                                       "-T", "REPLAYGAIN_ALBUM_GAIN=-7.25 dB", "-T", "comment=a fine song",
                                       "-T", "LYRICS=[00:01.50]אור\n[00:00.50]זהב", wav, "-o", flac])
        let probed = try read(flac)
        let tags = probed.tags
        #expect(tags.title == "ירושלים של זהב")
        #expect(tags.artist == "נעמי שמר; Shuli Natan")
        #expect(tags.album == "זהב" && tags.albumArtist == "Various")
        #expect(tags.track == 3 && tags.trackTotal == 12 && tags.disc == 1 && tags.discTotal == 2)
        #expect(tags.year == 1967 && tags.date == "1967-05-15")
        #expect(tags.genre == "Folk" && tags.isrc == "ILA016700001" && tags.comment == "a fine song")
        #expect(tags.musicBrainzTrackID == "1d2b6b5a-8d5a-4a52-9d9d-7f6a1f0c1a11")
        #expect(tags.musicBrainzAlbumID == "9e6d0bd2-0a42-4a6c-a56e-12ee1b7a9a6b")
        #expect(tags.replayGainTrackGain == -6.5 && tags.replayGainTrackPeak == 0.988 && tags.replayGainAlbumGain == -7.25)
        #expect(tags.hasPicture)
        // Exact: the samples metaflac reports, over the rate.
        let samples = try #require(Int(String(decoding: try Oracle.run("metaflac", ["--show-total-samples", flac]).output, as: UTF8.self).trimmingSpaces))
        #expect(samples == 100_003)
        #expect(probed.audio.duration == 100_003.0 / 44_100)
        #expect(probed.audio.sampleRate == 44_100 && probed.audio.channels == 2)
        // LRC text in LYRICS is timed lyrics, in time order.
        #expect(probed.lyrics?.source == .synced)
        #expect(probed.lyrics?.lines.map(\.milliseconds) == [500, 1500])
        #expect(probed.lyrics?.lines.map(\.text) == ["זהב", "אור"])
        // The front cover, though the back cover comes first; its bytes unchanged.
        let (facts, image) = try art(flac)
        let png = try bytes(front)
        // The PNG's own size, from its IHDR chunk.
        #expect(facts.pictureType == 3 && facts.mime == "image/png")
        #expect(facts.width == png[16..<20].reduce(0) { $0 << 8 | Int($1) } && facts.height == png[20..<24].reduce(0) { $0 << 8 | Int($1) })
        #expect(image == png)
    }

    @Test func vorbisTagsExactLengthAndAPictureInItsComments() throws {
        let wav = try source(frames: 88_201)
        let front = try picture("cover")
        let ogg = directory + "/b.ogg"
        let block = try Self.pictureBlock(type: 3, mime: "image/png", image: try bytes(front))
        try AudioFixtures.run("oggenc", ["-Q", "-t", "שיר", "-a", "Artist", "-l", "Album", "-N", "7", "-d", "2003",
                                         "-c", "MUSICBRAINZ_ALBUMARTISTID=abc", "-c", "UNSYNCEDLYRICS=line one\nline two",
                                         "-c", "METADATA_BLOCK_PICTURE=\(block.base64EncodedString())", wav, "-o", ogg])
        let probed = try read(ogg)
        #expect(probed.tags.title == "שיר" && probed.tags.artist == "Artist" && probed.tags.album == "Album")
        #expect(probed.tags.track == 7 && probed.tags.year == 2003 && probed.tags.musicBrainzAlbumArtistID == "abc")
        #expect(probed.lyrics == Lyrics(source: .unsynced, text: "line one\nline two"))
        // oggenc keeps the length: the last granule position is the source's frame count.
        #expect(probed.audio.duration == 88_201.0 / 44_100)
        let (facts, image) = try art(ogg)
        #expect(facts.pictureType == 3 && facts.width == 128)
        #expect(image == (try bytes(front)))
    }

    @Test func opusLengthWithoutPreSkipAndR128GainsAsReplayGain() throws {
        let wav = try source(frames: 96_007, rate: 48_000)
        let front = try picture("opus-cover")
        let opus = directory + "/c.opus"
        try AudioFixtures.run("opusenc", ["--quiet", "--title", "Title", "--artist", "אמן", "--picture", "3||||\(front)",
                                          "--comment", "R128_TRACK_GAIN=-512", "--comment", "R128_ALBUM_GAIN=256", wav, opus])
        let probed = try read(opus)
        #expect(probed.tags.title == "Title" && probed.tags.artist == "אמן")
        #expect(probed.audio.sampleRate == 48_000)
        #expect(probed.audio.duration == 96_007.0 / 48_000)
        // Q7.8 dB towards −23 LUFS, as ReplayGain towards −18 LUFS: −2 + 5 and 1 + 5.
        #expect(probed.tags.replayGainTrackGain == 3 && probed.tags.replayGainAlbumGain == 6)
        #expect(try art(opus).1 == (try bytes(front)))
    }

    @Test func flacInOggAndFLACAfterAnID3Tag() throws {
        let wav = try source(frames: 76_396)
        let oga = directory + "/d.oga"
        try AudioFixtures.run("flac", ["-s", "-f", "--ogg", "-T", "TITLE=In Ogg", "-T", "ARTIST=X", wav, "-o", oga])
        let inOgg = try read(oga)
        #expect(inOgg.tags.title == "In Ogg" && inOgg.tags.artist == "X")
        #expect(inOgg.audio.duration == 76_396.0 / 44_100)

        // Some taggers put an ID3v2 tag in front of the fLaC marker; libFLAC skips it, so does the scanner.
        let plain = directory + "/e.flac"
        try AudioFixtures.run("flac", ["-s", "-f", "-T", "TITLE=After ID3", wav, "-o", plain])
        let id3 = Fixtures.mp3(v2: ID3v2Tag(version: 3, frames: [.text("TIT2", "ignored", encoding: .latin1)]), audio: [])
        try Data(id3 + (try bytes(plain))).write(to: URL(fileURLWithPath: plain))
        let probed = try read(plain)
        #expect(probed.tags.title == "After ID3")
        #expect(probed.audio.duration == 76_396.0 / 44_100)
    }

    @Test func aFLACEncodedToAPipeGetsItsExactLengthFromItsLastFrame() throws {
        let wav = try source(frames: 100_003)
        let piped = directory + "/piped.flac"
        // Raw samples from a pipe, written to stdout: flac cannot put the count in STREAMINFO.
        let raw = "sox '\(wav)' -t raw - | flac -s -f --force-raw-format --endian=little --sign=signed --channels=2 --bps=16 "
            + "--sample-rate=44100"
        let result = try Oracle.run("bash", ["-c", "\(raw) -c - > '\(piped)'"], mergeErrors: true)
        try #require(result.status == 0, "\(String(decoding: result.output, as: UTF8.self))")
        #expect(String(decoding: try Oracle.run("metaflac", ["--show-total-samples", piped]).output, as: UTF8.self).trimmingSpaces == "0")
        #expect(try read(piped).audio.duration == 100_003.0 / 44_100)
        // Another block size, which the last frame's number is multiplied by.
        let small = directory + "/small-blocks.flac"
        let again = try Oracle.run("bash", ["-c", "\(raw) -b 1152 -c - > '\(small)'"], mergeErrors: true)
        try #require(again.status == 0)
        #expect(try read(small).audio.duration == 100_003.0 / 44_100)
    }

    @Test func wavAndAIFFLengthsAndRIFFInfoTags() throws {
        let wav = try source(frames: 44_101)
        let tagged = directory + "/f.wav", aiff = directory + "/g.aiff"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-metadata", "title=כותרת", "-metadata", "artist=Someone",
                                         "-metadata", "album=Rec", "-metadata", "date=1999", "-c", "copy", tagged])
        let probed = try read(tagged)
        #expect(probed.tags.title == "כותרת" && probed.tags.artist == "Someone" && probed.tags.album == "Rec" && probed.tags.year == 1999)
        #expect(probed.audio.duration == 44_101.0 / 44_100)
        #expect(probed.audio.bitrate == 1411)
        try AudioFixtures.run("sox", [wav, aiff])
        let aiffProbed = try read(aiff)
        #expect(aiffProbed.audio.duration == 44_101.0 / 44_100)
        #expect(aiffProbed.audio.sampleRate == 44_100 && aiffProbed.audio.channels == 2)
    }

    /// Bits per sample, where the file has them: FLAC (and FLAC in Ogg), WAV (the extensible
    /// header's valid bits), AIFF, ALAC; none for Vorbis, Opus, AAC or float samples.
    @Test func losslessFilesGiveTheirBitsPerSample() throws {
        let cd = try source(frames: 4410)
        let studio = sources + "/studio.wav"
        try AudioFixtures.signal(studio, frames: 4800, rate: 48_000, bits: 24)
        let cases: [(AudioFixtures.Encoding, String, Int?)] = [
            (.flac, cd, 16), (.flac, studio, 24), (.oggFLAC, studio, 24), (.wav16, studio, 16), (.wav24, studio, 24), (.wav8, cd, 8),
            (.wavFloat, cd, nil), (.aiff, studio, 24), (.vorbis, cd, nil), (.opus, cd, nil), (.alac, studio, 24), (.aac, cd, nil),
        ]
        for (index, (encoding, from, bits)) in cases.enumerated() {
            let path = try AudioFixtures.encode(from, as: encoding, to: directory + "/\(index).\(encoding.suffix)")
            #expect(try read(path).audio.bits == bits, "\(encoding) from \(from)")
        }
    }

    /// A library from before the bits were kept: the next scan reads its lossless files again,
    /// once, and fills them in (an MP3 is not read again).
    @Test func aLibraryFromBeforeGetsTheBitsOfItsLosslessFilesAtTheNextScan() throws {
        let music = directory + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try AudioFixtures.encode(try source(frames: 4410), as: .flac, to: music + "/a.flac")
        try Fixtures.writeMP3(to: music + "/b.mp3", audio: try Fixtures.audio("tone-mono-44k.mp3"))
        let path = directory + "/old.db"
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v11: present paths")
        // Both files as the songbox of then indexed them: their size and time, no bits.
        try queue.write { db in
            for name in ["a.flac", "b.mp3"] {
                var info = stat()
                #expect(stat(music + "/" + name, &info) == 0)
                let size = Int64(info.st_size)
                let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
                try db.execute(sql: """
                    INSERT INTO tracks (path, size, mtime, duration, added, path_key) VALUES (?, ?, ?, 0.1, 1, ?)
                    """, arguments: [music + "/" + name, size, mtime, music + "/" + name])
            }
        }
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 11") }
        try queue.close()
        let store = try LibraryStore(path: path)
        let scanner = LibraryScanner(store: store, logger: Logger(label: "test"))
        let report = try scanner.scan([music])
        #expect(report.updated == 1 && report.unchanged == 1, "the FLAC alone is read again: \(report)")
        #expect(try scanner.scan([music]).unchanged == 2, "and once only")
        #expect(try store.tracks.matching("bits:16").map(\.path) == [music + "/a.flac"])
    }

    /// The MixRamp migration keeps what a library held: a track analyzed by the songbox of
    /// before keeps its features (shown until `analyze` measures it again, for its MixRamp
    /// points), and has no points meanwhile.
    @Test func theMixRampMigrationKeepsTheFeaturesAndAnalyzeDoesTheTrackAgain() throws {
        let path = directory + "/v12.db"
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v12: bits per sample")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO tracks (id, path, size, mtime, duration, added, path_key) VALUES (1, '/m/a.mp3', 10, 20, 3, 1, '/m/a.mp3')")
            try db.execute(sql: """
                INSERT INTO audio_features (track_id, size, mtime, version, analyzed, duration, tempo, energy, histogram)
                VALUES (1, 10, 20, 1, 1, 3, 121.5, 0.25, x'')
                """)
        }
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 12") }
        try queue.close()
        let store = try LibraryStore(path: path)
        let track = try #require(try store.tracks.track(id: 1))
        #expect(track.tempo == 121.5 && track.energy == 0.25, "the features are kept")
        #expect(try store.tracks.mixRamps(of: [1]).isEmpty)
        #expect(try store.tracks.tracksToAnalyze(matching: "").pending.map(\.id) == [1], "analyzed again, for its points")
    }

    @Test func anID3ChunkInAWAVOrAIFFComesBeforeItsTextChunks() throws {
        let wav = try source(frames: 22_050)
        let tagged = directory + "/id3.wav", aiff = directory + "/id3.aiff"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-metadata", "title=From INFO", "-metadata", "album=Kept",
                                         "-c", "copy", tagged])
        try AudioFixtures.run("sox", [wav, aiff])
        // mutagen (Debian's python3-mutagen) writes the chunk as Picard does.
        let script = """
            import sys
            from mutagen.wave import WAVE
            from mutagen.aiff import AIFF
            from mutagen.id3 import TIT2, TPE1
            for path, kind in ((sys.argv[1], WAVE), (sys.argv[2], AIFF)):
                audio = kind(path)
                audio.add_tags()
                audio.tags.add(TIT2(encoding=3, text="שיר בתוך ID3"))
                audio.tags.add(TPE1(encoding=1, text="Artist"))
                audio.save()
            """
        let result = try Oracle.run("/usr/bin/python3", ["-c", script, tagged, aiff], mergeErrors: true)
        try #require(result.status == 0, "mutagen: \(String(decoding: result.output, as: UTF8.self))")
        for path in [tagged, aiff] {
            let probed = try read(path)
            #expect(probed.tags.title == "שיר בתוך ID3" && probed.tags.artist == "Artist")
            #expect(probed.audio.duration == 22_050.0 / 44_100)
        }
        #expect(try read(tagged).tags.album == "Kept")
    }

    @Test func mp4TagsCoverAndExactLengthsOfAACAndALAC() throws {
        let wav = try source(frames: 100_003)
        let front = try picture("m4a-cover")
        let aac = directory + "/h.m4a", alac = directory + "/i.m4a"
        let tags = ["-metadata", "title=ירושלים", "-metadata", "artist=נעמי שמר", "-metadata", "album_artist=Various",
                    "-metadata", "album=Gold", "-metadata", "track=3/9", "-metadata", "disc=1/2", "-metadata", "date=1967",
                    "-metadata", "genre=Folk", "-metadata", "lyrics=first line"]
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-i", front, "-map", "0", "-map", "1", "-c:a", "aac",
                                         "-c:v", "copy", "-disposition:v", "attached_pic"] + tags + [aac])
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "alac", "-metadata", "title=Lossless", alac])
        let probed = try read(aac)
        #expect(probed.tags.title == "ירושלים" && probed.tags.artist == "נעמי שמר" && probed.tags.albumArtist == "Various")
        #expect(probed.tags.album == "Gold" && probed.tags.track == 3 && probed.tags.trackTotal == 9)
        #expect(probed.tags.disc == 1 && probed.tags.discTotal == 2 && probed.tags.year == 1967 && probed.tags.genre == "Folk")
        #expect(probed.tags.lyrics == "first line")
        // The encoder's 1,024 samples of delay (the edit list's start) are not the music's.
        #expect(probed.audio.duration == 100_003.0 / 44_100)
        #expect(probed.audio.sampleRate == 44_100 && probed.audio.channels == 2)
        let (facts, image) = try art(aac)
        #expect(facts.mime == "image/png")
        #expect(image == (try bytes(front)))
        let lossless = try read(alac)
        #expect(lossless.tags.title == "Lossless" && lossless.audio.duration == 100_003.0 / 44_100)

        // Freeform items as Picard writes them (mutagen); iTunes says the delay, padding and
        // length in iTunSMPB, which comes first.
        let script = """
            import sys
            from mutagen.mp4 import MP4, MP4FreeForm
            audio = MP4(sys.argv[1])
            audio["----:com.apple.iTunes:replaygain_track_gain"] = [MP4FreeForm(b"-4.25 dB")]
            audio["----:com.apple.iTunes:MusicBrainz Album Id"] = [MP4FreeForm(b"9e6d0bd2")]
            audio["----:com.apple.iTunes:iTunSMPB"] = [MP4FreeForm(b" 00000000 00000840 000001CA 0000000000015F90 00000000")]
            audio.save()
            """
        let result = try Oracle.run("/usr/bin/python3", ["-c", script, aac], mergeErrors: true)
        try #require(result.status == 0, "mutagen: \(String(decoding: result.output, as: UTF8.self))")
        let retagged = try read(aac)
        #expect(retagged.tags.replayGainTrackGain == -4.25 && retagged.tags.musicBrainzAlbumID == "9e6d0bd2")
        #expect(retagged.audio.duration == Double(0x15F90) / 44_100)
    }

    /// MPD's MixRamp tags, as mutagen writes them into each kind of file (ID3 TXXX in MP3, WAV
    /// and AIFF; Vorbis comments in FLAC, Ogg Vorbis and Opus; freeform items in MP4): read back
    /// as they were written; one that is not a ramp is left out.
    @Test func mixRampTagsInEveryFormat() throws {
        let wav = try source(frames: 44_100)
        let start = "-30.00 0.50;-17.00 1.00;-6.00 1.20", end = "-30.00 2.00;-17.00 1.50"
        for (name, options) in [("a.mp3", ["-c:a", "libmp3lame"]), ("a.flac", []), ("a.ogg", ["-c:a", "libvorbis"]),
                                ("a.opus", ["-c:a", "libopus"]), ("a.m4a", ["-c:a", "aac"]), ("a.wav", []), ("a.aiff", [])] {
            let path = directory + "/" + name
            try AudioFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-i", wav] + options + [path])
            let script = """
                import sys, mutagen
                from mutagen.id3 import TXXX
                from mutagen.mp4 import MP4FreeForm
                path, start, end = sys.argv[1:4]
                audio = mutagen.File(path)
                if path.endswith(".m4a"):
                    audio["----:com.apple.iTunes:MIXRAMP_START"] = [MP4FreeForm(start.encode())]
                    audio["----:com.apple.iTunes:MIXRAMP_END"] = [MP4FreeForm(b"not a ramp")]
                elif path.endswith((".mp3", ".wav", ".aiff")):
                    if audio.tags is None: audio.add_tags()
                    audio.tags.add(TXXX(encoding=3, desc="MIXRAMP_START", text=[start]))
                    audio.tags.add(TXXX(encoding=3, desc="MIXRAMP_END", text=[end]))
                else:
                    audio["MIXRAMP_START"] = [start]
                    audio["MIXRAMP_END"] = [end]
                audio.save()
                """
            let result = try Oracle.run("/usr/bin/python3", ["-c", script, path, start, end], mergeErrors: true)
            try #require(result.status == 0, "mutagen: \(String(decoding: result.output, as: UTF8.self))")
            let tags = try read(path).tags
            #expect(tags.mixRampStart == start, "\(name)")
            #expect(tags.mixRampEnd == (name == "a.m4a" ? nil : end), "\(name)")
        }
    }

    // MARK: Lying and broken files

    @Test func aWAVWhoseDataChunkClaimsMoreThanTheFileHoldsIsIndexedAsFarAsItGoes() throws {
        var wav = try bytes(try source(frames: 4_410))
        // The data chunk's size (bytes 40...43 of sox's 44-byte header) says 2 GB.
        wav.replaceSubrange(40..<44, with: [0x00, 0x00, 0x00, 0x80])
        let path = directory + "/lying.wav"
        try Data(wav).write(to: URL(fileURLWithPath: path))
        let probed = try read(path)
        #expect(probed.audio.duration == 4_410.0 / 44_100)
        #expect(probed.warnings.contains { $0.contains("the data chunk claims 2147483648 bytes") })
    }

    @Test func aVorbisCommentThatClaimsFourGigabytesIsPassedOverNotAllocated() throws {
        let wav = try source(frames: 4_410)
        let flac = directory + "/huge-comment.flac"
        try AudioFixtures.run("flac", ["-s", "-f", "-T", "TITLE=kept", "-T", "ARTIST=lost", wav, "-o", flac])
        var file = try bytes(flac)
        // The second comment's length, found after "TITLE=kept", says 0xFFFFFFF0.
        let title = Array("TITLE=kept".utf8)
        let at = try #require((0...(file.count - title.count)).first { file[$0..<($0 + title.count)].elementsEqual(title) })
        file.replaceSubrange((at + title.count)..<(at + title.count + 4), with: [0xF0, 0xFF, 0xFF, 0xFF])
        try Data(file).write(to: URL(fileURLWithPath: flac))
        let probed = try read(flac)
        #expect(probed.tags.title == "kept" && probed.tags.artist == nil)
        #expect(probed.warnings.contains { $0.contains("more than the file holds") })
        #expect(probed.audio.duration == 4_410.0 / 44_100)
    }

    @Test func aPictureBlockWithALyingLengthIsSkippedWithAWarning() throws {
        let wav = try source(frames: 4_410)
        let front = try picture("lying")
        let flac = directory + "/lying-picture.flac"
        try AudioFixtures.run("flac", ["-s", "-f", "--picture=3||||\(front)", wav, "-o", flac])
        var file = try bytes(flac)
        // The image length inside the PICTURE block (the 4 bytes before the PNG signature) says 1 GB.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        let at = try #require((4...(file.count - 4)).first { file[$0..<($0 + 4)].elementsEqual(png) })
        file.replaceSubrange((at - 4)..<at, with: [0x40, 0x00, 0x00, 0x00])
        try Data(file).write(to: URL(fileURLWithPath: flac))
        #expect(try read(flac).tags.hasPicture)
        let lookup = try ArtLocator.find(flac, in: .embedded)
        #expect(lookup.facts == nil)
        #expect(lookup.warnings == ["a FLAC PICTURE block with a damaged header was skipped"])
    }

    @Test func anOggCutShortOrDamagedInTheMiddleKeepsWhatItHolds() throws {
        let wav = try source(frames: 441_000)
        let ogg = directory + "/whole.ogg"
        try AudioFixtures.run("oggenc", ["-Q", "-t", "Cut", wav, "-o", ogg])
        let whole = try bytes(ogg)
        // Cut in half: the length is up to the last whole page, less than the whole.
        let cut = directory + "/cut.ogg"
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: cut))
        let probed = try read(cut)
        #expect(probed.tags.title == "Cut")
        #expect(probed.audio.duration > 2 && probed.audio.duration < 8)
        // Garbage in the middle: the end is intact, so is the length.
        var damaged = whole
        for index in (whole.count / 3)..<(whole.count / 3 + 5_000) { damaged[index] = UInt8(truncatingIfNeeded: index * 7) }
        let middle = directory + "/middle.ogg"
        try Data(damaged).write(to: URL(fileURLWithPath: middle))
        #expect(try read(middle).audio.duration == 10)
        // The second half garbled: the length is that of the pages before it.
        var tail = whole
        for index in (whole.count / 2)..<whole.count { tail[index] = 0x4F }
        let noEnd = directory + "/no-end.ogg"
        try Data(tail).write(to: URL(fileURLWithPath: noEnd))
        let garbled = try read(noEnd).audio.duration
        #expect(garbled > 2 && garbled < 6)
        // Nothing but the headers: no audio, said.
        let headersOnly = directory + "/headers.ogg"
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: ogg))
        let file = FileBytes(fd: handle.fileDescriptor, size: whole.count)
        var headersEnd = 0
        while let page = OggPage(file, at: headersEnd), page.granule == 0 { headersEnd = page.end }
        try handle.close()
        #expect(headersEnd > 0)
        try Data(whole.prefix(headersEnd)).write(to: URL(fileURLWithPath: headersOnly))
        let error = try #require(throws: SongboxError.self) { try read(headersOnly) }
        #expect(error.message.contains("its stream headers are cut short"))
    }

    @Test func anMP4WithABrokenMovieAtomIsUnreadableAndALyingItemKeepsWhatCameBefore() throws {
        let wav = try source(frames: 22_050)
        let path = directory + "/broken.m4a"
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-metadata", "title=Before",
                                         "-metadata", "album=After", path])
        let whole = try bytes(path)
        // FFmpeg writes moov last: cut in it, its size runs past the end of the file.
        let cut = directory + "/cut.m4a"
        try Data(whole.prefix(whole.count - 40)).write(to: URL(fileURLWithPath: cut))
        let error = try #require(throws: SongboxError.self) { try read(cut) }
        #expect(error.message.contains("no MP4 movie atom"))
        // The album item (©alb) claims 1 GB: the title before it is kept, and the file said damaged.
        var lying = whole
        let album: [UInt8] = [0xA9] + Array("alb".utf8)
        let at = try #require((4...(lying.count - 4)).first { lying[$0..<($0 + 4)].elementsEqual(album) })
        lying.replaceSubrange((at - 4)..<at, with: [0x40, 0x00, 0x00, 0x00])
        let lyingPath = directory + "/lying.m4a"
        try Data(lying).write(to: URL(fileURLWithPath: lyingPath))
        let probed = try read(lyingPath)
        #expect(probed.tags.title == "Before" && probed.tags.album == nil)
        #expect(probed.warnings.contains { $0.contains("claims more bytes than its parent holds") })
        #expect(probed.audio.duration == 22_050.0 / 44_100)
    }

    @Test func aFileNamedAsOneKindHoldingNoneIsUnreadableWithTheReason() throws {
        let path = directory + "/noise.flac"
        try Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SongboxError.self) { try read(path) }
        #expect(error.message.contains("not a FLAC file"))
    }

    // MARK: The scan

    @Test func aScanIndexesEveryKindAndReportsAudioItDoesNotPlay() throws {
        let wav = try source(frames: 22_050)
        try AudioFixtures.run("flac", ["-s", "-f", "-T", "TITLE=F", wav, "-o", directory + "/1.flac"])
        try AudioFixtures.run("oggenc", ["-Q", "-t", "V", wav, "-o", directory + "/2.ogg"])
        try AudioFixtures.run("opusenc", ["--quiet", "--title", "O", wav, directory + "/3.opus"])
        try AudioFixtures.run("sox", [wav, directory + "/4.wav"])
        try AudioFixtures.run("sox", [wav, directory + "/5.aif"])
        _ = try AudioFixtures.tone(in: sources, name: "6", seconds: 0.5)
        try FileManager.default.copyItem(atPath: sources + "/6.mp3", toPath: directory + "/6.mp3")
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: directory + "/7.wma"))
        try Data("cover".utf8).write(to: URL(fileURLWithPath: directory + "/cover.jpg"))
        // AAC and ALAC, as .m4a and as an audiobook's .m4b.
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-metadata", "title=A", directory + "/8.m4a"])
        try AudioFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", "alac", "-metadata", "title=L", "-f", "ipod",
                                         directory + "/9.m4b"])
        let store = try LibraryStore(path: directory + "/library.db")
        let report = try LibraryScanner(store: store, logger: Logger(label: "test")).scan([directory])
        #expect(report.added == 8)
        #expect(report.unreadable.isEmpty)
        #expect(report.skipped.map(\.path) == [directory + "/7.wma"])
        #expect(report.skipped.first?.reason == "a kind of audio songbox does not play (.wma)")
        let titles = try store.tracks.summaries(matching: "sort:path").map(\.title)
        #expect(titles == ["F", "V", "O", nil, nil, nil, "A", "L"])
    }

    // MARK: Helpers

    /// A FLAC PICTURE block body (what METADATA_BLOCK_PICTURE holds in base64).
    static func pictureBlock(type: Int, mime: String, image: [UInt8]) throws -> Data {
        func word(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let body = word(type) + word(mime.utf8.count) + Array(mime.utf8) + word(0) + word(0) + word(0) + word(0) + word(0)
            + word(image.count) + image
        return Data(body)
    }
}
