internal import CVorbisFile
import Foundation

/// Decodes an Ogg Vorbis file with libvorbisfile: its length from the granule positions,
/// sample-accurate seeks (`ov_pcm_seek`), and the PCM `oggdec` writes (the same float-to-16-bit
/// rounding), made stereo by `StereoMix` in Vorbis's channel order.
public final class VorbisDecoder: FileDecoder {
    public convenience init(path: String, rate: Int? = nil) throws(DecodeError) {
        try self.init(bytes: try AudioFileBytes(path: path), rate: rate)
    }

    init(bytes: AudioFileBytes, rate: Int?) throws(DecodeError) {
        try super.init(path: bytes.path, frames: try VorbisFrames(bytes: bytes), rate: rate)
    }
}

/// One `OggVorbis_File` and the file it reads.
final class VorbisFrames: FrameSource {
    private let bytes: AudioFileBytes
    private let file: UnsafeMutablePointer<OggVorbis_File>
    let format: SourceFormat
    let length: Int?
    let seekable: Bool
    private var ended = false
    private var mixes: [Int: StereoMix] = [:]

    init(bytes: AudioFileBytes) throws(DecodeError) {
        self.bytes = bytes
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        var callbacks = ov_callbacks(read_func: { buffer, size, count, context in
            let (wanted, overflow) = size.multipliedReportingOverflow(by: count)
            guard let buffer, size > 0, !overflow else { return 0 }
            return max(0, AudioFileBytes.of(context).read(into: buffer, count: wanted)) / size
        }, seek_func: { context, offset, whence in
            AudioFileBytes.of(context).seek(Int(offset), whence: whence) < 0 ? -1 : 0
        }, close_func: nil, tell_func: { context in
            AudioFileBytes.of(context).offset
        })
        var opened = ov_open_callbacks(bytes.context, file, nil, 0, callbacks)
        // A file cut short or with garbage inside makes libvorbisfile's scan of the whole file
        // find no length (0), and then it plays nothing. Read from start to end instead, as a
        // stream: it plays as far as it is good, without a length or seeking.
        seekable = !(opened == 0 && ov_pcm_total(file, -1) <= 0)
        if !seekable {
            ov_clear(file)
            _ = bytes.seek(0, whence: SEEK_SET)
            callbacks.seek_func = nil
            callbacks.tell_func = nil
            opened = ov_open_callbacks(bytes.context, file, nil, 0, callbacks)
        }
        guard opened == 0 else {
            // A failed open has cleared the struct itself (and closes nothing: the file is ours).
            file.deallocate()
            throw DecodeError(path: bytes.path, message: Self.message(for: opened))
        }
        self.file = file
        // From here deinit clears and frees it, even when init throws.
        guard let info = ov_info(file, -1)?.pointee, SourceFormat.rates.contains(info.rate),
              (1...255).contains(info.channels) else {
            format = SourceFormat(sampleRate: 0, channels: 0, bitsPerSample: nil)
            length = nil
            throw DecodeError(path: bytes.path, message: "the Vorbis header gives no usable rate or channel count")
        }
        format = SourceFormat(sampleRate: info.rate, channels: Int(info.channels), bitsPerSample: nil)
        let total = seekable ? ov_pcm_total(file, -1) : -1
        length = total >= 0 ? Int(total) : nil
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws(DecodeError) -> Int {
        guard !ended else { return 0 }
        while true {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var link: Int32 = 0
            let got = ov_read_float(file, &pcm, Int32(min(frames, 4096)), &link)
            // A hole (bytes that are no Ogg page, a page lost): libvorbisfile goes on after it.
            if got == Int(OV_HOLE) { continue }
            guard got > 0 else {
                ended = true
                if got == 0 { return 0 }
                throw DecodeError(path: bytes.path, message: Self.message(for: Int32(truncatingIfNeeded: got)))
            }
            guard let pcm, let info = ov_info(file, link)?.pointee, (1...255).contains(info.channels) else {
                throw DecodeError(path: bytes.path, message: "a chained stream with no usable header")
            }
            // A chained file (a recorded stream) may change channels, not the rate: the output is opened at one.
            guard info.rate == format.sampleRate else {
                throw DecodeError(path: bytes.path, message: "the sample rate changes inside the file (\(format.sampleRate) to \(info.rate) Hz)")
            }
            let channels = Int(info.channels)
            let mix = mixes[channels] ?? StereoMix.vorbis(channels: channels)
            mixes[channels] = mix
            // 32768, as libvorbis's own 16-bit output scales before rounding.
            mix.mix(frames: got, into: destination) { channel, index in pcm[channel]![index] * 32768 }
            return got
        }
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        if let length, frame >= length {
            ended = true
            return
        }
        ended = false
        let status = ov_pcm_seek(file, Int64(frame))
        guard status == 0 else { throw DecodeError(path: bytes.path, message: "cannot seek: " + Self.message(for: status)) }
    }

    /// libvorbisfile's (and libopusfile's: the same numbers) errors, said plainly.
    static func message(for status: Int32, codec: String = "Vorbis") -> String {
        switch status {
        case -128: "the file could not be read"
        case -132: "not \(codec) audio"
        case -133: "a damaged header"
        case -134: "a version of the format this library does not know"
        case -135: "not audio"
        case -136: "a damaged packet"
        case -137: "a damaged link between chained streams"
        case -138: "the stream cannot seek"
        case -139: "a damaged timestamp (granule position)"
        default: "the stream cannot be decoded (error \(status))"
        }
    }
}

extension AudioFileBytes {
    /// What the C libraries hand back to the read callbacks.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func of(_ context: UnsafeMutableRawPointer?) -> AudioFileBytes {
        Unmanaged<AudioFileBytes>.fromOpaque(context!).takeUnretainedValue()
    }
}
