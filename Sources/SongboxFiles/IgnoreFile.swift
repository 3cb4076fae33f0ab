import Foundation

/// A folder's `.songboxignore`, as MPD's `.mpdignore`: one shell wildcard a line (`*.wav`,
/// `Demos`, `[Ss]amples`; `#` starts a comment), matched against the names of the files and
/// folders in that folder and every folder under it. The scanner does not index what matches,
/// and the daemon's watcher does not watch it.
public struct IgnorePatterns: Sendable, Equatable {
    public static let fileName = ".songboxignore"
    /// The most of a `.songboxignore` read: a list of patterns is a few lines.
    static let largest = 64 << 10

    public private(set) var patterns: [String] = []

    public init(patterns: [String] = []) {
        self.patterns = patterns
    }

    /// These patterns and those of `folder`'s `.songboxignore`, when it has one.
    public func adding(folder: String) -> IgnorePatterns {
        guard let handle = FileHandle(forReadingAtPath: folder + "/" + Self.fileName),
              let data = try? handle.read(upToCount: Self.largest) else { return self }
        try? handle.close()
        var more = self
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let pattern = line.trimmingCharacters(in: .whitespaces)
            if !pattern.isEmpty, !pattern.hasPrefix("#") { more.patterns.append(pattern) }
        }
        return more
    }

    /// Whether a file or folder named `name` is ignored.
    public func ignores(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }
}
