import SongboxAudio
import SongboxFiles

/// A remote track as the player plays it: the bytes `HTTPAudioSource` fetches ahead, decoded as
/// they come, by what the first bytes are: MP3 (libmpg123's feed mode), Ogg Vorbis and Opus
/// (`OggFeedDecoder`), AAC in ADTS frames (`ADTSFeedDecoder`) or FLAC (`FLACFeedDecoder`). Never
/// waits: with no bytes at hand it says `waiting`. An MP3 or FLAC file whose server takes range
/// requests can seek (from the byte the decoder names); a live
/// stream cannot, and announces its titles instead (ICY metadata, or an Ogg stream's comments).
final class StreamDecoder: TrackDecoder {
    let format: AudioFormat
    /// Chosen by the first bytes; nil until they come.
    private var decoder: (any FedDecoder)?
    /// A file that plays only once it is all here (MP4, WAV, AIFF), while it comes; then the
    /// decoder of the file it makes.
    private var whole: WholeFile?
    private var file: (any TrackDecoder)?
    private let source: HTTPAudioSource
    /// The bytes that came before there were enough to tell what they are.
    private var firstBytes: [UInt8] = []
    /// A seek asked for before the first frame was decoded: libmpg123 can place it only then.
    private var pendingSeek: Int?
    /// Whether a title was said (the stream's own, or its playlist's name for it).
    private var titled = false
    /// What `take` hands over at a time: about a second of 256 kbit/s audio.
    private static let feedSize = 32 << 10

    init(url: String, rate: Int, source: HTTPAudioSource) throws(DecodeError) {
        guard rate > 0 else { throw DecodeError(path: TrackLocation.shown(url), message: "cannot play at \(rate) Hz") }
        format = AudioFormat(sampleRate: rate)
        self.source = source
    }

    deinit { source.close() }

    var position: Int { file?.position ?? pendingSeek ?? decoder?.position ?? 0 }
    var length: Int? { file?.length ?? (source.head?.live == true ? nil : decoder?.length) }

    /// Until the server has answered, a seek is taken on trust and placed once it can be.
    var seekable: Bool {
        if let file { return file.seekable }
        guard let head = source.head else { return true }
        return !head.live && head.ranges && head.length != nil && decoder?.seeks != false
    }

    func decode(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> DecodedChunk {
        if let file { return try file.decode(into: buffer) }
        if let whole { return try gather(whole, into: buffer) }
        while true {
            guard let decoder else {
                // Enough of the first bytes to tell what they are.
                switch source.take(upTo: Self.feedSize) {
                case .bytes(let bytes):
                    firstBytes += bytes
                    if WholeFile.isWhole(firstBytes) { return try gather(WholeFile(url: source.url, length: source.head?.length), into: buffer) }
                    if let kind = Self.kind(of: firstBytes, type: source.head?.type, ended: false) { try start(kind) }
                    continue
                case .waiting:
                    return .waiting
                case .ended:
                    try start(Self.kind(of: firstBytes, type: source.head?.type, ended: true) ?? .mp3)
                    self.decoder?.finish()
                    continue
                case .failed(let message):
                    throw DecodeError(path: TrackLocation.shown(source.url), message: message)
                }
            }
            switch try decoder.read(into: buffer) {
            case .frames(let frames):
                if let target = pendingSeek {
                    // The first frame is known: now the seek can be placed (and what was
                    // decoded before it is not heard).
                    pendingSeek = nil
                    if seekable, target > 0 { try place(target, in: decoder) }
                    continue
                }
                return .frames(frames)
            case .ended:
                return .ended
            case .needsMore:
                switch source.take(upTo: Self.feedSize) {
                case .bytes(let bytes):
                    try feed(bytes, to: decoder)
                case .waiting:
                    return .waiting
                case .ended:
                    decoder.finish()
                case .failed(let message):
                    throw DecodeError(path: TrackLocation.shown(source.url), message: message)
                }
            }
        }
    }

    func seek(toFrame frame: Int) throws(DecodeError) {
        if let file { return try file.seek(toFrame: frame) }
        guard let decoder, decoder.started else {
            pendingSeek = max(0, frame)
            return
        }
        try place(frame, in: decoder)
    }

    func takeStreamTitle() -> StreamTitle? {
        if let title = source.takeTitle() ?? decoder?.takeTitle() {
            titled = true
            return StreamTitle(title: title, station: source.head?.station)
        }
        // A stream that says no title of its own has the one its station's playlist gives it
        // (a `.pls` `Title1=`), as MPD shows it; once, and only until the stream says one.
        guard !titled, let head = source.head, let listed = head.listedName else { return nil }
        titled = true
        return StreamTitle(title: listed, station: head.station)
    }

    enum Kind { case mp3, ogg, adts, flac }

    /// What the first bytes are, once they tell: Ogg by its capture pattern, FLAC by `fLaC`, AAC by its type or
    /// by two ADTS frames in a row (MP3 frames sync alike), else MP3; nil while too few came.
    static func kind(of bytes: [UInt8], type: String?, ended: Bool) -> Kind? {
        guard bytes.count >= 4 || ended else { return nil }
        if OggFeedDecoder.isOgg(bytes) { return .ogg }
        if FLACFeedDecoder.isFLAC(bytes) { return .flac }
        if let type, type.contains("aac") { return .adts }
        if type == "audio/mpeg" || type == "audio/mp3" { return .mp3 }
        if ADTSFeedDecoder.isADTS(bytes) { return .adts }
        return bytes.count >= 8192 || ended ? .mp3 : nil
    }

    /// Takes every byte at hand into the file that must be whole; once it is, plays it.
    private func gather(_ whole: WholeFile, into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> DecodedChunk {
        if self.whole == nil {
            self.whole = whole
            try whole.append(firstBytes)
            firstBytes = []
        }
        while true {
            switch source.take(upTo: 1 << 20) {
            case .bytes(let bytes):
                try whole.append(bytes)
            case .waiting:
                return .waiting
            case .ended:
                let file = try whole.open(rate: format.sampleRate)
                self.file = file
                self.whole = nil
                source.close()
                if let target = pendingSeek {
                    pendingSeek = nil
                    try file.seek(toFrame: target)
                }
                return try file.decode(into: buffer)
            case .failed(let message):
                throw DecodeError(path: TrackLocation.shown(source.url), message: message)
            }
        }
    }

    /// The decoder for what the first bytes are, fed them.
    private func start(_ kind: Kind) throws(DecodeError) {
        let url = TrackLocation.shown(source.url)
        let chosen: any FedDecoder = switch kind {
        case .ogg: try OggFeedDecoder(source: url, rate: format.sampleRate)
        case .adts: try ADTSFeedDecoder(source: url, rate: format.sampleRate)
        case .flac: try FLACFeedDecoder(source: url, rate: format.sampleRate)
        case .mp3: try FeedDecoder(source: url, rate: format.sampleRate)
        }
        decoder = chosen
        // The file's size, once the server said it: libmpg123 can tell the length from it.
        if let head = source.head, !head.live, let size = head.length { chosen.setSize(size) }
        try feed(firstBytes, to: chosen)
        firstBytes = []
    }

    private func place(_ frame: Int, in decoder: any FedDecoder) throws(DecodeError) {
        let from = try decoder.seek(toFrame: length.map { min(frame, max(0, $0 - 1)) } ?? frame)
        source.restart(at: from)
    }

    private func feed(_ bytes: [UInt8], to decoder: any FedDecoder) throws(DecodeError) {
        var failure: DecodeError?
        bytes.withUnsafeBytes { raw in
            do throws(DecodeError) { try decoder.feed(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
