import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the executable's allocator can do to keep the peak down, given by the executable
/// that links one (mimalloc): tests and other hosts run without.
public struct AllocatorTuning: Sendable {
    /// Called once a night is loaded. Past the load, the claims and the reports free and
    /// allocate tables of a million entries in turn; an allocator that keeps freed pages a
    /// while for reuse holds both at the peak (measured: 22 MiB of 297 at 10^6 orders).
    public var afterLoad: @Sendable () -> Void

    public init(afterLoad: @escaping @Sendable () -> Void) {
        self.afterLoad = afterLoad
    }
}

/// What this process's memory has been (IAPSCREEN_TIMINGS), and the allocator's tuning.
enum ProcessMemory {
    static let tuning = Mutex<AllocatorTuning?>(nil)

    /// The peak resident set so far, in MiB.
    static func peakRSSMiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }

    /// A night is loaded: the allocator's tuning for what follows, if the executable has one.
    static func nightLoaded() {
        tuning.withLock { $0 }?.afterLoad()
    }
}
