import Foundation

/// The folded form of text that search compares: case folded, and with combining marks removed,
/// so Hebrew points (niqqud, cantillation) and Latin accents do not stop a match.
///
/// Both the stored `*_key` columns and query values go through the same function, so a
/// substring match on keys is a case- and point-insensitive substring match on the text.
public enum SearchKey {
    public static func fold(_ text: String) -> String {
        // Fast path: plain ASCII needs only lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var scalars = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.value {
            case 0x05BE: scalars.append(" ")        // maqaf joins words like a hyphen
            case 0x05F3, 0x05F4: scalars.append(scalar == "\u{05F3}" ? "'" : "\"") // geresh, gershayim
            default:
                if scalar.properties.generalCategory == .nonspacingMark { continue }
                if scalar.properties.isDefaultIgnorableCodePoint { continue } // RLM, ZWJ, ...
                scalars.append(scalar)
            }
        }
        return String(scalars).lowercased()
    }

    public static func fold(_ text: String?) -> String? { text.map { fold($0) } }
}
