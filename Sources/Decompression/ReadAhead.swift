import Foundation

/// Runs a producer on a thread of its own, a few elements ahead of its one consumer, in
/// order: inflating a gzip file beside the parsing of what was already inflated, parsing
/// records beside their screening. At most `depth` elements wait, so memory stays bounded.
public final class ReadAhead<Element: Sendable> {
    /// Shared by the producing thread and the consumer; every field is guarded by `condition`.
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var ready: [Element] = []
        var finished = false
        var failure: InputError?
        var cancelled = false
    }

    private let state = State()
    private let thread: JoinedThread

    /// `produce` runs on the new thread until it returns nil (the end) or throws; it is the
    /// only code that touches what it captures meanwhile. The parsers it runs recurse
    /// (nesting is capped): the thread gets the main thread's 8 MB of stack, not less.
    public init(depth: Int, produce: @escaping @Sendable () throws(InputError) -> Element?) {
        let state = self.state
        thread = JoinedThread(stackSize: 8 << 20) {
            while true {
                state.condition.lock()
                while state.ready.count >= depth, !state.cancelled { state.condition.wait() }
                let stop = state.cancelled
                state.condition.unlock()
                if stop { return }
                let result = Result<Element?, InputError> { () throws(InputError) in try produce() }
                state.condition.lock()
                switch result {
                case .success(let element?): state.ready.append(element)
                case .success(nil): state.finished = true
                case .failure(let e):
                    state.failure = e
                    state.finished = true
                }
                let done = state.finished
                state.condition.broadcast()
                state.condition.unlock()
                if done { return }
            }
        }
    }

    /// Stops the producer and waits for its thread to end: a consumer that stops early
    /// (an error, a reader that has what it needs) never leaves a thread inside igzip or
    /// libxml2 behind it, where the process's exit would pull the library out from under it.
    /// At most the element being produced is finished first.
    deinit {
        state.condition.lock()
        state.cancelled = true
        state.condition.broadcast()
        state.condition.unlock()
        thread.join()
    }

    /// The next element, or nil at the end; an error the producer threw comes after the
    /// elements it produced before it.
    public func next() throws(InputError) -> Element? {
        state.condition.lock()
        defer { state.condition.unlock() }
        while state.ready.isEmpty, !state.finished { state.condition.wait() }
        guard !state.ready.isEmpty else {
            if let failure = state.failure { throw failure }
            return nil
        }
        let element = state.ready.removeFirst()
        state.condition.broadcast()
        return element
    }
}
