#if canImport(Glibc)
    import Glibc
#endif

/// The one clock of the tool: the wall time a run stamps on what it writes, and a
/// monotonic one for how long things took and for waiting (it never jumps with the wall).
public enum SystemClock {
    /// The wall time now, to the millisecond.
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(
            clampingMillis: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000, hasMilliseconds: false)
    }

    /// Seconds on a monotonic clock, from an arbitrary start.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
