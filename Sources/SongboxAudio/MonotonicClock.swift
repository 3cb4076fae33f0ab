import Foundation

/// Seconds on the system's monotonic clock (CLOCK_MONOTONIC): never set back by NTP or by hand,
/// so what paces the audio and what stamps events cannot jump. The zero is arbitrary (boot).
public enum MonotonicClock {
    public static var seconds: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
