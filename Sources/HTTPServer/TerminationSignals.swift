import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT, caught so that a command can block until one comes and then stop its
/// server gracefully (`HTTPServer.stop()`) instead of dying with requests in flight.
///
/// From `init` the two signals no longer end the process: a handler (installed before `init`
/// returns, so no signal is missed) notes the first and posts a semaphore, all a signal
/// handler may do (`sem_post` is async-signal-safe, the atomic is lock-free). `deinit` gives
/// them their default action back. The process has one of each signal: use one at a time.
public final class TerminationSignals {
    public init() {
        // Both made (and what an earlier instance caught forgotten) here, not on first use in
        // the handler: a Swift global's lazy initialisation takes a lock.
        caughtSignal.store(0, ordering: .relaxed)
        while sem_trywait(signalArrived) == 0 {}
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
        while sem_wait(signalArrived) != 0 && errno == EINTR {}
        sem_post(signalArrived)  // so that a second wait returns at once too
        return caughtSignal.load(ordering: .acquiring)
    }
}

/// The first signal caught (0 before any).
private let caughtSignal = Atomic<Int32>(0)

/// Posted by the handler; never freed (the handler may run until the process ends).
private nonisolated(unsafe) let signalArrived: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()

private func signalCaught(_ number: Int32) {
    if caughtSignal.compareExchange(expected: 0, desired: number, ordering: .releasing).exchanged {
        sem_post(signalArrived)
    }
}
