internal import CFAAD
import Foundation
import SongboxFiles

/// Decodes MP4 audio (`.m4a`, `.m4b`, `.mp4`): AAC with libfaad2, ALAC with songbox's own
/// decoder (`ALACPackets`). The packets are found through `MP4Movie`'s sample tables (the
/// scanner's own reading, so what it indexes is what plays), read one at a time; the encoder's
/// delay and padding (`iTunSMPB`, else the edit list) are cut, so an album plays without gaps;
/// seeks land on the sample (AAC decodes a few packets before the target and drops them, for
/// the overlap of its transform to settle).
public final class MP4Decoder: FileDecoder {
    public convenience init(path: String, rate: Int? = nil) throws(DecodeError) {
        try self.init(bytes: try AudioFileBytes(path: path), rate: rate)
    }

    init(bytes: AudioFileBytes, rate: Int?) throws(DecodeError) {
        try super.init(path: bytes.path, frames: try MP4Frames(bytes: bytes), rate: rate)
    }
}

/// A damaged packet: why.
struct PacketError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// One codec's decoder of MP4 packets, as `MP4Frames` drives it.
protocol PacketCodec: AnyObject {
    /// What it decodes to (the rate is the output's: HE-AAC's is twice its core's).
    var format: SourceFormat { get }
    /// Frames each packet decodes to (the last may give fewer).
    var frameLength: Int { get }
    /// Packets decoded and dropped before a seek's target, for the decoder's state to settle.
    var preroll: Int { get }
    /// Decodes one packet into interleaved stereo at 16-bit scale (at most `frameLength` frames);
    /// returns the frames written.
    func decode(_ packet: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<Float>) throws(PacketError) -> Int
    /// Forgets what came before: the next packet decodes as a stream's first.
    func reset() throws(DecodeError)
}

/// The packets of an MP4 file's sound track, decoded and cut to the music: the decoder's output
/// is a timeline where packet k starts at k × `frameLength`; the music is the window
/// [`start`, `start` + `length`) of it.
final class MP4Frames: FrameSource {
    private let bytes: AudioFileBytes
    private let table: MP4SampleTable
    private let codec: any PacketCodec
    let format: SourceFormat
    let length: Int?
    /// The encoder's delay: output frames before the music.
    private let start: Int
    private var cursor: MP4SampleTable.Cursor
    /// The timeline's frame `read` gives next.
    private var next: Int
    private var pending: UnsafeMutablePointer<Float>
    private var pendingStart = 0, pendingEnd = 0
    private var packet: [UInt8] = []
    /// Damaged packets in a row.
    private var failures = 0
    private var path: String { bytes.path }

    /// Damaged packets in a row after which the rest of the file is taken as lost.
    private static let failureLimit = 50

    init(bytes: AudioFileBytes) throws(DecodeError) {
        self.bytes = bytes
        guard let movie = MP4Movie.read(size: bytes.size, { bytes.bytes(at: $0, count: $1) }) else {
            throw DecodeError(path: bytes.path, message: "no MP4 movie atom (moov): not an MP4 file, or a damaged one")
        }
        guard let track = movie.track else {
            throw DecodeError(path: bytes.path, message: "an MP4 file without an AAC or ALAC sound track")
        }
        guard track.table.count > 0 else {
            throw DecodeError(path: bytes.path, message: "an MP4 file whose sample tables do not play: \(track.problem ?? "no packets")")
        }
        table = track.table
        switch track.codec {
        case .aac(let config): codec = try AACPackets(config: config, path: bytes.path)
        case .alac(let config): codec = try ALACPackets(config: config, path: bytes.path)
        }
        format = codec.format
        let trim = movie.trim(rate: format.sampleRate)
        start = trim.start
        length = trim.frames
        next = trim.start
        cursor = table.cursor(at: 0)
        pending = .allocate(capacity: codec.frameLength * 2)
    }

    deinit { pending.deallocate() }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int {
        let end = start + (length ?? 0)
        while pendingStart == pendingEnd {
            guard cursor.index < table.count, next < end else { return 0 }
            let at = cursor.index * codec.frameLength
            let got = try decodePacket()
            // The part of this packet's frames inside the music and not yet given.
            let from = max(next, at) - at, to = min(end, at + got) - at
            if to > from {
                pendingStart = from
                pendingEnd = to
                next = at + from
            }
        }
        let count = min(frames, pendingEnd - pendingStart)
        destination.update(from: pending + pendingStart * 2, count: count * 2)
        pendingStart += count
        next += count
        return count
    }

