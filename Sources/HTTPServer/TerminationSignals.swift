import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT, caught so that a command can block until one comes and then stop its
/// server gracefully (`HTTPServer.stop()`) instead of dying with requests in flight.
///
/// A process-directed signal goes to any one thread that does not block it, and libdispatch's
/// threads (Swift concurrency's among them, and the threads they start, MHD's workers
/// too) block them all. So both ways are covered: from `init` a handler, installed before
/// `init` returns, notes the first signal (an atomic store, all a handler may do) in
/// whichever thread takes it; and `wait` blocks the two signals in its own thread and takes
/// one that is pending because every thread blocks it (`sigtimedwait`), looking every 50 ms.
/// `deinit` gives the signals their default action back. The process has one of each
/// signal: use one at a time.
public final class TerminationSignals {
    public init() {
        // Reset here, not lazily made on first use in the handler (that takes a lock), and
        // what an earlier instance caught is forgotten.
        caughtSignal.store(0, ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = signalCaught
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // A parent may have started us with them blocked (Foundation's Process spawns from a
        // thread that blocks nearly every signal, and a blocked mask is inherited): a
        // service that cannot be stopped would be worse than one that dies.
        var both = sigset_t()
        sigemptyset(&both)
        sigaddset(&both, SIGTERM)
        sigaddset(&both, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &both, nil)
    }

    deinit {
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
    }

    /// Blocks until SIGTERM or SIGINT comes (or came since `init`) and returns which.
    public func wait() -> Int32 {
        var both = sigset_t()
        sigemptyset(&both)
        sigaddset(&both, SIGTERM)
        sigaddset(&both, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &both, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var interval = timespec(tv_sec: 0, tv_nsec: 50_000_000)
        while true {
            let caught = caughtSignal.load(ordering: .relaxed)
            if caught != 0 { return caught }
            let pending = sigtimedwait(&both, nil, &interval)
            if pending > 0 { signalCaught(pending) }
        }
    }
}

/// The first signal caught (0 before any).
private let caughtSignal = Atomic<Int32>(0)

private func signalCaught(_ number: Int32) {
    _ = caughtSignal.compareExchange(expected: 0, desired: number, ordering: .relaxed)
}
