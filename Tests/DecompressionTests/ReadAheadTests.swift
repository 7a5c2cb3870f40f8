import Decompression
import Foundation
import Synchronization
import Testing

@Suite("Read-ahead threads end with their reader")
struct ReadAheadTests {
    /// What the producer reports about itself, read by the test.
    final class Probe: Sendable {
        let inside = Mutex(false)
        let calls = Mutex(0)
        let released = Mutex(false)
        /// Set by the test just before it drops the reader.
        let dropping = Mutex(false)
    }

    /// Something a producer holds (a gzip stream, a parser), released on the producer's thread.
    final class Held: Sendable {
        let probe: Probe
        let path = "dump.csv.gz"
        init(_ probe: Probe) { self.probe = probe }
        deinit { probe.released.withLock { $0 = true } }
    }

    @Test("a reader dropped while its producer is busy returns only once the producer has ended")
    func droppedWhileBusy() throws {
        let probe = Probe()
        // Held by the producer alone, so it goes when the producer's thread lets go of it. The
        // first element waits inside until the test drops the reader, so the drop finds the
        // producer busy however late this thread gets to it; every element after it is a slow
        // inflate, and the depth is never reached, so the producer stays busy until it is stopped.
        var ahead: ReadAhead<Int>? = ReadAhead(depth: 1_000) { [held = Held(probe)] () throws(InputError) -> Int? in
            held.probe.inside.withLock { $0 = true }
            while !held.probe.dropping.withLock({ $0 }) { usleep(1_000) }
            usleep(20_000)  // a slow inflate
            held.probe.inside.withLock { $0 = false }
            return 1
        }
        // It stays inside until told, so this waits for it however long it takes to start; the
        // cap only keeps a producer that never starts from hanging the test.
        let cap = Date().addingTimeInterval(600)
        var entered = false
        while !entered, Date() < cap {
            entered = probe.inside.withLock { $0 }
            if !entered { usleep(1_000) }
        }
        probe.dropping.withLock { $0 = true }
        try #require(entered, "the producer never started")
        ahead = nil
        #expect(ahead == nil)
        // Nothing of the producer is left running, and what it held is gone.
        #expect(!probe.inside.withLock { $0 })
        #expect(probe.released.withLock { $0 })
    }

    @Test("elements come in order, then the producer's error, and the thread has ended")
    func orderThenError() throws {
        let probe = Probe()
        var ahead: ReadAhead<Int>? = ReadAhead(depth: 3) { [held = Held(probe)] () throws(InputError) -> Int? in
            let n = held.probe.calls.withLock {
                $0 += 1
                return $0
            }
            guard n <= 5 else { throw InputError(path: held.path, reason: "broken") }
            return n
        }
        var seen: [Int] = []
        let error = #expect(throws: InputError.self) {
            while let n = try ahead?.next() { seen.append(n) }
        }
        #expect(error?.path == "dump.csv.gz")
        #expect(seen == [1, 2, 3, 4, 5])
        ahead = nil
        #expect(probe.released.withLock { $0 })
    }
}
