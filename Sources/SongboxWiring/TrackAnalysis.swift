import SongboxAnalysis
import SongboxAudio
import SongboxLibrary

/// The analysis of a file: the project's decoder feeding an analyzer. The decoder is made, used
/// and freed inside one call, so it belongs to the calling thread only.
public enum TrackAnalysis {
    /// Decodes the whole file at its own rate; throws `DecodeError` when it cannot, even half way.
    /// `channels`: the file's, as the library has them (1: its loudness is measured as mono).
    public static func analyze(_ path: String, channels: Int? = nil) throws -> AudioFeatures {
        let decoder = try AudioFile.decoder(path: path, rate: nil)
        let analyzer = TrackAnalyzer(sampleRate: decoder.format.sampleRate, mono: channels == 1)
        var buffer = [Int16](repeating: 0, count: 4096 * AudioFormat.channels)
        // A file never says `waiting` (only a network track does): anything but frames is the end.
        while case .frames(let frames) = try buffer.withUnsafeMutableBufferPointer({ try decoder.decode(into: $0) }) {
            buffer.withUnsafeBufferPointer { analyzer.feed(UnsafeBufferPointer(rebasing: $0[0..<frames * AudioFormat.channels])) }
        }
        return analyzer.finish()
    }

    /// Analyzes and stores each track matching `query` that needs it, one after the other; the
    /// paths that failed, with why. (`songbox analyze` does the same on every core.)
    @discardableResult
    public static func analyzeAll(in store: LibraryStore, matching query: String = "") throws -> [(path: String, reason: String)] {
        var failures: [(path: String, reason: String)] = []
        for track in try store.tracks.tracksToAnalyze(matching: query).pending {
            do { try store.tracks.saveFeatures(try analyze(track.file, channels: track.channels), of: track) } catch let error as DecodeError {
                failures.append((track.path, error.message))
            }
        }
        return failures
    }
}
