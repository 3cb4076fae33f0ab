/// Discards audio, counting it: for `--output null`, benchmarks and tests.
public final class NullOutput: AudioOutput {
    public let spec = OutputSpec.null.description
    public let pacesItself = false
    public let requiredFormat: AudioFormat? = nil

    /// Frames taken by `write` since this output was made.
    public private(set) var framesWritten = 0
    /// The format of the last `open`; nil once closed.
    public private(set) var format: AudioFormat?

    public init() {}

    public func open(_ format: AudioFormat) throws(AudioOutputError) {
        self.format = format
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioOutputError) {
        framesWritten += samples.count / AudioFormat.channels
    }

    public func drain() {}

    public func discard() {}

    public func close() {
        format = nil
    }
}
