import ArgumentParser
import Foundation
import SongboxFiles
import SongboxLibrary
import Synchronization

/// The track a command names: by id or by file path.
struct TrackArgument: ParsableArguments {
    @Argument(help: ArgumentHelp(tr("A track id (from `songbox ls`), a file path or a remote track's URL."), valueName: "id|path"))
    var track: String

    func find(in store: LibraryStore) throws -> Track {
        // A URL is kept as it is written; a path is made absolute.
        let path = TrackLocation.isURL(track) ? track : LibraryScanner.normalise([track]).first ?? track
        let found = try Int64(track).flatMap { id throws(SongboxError) in try store.tracks.track(id: id) }
            ?? store.tracks.track(path: path)
        guard let found else {
            throw SongboxError(.notFound, "no track '\(track)' in the library", hint: "find ids with `songbox ls`")
        }
        return found
    }
}

struct LyricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lyrics", abstract: tr("Print a track's lyrics."),
        discussion: helpParagraphs(tr("""
            From the track's ID3 USLT or SYLT frame, or an .lrc file beside it (same name), as the \
            last scan read them. See docs/lyrics-and-art.md.
            """)))

    @OptionGroup var library: LibraryOptions

    @Flag(help: ArgumentHelp(tr("Each line with the time it starts ([mm:ss.xx]); for synchronised lyrics only.")))
    var synced = false

    @Flag(help: ArgumentHelp(tr("Print a JSON object: source, text and the timed lines (t in seconds).")))
    var json = false

    @OptionGroup var track: TrackArgument

    func run() throws {
        let store = try library.openStore()
        let found = try track.find(in: store)
        guard let lyrics = try store.tracks.lyrics(id: found.id) else {
            throw SongboxError(.notFound, "track \(found.id) has no lyrics", at: found.path,
                               hint: "songbox reads ID3 USLT/SYLT frames and an .lrc file beside the track; scan again after adding one")
        }
        if json {
            printJSON(.object(Self.fields(lyrics, id: found.id)))
        } else if synced {
            guard !lyrics.lines.isEmpty else {
                throw SongboxError(.notFound, "track \(found.id) has lyrics without times (\(lyrics.source.rawValue))",
                                   at: found.path, hint: "leave out --synced to print them")
            }
            for line in lyrics.lines { print(tr("[\(Self.timestamp(line.milliseconds))] \(line.text)")) }
        } else {
            print(lyrics.text)
        }
    }

    static func fields(_ lyrics: Lyrics, id: Int64) -> [(String, JSONValue)] {
        [("id", .integer(id)), ("source", .string(lyrics.source.rawValue)), ("text", .string(lyrics.text)),
         ("lines", .array(lyrics.lines.map { .object([("t", .number($0.seconds)), ("text", .string($0.text))]) }))]
    }

    /// `mm:ss.xx`, as an .lrc file writes it.
    static func timestamp(_ milliseconds: Int) -> String {
        let centiseconds = milliseconds / 10
        return String(format: "%02d:%02d.%02d", centiseconds / 6000, centiseconds / 100 % 60, centiseconds % 100)
    }

    /// What `songbox show` says of a track's lyrics.
    static func summary(_ lyrics: Lyrics?) -> String {
        guard let lyrics else { return tr("none") }
        return lyrics.lines.isEmpty ? lyrics.source.rawValue
            : tr(tr(count: lyrics.lines.count, "\(lyrics.source.rawValue) (\(lyrics.lines.count) line)", "\(lyrics.source.rawValue) (\(lyrics.lines.count) lines)"))
    }
}

