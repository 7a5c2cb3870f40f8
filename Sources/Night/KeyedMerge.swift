/// Runs each already in key order (a night's parts, a sharded run's shards), joined into one
/// order: the smallest key of the heads goes next, on equal keys the earlier run's.
package struct KeyedMerge<Item, Key: Comparable, E: Error> {
    private var heads: [Item?]
    private let key: (Item) -> Key
    private let next: (Int) throws(E) -> Item?

    /// `next(k)` gives run `k`'s next item, nil at its end.
    package init(runs: Int, key: @escaping (Item) -> Key, next: @escaping (Int) throws(E) -> Item?) throws(E) {
        var heads: [Item?] = []
        for k in 0..<runs { heads.append(try next(k)) }
        (self.heads, self.key, self.next) = (heads, key, next)
    }

    /// The next item of all runs, nil when every run has ended.
    package mutating func pop() throws(E) -> Item? {
        var best: (run: Int, key: Key)?
        for k in heads.indices {
            guard let h = heads[k] else { continue }
            let hk = key(h)
            if best.map({ hk < $0.key }) ?? true { best = (k, hk) }
        }
        guard let k = best?.run, let head = heads[k] else { return nil }
        heads[k] = try next(k)
        return head
    }
}

extension KeyedMerge where E == any Error {
    /// Hands every item to `emit`, smallest key first.
    package static func run(
        parts: Int, key: @escaping (Item) -> Key, next: @escaping (Int) throws -> Item?, emit: (Item) throws -> Void
    ) throws {
        var merge = try KeyedMerge(runs: parts, key: key, next: next)
        while let item = try merge.pop() { try emit(item) }
    }
}
