import Foundation

/// Decodes a FLAC file from the network as its bytes arrive, with libFLAC (`FLACFrames`, as for
/// a file here). The metadata is read here as it passes: STREAMINFO (the format and the length)
/// and SEEKTABLE are kept, the rest (tags, pictures, padding) passed over without being held.
/// libFLAC is then given STREAMINFO alone and the frames, a frame only once the bytes at hand
/// hold a whole one (STREAMINFO's largest frame), so it never runs out of bytes mid-frame. A
/// seek starts again from the seek point before the sample (the server sends from its byte)
/// and drops what comes before the sample.
public final class FLACFeedDecoder: FedDecoder {
    public let source: String
    public var position: Int { output.position }
    /// The length at the output's rate, from STREAMINFO's total samples.
    public private(set) var length: Int?
    public var started: Bool { output.started }
    public var seeks: Bool { !seekPoints.isEmpty }

    private let output: FedOutput
    private var head = StreamHead()
    /// The frames' bytes, once the metadata has passed.
    private var input: FedBytes?
    private var frames: FLACFrames?
    /// The most bytes a frame can take: what must be at hand before one is decoded.
    private var frameBound = 0
    /// Source frames still to drop after a seek (those before the sample sought).
    private var dropping = 0
    private var finished = false
    private var seekPoints: [(sample: Int, offset: Int)] = []
    private let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * AudioFormat.channels)

    public init(source: String, rate: Int) throws(DecodeError) {
        output = try FedOutput(source: source, rate: rate)
        self.source = source
    }

    deinit { scratch.deallocate() }

    /// Whether `bytes` begin as a FLAC file does.
    public static func isFLAC(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: Array("fLaC".utf8)) }

    public func feed(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        guard !finished else { throw DecodeError(path: source, message: "bytes fed after the end of the stream") }
        if let input {
            input.append(bytes)
            return
        }
        let rest = try head.take(bytes, source: source)
        guard head.done else { return }
        try begin()
        input?.append(UnsafeRawBufferPointer(rebasing: bytes[rest...]))
    }

    public func finish() {
        finished = true
        input?.finished = true
    }

    public func setSize(_ bytes: Int) {}
    public func takeTitle() -> String? { nil }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> FeedDecoder.Result {
        while let frames, let input {
            if frames.pendingFrames > 0 {
                let count = frames.takePending(into: scratch, frames: 4096)
                let kept = count - min(dropping, count)
                dropping -= count - kept
                if kept > 0 {
                    output.decoded.append(frames: kept) { $0.update(from: scratch + (count - kept) * AudioFormat.channels, count: kept * AudioFormat.channels) }
                }
                continue
            }
            // Decoded here: what the frames at hand make, or the end.
            guard !frames.atEnd, input.available >= frameBound || input.finished else { break }
            try frames.decodeNext()
            if frames.atEnd, !input.finished, frames.pendingFrames == 0 {
                throw DecodeError(path: source, message: "a FLAC frame larger than its STREAMINFO says frames are")
            }
            if output.decoded.available >= 4096 { break }
        }
        let ended = finished && (frames?.atEnd ?? true) && (frames?.pendingFrames ?? 0) == 0
        return try output.read(into: buffer, finished: ended, nothing: "no FLAC audio found in the stream")
    }

    /// Moves to `frame` (at the output's rate): the bytes come again from the seek point before
    /// it, and the frames up to it are dropped.
    public func seek(toFrame frame: Int) throws(DecodeError) -> Int {
        guard let info = head.streamInfo, let sourceRate = frames?.format.sampleRate else {
            throw DecodeError(path: source, message: "cannot seek before the stream's format is known")
        }
        guard !seekPoints.isEmpty else { throw DecodeError(path: source, message: "cannot seek: the FLAC file has no seek table") }
        let target = Int((Double(max(0, frame)) * Double(sourceRate) / Double(output.rate)).rounded(.down))
        let point = seekPoints.last { $0.sample <= target } ?? seekPoints[0]
        input = nil
        frames = nil
        try start(streamInfo: info)
        dropping = target - point.sample
        finished = false
        output.restart(at: frame)
        return head.audioStart + point.offset
    }

    /// The metadata has passed: libFLAC is started on STREAMINFO, and the seek table kept.
    private func begin() throws(DecodeError) {
        guard let info = head.streamInfo else { throw DecodeError(path: source, message: "a FLAC stream without STREAMINFO") }
        try start(streamInfo: info)
        guard let frames else { return }
        let format = frames.format
        try output.follow(SourceFormat(sampleRate: format.sampleRate, channels: AudioFormat.channels, bitsPerSample: format.bitsPerSample))
        length = frames.length.map { Int((Double($0) * Double(output.rate) / Double(format.sampleRate)).rounded()) }
        // Placeholders (all ones) and points past the end or out of order are no use.
        var last = -1
        seekPoints = head.seekTable.filter { point in
            guard point.sample > last, point.sample < (frames.length ?? .max) else { return false }
            last = point.sample
            return true
        }
        if seekPoints.first?.sample != 0 { seekPoints.insert((0, 0), at: 0) }
        // STREAMINFO's largest frame, else the largest a frame of its block size can be (each
        // sample stored as it is), and room for the headers.
        let largest = Int(info[7]) << 16 | Int(info[8]) << 8 | Int(info[9])
        let blockSize = Int(info[2]) << 8 | Int(info[3])
        let bytesPerFrame = max(1, format.channels) * ((format.bitsPerSample ?? 32) + 7) / 8
        frameBound = (largest > 0 ? largest : max(blockSize, 4608) * bytesPerFrame) + 1024
    }

    /// A fresh libFLAC decoder that has read STREAMINFO (as the only metadata block).
    private func start(streamInfo: [UInt8]) throws(DecodeError) {
        let input = FedBytes(path: source)
        input.append(Array("fLaC".utf8) + [0x80, 0, 0, UInt8(streamInfo.count)] + streamInfo)
        frames = try FLACFrames(bytes: input, ogg: false)
        self.input = input
    }

    /// The metadata blocks at a FLAC stream's head, read as they pass.
    struct StreamHead {
        private(set) var streamInfo: [UInt8]?
        private(set) var seekTable: [(sample: Int, offset: Int)] = []
        /// The byte where the frames begin, once `done`.
        private(set) var audioStart = 0
        private(set) var done = false
        /// Bytes of the block in hand (or of its header) gathered so far.
        private var gathered: [UInt8] = []
        private var state = State.magic
        private var consumed = 0

        private enum State {
            case magic
            case blockHeader
            /// A block to keep (`gathered`) or pass over, and whether it is the last.
            case block(type: UInt8, length: Int, last: Bool, keep: Bool)
        }

        /// The largest seek table kept (65,536 points, hours of audio at any spacing).
        static let largestSeekTable = 18 << 16

        /// Takes bytes until the metadata has passed; gives the index where the frames begin in
        /// `bytes` (its end when they have not).
        mutating func take(_ bytes: UnsafeRawBufferPointer, source: String) throws(DecodeError) -> Int {
            var index = 0
            while !done, index < bytes.count {
                switch state {
                case .magic, .blockHeader:
                    let wanted = 4 - gathered.count
                    let count = min(wanted, bytes.count - index)
                    gathered += bytes[index..<index + count]
                    index += count
                    guard gathered.count == 4 else { continue }
                    if case .magic = state {
                        guard FLACFeedDecoder.isFLAC(gathered) else { throw DecodeError(path: source, message: "not a FLAC stream") }
                        state = .blockHeader
                    } else {
                        let type = gathered[0] & 0x7F, length = Int(gathered[1]) << 16 | Int(gathered[2]) << 8 | Int(gathered[3])
                        let keep = (type == 0 && length == 34) || (type == 3 && length <= Self.largestSeekTable)
                        if type == 0, length != 34 { throw DecodeError(path: source, message: "a STREAMINFO block of \(length) bytes") }
                        state = .block(type: type, length: length, last: gathered[0] & 0x80 != 0, keep: keep)
                    }
                    gathered = []
                case .block(let type, let length, let last, let keep):
                    let count = min(length - consumed, bytes.count - index)
                    if keep { gathered += bytes[index..<index + count] }
                    index += count
                    consumed += count
                    guard consumed == length else { continue }
                    if type == 0 { streamInfo = gathered }
                    if type == 3 { seekTable = Self.points(gathered) }
                    gathered = []
                    consumed = 0
                    state = .blockHeader
                    done = last
                }
            }
            audioStart += index
            return index
        }

        /// SEEKTABLE's points: the sample, and the byte from the first frame, of each.
        static func points(_ table: [UInt8]) -> [(sample: Int, offset: Int)] {
            stride(from: 0, to: table.count - 17, by: 18).compactMap { start in
                let sample = table[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let offset = table[start + 8..<start + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard sample < 1 << 40, offset < 1 << 40 else { return nil }  // placeholders, and no file is that large
                return (Int(sample), Int(offset))
            }
        }
    }
}

/// The bytes of a stream fed so far, read once each, for libFLAC: at the end of what is at
/// hand it says the stream ended, so it never waits (the caller feeds a whole frame first).
final class FedBytes: FLACInput {
    let path: String
    var finished = false
    private var bytes: [UInt8] = []
    private var head = 0

    init(path: String) {
        self.path = path
    }

    var available: Int { bytes.count - head }
    var offset: Int { -1 }
    var length: Int? { nil }

    func append(_ more: some Collection<UInt8>) {
        if head > 0, head >= bytes.count / 2 {
            bytes.removeFirst(head)
            head = 0
        }
        bytes.append(contentsOf: more)
    }

    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let count = min(count, available)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + head, byteCount: count) }
        head += count
        return count
    }

    func seek(_ offset: Int, whence: Int32) -> Int { -1 }
}
