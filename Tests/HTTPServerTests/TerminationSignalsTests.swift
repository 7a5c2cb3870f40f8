import Foundation
import HTTPServer
import Testing

@Suite("SIGTERM and SIGINT, waited for")
struct TerminationSignalsTests {
    @Test("a SIGTERM sent to the process ends the wait instead of the process")
    func sigterm() {
        let signals = TerminationSignals()
        kill(getpid(), SIGTERM)
        #expect(signals.wait() == SIGTERM)
        #expect(signals.wait() == SIGTERM, "a second wait returns at once")
    }
}
