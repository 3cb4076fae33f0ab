import Foundation
import SongboxServer
import Logging
import ServiceLifecycle
import SongboxAudio
import SongboxFiles
import Synchronization

/// Watches the music folders with inotify (one watch per folder, new folders watched as they
/// appear) and asks for a rescan once a burst of changes has settled: an album being copied in
/// is one rescan after its last file is still, never a file indexed half-written. The rescan
/// is the scanner's own, so a moved file keeps its id and history and a deleted one is missing,
/// not gone (the unplugged-drive rules stand).
///
/// Where inotify cannot serve — a folder on NFS, SMB/CIFS or a FUSE mount (it hears nothing of
/// changes made on the server), or the watch limit reached — the folders are rescanned every
/// `fallbackInterval` instead, said once in the log with the reason. While nothing changes its
/// task waits with no timeout and no thread of its own (GCD's epoll holds the descriptor): no
/// wake-ups when idle. Owned by the task that runs it.
final class FolderWatcher {
    /// How long the folders must be still before a rescan.
    static let settle: Double = 2
    /// Whether a filesystem type (`/proc/self/mounts`) is one whose changes elsewhere inotify does
    /// not hear: network shares, and FUSE mounts other than a local disk's (`fuseblk`: NTFS and
    /// exFAT drives, changed only through this machine).
    static func isRemote(_ type: String) -> Bool {
        ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "fuse"].contains(type)
            || (type.hasPrefix("fuse.") && type != "fuseblk")
    }

    /// The filesystem type `folder` is on: the longest mount point over it.
    static func filesystemType(of folder: String) -> String? {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        let path = (folder as NSString).resolvingSymlinksInPath
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Spaces and such in a mount point are written as octal escapes (`\040`).
            let point = String(fields[1]).replacingOccurrences(of: "\\040", with: " ")
            let inside = point == "/" || path == point || path.hasPrefix(point + "/")
            if inside, point.count >= (best?.point.count ?? -1) { best = (point, String(fields[2])) }
        }
        return best?.type
    }

    private let roots: [String]
    private let rescan: @Sendable () -> Bool
    private let logger: Logger
    private let fallbackInterval: Double
    private let inotify: Int32
    private var folders: [Int32: (path: String, ignoring: IgnorePatterns)] = [:]
    /// Why some folders are not watched (rescanned every `fallbackInterval` instead), once known.
    private var fallback: String?

    init(roots: [String], fallbackInterval: Double, logger: Logger, rescan: @escaping @Sendable () -> Bool) throws {
        self.roots = roots
        self.rescan = rescan
        self.logger = logger
        self.fallbackInterval = fallbackInterval
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw WatchError("inotify is not available: \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(inotify)
    }

    struct WatchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Watches until its task is cancelled; asks for a rescan as changes settle (and on the
    /// fallback's clock). `rescan` says whether one started: one running already (asked for by a
    /// client) leaves the change for the next.
    func run() async {
        for root in roots { watchTree(root) }
        logger.info("songbox daemon: watching \(folders.count) folder\(folders.count == 1 ? "" : "s") for new music")
        var changed = false
        var lastChange = 0.0, lastRescan = MonotonicClock.seconds
        while !Task.isCancelled {
            let now = MonotonicClock.seconds
            var timeout: Double?
            if changed { timeout = max(0, lastChange + Self.settle - now) }
            if fallback != nil { timeout = min(timeout ?? .infinity, max(0, lastRescan + fallbackInterval - now)) }
            if await Self.readable(inotify, within: timeout), readEvents() {
                changed = true
                lastChange = MonotonicClock.seconds
            }
            let after = MonotonicClock.seconds
            let settled = changed && after >= lastChange + Self.settle
            let due = fallback != nil && after >= lastRescan + fallbackInterval
            guard settled || due, !Task.isCancelled else { continue }
            if rescan() {
                changed = false
                lastRescan = after
            } else {
                lastChange = after
            }
        }
    }

    /// Suspends until `descriptor` has something to read (true), `seconds` pass (nil: no limit)
    /// or the task is cancelled. No thread waits meanwhile: GCD's epoll holds the descriptor.
    static func readable(_ descriptor: Int32, within seconds: Double?) async -> Bool {
        guard !Task.isCancelled else { return false }
        let wait = ReadableWait(descriptor)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { wait.start(within: seconds, then: $0) }
        } onCancel: {
            wait.finish(false)
        }
    }

    /// Watches `folder` and every folder under it.
    private func watchTree(_ folder: String, ignoring inherited: IgnorePatterns = IgnorePatterns()) {
        if let type = Self.filesystemType(of: folder), Self.isRemote(type) {
            noteFallback("\(folder) is on a \(type) mount, whose changes made elsewhere inotify does not hear")
            return
        }
        var pending = [(folder, inherited)]
        while let (next, inherited) = pending.popLast() {
            guard fallback == nil || !fallback!.contains("watch limit") else { return }
            let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
            let descriptor = inotify_add_watch(inotify, next, mask)
            if descriptor < 0 {
                if errno == ENOSPC {
                    // This user namespace's limit: the machine's `fs.inotify.max_user_watches`, or lower.
                    let limit = (try? String(contentsOfFile: "/proc/sys/user/max_inotify_watches", encoding: .utf8))?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                    noteFallback("the inotify watch limit (fs.inotify.max_user_watches = \(limit)) is reached at \(next); "
                                 + "`sysctl fs.inotify.max_user_watches=524288` raises it")
                    return
                }
                continue  // gone, or not readable: the scan says so
            }
            let ignoring = inherited.adding(folder: next)
            folders[descriptor] = (next, ignoring)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: next) else { continue }
            for name in names where !name.hasPrefix(".") && !ignoring.ignores(name) {
                let path = next + "/" + name
                var status = stat()
                if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { pending.append((path, ignoring)) }
            }
        }
    }

    /// Some folders cannot be watched: said once, and the periodic rescans start.
    private func noteFallback(_ reason: String) {
        guard fallback == nil else { return }
        fallback = reason
        logger.warning("songbox daemon: \(reason); rescanning every \(String(format: "%g", fallbackInterval / 60)) minutes instead")
    }

    /// Reads the events at hand; new folders are watched. True when something in the music changed.
    private func readEvents() -> Bool {
        var changed = false
        let size = 64 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(inotify, buffer, size)
            guard count > 0 else { return changed }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameLength = Int(event.len)
                offset = nameStart + nameLength
                guard offset <= count else { break }
                let name = nameLength > 0 ? String(cString: (buffer + nameStart).assumingMemoryBound(to: CChar.self)) : ""
                if event.mask & UInt32(IN_IGNORED) != 0 { folders[event.wd] = nil; continue }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { changed = true; continue }
                guard let parent = folders[event.wd] else { continue }
                if name == IgnorePatterns.fileName {
                    // What is ignored changed: the folder's patterns are read again, and the scan sees it.
                    folders[event.wd]?.ignoring = parent.ignoring.adding(folder: parent.path)
                    changed = true
                    continue
                }
                // Hidden files (a copy's `.part`, an editor's swap file) are not music, nor is what is ignored.
                guard !name.hasPrefix("."), !parent.ignoring.ignores(name) else { continue }
                changed = true
                if event.mask & UInt32(IN_ISDIR) != 0, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    watchTree(parent.path + "/" + name, ignoring: parent.ignoring)
                }
            }
        }
    }
}