struct ArtCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "art", abstract: tr("Write a track's picture (embedded, else a cover file beside it)."),
        discussion: helpParagraphs(tr("""
            The picture goes to FILE with -o, else to standard output when that is not a terminal \
            (songbox art 12 > cover.jpg). The embedded front cover comes first, then the first \
            embedded picture, then cover, folder, front or album .jpg/.jpeg/.png beside the track.
            """)))

    @OptionGroup var library: LibraryOptions

    @Option(name: .shortAndLong, help: ArgumentHelp(tr("Write the picture to this file."), valueName: "file"))
    var output: String?

    @Flag(help: ArgumentHelp(tr("Print what the picture is (source, MIME type, type, pixels, bytes) as JSON instead of its bytes.")))
    var json = false

    @OptionGroup var track: TrackArgument

    /// Bytes read and written at a time.
    static let chunk = 1 << 20

    func run() throws {
        let store = try library.openStore()
        let found = try track.find(in: store)
        let lookup = try ArtLocator.find(found.path)
        for warning in lookup.warnings { complain("warning: \(found.path): \(warning)") }
        guard let facts = lookup.facts else {
            throw SongboxError(.notFound, "track \(found.id) has no picture", at: found.path,
                               hint: "songbox reads embedded APIC pictures and cover/folder/front/album .jpg/.png files beside the track")
        }
        if json {
            printJSON(.object(Self.fields(facts)))
            return
        }
        if let output {
            let path = try FileAccess.user.protecting(store.managedFiles + [found.path]).check(output, writing: true)
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw SongboxError(.invalidArgument, "cannot write the picture: \(String(cString: strerror(errno)))", at: output)
            }
            defer { try? file.close() }
            try copy(facts, to: file)
            return
        }
        guard isatty(STDOUT_FILENO) == 0 else {
            throw SongboxError(.invalidArgument, "refusing to write a \(facts.size)-byte \(facts.mime) picture to the terminal",
                               hint: "write it to a file with -o cover.\(Self.suffix(facts.mime)), pipe it (songbox art \(found.id) > cover.\(Self.suffix(facts.mime))), or see what it is with --json")
        }
        try copy(facts, to: FileHandle.standardOutput)
    }

    private func copy(_ facts: ArtFacts, to file: FileHandle) throws {
        var offset = 0
        while offset < facts.size {
            let bytes = try ArtLocator.read(facts, offset: offset, length: Self.chunk)
            guard !bytes.isEmpty else { break }
            try file.write(contentsOf: bytes)
            offset += bytes.count
        }
    }

    static func suffix(_ mime: String) -> String {
        switch mime {
        case "image/png": "png"
        case "image/gif": "gif"
        default: "jpg"
        }
    }

    /// The facts as `art --json`, `show --json` and `ls --json` print them.
    static func fields(_ facts: ArtFacts) -> [(String, JSONValue)] {
        [("source", .string(facts.source.rawValue)), ("mime", .string(facts.mime)),
         ("type", JSONValue(facts.pictureType)), ("type_name", JSONValue(facts.pictureTypeName)),
         ("width", JSONValue(facts.width)), ("height", JSONValue(facts.height)), ("size", .integer(Int64(facts.size))),
         ("path", .string(facts.path))]
    }

    /// What `songbox show` says of a picture.
    static func summary(_ facts: ArtFacts?) -> String {
        guard let facts else { return tr("none") }
        var parts = [facts.source.rawValue, facts.mime]
        if let width = facts.width, let height = facts.height { parts.append("\(width)x\(height)") }
        parts.append(tr("\(facts.size) bytes"))
        if let name = facts.pictureTypeName { parts.append(name) }
        if facts.source == .file { parts.append(fileName(facts.path)) }
        return parts.joined(separator: ", ")
    }
}

/// Whether tracks have a picture, for `ls --json`: the tag's picture, else a cover file in the
/// track's folder (each folder listed once).
final class ArtPresence: Sendable {
    private let folders = Mutex<[String: Bool]>([:])

    /// "embedded", "file" or nil.
    func source(_ track: Track) -> String? {
        if track.hasPicture { return ArtFacts.Source.embedded.rawValue }
        let folder = (track.path as NSString).deletingLastPathComponent
        let found = folders.withLock { known in
            if let answer = known[folder] { return answer }
            let answer = ArtLocator.pictureFile(in: folder) != nil
            known[folder] = answer
            return answer
        }
        return found ? ArtFacts.Source.file.rawValue : nil
    }
}
