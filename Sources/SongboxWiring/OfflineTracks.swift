import Foundation
import SongboxAudio
import SongboxLibrary
import SongboxRemote

/// Remote tracks in the library and their offline copies: `songbox add-url` and `songbox
/// cache`. The files are in the cache folder (`OfflineCache`), what is kept and pinned in the
/// library's `offline` table; a download is recorded only once complete, so a kill at any
/// moment loses nothing already there.
public struct OfflineTracks {
    public let store: LibraryStore
    public let network: NetworkTracks
    public let cache: OfflineCache
    /// The most bytes kept of tracks that are not pinned (`cache_size`).
    public let limit: Int64

    public init(store: LibraryStore, wiring: Wiring) {
        self.store = store
        network = wiring.remoteTracks
        cache = network.cache ?? OfflineCache(folder: OfflineCache.defaultFolder())
        limit = wiring.config.cacheLimit
    }

    /// What `keep` did.
    public struct Kept: Sendable {
        public var id: Int64
        public var added: Bool
        /// A live stream: kept with no copy, no length.
        public var stream: Bool
    }

    /// Keeps `url` in the library (`songbox add-url`): a file is downloaded once, its tags and
    /// length read from the copy, which stays in the cache (pinned when `keepOffline`); a live
    /// stream is kept as it is. A URL that cannot be fetched is an error and nothing is kept.
    public func keep(_ url: String, title: String?, artist: String?, album: String?, keepOffline: Bool) throws -> Kept {
        var downloaded: (file: String, size: Int64)?
        do throws(DownloadError) {
            // A copy that is not pinned must fit `cache_size`: it would be evicted at once.
            downloaded = try network.download(url, into: cache, limit: keepOffline ? nil : limit)
        } catch {
            // A live stream has nothing to download: it is kept as it is.
            guard error.liveStream else { throw error }
        }
        let kept = try store.offline.keepRemote(url: url, copy: downloaded?.file, size: downloaded?.size ?? 0,
                                        title: title ?? (downloaded == nil ? url : nil), artist: artist, album: album)
        if let downloaded { try store.offline.markCached(kept.id, file: OfflineCache.name(of: url), size: downloaded.size) }
        if keepOffline { try store.offline.setKeepOffline([kept.id], true) }
        _ = try evict()
        return Kept(id: kept.id, added: kept.added, stream: downloaded == nil)
    }

    /// Pins `tracks` (those that are URLs) and downloads those not yet complete; `report` is told
    /// of each as it is done or fails (a failure does not stop the others).
    public func pin(_ tracks: [Track], report: (Track, Result<Int64, DownloadError>) -> Void) throws {
        let remote = tracks.filter { RemoteTracks.isURL($0.path) }
        try store.offline.setKeepOffline(remote.map(\.id), true)
        for track in remote {
            let downloaded: (file: String, size: Int64)
            do throws(DownloadError) {
                downloaded = try network.download(track.path, into: cache)
            } catch {
                report(track, .failure(error))
                continue
            }
            try store.offline.markCached(track.id, file: OfflineCache.name(of: track.path), size: downloaded.size)
            report(track, .success(downloaded.size))
        }
        _ = try evict()
    }

    /// Unpins `tracks` and deletes their copies; returns how many had one.
    @discardableResult
    public func remove(_ ids: Set<Int64>) throws -> Int {
        var removed = 0
        for entry in try entries() where ids.contains(entry.trackID) {
            cache.delete(entry.url)
            try store.offline.forgetCached(entry.trackID, unpin: true)
            if entry.complete { removed += 1 }
        }
        return removed
    }

    /// What the cache holds, after forgetting copies whose file is gone (deleted by hand).
    public func entries() throws -> [OfflineEntry] {
        var entries = try store.offline.offlineEntries()
        for (index, entry) in entries.enumerated() where entry.complete && cache.completeFile(of: entry.url) == nil {
            try store.offline.forgetCached(entry.trackID)
            entries[index].complete = false
            entries[index].size = 0
        }
        return entries
    }

    /// Deletes the copies of unpinned tracks, least recently played first, until what is left
    /// of them fits `limit`; returns what went.
    public func evict() throws -> [OfflineEntry] {
        let unpinned = try entries().filter { $0.complete && !$0.pinned }
        var total = unpinned.reduce(Int64(0)) { $0 + $1.size }
        var evicted: [OfflineEntry] = []
        for entry in unpinned where total > limit {
            cache.delete(entry.url)
            try store.offline.forgetCached(entry.trackID)
            total -= entry.size
            evicted.append(entry)
        }
        return evicted
    }
}
