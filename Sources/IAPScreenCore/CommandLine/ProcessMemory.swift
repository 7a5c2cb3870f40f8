#if canImport(Glibc)
    import Glibc
#endif

/// What this process's memory has been (IAPSCREEN_TIMINGS).
enum ProcessMemory {
    /// The peak resident set so far, in MiB.
    static func peakRSSMiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }
}
