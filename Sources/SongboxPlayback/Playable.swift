import Foundation
import SongboxAudio
import SongboxLibrary

extension TrackStore {
    /// The tracks matching the query text as the player takes them, with their highlights,
    /// read compactly (`files(matching:)`).
    public func playable(matching text: String, now: Date = Date(), evaluated: [String: [Int64]] = [:]) throws(SongboxError) -> [PlayableTrack] {
        let files = try files(matching: text, now: now, evaluated: evaluated)
        let highlights = try highlights(of: files.map(\.id))
        let lyrics = try playableLyricTimes(of: files.map(\.id))
        let gains = try replayGains(of: files.map(\.id))
        let ramps = try mixRamps(of: files.map(\.id))
        return files.map { file in
            PlayableTrack(trackID: file.id, path: file.path, duration: file.duration,
                          highlight: highlights[file.id].map { HighlightRange(start: $0.start, end: $0.end) },
                          lyricTimes: lyrics[file.id], replayGain: gains[file.id],
                          album: AlbumPlace(album: file.album, by: file.albumArtist, disc: file.disc, number: file.track),
                          mixRamp: ramps[file.id])
        }
    }

    /// Library tracks as the player takes them, with their highlights.
    public func playable(_ tracks: [Track]) throws(SongboxError) -> [PlayableTrack] {
        let highlights = try highlights(of: tracks.map(\.id))
        let lyrics = try playableLyricTimes(of: tracks.map(\.id))
        let gains = try replayGains(of: tracks.map(\.id))
        let ramps = try mixRamps(of: tracks.map(\.id))
        return tracks.map { track in
            PlayableTrack(trackID: track.id, path: track.path, duration: track.duration,
                          highlight: highlights[track.id].map { HighlightRange(start: $0.start, end: $0.end) },
                          lyricTimes: lyrics[track.id], replayGain: gains[track.id],
                          album: AlbumPlace(album: track.album, by: track.albumArtist ?? track.artist, disc: track.disc, number: track.track),
                          mixRamp: ramps[track.id])
        }
    }

    /// The lyric times of the tracks `ids` that have synchronised lyrics, as the queue keeps them.
    public func playableLyricTimes(of ids: [Int64]) throws(SongboxError) -> [Int64: LyricTimes] {
        try lyricTimes(of: ids).compactMapValues { LyricTimes($0) }
    }

    /// The ReplayGain of the tracks `ids` that have some: the file's tags when they hold a
    /// usable gain, else the analysis's (values no file could sensibly hold are left out, with
    /// the reason: `ReplayGain.choose`).
    public func replayGains(of ids: [Int64]) throws(SongboxError) -> [Int64: ReplayGain] {
        try loudnessReadings(of: ids).compactMapValues { readings in
            ReplayGain.choose(
                tags: ReplayGain.Readings(trackGain: readings.tagTrackGain, trackPeak: readings.tagTrackPeak,
                                          albumGain: readings.tagAlbumGain, albumPeak: readings.tagAlbumPeak),
                analysis: ReplayGain.Readings(trackGain: readings.trackGain, trackPeak: readings.trackPeak,
                                              albumGain: readings.albumGain, albumPeak: readings.albumPeak))
        }
    }
}
