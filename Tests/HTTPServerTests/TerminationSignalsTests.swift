import Foundation
import HTTPServer
import Testing

/// One at a time: the process has one SIGTERM and one SIGINT.
@Suite("SIGTERM and SIGINT, waited for", .serialized)
struct TerminationSignalsTests {
    @Test("a SIGTERM sent to the process ends the wait instead of the process, from any thread's mask")
    func sigterm() {
        let signals = TerminationSignals()
        let started = ContinuousClock.now
        kill(getpid(), SIGTERM)
        #expect(signals.wait() == SIGTERM)
        #expect(signals.wait() == SIGTERM, "a second wait returns at once")
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("a SIGINT taken by a thread that does not block it is noted by the handler, the first one kept")
    func sigintOnAnotherThread() {
        let signals = TerminationSignals()
        let thread = Thread {
            var both = sigset_t()
            sigemptyset(&both)
            sigaddset(&both, SIGINT)
            sigaddset(&both, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &both, nil)
            raise(SIGINT)
            raise(SIGTERM)
        }
        let started = ContinuousClock.now
        thread.start()
        #expect(signals.wait() == SIGINT)
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
