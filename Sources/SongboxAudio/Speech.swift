import Foundation
import SongboxMessages

/// Text to speech with espeak-ng, an optional dependency (docs/player.md#announcements): a text
/// said into a WAV file of its own, which an announcement plays once and removes
/// (`PlayerEngine.Announcement.spoken`).
///
/// espeak-ng runs as a child process, the text on its standard input (never through a shell,
/// never as an argument it could read as an option), for at most `timeLimit` seconds.
public enum Speech {
    /// The most characters one announcement says (over a minute of speech).
    public static let longestText = 1000
    /// How long espeak-ng may take; it says a sentence in a fraction of a second, on a Pi too.
    public static let timeLimit = 10.0
    public static let program = "espeak-ng"

    /// The espeak-ng voice for `text`: Hebrew (Debian's espeak-ng-data has `he`) when most of its
    /// letters are Hebrew, else English.
    public static func voice(for text: String) -> String {
        var hebrew = 0, other = 0
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            if (0x0590...0x05FF).contains(scalar.value) || (0xFB1D...0xFB4F).contains(scalar.value) { hebrew += 1 } else { other += 1 }
        }
        return hebrew > other ? "he" : "en"
    }

    /// Why `text` cannot be said, or nil.
    public static func problem(with text: String) -> Message? {
        if text.allSatisfy(\.isWhitespace) { return "there is no text to say" }
        if text.count > longestText { return "the text to say is at most \(longestText) characters, got \(text.count)" }
        return nil
    }

    /// espeak-ng on `searchPath` (a `PATH`), or nil when it is not installed.
    public static func executable(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for folder in (searchPath ?? "/usr/bin:/bin").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `text` said by espeak-ng into a new WAV file; its path. The caller owns the file.
    public static func synthesize(_ text: String) throws(SpeechError) -> String {
        if let problem = problem(with: text) { throw SpeechError(problem) }
        guard let espeak = executable() else {
            throw SpeechError("text to speech needs espeak-ng, which is not installed (Debian: apt install espeak-ng)")
        }
        let file = try newFile()
        do throws(SpeechError) {
            try run(espeak, ["-b", "1", "-v", voice(for: text), "-w", file, "--stdin"], input: text)
        } catch {
            unlink(file)
            throw error
        }
        return file
    }

    /// A new empty file of ours (created exclusively, readable by us only) in the runtime folder
    /// (`$XDG_RUNTIME_DIR`, in memory on most systems), else the temporary one.
    private static func newFile() throws(SpeechError) -> String {
        let environment = ProcessInfo.processInfo.environment
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") && access($0, W_OK) == 0 ? $0 : nil }
        let folder = runtime ?? NSTemporaryDirectory()
        let path = (folder as NSString).appendingPathComponent("songbox-speech-\(UUID().uuidString).wav")
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SpeechError("cannot make a file for the speech in \(folder): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return path
    }

    /// Runs `program` with `arguments`, `input` on its standard input, for at most `timeLimit`.
    private static func run(_ program: String, _ arguments: [String], input: String) throws(SpeechError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let stdin = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        // Written before it starts: at most `longestText` characters, well within a pipe's
        // buffer, so this never blocks, and never meets a reader that is gone (SIGPIPE).
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        do { try process.run() } catch {
            throw SpeechError("espeak-ng could not be started: \(error.localizedDescription)")
        }
        try? stdin.fileHandleForWriting.close()
        guard ended.wait(timeout: .now() + timeLimit) == .success else {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
            throw SpeechError("espeak-ng took longer than \(Int(timeLimit)) seconds and was stopped")
        }
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile().prefix(300), as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let why = said.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            throw SpeechError("espeak-ng failed (exit status \(process.terminationStatus)): \(why)")
        }
    }
}

/// Why a text could not be said.
public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public let message: Message
    public init(_ message: Message) { self.message = message }
    public var description: String { message.description }
}
