@testable import SongboxAudio
import Foundation
@testable import SongboxServer
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
        var generator = SeededRandom(seed: 2026)  // the player's SplitMix64: a failure reproduces
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


/// The decimals MPD's answers print (`elapsed`, `duration`, `mixrampdb`) are written without a
/// formatter (`MPDResponse.writeDecimal`); C's `printf` is the reference.
struct DecimalTests {
    @Test func decimalsAreWhatPrintfWrites() {
        var generator = SeededRandom(seed: 2027)
        for places in 0...6 {
            for exponent in -4...11 {
                for _ in 0..<200 {
                    let magnitude = Double.random(in: 0..<1, using: &generator) * pow(10, Double(exponent))
                    let value = Bool.random(using: &generator) ? -magnitude : magnitude
                    let expected = String(format: "%.\(places)f", value)
                    // printf keeps the sign of a negative value that rounds to zero; MPD's times never are.
                    guard !(expected.hasPrefix("-") && expected.allSatisfy({ "-0.".contains($0) })) else { continue }
                    #expect(MPDCommands.decimal(value, places: places) == expected, "\(value) with \(places) places")
                }
            }
        }
        #expect(MPDCommands.decimal(.nan, places: 3) == "0.000")
        #expect(MPDCommands.decimal(.infinity, places: 6) == "0.000000")
        #expect(MPDCommands.decimal(1e300, places: 0) == "0")
        #expect(MPDCommands.seconds(-2.5) == "-2.500")
    }
}
