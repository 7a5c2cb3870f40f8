/// `ReadAhead` an item at a time: the producer hands over up to `batch` items at once, so the
/// two threads meet once a batch rather than once an item, and at most `depth` batches wait.
public final class BatchedReadAhead<Item: Sendable> {
    private let ahead: ReadAhead<[Item]>
    private var batch: [Item] = []
    private var index = 0

    /// Once the end is met the producer is not asked again.
    private final class End: @unchecked Sendable { var met = false }

    /// `produce` gives the next item, nil at the end; it runs on the reading thread only.
    public init(depth: Int, batch size: Int, produce: @escaping @Sendable () throws(InputError) -> Item?) {
        let end = End()
        ahead = ReadAhead(depth: depth) { () throws(InputError) -> [Item]? in
            var out: [Item] = []
            out.reserveCapacity(size)
            while !end.met, out.count < size {
                guard let item = try produce() else {
                    end.met = true
                    break
                }
                out.append(item)
            }
            return out.isEmpty ? nil : out
        }
    }

    /// The next item, or nil at the end; the producer's error after the items before it.
    public func next() throws(InputError) -> Item? {
        if index == batch.count {
            guard let next = try ahead.next() else { return nil }
            (batch, index) = (next, 0)
        }
        defer { index += 1 }
        return batch[index]
    }
}