    /// Decodes the packet at the cursor into `pending` and moves on; a damaged one is silence.
    private func decodePacket() throws(DecodeError) -> Int {
        let (index, offset, size) = (cursor.index, cursor.offset, table.size(cursor.index))
        table.advance(&cursor)
        // Zeros after the packet: a bit reader may look a few bytes ahead.
        if packet.count < size + 16 { packet = [UInt8](repeating: 0, count: size + 16) }
        let got = packet.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < size {
                let n = pread(bytes.descriptor, buffer.baseAddress! + done, size - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            for index in done..<(size + 16) { buffer[index] = 0 }
            return done
        }
        do throws(PacketError) {
            guard got == size else { throw PacketError("the file ends inside a packet") }
            let codec = self.codec, pending = self.pending
            let frames = try packet.withUnsafeBytes { buffer in
                Result { () throws(PacketError) in try codec.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<size]), into: pending) }
            }.get()
            failures = 0
            return min(frames, codec.frameLength)
        } catch {
            failures += 1
            // A damaged packet is silence, as long as it takes; a long run of them is the rest
            // of the file lost.
            if failures >= Self.failureLimit {
                cursor = table.cursor(at: table.count)
                throw DecodeError(path: path, message: "\(Self.failureLimit) damaged \(codecName) packets in a row, up to packet \(index + 1): \(error.reason)")
            }
            pending.update(repeating: 0, count: codec.frameLength * 2)
            return codec.frameLength
        }
    }

    private var codecName: String { codec is ALACPackets ? "ALAC" : "AAC" }

    func seek(toFrame frame: Int) throws(DecodeError) {
        pendingStart = 0
        pendingEnd = 0
        next = start + max(0, min(frame, length ?? 0))
        let target = next / codec.frameLength
        let first = max(0, target - codec.preroll)
        if codec.preroll > 0 { try codec.reset() }
        cursor = table.cursor(at: min(first, table.count))
        failures = 0
    }
}

/// One libfaad2 decoder of the AAC packets of a track (raw access units, configured by the
/// track's AudioSpecificConfig), output as float and downmixed to stereo by libfaad2 itself.
final class AACPackets: PacketCodec {
    private var handle: NeAACDecHandle
    private let config: [UInt8]
    private let path: String
    let format: SourceFormat
    let frameLength: Int
    /// Two packets before a seek's target: the first fills the transform's overlap; SBR
    /// (HE-AAC) codes its envelopes against earlier frames, so it takes a few more.
    let preroll: Int

    init(config: [UInt8], path: String) throws(DecodeError) {
        self.config = config
        self.path = path
        let (handle, rate, channels) = try Self.open(config, path: path)
        self.handle = handle
        // From here deinit closes the handle, even when init throws.
        guard SourceFormat.rates.contains(rate), (1...SourceFormat.maximumChannels).contains(channels) else {
            NeAACDecClose(handle)
            throw DecodeError(path: path, message: "an AAC stream of \(rate) Hz and \(channels) channels")
        }
        let core = AACConfig(config)
        // HE-AAC's SBR doubles the core's rate and so each packet's frames (signalled in the
        // configuration, or found by libfaad2 in the first packet: it then doubles a low rate).
        let coreFrames = core?.frameLength ?? 1024
        frameLength = rate >= 2 * (core?.sampleRate ?? rate) ? 2 * coreFrames : coreFrames
        preroll = frameLength > coreFrames ? 4 : 2
        // The file's channels (libfaad2 makes mono stereo, in case Parametric Stereo turns up).
        format = SourceFormat(sampleRate: rate, channels: core.map { $0.channels > 0 ? $0.channels : channels } ?? channels,
                              bitsPerSample: nil)
    }

    deinit { NeAACDecClose(handle) }

    private static func open(_ config: [UInt8], path: String) throws(DecodeError) -> (NeAACDecHandle, Int, Int) {
        guard let handle = NeAACDecOpen() else { throw DecodeError(path: path, message: "libfaad2 could not create a decoder") }
        if let settings = NeAACDecGetCurrentConfiguration(handle) {
            settings.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
            // 5.1 and beyond to stereo, by libfaad2's own matrix.
            settings.pointee.downMatrix = 1
            _ = NeAACDecSetConfiguration(handle, settings)
        }
        var rate: UInt = 0
        var channels: UInt8 = 0
        var specific = config
        let status = specific.withUnsafeMutableBufferPointer { NeAACDecInit2(handle, $0.baseAddress, UInt($0.count), &rate, &channels) }
        guard status >= 0 else {
            NeAACDecClose(handle)
            throw DecodeError(path: path, message: "libfaad2 does not decode this AAC configuration (object type \(AACConfig(config)?.objectType ?? 0))")
        }
        // libfaad2 gives nothing for a stream's first packet (the overlap of silence before
        // it); told it is past the first, it gives that packet's frames, so the timeline starts
        // at 0 as the encoder's delay counts it.
        NeAACDecPostSeekReset(handle, 1)
        return (handle, Int(rate), Int(channels))
    }

    func reset() throws(DecodeError) {
        NeAACDecClose(handle)
        handle = try Self.open(config, path: path).0
    }

    func decode(_ packet: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<Float>) throws(PacketError) -> Int {
        var info = NeAACDecFrameInfo()
        let samples = NeAACDecDecode(handle, &info, UnsafeMutablePointer(mutating: packet.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                                     UInt(packet.count))
        guard info.error == 0 else { throw PacketError(String(cString: NeAACDecGetErrorMessage(info.error))) }
        let channels = Int(info.channels)
        guard let samples, channels > 0, info.samples > 0 else { return 0 }
        let frames = min(Int(info.samples) / channels, frameLength)
        let input = samples.assumingMemoryBound(to: Float.self)
        // libfaad2's float is ±1.0; ×32768 (a power of two) is its own 16-bit scale exactly.
        switch channels {
        case 1:
            for index in 0..<frames {
                let value = input[index] * 32768
                destination[2 * index] = value
                destination[2 * index + 1] = value
            }
        default:
            // Past two (a layout libfaad2's matrix does not take): its first two, front left and right.
            for index in 0..<frames {
                destination[2 * index] = input[index * channels] * 32768
                destination[2 * index + 1] = input[index * channels + 1] * 32768
            }
        }
        return frames
    }
}
