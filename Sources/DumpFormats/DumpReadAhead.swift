import Decompression

/// Reads a dump's items on a thread of its own, a batch at a time, so that parsing records
/// runs beside whoever uses them (inflating runs on a third thread, see
/// `PrefetchingByteStream`). Items come out in file order; at most `depth` batches wait.
public final class DumpReadAhead<Item: Sendable> {
    private let batches: ReadAhead<[Item?]>

    /// `read` is called on the reading thread only, until it returns nil or throws; the
    /// reader must not be used elsewhere until `nextBatch` has returned nil.
    public init(
        _ reader: DumpReader, batchSize: Int = 256, depth: Int = 4,
        read: @escaping @Sendable (DumpReader) throws(InputError) -> Item?
    ) {
        nonisolated(unsafe) let source = reader
        nonisolated(unsafe) var stopped: InputError?
        nonisolated(unsafe) var atEnd = false
        batches = ReadAhead(depth: depth) { () throws(InputError) -> [Item?]? in
            // An error ends the file after the items read before it.
            if let stopped { throw stopped }
            guard !atEnd else { return nil }
            var batch: [Item?] = []
            batch.reserveCapacity(batchSize)
            do throws(InputError) {
                while batch.count < batchSize {
                    guard let item = try read(source) else {
                        atEnd = true
                        break
                    }
                    batch.append(item)
                }
            } catch {
                stopped = error
            }
            if batch.isEmpty, let stopped { throw stopped }
            return batch.isEmpty ? nil : batch
        }
    }

    /// The next batch, or nil at the end of the file.
    public func nextBatch() throws(InputError) -> Batch? {
        try batches.next().map(Batch.init)
    }

    /// Items handed over one by one in file order, each moved out, never copied: an order's
    /// row holds a dozen strings, and a copy then a release of each was a few percent of a run.
    /// Each item is an optional that `take` leaves nil: moving it out of the array in place
    /// (reversing the batch to pop from its end copied every item twice, generically).
    public struct Batch {
        fileprivate var items: [Item?]
        private var next = 0

        fileprivate init(_ items: [Item?]) { self.items = items }

        public mutating func take() -> Item? {
            guard next < items.count else { return nil }
            defer { next += 1 }
            return items[next].take()
        }
    }
}
