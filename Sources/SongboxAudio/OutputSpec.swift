import Foundation
import SongboxMessages

/// How a user names an output: `alsa:DEVICE` (or `alsa`, meaning `alsa:default`), `wav:PATH`,
/// `fifo:PATH` and `null`.
public enum OutputSpec: Sendable, Hashable, CustomStringConvertible {
    case alsa(device: String)
    case wav(path: String)
    case fifo(path: String)
    case null

    public static let `default` = OutputSpec.alsa(device: "default")

    /// Parses a spec; the error says which forms exist.
    public init(parsing text: String) throws(AudioOutputError) {
        let (kind, argument) = text.firstIndex(of: ":").map {
            (String(text[..<$0]), String(text[text.index(after: $0)...]))
        } ?? (text, "")
        switch (kind.lowercased(), argument) {
        case ("null", ""): self = .null
        case ("alsa", ""): self = .default
        case ("alsa", _): self = .alsa(device: argument)
        case ("wav", _) where !argument.isEmpty: self = .wav(path: argument)
        case ("fifo", _) where !argument.isEmpty: self = .fifo(path: argument)
        default:
            throw .invalid("unknown output \"\(text)\": use alsa:DEVICE, wav:PATH, fifo:PATH or null")
        }
    }

    public var description: String {
        switch self {
        case .alsa(let device): "alsa:\(device)"
        case .wav(let path): "wav:\(path)"
        case .fifo(let path): "fifo:\(path)"
        case .null: "null"
        }
    }
}

extension OutputSpec {
    /// The output this spec names. Nothing is opened yet (`open` does that), so this cannot fail.
    public func makeOutput() -> any AudioOutput {
        switch self {
        case .alsa(let device): ALSAOutput(device: device)
        case .wav(let path): WAVOutput(path: path)
        case .fifo(let path): FIFOOutput(path: path)
        case .null: NullOutput()
        }
    }
}

extension OutputSpec {
    /// Checks what can be checked before playing: a WAV file's or a FIFO's folder exists and can
    /// be written (a `wav:/missing/dir/x.wav` used to play through and leave no file). An ALSA
    /// device is not opened here: a missing one is waited for while playing.
    public func checkDestination() throws(AudioOutputError) {
        let path: String
        switch self {
        case .wav(let file), .fifo(let file): path = file
        case .alsa, .null: return
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let checked = folder.isEmpty ? "/" : folder
        var info = stat()
        guard stat(checked, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .invalid("\(description): the folder \(checked) does not exist")
        }
        guard access(checked, W_OK) == 0 else {
            throw .invalid("\(description): the folder \(checked) cannot be written")
        }
    }
}