/// One wait for a descriptor to be readable: a GCD read source and a timer; the first of them
/// and a cancellation decides, and the source's cancel handler, which runs once, resumes the
/// waiting task. (GCD's sources may be cancelled from any thread: hence `@unchecked`.)
private final class ReadableWait: @unchecked Sendable {
    private let source: any DispatchSourceRead
    private let timer = DispatchSource.makeTimerSource(queue: .global())
    private let outcome = Mutex<Bool?>(nil)

    init(_ descriptor: Int32) {
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
    }

    func start(within seconds: Double?, then resume: CheckedContinuation<Bool, Never>) {
        source.setEventHandler { [self] in finish(true) }
        source.setCancelHandler { [self] in resume.resume(returning: outcome.withLock { $0 } ?? false) }
        timer.setEventHandler { [self] in finish(false) }
        // Both activated, whatever comes first: GCD must not release a source never activated.
        timer.schedule(deadline: seconds.map { .now() + .nanoseconds(Int(min($0, 86_400) * 1e9)) } ?? .distantFuture)
        timer.activate()
        source.activate()
    }

    /// Ends the wait, once: `ready` is what the task is told.
    func finish(_ ready: Bool) {
        let first = outcome.withLock { decided in
            if decided != nil { return false }
            decided = ready
            return true
        }
        guard first else { return }
        timer.cancel()
        source.cancel()
    }
}

/// Runs the folder watcher while the daemon runs (`watch = yes`, the default).
struct WatchService: Service {
    let daemon: Daemon
    let server: MPDServer

    func run() async throws {
        guard (try? await server.listening()) != nil else { return }
        let rescans = daemon.rescans
        // Made and run in the one task that owns it.
        _ = await cancelWhenGracefulShutdown { await rescans.makeWatcher()?.run() }
    }
}
