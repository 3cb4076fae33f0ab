import SongboxFiles

/// What a `TrackDecoder.decode` gave.
public enum DecodedChunk: Sendable, Equatable {
    /// This many frames were written (at least one).
    case frames(Int)
    /// Nothing yet: a network track waiting for its next bytes. Ask again later.
    case waiting
    /// The track has no more audio.
    case ended
}

/// What a stream says it plays now (an Icecast/SHOUTcast station's `StreamTitle`).
public struct StreamTitle: Sendable, Hashable, Codable {
    public var title: String
    /// The station's name (`icy-name`), when it gives one.
    public var station: String?

    public init(title: String, station: String?) {
        self.title = title
        self.station = station
    }
}

/// Where the player's PCM comes from: a file here (`AudioFile.decoder`: `MP3Decoder`,
/// `FLACDecoder`, `VorbisDecoder`, `OpusDecoder`, `PCMFileDecoder`) or a track on the network.
/// The engine drives one from its thread, a chunk at a time; `decode` never blocks on the
/// network: it says `waiting` instead, so a pause or a skip pressed while the network stalls is
/// done at once.
public protocol TrackDecoder: AnyObject {
    /// What `decode` produces.
    var format: AudioFormat { get }
    /// The frame the next `decode` starts at.
    var position: Int { get }
    /// The length in frames, when known (never for a live stream).
    var length: Int? { get }
    /// Whether `seek` can move (a live stream cannot).
    var seekable: Bool { get }
    func decode(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> DecodedChunk
    func seek(toFrame frame: Int) throws(DecodeError)
    /// What the stream says it plays, when that changed since the last call.
    func takeStreamTitle() -> StreamTitle?
}

extension MP3Decoder: TrackDecoder {
    public var seekable: Bool { true }

    public func decode(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodeError) -> DecodedChunk {
        let frames = try read(into: buffer)
        return frames == 0 ? .ended : .frames(frames)
    }

    public func takeStreamTitle() -> StreamTitle? { nil }
}

/// Opens the tracks that are URLs. The wiring gives the player one (`SongboxRemote`); the audio
/// layer itself does no networking.
public protocol RemoteTrackOpener: AnyObject, Sendable {
    /// A decoder for `url` at `rate` (else the track's own rate, where it can tell), which
    /// returns at once: the connection is made while the player goes on.
    func open(_ url: String, rate: Int?) throws(DecodeError) -> any TrackDecoder
}

/// The player's way to remote tracks, compared by identity (settings are compared).
public struct RemoteTracks: Sendable, Hashable {
    public let opener: any RemoteTrackOpener

    public init(_ opener: any RemoteTrackOpener) {
        self.opener = opener
    }

    public static func == (lhs: RemoteTracks, rhs: RemoteTracks) -> Bool { lhs.opener === rhs.opener }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(opener)) }

    /// Whether `path` names a track on the network (`http://`, `https://`) rather than a file.
    public static func isURL(_ path: String) -> Bool { TrackLocation.isURL(path) }
}

extension PlayableTrack {
    /// Whether it is played from the network.
    public var isRemote: Bool { RemoteTracks.isURL(path) }

    /// A URL the library does not keep: played, not counted (as MPD's `add http://...`).
    public static func outsideLibrary(url: String) -> PlayableTrack {
        PlayableTrack(trackID: notInLibrary, path: url, duration: 0)
    }
}
