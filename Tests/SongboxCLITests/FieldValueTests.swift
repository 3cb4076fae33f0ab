import SongboxServer
import Testing

/// `MPDProtocol.fieldValue`: what keeps a tag from breaking MPD's line framing. It scans eight
/// bytes at a time; a plain scalar-by-scalar reading of the rule is the reference here.
struct FieldValueTests {
    /// The rule by Unicode scalars: C0 controls and DEL become a space, C1 controls two (their
    /// two UTF-8 bytes).
    static func reference(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F: out += " "
            case 0x80...0x9F: out += "  "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    @Test func everyControlIsClearedWhereverItFallsInAWord() {
        let pieces: [String] = ["a", "Z", " ", "ש", "ׁ", "é", "🎵", "\u{C2}", "\u{A0}", "\n", "\r\n", "\t", "\u{0}", "\u{1F}",
                                "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{100}", "~"]
        var generator = SplitMix(state: 2026)
        for length in 0..<40 {
            for _ in 0..<50 {
                let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
                #expect(MPDProtocol.fieldValue(text) == Self.reference(text), "\(Array(text.utf8))")
            }
        }
    }

    @Test func textWithoutControlsIsLeftAsItIs() {
        for text in ["", "Hello", "שלום עולם", String(repeating: "abcdefgh", count: 9), "Ünïcödé ¡¢£ 🎵"] {
            #expect(MPDProtocol.fieldValue(text) == text)
        }
    }
}

/// A seeded generator: the same texts on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
