import Foundation

/// Decodes an AAC stream in ADTS frames (an AAC or AAC+ station) pushed in as it arrives: each
/// frame's header says its length, so a frame is decoded once it is all there; the first header
/// makes the AudioSpecificConfig the MP4 decoder's `AACPackets` (libfaad2) is set up with, so
/// a station and an `.m4a` file decode alike. A station that changes its rate or channels
/// between frames is followed.
public final class ADTSFeedDecoder: FedDecoder {
    public let source: String
    public var position: Int { output.position }
    public var length: Int? { nil }
    public var started: Bool { output.started }
    public var seeks: Bool { false }

    private let output: FedOutput
    private var codec: AACPackets?
    /// The configuration `codec` was made for: profile, rate index, channels.
    private var configuration: [UInt8] = []
    /// Bytes fed and not yet decoded, from `start` on.
    private var bytes: [UInt8] = []
    private var start = 0
    private var finished = false
    private let frame = UnsafeMutablePointer<Float>.allocate(capacity: 2048 * AudioFormat.channels)

    public init(source: String, rate: Int) throws(DecodeError) {
        output = try FedOutput(source: source, rate: rate)
        self.source = source
    }

    deinit { frame.deallocate() }

    /// Whether `bytes` hold two ADTS frames in a row (a header, and another where the first
    /// says it ends): what tells an AAC stream from an MP3 one, whose frames sync alike.
    public static func isADTS(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset + 7 <= min(bytes.count, 8192) {
            if let header = Header(bytes, at: offset), let next = Header(bytes, at: offset + header.length),
               next.configuration == header.configuration {
                return true
            }
            offset += 1
        }
        return false
    }

    public func feed(_ more: UnsafeRawBufferPointer) throws(DecodeError) {
        guard !finished else { throw DecodeError(path: source, message: "bytes fed after the end of the stream") }
        if start > 0, start >= bytes.count / 2 {
            bytes.removeFirst(start)
            start = 0
        }
        bytes.append(contentsOf: more)
        try decodeFrames()
    }

    public func finish() { finished = true }
    public func setSize(_ bytes: Int) {}
    public func takeTitle() -> String? { nil }

    public func seek(toFrame frame: Int) throws(DecodeError) -> Int {
        throw DecodeError(path: source, message: "cannot seek in an AAC stream")
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> FeedDecoder.Result {
        try output.read(into: buffer, finished: finished, nothing: "no AAC audio found in the stream")
    }

    /// Decodes every whole frame fed; bytes that are no frame (a dropped connection's) are
    /// passed over to the next header.
    private func decodeFrames() throws(DecodeError) {
        while bytes.count - start >= 7 {
            guard let header = Header(bytes, at: start) else {
                start += 1
                continue
            }
            guard bytes.count - start >= header.length else { return }
            if codec == nil || header.configuration != configuration {
                codec = try AACPackets(config: header.configuration, path: source)
                configuration = header.configuration
                if let codec { try output.follow(codec.format) }
            }
            guard let codec else { return }
            let frames = bytes.withUnsafeBytes { all -> Int in
                let body = UnsafeRawBufferPointer(rebasing: all[(start + header.headerLength)..<(start + header.length)])
                // A frame libfaad2 cannot read is a moment lost, as after a hole.
                return (try? codec.decode(body, into: frame)) ?? 0
            }
            start += header.length
            if frames > 0 {
                output.decoded.append(frames: frames) { $0.update(from: frame, count: frames * AudioFormat.channels) }
            }
        }
    }

    /// An ADTS frame header (ISO 14496-3, 1.A.2.2): the sync word, layer 0, the profile, the
    /// sampling frequency index, the channel configuration, and the frame's length in bytes,
    /// header included.
    struct Header {
        let length: Int
        let headerLength: Int
        /// The AudioSpecificConfig it stands for: object type, rate index, channels.
        let configuration: [UInt8]

        init?(_ bytes: [UInt8], at offset: Int) {
            guard offset >= 0, bytes.count - offset >= 7, bytes[offset] == 0xFF, bytes[offset + 1] & 0xF6 == 0xF0 else { return nil }
            let profile = Int(bytes[offset + 2] >> 6)
            let rateIndex = Int(bytes[offset + 2] >> 2) & 0x0F
            let channels = Int(bytes[offset + 2] & 0x01) << 2 | Int(bytes[offset + 3] >> 6)
            length = Int(bytes[offset + 3] & 0x03) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
            headerLength = bytes[offset + 1] & 0x01 == 0 ? 9 : 7
            // Rates above 12 are reserved; channel configuration 0 would need a program
            // config element in the frame, which stations do not send.
            guard rateIndex < 13, channels > 0, length > headerLength else { return nil }
            let objectType = profile + 1
            configuration = [UInt8(objectType << 3 | rateIndex >> 1), UInt8((rateIndex & 1) << 7 | channels << 3)]
        }
    }
}
