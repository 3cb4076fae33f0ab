import Foundation

/// The entries of an M3U/M3U8 or PLS playlist's text, as written: where each points (a path or
/// a URL, not yet resolved) and what its `#EXTINF` or `TitleN`/`LengthN` say. The library's
/// import matches them to tracks; a radio station's playlist link is followed to its streams.
public enum PlaylistText {
    public struct Entry: Sendable, Equatable {
        /// The entry's line in the file, from 1.
        public var line: Int
        /// The path or URL as written.
        public var location: String
        public var artist: String?
        public var title: String?
        /// Seconds, when the file gives a positive number.
        public var duration: Double?
    }

    /// Whether the text is a PLS file (`[playlist]` first) rather than M3U.
    public static func isPLS(_ data: some Collection<UInt8>) -> Bool {
        let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
        return first == UInt8(ascii: "[")
    }

    /// The entries of either kind, told by the text.
    public static func entries(_ data: Data) -> [Entry] {
        isPLS(data) ? pls(data) : m3u(data)
    }

    /// Entries of an M3U/M3U8 file: one per line that is not blank and not a `#` comment.
    public static func m3u(_ data: Data) -> [Entry] {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        // UTF-16 with a byte order mark (Windows Notepad's "Unicode"): read as UTF-8 from here on.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let bigEndian = bytes[0] == 0xFE
            var units: [UInt16] = []
            for index in stride(from: 2, to: bytes.count - 1, by: 2) {
                let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
                units.append(bigEndian ? first << 8 | second : second << 8 | first)
            }
            bytes = Array(String(decoding: units, as: UTF16.self).utf8)
        }
        let utf8 = String(validating: bytes, as: UTF8.self)
        // Lines end in LF, CRLF or CR.
        var lines: [[UInt8]] = [[]]
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0A, previous == 0x0D { previous = byte; continue }
            if byte == 0x0A || byte == 0x0D { lines.append([]) } else { lines[lines.count - 1].append(byte) }
            previous = byte
        }
        var entries: [Entry] = []
        var extinf: (artist: String?, title: String, duration: Double?)?
        for (index, raw) in lines.enumerated() {
            // A file that is not UTF-8 is 8-bit: Latin-1, or Windows-1255 where it looks like Hebrew.
            let text = (utf8 != nil ? String(decoding: raw, as: UTF8.self) : decode8Bit(raw))
                .trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text.hasPrefix("#") {
                if text.uppercased().hasPrefix("#EXTINF:") { extinf = parseExtinf(String(text.dropFirst(8))) }
                continue
            }
            entries.append(Entry(line: index + 1, location: text, artist: extinf?.artist, title: extinf?.title,
                                 duration: extinf?.duration))
            extinf = nil
        }
        return entries
    }

    /// Entries of a PLS file: `FileN=` with its `TitleN=` and `LengthN=`, in N's order.
    public static func pls(_ data: Data) -> [Entry] {
        let text = String(validating: Array(data), as: UTF8.self) ?? decode8Bit(Array(data))
        var files: [Int: (line: Int, value: String)] = [:], titles: [Int: String] = [:], lengths: [Int: Double] = [:]
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            for (prefix, apply) in [("file", { (n: Int) in files[n] = (index + 1, value) }),
                                    ("title", { (n: Int) in titles[n] = value }),
                                    ("length", { (n: Int) in lengths[n] = Double(value) })] as [(String, (Int) -> Void)] {
                if key.hasPrefix(prefix), let number = Int(key.dropFirst(prefix.count)) { apply(number) }
            }
        }
        return files.keys.sorted().map { number in
            let file = files[number]!
            var entry = Entry(line: file.line, location: file.value)
            if let title = titles[number], !title.isEmpty {
                if let dash = title.range(of: " - ") {
                    entry.artist = String(title[..<dash.lowerBound])
                    entry.title = String(title[dash.upperBound...])
                } else {
                    entry.title = title
                }
            }
            entry.duration = lengths[number].flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
            return entry
        }
    }

    /// An 8-bit line: Windows-1255 when it looks like Hebrew, else Latin-1. Dots, backslashes and
    /// underscores separate words here, so `שיר.mp3` counts as a Hebrew word and a file extension.
    static func decode8Bit(_ raw: [UInt8]) -> String {
        let probe = raw.map { [0x2E, 0x5C, 0x5F].contains($0) ? UInt8(0x20) : $0 }
        return LegacyText.looksLikeWindows1255(probe) ? LegacyText.windows1255(raw) : LegacyText.latin1(raw)
    }

    /// `#EXTINF:<seconds>[ attributes],<artist> - <title>`.
    static func parseExtinf(_ text: String) -> (artist: String?, title: String, duration: Double?)? {
        guard let comma = text.firstIndex(of: ",") else { return nil }
        let seconds = text[..<comma].split(separator: " ").first.flatMap { Double($0) }
        let label = text[text.index(after: comma)...].trimmingCharacters(in: .whitespaces)
        guard !label.isEmpty else { return nil }
        if let dash = label.range(of: " - ") {
            return (String(label[..<dash.lowerBound]), String(label[dash.upperBound...]),
                    seconds.flatMap { $0 > 0 ? $0 : nil })
        }
        return (nil, label, seconds.flatMap { $0 > 0 ? $0 : nil })
    }
}
