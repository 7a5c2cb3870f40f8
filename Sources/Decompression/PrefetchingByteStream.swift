import Foundation

/// Reads its source on a thread of its own, a few chunks ahead, so that inflating a gzip
/// file (and hashing its raw bytes) runs beside the parsing of what was already inflated.
/// Memory stays bounded: at most `depth` chunks wait.
public final class PrefetchingByteStream: ByteStream {
    /// Shared by the reading thread and the consumer; every field is guarded by `condition`.
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var ready: [[UInt8]] = []
        var finished = false
        var failure: InputError?
        var cancelled = false
    }

    private let state = State()
    private var current: [UInt8] = []
    private var offset = 0

    public init(source: ByteStream, chunkSize: Int = 1 << 20, depth: Int = 4) {
        let state = self.state
        // The source is handed to the reading thread and never touched here again.
        nonisolated(unsafe) let source = source
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            while true {
                state.condition.lock()
                while state.ready.count >= depth, !state.cancelled { state.condition.wait() }
                let stop = state.cancelled
                state.condition.unlock()
                if stop { return }
                let result = buffer.withUnsafeMutableBytes { b in
                    Result<Int, InputError> { () throws(InputError) in try source.readFully(into: b) }
                }
                state.condition.lock()
                switch result {
                case .success(let n) where n > 0:
                    state.ready.append(Array(buffer[0..<n]))
                    if n < chunkSize { state.finished = true }
                case .success:
                    state.finished = true
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
        thread.start()
    }

    deinit {
        state.condition.lock()
        state.cancelled = true
        state.condition.broadcast()
        state.condition.unlock()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if offset == current.count {
            state.condition.lock()
            while state.ready.isEmpty, !state.finished { state.condition.wait() }
            if state.ready.isEmpty {
                let failure = state.failure
                state.condition.unlock()
                if let failure { throw failure }
                return 0
            }
            current = state.ready.removeFirst()
            offset = 0
            state.condition.broadcast()
            state.condition.unlock()
        }
        let n = min(buffer.count, current.count - offset)
        let start = offset
        current.withUnsafeBytes { src in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]).copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<start + n]))
        }
        offset += n
        return n
    }
}
