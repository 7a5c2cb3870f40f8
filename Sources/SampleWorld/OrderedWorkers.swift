import Decompression
import Foundation

/// Runs jobs on `threads` threads of its own and hands their outputs to `deliver` one at a
/// time, in the order the jobs were submitted. `submit` waits while `limit` jobs are
/// unfinished or undelivered, so memory stays flat however many there are, and the thread
/// that submits (planning the next job) runs beside the workers.
final class OrderedWorkers<Job, Output>: @unchecked Sendable {
    // Everything below `condition` is read and written under it; `deliver` runs under
    // `delivering` only, so a slow write never holds up a worker taking its next job.
    private let condition = NSCondition()
    private let delivering = NSLock()
    private var waiting: [(index: Int, job: Job)] = []
    private var head = 0
    private var finished: [Int: Result<Output, Error>] = [:]
    private var submitted = 0
    private var delivered = 0
    private var closed = false
    private var failure: Error?
    private let limit: Int
    private let work: (Job) throws -> Output
    private let deliver: (Output) throws -> Void
    private var threads: [JoinedThread] = []

    init(
        threads count: Int, limit: Int, work: @escaping (Job) throws -> Output,
        deliver: @escaping (Output) throws -> Void
    ) {
        self.limit = max(1, limit)
        self.work = work
        self.deliver = deliver
        threads = (0..<max(1, count)).map { _ in JoinedThread { [unowned self] in self.serve() } }
    }

    /// Queues `job`; throws the first failure of a job or a delivery instead, once one happened.
    func submit(_ job: Job) throws {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, submitted - delivered >= limit { condition.wait() }
        if let failure { throw failure }
        waiting.append((submitted, job))
        submitted += 1
        condition.broadcast()
    }

    /// Waits until every job is delivered and the threads have ended; throws the first failure.
    func finish() throws {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        for t in threads { t.join() }
        threads = []
        if let failure { throw failure }
    }

    deinit { try? finish() }

    private func serve() {
        while let (index, job) = next() {
            let result = Result { try work(job) }
            condition.lock()
            finished[index] = result
            condition.unlock()
            deliverInOrder()
        }
    }

    private func next() -> (Int, Job)? {
        condition.lock()
        defer { condition.unlock() }
        while head == waiting.count, !closed { condition.wait() }
        guard head < waiting.count else { return nil }
        let taken = waiting[head]
        head += 1
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return (taken.index, taken.job)
    }

    /// Delivers what is next in order, as long as it is there. Whichever worker finished
    /// the job next in line delivers it, and what was waiting behind it.
    private func deliverInOrder() {
        delivering.lock()
        defer { delivering.unlock() }
        while true {
            condition.lock()
            guard let result = finished.removeValue(forKey: delivered) else {
                condition.unlock()
                return
            }
            let failed = failure != nil
            condition.unlock()
            var error: Error?
            if !failed {
                do { try deliver(result.get()) } catch let e { error = e }
            }
            condition.lock()
            if failure == nil, let error { failure = error }
            delivered += 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
