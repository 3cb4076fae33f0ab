import Foundation

/// Runs tasks on GCD's global queue: threads that may block, as many as GCD allows, and none
/// held by a task while it is suspended. For tasks that must not wait behind Swift's few
/// cooperative threads (one per core: two on a small Pi), which blocking work elsewhere can
/// hold: the MPD connections, the fetches of remote tracks.
public final class DispatchExecutor: TaskExecutor {
    public static let shared = DispatchExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }
}
