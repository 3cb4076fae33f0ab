import Foundation
import Logging
import SongboxLibrary
import SongboxScript
import SongboxServer
import Synchronization

/// The daemon's rescans of its music folders, one at a time (`update` gives a job id, as MPD's
/// does): at start for a folder new to the library, on the watcher's word, on the
/// `rescan_minutes` clock and when a client asks. Each is said to MPD's idle clients (`update`,
/// then `database` if it changed the library) and, if it did, to the plugins (`library_updated`).
final class Rescans: Sendable {
    private let store: LibraryStore
    private let logger: Logger
    private let clients: Clients
    private let config: CurrentConfig
    /// `--music`, which overrides the config's folders.
    private let namedFolders: [String]?
    /// Hands an event to every plugin.
    private let tell: @Sendable (LuaValue) -> Void
    /// The rescan running (its job id) and the last id given.
    private let updates = Mutex((running: Int?.none, last: 0))

    init(store: LibraryStore, logger: Logger, clients: Clients, config: CurrentConfig, musicFolders: [String]?,
         tell: @escaping @Sendable (LuaValue) -> Void) {
        self.store = store
        self.logger = logger
        self.clients = clients
        self.config = config
        self.namedFolders = musicFolders
        self.tell = tell
    }

    /// The music folders the daemon rescans: `--music`, else the config's.
    var musicFolders: [String] { namedFolders ?? config.value.musicFolders }

    /// The running rescan's job id.
    var running: Int? { updates.withLock { $0.running } }

    /// Seconds between two rescans on the clock (`rescan_minutes`); 0: none.
    var interval: Double { config.value.rescanMinutes * 60 }

    /// Scans at start when a music folder is new to the library (an empty library, a folder
    /// just added to the config), so its music is there without anyone asking.
    func scanIfNew() {
        guard !musicFolders.isEmpty else { return }
        let known = Set((try? LibraryScanner(store: store, logger: logger).rememberedFolders()) ?? [])
        let new = LibraryScanner.normalise(musicFolders).filter { !known.contains($0) }
        guard !new.isEmpty else { return }
        logger.info("songbox daemon: scanning \(new.joined(separator: ", ")), new to the library")
        _ = start()
    }

    /// Starts a rescan: its job id, or nil when one runs already.
    ///
    /// The scan runs on a thread of its own, as long as it takes: the scanner is synchronous
    /// (file reads on its reader threads, SQLite), so it must not hold one of Swift's few
    /// cooperative threads, and it is not waited for on the way out (a batch not committed is
    /// rolled back by SQLite; the next scan reads those files again).
    func start() -> Int? {
        let job = updates.withLock { updates -> Int? in
            guard updates.running == nil else { return nil }
            updates.last += 1
            updates.running = updates.last
            return updates.last
        }
        guard let job else { return nil }
        clients.post(.update)
        Thread.detachNewThread { [self] in scan(job) }
        return job
    }

    private func scan(_ job: Int) {
        logger.info("rescan \(job): started")
        // `database` only when the library changed, as MPD: a client that reloads its views on
        // it does not do so for a rescan that found nothing.
        var changed = false
        defer {
            updates.withLock { $0.running = nil }
            clients.post(changed ? [.update, .database] : .update)
        }
        var scanner = LibraryScanner(store: store, logger: logger)
        scanner.missingGrace = config.value.missingDays * 86_400
        do {
            var folders = musicFolders
            if folders.isEmpty { folders = try scanner.rememberedFolders() }
            let report = try scanner.scan(folders)
            logger.info("rescan: \(report.added) added, \(report.updated) updated, \(report.moved) moved, \(report.missing) missing, \(report.removed) removed")
            for folder in report.held { logger.warning("rescan held \(folder.path): \(folder.reason)") }
            changed = report.added + report.updated + report.moved + report.restored + report.missing + report.removed > 0
            guard changed else { return }
            tell(.table(["type": .string("library_updated"), "added": .integer(report.added),
                         "changed": .integer(report.updated + report.moved + report.restored), "removed": .integer(report.missing + report.removed)]))
        } catch {
            logger.error("rescan failed: \(error)")
        }
    }

    /// The watcher of the music folders (`watch = yes`), or nil when there is nothing to watch.
    func makeWatcher() -> FolderWatcher? {
        guard config.value.watch else { return nil }
        var folders = musicFolders
        if folders.isEmpty { folders = (try? LibraryScanner(store: store, logger: logger).rememberedFolders()) ?? [] }
        guard !folders.isEmpty else { return nil }
        do {
            // Folders inotify cannot watch are rescanned on the `rescan_minutes` clock, else every 15 minutes.
            return try FolderWatcher(roots: folders, fallbackInterval: interval > 0 ? interval : 15 * 60, logger: logger) {
                [self] in start() != nil
            }
        } catch {
            logger.warning("songbox daemon: not watching the music folders: \(error)")
            return nil
        }
    }
}
