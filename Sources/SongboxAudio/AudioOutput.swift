import SongboxMessages
/// The one sample layout songbox renders: interleaved signed 16-bit native-endian stereo.
/// Mono files are decoded to two equal channels, so only the rate varies between tracks.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    public static let channels = 2
    public static let bytesPerFrame = channels * MemoryLayout<Int16>.size

    public var sampleRate: Int

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    public var description: String { "\(sampleRate) Hz, 16-bit, stereo" }
}

/// Why an output could not take audio.
public enum AudioOutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device is missing or went away (unplugged card, no reader...): worth retrying later.
    case unavailable(String)
    /// Anything else: a file that cannot be written, a device that refuses the format.
    case failed(String)
    /// What the user named cannot be an output (a bad spec, a missing folder): said in the
    /// reader's language by the CLI.
    case invalid(Message)

    public var description: String {
        switch self {
        case .unavailable(let message), .failed(let message): message
        case .invalid(let message): message.description
        }
    }

    /// The error as a message: the CLI's `localized` says it in the reader's language.
    public var message: Message {
        if case .invalid(let message) = self { return message }
        return Message(verbatim: description)
    }
}

/// Where rendered audio goes. Owned and called by the player's audio thread only.
public protocol AudioOutput: AnyObject {
    /// The spec it was made from, for messages (`alsa:default`, `wav:/tmp/x.wav`, `null`).
    var spec: String { get }
    /// True when `write` waits for the device (ALSA): the output keeps real time by itself.
    /// False for null, WAV and FIFO outputs, which the player paces (unless running fast).
    var pacesItself: Bool { get }
    /// A format the output must get whatever the track's rate (a WAV file once started, a FIFO
    /// with a fixed format for snapserver); nil when it follows each track's rate.
    var requiredFormat: AudioFormat? { get }
    /// Opens (or re-opens for a new rate) the output. Called before the first write and on every format change.
    func open(_ format: AudioFormat) throws(AudioOutputError)
    /// Takes every frame of `samples` (interleaved, `samples.count` is a multiple of 2);
    /// returns once they are accepted. Recovers from underruns itself.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioOutputError)
    /// Lets what is buffered play out (end of the queue, before a format change).
    func drain()
    /// Drops what is buffered and not yet heard (stop, a seek while paused).
    func discard()
    /// Releases the device or file. The output may be opened again afterwards.
    func close()
}
