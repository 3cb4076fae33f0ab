import SongboxAudio
import SongboxLibrary

extension TrackStore {
    /// A URL as the player takes it: the library's track when one was added with that URL
    /// (`songbox add-url`, counted like a local one), else a track outside the library.
    public func playable(url: String) throws(SongboxError) -> PlayableTrack {
        if let track = try track(path: url), let known = try playable([track]).first { return known }
        return .outsideLibrary(url: url)
    }
}
