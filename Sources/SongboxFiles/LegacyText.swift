/// Decoding of 8-bit tag text.
///
/// ID3 says 8-bit text is ISO-8859-1, but Israeli collections are full of Windows-1255 Hebrew
/// written into those frames (and into ID3v1). Read as Latin-1 it shows as "àäáä"; we decode
/// such text as Hebrew when it looks like Hebrew and like nothing else.
public enum LegacyText {
    /// Decodes bytes that the tag says are Latin-1.
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        looksLikeWindows1255(bytes) ? windows1255(bytes) : latin1(bytes)
    }

    /// Re-reads text that libmpg123 already converted from Latin-1 (each byte became one scalar
    /// U+0000...U+00FF), so the Windows-1255 check can be applied to it.
    public static func redecode(latin1Text text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x80 }),
              text.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) else { return text }
        return decode(text.unicodeScalars.map { UInt8($0.value) })
    }

    /// Hebrew in Windows-1255: letters 0xE0...0xFA, points 0xC0...0xD2. A word counts as Hebrew
    /// when it has at least two such letters and no ASCII letters, so "Café" and "Déjà" stay Latin-1.
    public static func looksLikeWindows1255(_ bytes: some Collection<UInt8>) -> Bool {
        var hebrewWords = 0
        var latinWords = 0
        for word in bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x2D || $0 == 0x2F || $0 == 0x2C }) {
            let high = word.filter { $0 >= 0x80 }
            guard !high.isEmpty else { continue }
            let hebrewLetters = high.filter { (0xE0...0xFA).contains($0) }.count
            let hebrewMarks = high.filter { (0xC0...0xD2).contains($0) }.count
            let asciiLetters = word.contains { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            if !asciiLetters, hebrewLetters >= 2, hebrewLetters + hebrewMarks == high.count {
                hebrewWords += 1
            } else if hebrewLetters + hebrewMarks != high.count || asciiLetters {
                latinWords += 1
            }
        }
        return hebrewWords > 0 && latinWords == 0
    }

    public static func latin1(_ bytes: some Collection<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    public static func windows1255(_ bytes: some Collection<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            switch byte {
            case 0xE0...0xFA: scalars.append(Unicode.Scalar(0x05D0 + UInt32(byte - 0xE0))!)
            case 0xC0...0xD2:
                // Points: sheva ... qamats qatan, with gaps that map to the same code points.
                let points: [UInt32] = [0x05B0, 0x05B1, 0x05B2, 0x05B3, 0x05B4, 0x05B5, 0x05B6, 0x05B7,
                                        0x05B8, 0x05B9, 0x05BA, 0x05BB, 0x05BC, 0x05BD, 0x05BE, 0x05BF,
                                        0x05C0, 0x05C1, 0x05C2]
                scalars.append(Unicode.Scalar(points[Int(byte - 0xC0)])!)
            case 0xD3: scalars.append("\u{05C3}")
            case 0xD4...0xD8: scalars.append(Unicode.Scalar(0x05F0 + UInt32(byte - 0xD4))!)
            case 0xFD: scalars.append("\u{200E}")
            case 0xFE: scalars.append("\u{200F}")
            case 0x80...0xBF: scalars.append(windows125xShared[Int(byte - 0x80)])
            default: scalars.append(Unicode.Scalar(byte))
            }
        }
        return String(scalars)
    }

    /// 0x80...0xBF of Windows-1255 (punctuation and symbols, mostly as in Windows-1252).
    private static let windows125xShared: [Unicode.Scalar] = [
        "\u{20AC}", "\u{FFFD}", "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{FFFD}", "\u{2039}", "\u{FFFD}", "\u{FFFD}", "\u{FFFD}", "\u{FFFD}",
        "\u{FFFD}", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{FFFD}", "\u{203A}", "\u{FFFD}", "\u{FFFD}", "\u{FFFD}", "\u{FFFD}",
        "\u{00A0}", "\u{00A1}", "\u{00A2}", "\u{00A3}", "\u{20AA}", "\u{00A5}", "\u{00A6}", "\u{00A7}",
        "\u{00A8}", "\u{00A9}", "\u{00D7}", "\u{00AB}", "\u{00AC}", "\u{00AD}", "\u{00AE}", "\u{00AF}",
        "\u{00B0}", "\u{00B1}", "\u{00B2}", "\u{00B3}", "\u{00B4}", "\u{00B5}", "\u{00B6}", "\u{00B7}",
        "\u{00B8}", "\u{00B9}", "\u{00F7}", "\u{00BB}", "\u{00BC}", "\u{00BD}", "\u{00BE}", "\u{00BF}",
    ]
}
