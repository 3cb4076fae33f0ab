import Foundation
import SongboxFiles

/// `.lrc` lyrics files: `[mm:ss.xx]` line times (several on one line for a repeated line),
/// `[offset:+/-ms]`, and metadata tags (`[ar:...]`, `[ti:...]`), which are ignored.
enum LRCFile {
    struct Parsed: Sendable, Equatable {
        var lyrics: Lyrics?
        var warnings: [String] = []
    }

    struct Failure: Error, Equatable {
        var reason: String
    }

    /// The `.lrc` beside the track at `path` (same name, `.lrc` in any case) and its
    /// modification time in nanoseconds.
    static func beside(_ path: String) -> (path: String, mtime: Int64)? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        let base = String(path[..<dot])
        for suffix in [".lrc", ".LRC", ".Lrc"] {
            var info = stat()
            let candidate = base + suffix
            if FileName.status(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                return (candidate, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
            }
        }
        return nil
    }

    /// Reads and parses the file at `path` (at most `LyricsReader.sizeLimit` bytes).
    static func read(_ path: String) -> Result<Parsed, Failure> {
        let fd = FileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        let limit = LyricsReader.sizeLimit
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var got = 0
        while got <= limit {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, limit + 1 - got, off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failure(Failure(reason: String(cString: strerror(errno)))) }
            if n == 0 { break }
            got += n
        }
        guard got <= limit else { return .failure(Failure(reason: "over \(limit >> 20) MiB: not read as lyrics")) }
        return .success(parse(text(Array(bytes[..<got]))))
    }

    /// The text of a file or tag chunk: UTF-8 (with or without a BOM), UTF-16 with a BOM, else 8-bit text
    /// (Windows-1255 Hebrew when it looks like it, else Latin-1).
    static func text(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return ID3TextReader(encoding: 1, bytes: bytes[...]).decode(bytes[...])
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        if let utf8 = String(validating: body, as: UTF8.self) { return utf8 }
        return LegacyText.decode(body)
    }

    static func parse(_ text: String) -> Parsed {
        var parsed = Parsed()
        var timed: [(order: Int, line: LyricLine)] = []
        var offset = 0
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var rest = Substring(rawLine)
            var stamps: [Int] = []
            while rest.first == "[", let close = rest.firstIndex(of: "]") {
                let tag = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                if let stamp = timestamp(tag) {
                    stamps.append(stamp)
                } else if tag.lowercased().hasPrefix("offset:") {
                    if let value = Int(tag.dropFirst(7).trimmingSpaces), abs(value) <= 86_400_000 {
                        offset = value
                    } else {
                        parsed.warnings.append("line \(number + 1): offset \"\(tag.dropFirst(7))\" is not a number of milliseconds")
                    }
                }
            }
            let words = withoutWordTimes(rest).trimmingSpaces
            for stamp in stamps { timed.append((timed.count, LyricLine(milliseconds: stamp, text: words))) }
        }
        // A positive offset shows the lines earlier.
        let lines = timed.map { LyricLine(milliseconds: max(0, $0.line.milliseconds - offset), text: $0.line.text) }
            .enumerated().sorted { ($0.element.milliseconds, $0.offset) < ($1.element.milliseconds, $1.offset) }.map(\.element)
        parsed.lyrics = Lyrics(source: .lrc, lines: lines)
        return parsed
    }

    /// `mm:ss`, `mm:ss.x`, `mm:ss.xx`, `mm:ss.xxx` or `mm:ss:xx` in milliseconds; nil for
    /// anything else (metadata tags).
    static func timestamp(_ tag: Substring) -> Int? {
        let parts = tag.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let minutes = digits(parts[0], upTo: 4) else { return nil }
        var secondsPart = parts[1]
        var fraction: Substring = ""
        if parts.count == 3 {
            fraction = parts[2]
        } else if let dot = secondsPart.firstIndex(of: ".") {
            fraction = secondsPart[secondsPart.index(after: dot)...]
            secondsPart = secondsPart[..<dot]
        }
        guard let seconds = digits(secondsPart, upTo: 2), seconds < 60 else { return nil }
        var milliseconds = 0
        if !fraction.isEmpty {
            guard let value = digits(fraction, upTo: 3) else { return nil }
            // "5" is 500 ms, "05" 50 ms, "005" 5 ms.
            milliseconds = value * [100, 10, 1][fraction.count - 1]
        }
        return (minutes * 60 + seconds) * 1000 + milliseconds
    }

    /// A number of 1 to `upTo` ASCII digits.
    private static func digits(_ text: Substring, upTo count: Int) -> Int? {
        guard (1...count).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// The text of an enhanced LRC line without its `<mm:ss.xx>` word times.
    private static func withoutWordTimes(_ line: Substring) -> String {
        var out = ""
        var rest = line
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">"),
                  timestamp(rest[rest.index(after: open)..<close]) != nil else {
                out += rest[open...]
                return out
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
