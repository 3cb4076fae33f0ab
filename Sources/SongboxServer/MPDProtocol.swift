/// MPD's protocol (`doc/protocol.rst` in MPD's repository), which the daemon speaks on its local
/// socket and on TCP, so `songbox` commands and every MPD client talk to it alike. A request is
/// one line: a command and its arguments, an argument with spaces in double or single quotes
/// (`\"` and `\\` inside double quotes); a response is `key: value` lines and `OK`, or one
/// `ACK [code@index] {command} message` line.
public enum MPDProtocol {
    /// The first line a client reads. MPD clients check the version they get.
    public static let greeting = "OK MPD 0.24.0"

    /// The longest request line taken (MPD's default is 4 KiB; a songbox query may be longer).
    /// A longer one ends the connection.
    public static let maximumLineLength = 64 << 10

    /// MPD's error codes (`enum ack` in MPD's protocol).
    public enum ErrorCode: Int, Sendable {
        case notList = 1, argument = 2, password = 3, permission = 4, unknown = 5
        case noExist = 50, playlistMax = 51, system = 52, playlistLoad = 53, updateAlready = 54
        case playerSync = 55, exists = 56
    }

    public struct Failure: Error, Sendable, Equatable {
        public var code: ErrorCode
        public var message: String

        public init(_ code: ErrorCode, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    /// A request line split into its command and arguments. The command is lowercased, as MPD
    /// takes it.
    public static func parse(_ line: String) throws(Failure) -> (command: String, arguments: [String]) {
        // A bare lowercase command (`status`, `currentsong`), as clients send most: no words to
        // split or unquote.
        if !line.isEmpty, line.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") }) {
            return (line, [])
        }
        var words: [String] = []
        var characters = line.makeIterator()
        var current = ""
        var inWord = false
        var quote: Character?
        while let character = characters.next() {
            if let open = quote {
                switch character {
                case open: quote = nil
                case "\\" where open == "\"":
                    guard let escaped = characters.next() else { throw Failure(.argument, "a backslash ends the line") }
                    current.append(escaped)
                default: current.append(character)
                }
            } else if character == " " || character == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else if character == "\"" || (character == "'" && !inWord) {
                inWord = true
                quote = character
            } else {
                inWord = true
                current.append(character)
            }
        }
        guard quote == nil else { throw Failure(.argument, "missing closing quote") }
        if inWord { words.append(current) }
        guard let command = words.first else { throw Failure(.unknown, "No command given") }
        return (command.lowercased(), Array(words.dropFirst()))
    }

    /// `value` quoted for a request line when it needs it.
    public static func quote(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" || $0 == "'" }) else {
            return value
        }
        var quoted = "\""
        for character in value {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// A value as one response line holds it: each control character becomes a space, as MPD
    /// clears them from tags. A line break or a NUL would break the framing; ESC, BEL and the
    /// others would reach a client's terminal (DESIGN rule 11).
    public static func fieldValue(_ value: String) -> String {
        var scanned = value
        guard scanned.withUTF8({ $0.contains(where: Self.mayControl) }) else { return value }
        var bytes = Array(value.utf8)
        bytes.withUnsafeMutableBytes { clearControls($0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The one rule of `fieldValue`, on bytes of a response, in place: C0 controls and DEL
    /// become a space, a C1 control (U+0080–U+009F, `C2 80`–`C2 9F`) two.
    /// By byte: "\r\n" is one Character in Swift, equal to neither "\r" nor "\n", so a comment
    /// with Windows line ends kept them and broke the framing. A byte below 0x80 never occurs
    /// inside a multi-byte UTF-8 sequence.
    static func clearControls(_ bytes: UnsafeMutableRawBufferPointer) {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them may start a control (text seldom has
            // one): a byte below 0x20, or equal to 0x7F or 0xC2, sets its high bit here.
            if index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let delete = word ^ (ones &* 0x7F), c2 = word ^ (ones &* 0xC2)
                let suspects = ((word &- ones &* 0x20) & ~word) | ((delete &- ones) & ~delete) | ((c2 &- ones) & ~c2)
                if suspects & highs == 0 {
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F {
                bytes[index] = UInt8(ascii: " ")
            } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                bytes[index] = UInt8(ascii: " ")
                bytes[index + 1] = UInt8(ascii: " ")
                index += 1
            }
            index += 1
        }
    }

    /// The bytes that start what `clearControls` clears.
    private static func mayControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F || byte == 0xC2 }

    /// The `ACK` line of a failure of the `index`th command of a list (0 outside lists).
    public static func ack(_ failure: Failure, command: String, index: Int = 0) -> String {
        "ACK [\(failure.code.rawValue)@\(index)] {\(command)} \(fieldValue(failure.message))\n"
    }

    /// The response to a command: its fields then `OK`, or the `ACK` line.
    public static func response(_ result: Result<[(String, String)], Failure>, command: String) -> String {
        switch result {
        case .success(let fields): return fields.map { "\($0): \(fieldValue($1))\n" }.joined() + "OK\n"
        case .failure(let failure): return ack(failure, command: command)
        }
    }
}
