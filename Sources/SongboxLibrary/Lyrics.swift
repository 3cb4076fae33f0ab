import Foundation
import GRDB
import SongboxFiles

/// One timed line of lyrics: when it starts (milliseconds from the start of the track) and its words.
public struct LyricLine: Sendable, Equatable, Codable {
    public var milliseconds: Int
    public var text: String

    public init(milliseconds: Int, text: String) {
        self.milliseconds = milliseconds
        self.text = text
    }

    /// Seconds from the start of the track.
    public var seconds: Double { Double(milliseconds) / 1000 }

    enum CodingKeys: String, CodingKey {
        case milliseconds = "ms"
        case text
    }

    /// The lines as stored in `tracks.lyrics_lines`; nil for none.
    static func json(_ lines: [LyricLine]) -> String? {
        guard !lines.isEmpty, let data = try? JSONEncoder().encode(lines) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func lines(json: String?) -> [LyricLine] {
        guard let json, let lines = try? JSONDecoder().decode([LyricLine].self, from: Data(json.utf8)) else { return [] }
        return lines
    }
}

extension TrackStore {
    /// The lyrics of track `id` as the last scan read them; nil when it has none (or no such track).
    public func lyrics(id: Int64) throws(SongboxError) -> Lyrics? {
        try runner.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT lyrics, lyrics_source, lyrics_lines FROM tracks WHERE id = ?",
                                             arguments: [id]),
                  let text: String = row[0] else { return nil }
            let source = (row[1] as String?).flatMap(Lyrics.Source.init(rawValue:)) ?? .unsynced
            return Lyrics(source: source, text: text, lines: LyricLine.lines(json: row[2]))
        }
    }

    /// When the synchronised lines of each of the tracks `ids` that have some start
    /// (milliseconds, in line order): what the player needs to announce them, without their words.
    public func lyricTimes(of ids: [Int64]) throws(SongboxError) -> [Int64: [Int]] {
        guard !ids.isEmpty else { return [:] }
        return try runner.read { db in
            var found: [Int64: [Int]] = [:]
            // One row a line, read from the stored JSON by SQLite rather than decoded here.
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.id, json_extract(line.value, '$.ms') FROM tracks t, json_each(t.lyrics_lines) line
                WHERE t.id IN (SELECT value FROM json_each(?)) AND t.lyrics_lines IS NOT NULL
                ORDER BY t.id, line.key
                """, arguments: [LibrarySQL.jsonList(ids)])
            while let row = try rows.next() {
                // A line without a whole number for its time (a damaged row) stays in the list
                // as -1, keeping the indexes of the lines: the player stops before it.
                let id: Int64 = row[0]
                let time = Int64.fromDatabaseValue(row[1] as DatabaseValue).map(Int.init) ?? -1
                found[id, default: []].append(time)
            }
            return found
        }
    }
}

/// A track's lyrics: the words, and the timed lines when they are synchronised.
public struct Lyrics: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        /// An ID3 `USLT` frame: words without times.
        case unsynced
        /// An ID3 `SYLT` frame: timed lines (or syllables, joined into lines).
        case synced
        /// A `.lrc` file beside the track.
        case lrc
    }

    public var source: Source
    /// The words, one line per line; for timed lyrics their lines joined.
    public var text: String
    /// Timed lines in time order; empty for `unsynced`.
    public var lines: [LyricLine]

    public init(source: Source, text: String, lines: [LyricLine] = []) {
        self.source = source
        self.text = text
        self.lines = lines
    }

    /// Timed lyrics from `lines`, or nil when there are none.
    init?(source: Source, lines: [LyricLine]) {
        guard !lines.isEmpty else { return nil }
        self.init(source: source, text: lines.map(\.text).joined(separator: "\n"), lines: lines)
    }
}

/// Reads a track's lyrics: an `.lrc` file beside it first (the user put it there), then ID3
/// `SYLT`, then `USLT`.
enum LyricsReader {
    /// Lyrics frames and `.lrc` files larger than this are left out (with a warning).
    static let sizeLimit = 1 << 20

    /// What reading found, and what was wrong on the way.
    struct Found: Sendable {
        var lyrics: Lyrics?
        var warnings: [String] = []
        /// The modification time of the `.lrc` file read (nanoseconds), to notice when it changes.
        var lrcMtime: Int64?
    }

    /// The lyrics of the track at `path`, from the `USLT`/`SYLT` frames `frames` located in the
    /// file open at `fd` and from an `.lrc` beside it. `sampleRate` turns `SYLT` times counted
    /// in MPEG frames into milliseconds.
    static func read(path: String, fd: Int32, frames: [ID3FrameLocation], sampleRate: Int?) -> Found {
        var found = Found()
        var synced: Lyrics?
        var unsynced: Lyrics?
        for frame in frames where frame.id == "SYLT" || frame.id == "USLT" {
            guard let body = ID3Frames.body(fd: fd, frame: frame, limit: sizeLimit) else {
                found.warnings.append("a \(frame.id) frame over \(sizeLimit >> 20) MiB or cut short was left out")
                continue
            }
            if frame.id == "USLT", unsynced == nil {
                unsynced = ID3Lyrics.unsynchronised(body)
            } else if frame.id == "SYLT", synced == nil {
                do throws(ID3Lyrics.Failure) {
                    synced = try ID3Lyrics.synchronised(body, sampleRate: sampleRate)
                } catch {
                    found.warnings.append("SYLT frame: \(error.reason)")
                }
            }
        }
        return besideFile(path, found: found, embedded: synced ?? unsynced)
    }

    /// The lyrics of a track whose tag holds them as text (a Vorbis comment's `LYRICS`): timed
    /// when the text is LRC, else unsynchronised; an `.lrc` beside the file comes first.
    static func read(path: String, embedded text: String?) -> Found {
        let embedded = text.flatMap { text -> Lyrics? in
            let parsed = LRCFile.parse(text)
            if let lyrics = parsed.lyrics, !lyrics.lines.isEmpty { return Lyrics(source: .synced, text: lyrics.text, lines: lyrics.lines) }
            return Lyrics(source: .unsynced, text: text)
        }
        return besideFile(path, found: Found(), embedded: embedded)
    }

    /// `found` with the `.lrc` beside `path`, when there is one, else `embedded`.
    private static func besideFile(_ path: String, found: Found, embedded: Lyrics?) -> Found {
        var found = found
        if let lrc = LRCFile.beside(path) {
            found.lrcMtime = lrc.mtime
            switch LRCFile.read(lrc.path) {
            case .success(let parsed):
                found.lyrics = parsed.lyrics
                found.warnings += parsed.warnings.map { "\(lrc.path): \($0)" }
            case .failure(let error):
                found.warnings.append("\(lrc.path): \(error.reason)")
            }
        }
        found.lyrics = found.lyrics ?? embedded
        return found
    }
}

/// `USLT` and `SYLT` frame bodies.
enum ID3Lyrics {
    struct Failure: Error, Equatable {
        var reason: String
    }

    /// `USLT`: encoding, language, description, text.
    static func unsynchronised(_ body: [UInt8]) -> Lyrics? {
        guard body.count > 4 else { return nil }
        let encoding = body[0]
        var reader = ID3TextReader(encoding: encoding, bytes: body[4...])
        _ = reader.next() // the description
        let text = ID3TextReader.tidy(reader.rest())
        return text.isEmpty ? nil : Lyrics(source: .unsynced, text: text)
    }

    /// `SYLT`: encoding, language, time stamp format (1 MPEG frames, 2 milliseconds), content
    /// type, description, then text and a 4-byte time, over and over. Entries that begin with a
    /// line break start a line and the others (karaoke syllables) continue it; when no entry
    /// begins with one, every entry is a line.
    static func synchronised(_ body: [UInt8], sampleRate: Int?) throws(Failure) -> Lyrics? {
        guard body.count >= 6 else { throw Failure(reason: "shorter than its header") }
        let format = body[4]
        let toMilliseconds: (Int) -> Int
        switch format {
        case 2: toMilliseconds = { $0 }
        case 1:
            guard let sampleRate, sampleRate > 0 else { throw Failure(reason: "times in MPEG frames, but no sample rate") }
            // Layer III frames: 1152 samples (MPEG-1), 576 (MPEG-2 and 2.5, under 32 kHz).
            let samplesPerFrame = sampleRate >= 32_000 ? 1152 : 576
            toMilliseconds = { $0 * samplesPerFrame * 1000 / sampleRate }
        default: throw Failure(reason: "unknown time stamp format \(format)")
        }
        var reader = ID3TextReader(encoding: body[0], bytes: body[6...])
        _ = reader.next() // the description
        var entries: [(time: Int, text: String)] = []
        while let text = reader.next() {
            // Times are 32-bit: no overflow in milliseconds on a 64-bit Int.
            guard let stamp = reader.uint32() else { break }
            entries.append((toMilliseconds(Int(stamp)), text))
        }
        guard !entries.isEmpty else { return nil }
        let breaks: Set<Character> = ["\n", "\r"]
        let syllables = entries.contains { $0.text.first.map(breaks.contains) ?? false }
        var lines: [LyricLine] = []
        for entry in entries {
            let words = String(entry.text.drop { breaks.contains($0) })
            let startsLine = !syllables || lines.isEmpty || entry.text.first.map(breaks.contains) == true
            if startsLine {
                lines.append(LyricLine(milliseconds: entry.time, text: words))
            } else {
                lines[lines.count - 1].text += words
            }
        }
        lines = lines.map { LyricLine(milliseconds: $0.milliseconds, text: $0.text.trimmingSpaces) }
        return Lyrics(source: .synced, lines: lines.enumerated().sorted {
            ($0.element.milliseconds, $0.offset) < ($1.element.milliseconds, $1.offset)
        }.map(\.element))
    }
}

/// Reads terminated strings of one ID3 text encoding out of a frame body.
struct ID3TextReader {
    let encoding: UInt8
    private let bytes: ArraySlice<UInt8>
    private var index: Int
    /// The byte order of BOM-less UTF-16 under encoding 1, guessed once from the whole body.
    private let guessedBigEndian: Bool

    init(encoding: UInt8, bytes: ArraySlice<UInt8>) {
        self.encoding = encoding
        self.bytes = bytes
        index = bytes.startIndex
        guessedBigEndian = ID3TextReader.looksBigEndian(bytes)
    }

    private var unitSize: Int { encoding == 1 || encoding == 2 ? 2 : 1 }

    /// Bytes read so far.
    var consumed: Int { index - bytes.startIndex }

    /// The next terminated string; nil at the end of the body.
    mutating func next() -> String? {
        guard index < bytes.endIndex else { return nil }
        var end = index
        while end + unitSize <= bytes.endIndex {
            if bytes[end] == 0 && (unitSize == 1 || bytes[end + 1] == 0) { break }
            end += unitSize
        }
        let value = decode(bytes[index..<min(end, bytes.endIndex)])
        index = min(end + unitSize, bytes.endIndex)
        return value
    }

    /// Everything left, a trailing terminator dropped.
    mutating func rest() -> String {
        var end = bytes.endIndex
        while end - unitSize >= index, bytes[(end - unitSize)..<end].allSatisfy({ $0 == 0 }) { end -= unitSize }
        defer { index = bytes.endIndex }
        return decode(bytes[index..<end])
    }

    /// A big-endian 32-bit number (a `SYLT` time).
    mutating func uint32() -> UInt32? {
        guard bytes.endIndex - index >= 4 else { return nil }
        defer { index += 4 }
        return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Text in this reader's encoding: 0 Latin-1 (or Windows-1255 Hebrew, see `LegacyText`),
    /// 1 UTF-16 with a BOM (or without: the byte order guessed), 2 UTF-16BE, 3 UTF-8. Invalid
    /// sequences become U+FFFD.
    func decode(_ text: ArraySlice<UInt8>) -> String {
        switch encoding {
        case 1, 2:
            var body = text
            var bigEndian = encoding == 2 || guessedBigEndian
            if body.count >= 2 {
                let mark = (body[body.startIndex], body[body.startIndex + 1])
                if mark == (0xFF, 0xFE) || mark == (0xFE, 0xFF) {
                    bigEndian = mark == (0xFE, 0xFF)
                    body = body.dropFirst(2)
                }
            }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var at = body.startIndex
            while at + 1 < body.endIndex {
                let first = UInt16(body[at]), second = UInt16(body[at + 1])
                units.append(bigEndian ? first << 8 | second : second << 8 | first)
                at += 2
            }
            // A stray last byte is not text: it shows as U+FFFD rather than vanishing.
            return String(decoding: units, as: UTF16.self) + (body.count % 2 == 1 ? "\u{FFFD}" : "")
        case 3:
            let body = text.starts(with: [0xEF, 0xBB, 0xBF]) ? text.dropFirst(3) : text
            return String(decoding: body, as: UTF8.self)
        default:
            return LegacyText.decode(text)
        }
    }

    /// UTF-16 without a BOM: big-endian when the high bytes (zero for ASCII, 05 for Hebrew)
    /// stand at even offsets more often than at odd ones.
    private static func looksBigEndian(_ bytes: ArraySlice<UInt8>) -> Bool {
        var even = 0, odd = 0
        for (offset, byte) in bytes.enumerated() where byte == 0 || byte == 0x05 {
            if offset % 2 == 0 { even += 1 } else { odd += 1 }
        }
        return even > odd
    }

    /// Line breaks made `\n`, trailing spaces and blank lines at either end dropped.
    static func tidy(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").trimmingSpaces
    }
}
