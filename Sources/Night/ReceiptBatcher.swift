import Decompression
import DumpFormats
import Foundation
import StoreCrypto

/// Decodes receipts on `jobs` threads of their own while the reading thread goes on.
/// Jobs travel in small batches through a bounded queue; each worker takes the next whole
/// batch as soon as it is free, so no worker waits for another's slow receipts, and the
/// reader only waits when the queue is full. Results come back in any order: each names
/// its slot and generation.
final class ReceiptBatcher {
    struct Job: Sendable {
        var slot: Int
        var generation: UInt32
        var row: OrderRow
        var position: Int
        /// As read; decoded on the worker, not on the reading thread.
        var payload: String
        /// An order the dump does not call credited: only the purchase its receipt names is
        /// read (`ReceiptScreening.uncreditedPurchase`), nothing screened or checked.
        var uncredited = false
    }

    struct Result: Sendable {
        var slot: Int
        var generation: UInt32
        var outcome: ReceiptScreening.Outcome
        /// The same receipt judged under the candidate Rules (`CandidateRules`).
        var candidateOutcome: ReceiptScreening.Outcome?
        /// An uncredited job's answer (its `outcome` is then `Result.notScreened`, not kept).
        var uncredited: UncreditedPurchase?
        var isUncredited = false

        static let notScreened = ReceiptScreening.Outcome(kind: .missing)
    }

    /// A second screening of every receipt (`backtest`'s candidate Rules): the receipt is
    /// decoded and verified once, then judged by both. `reverifies` when the candidate trusts
    /// other keys.
    struct CandidateRules: Sendable {
        var screening: ReceiptScreening
        var reverifies: Bool
    }

    /// Shared by the reader and the workers; every field is guarded by `condition`.
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var queued: [[Job]] = []
        var busy = 0
        /// Finished batches' results, each batch's as it came: appended whole, never copied.
        var done: [[Result]] = []
        var closed = false
    }

    /// Small enough that two workers finish close together, large enough that the lock is rare.
    private let batchSize = 64
    private let maxQueued: Int
    private let shared = Shared()
    private var filling: [Job] = []
    private var workers: [JoinedThread] = []

    init(screening: ReceiptScreening, jobs: Int, candidate: CandidateRules? = nil) {
        let count = max(1, jobs)
        maxQueued = 4 * count
        filling.reserveCapacity(batchSize)
        let shared = self.shared
        // The decoders recurse (nesting is capped): the main thread's 8 MB, not less.
        workers = (0..<count).map { _ in JoinedThread(stackSize: 8 << 20) { Self.work(shared, screening, candidate) } }
    }

    /// Stops the workers and waits until every one has ended. Batches not yet started are
    /// dropped (after `drain` there are none; after an error nobody wants them); a batch
    /// being decoded is finished. No worker is left inside OpenSSL when the command
    /// returns and the process exits.
    func stop() {
        shared.condition.lock()
        shared.closed = true
        shared.queued.removeAll()
        shared.condition.broadcast()
        shared.condition.unlock()
        for worker in workers { worker.join() }
        workers = []
    }

    deinit { stop() }

    private static func work(_ shared: Shared, _ screening: ReceiptScreening, _ candidate: CandidateRules?) {
        while true {
            shared.condition.lock()
            while shared.queued.isEmpty, !shared.closed { shared.condition.wait() }
            guard !shared.queued.isEmpty else {
                shared.condition.unlock()
                return
            }
            var batch = shared.queued.removeFirst()
            shared.busy += 1
            shared.condition.broadcast()
            shared.condition.unlock()

            var results: [Result] = []
            results.reserveCapacity(batch.count)
            // The whole batch decoded first, so that its ES256 signatures are inverted together
            // (`ES256Inverses`), then each job checked and judged. Each job and receipt is moved
            // out, last first (results name their slots, so their order is free): a job read
            // where it lies was copied, its row's every string retained then released, to keep
            // it alive across the checks.
            var decoded: [ReceiptScreening.Decoded] = []
            decoded.reserveCapacity(batch.count)
            var signatures: [[UInt8]] = []
            signatures.reserveCapacity(batch.count)
            // An uncredited job's signatures are not checked: they stay out of the batch's inverses.
            var unchecked: [[UInt8]] = []
            for i in batch.indices {
                if batch[i].uncredited {
                    decoded.append(screening.decode(batch[i].payload, signatures: &unchecked))
                    unchecked.removeAll(keepingCapacity: true)
                } else {
                    decoded.append(screening.decode(batch[i].payload, signatures: &signatures))
                }
            }
            // In the order they are checked: last first.
            signatures.reverse()
            ES256Inverses(signatures: signatures).whileChecking {
                // The candidate looked at once a batch, not once a job: each look copies a screening.
                if let candidate {
                    while let job = batch.popLast(), let receipt = decoded.popLast() {
                        if job.uncredited {
                            results.append(Self.uncredited(job, receipt, screening))
                            continue
                        }
                        let read = screening.read(receipt)
                        let candidateRead = candidate.reverifies ? read.map(candidate.screening.reverified) : read
                        results.append(
                            Result(
                                slot: job.slot, generation: job.generation,
                                outcome: screening.screen(job.row, index: job.position, read: read),
                                candidateOutcome: candidate.screening.screen(
                                    job.row, index: job.position, read: candidateRead)))
                    }
                } else {
                    while let job = batch.popLast(), let receipt = decoded.popLast() {
                        if job.uncredited {
                            results.append(Self.uncredited(job, receipt, screening))
                            continue
                        }
                        results.append(
                            Result(
                                slot: job.slot, generation: job.generation,
                                outcome: screening.screen(job.row, index: job.position, decoded: receipt)))
                    }
                }
            }

            shared.condition.lock()
            shared.done.append(results)
            shared.busy -= 1
            shared.condition.broadcast()
            shared.condition.unlock()
        }
    }

    private static func uncredited(
        _ job: Job, _ receipt: consuming ReceiptScreening.Decoded, _ screening: ReceiptScreening
    ) -> Result {
        Result(
            slot: job.slot, generation: job.generation, outcome: Result.notScreened,
            uncredited: screening.uncreditedPurchase(job.row, index: job.position, decoded: receipt),
            isUncredited: true)
    }

    func submit(_ job: Job) {
        precondition(!workers.isEmpty, "a receipt submitted after the workers were stopped")
        filling.append(job)
        if filling.count >= batchSize { enqueue() }
    }

    /// Results finished so far; never waits.
    func poll() -> [[Result]] {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return takeDone()
    }

    /// Waits for everything submitted.
    func drain() -> [[Result]] {
        if !filling.isEmpty { enqueue() }
        shared.condition.lock()
        defer { shared.condition.unlock() }
        while !shared.queued.isEmpty || shared.busy > 0 { shared.condition.wait() }
        return takeDone()
    }

    /// With the lock held.
    private func takeDone() -> [[Result]] {
        defer { shared.done = [] }
        return shared.done
    }

    private func enqueue() {
        let batch = filling
        filling = []
        filling.reserveCapacity(batchSize)
        shared.condition.lock()
        while shared.queued.count >= maxQueued { shared.condition.wait() }
        shared.queued.append(batch)
        shared.condition.broadcast()
        shared.condition.unlock()
    }
}
