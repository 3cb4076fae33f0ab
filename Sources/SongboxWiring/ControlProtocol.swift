/// The control protocol: MPD's line protocol (`doc/protocol.rst` in MPD's repository), so the
/// daemon's local socket answers `songbox` commands and MPD clients alike. A request is one line:
/// a command and its arguments, an argument with spaces in double quotes (`\"` and `\\` inside);
/// a response is `key: value` lines and `OK`, or one `ACK [code@0] {command} message` line.
public enum ControlProtocol {
    /// The first line a client reads. MPD clients check the version they get.
    public static let greeting = "OK MPD 0.23.5"

    /// The longest request line taken (MPD's default is 4 KiB; a songbox query may be longer).
    public static let maximumLineLength = 64 << 10

    /// MPD's error codes (`enum ack` in MPD's protocol).
    public enum ErrorCode: Int, Sendable {
        case argument = 2, permission = 4, unknown = 5, noExist = 50, system = 52, exists = 56
    }

    public struct Failure: Error, Sendable, Equatable {
        public var code: ErrorCode
        public var message: String

        public init(_ code: ErrorCode, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    /// A request line split into its command and arguments.
    public static func parse(_ line: String) throws(Failure) -> (command: String, arguments: [String]) {
        var words: [String] = []
        var characters = line.makeIterator()
        var current = ""
        var inWord = false
        var quoted = false
        while let character = characters.next() {
            if quoted {
                switch character {
                case "\"": quoted = false
                case "\\":
                    guard let escaped = characters.next() else { throw Failure(.argument, "a backslash ends the line") }
                    current.append(escaped)
                default: current.append(character)
                }
            } else if character == " " || character == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else if character == "\"" {
                inWord = true
                quoted = true
            } else {
                inWord = true
                current.append(character)
            }
        }
        guard !quoted else { throw Failure(.argument, "missing closing '\"'") }
        if inWord { words.append(current) }
        guard let command = words.first else { throw Failure(.unknown, "no command given") }
        return (command, Array(words.dropFirst()))
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

    /// The response to a command: its fields then `OK`, or the `ACK` line.
    public static func response(_ result: Result<[(String, String)], Failure>, command: String) -> String {
        switch result {
        case .success(let fields):
            // A value never holds a line break: the protocol is one field a line.
            return fields.map { "\($0): \($1.replacingOccurrences(of: "\n", with: " "))\n" }.joined() + "OK\n"
        case .failure(let failure):
            return "ACK [\(failure.code.rawValue)@0] {\(command)} \(failure.message.replacingOccurrences(of: "\n", with: " "))\n"
        }
    }
}
