/// Reports of several parts or shards, each already in the night's order, joined into that
/// order: the smallest key of the heads goes next (on equal keys, the earlier part).
package enum KeyedMerge {
    /// Hands every item to `emit`, smallest key first; `next(k)` gives part `k`'s next item.
    package static func run<Item>(
        parts: Int, key: (Item) -> Int64, next: (Int) throws -> Item?, emit: (Item) throws -> Void
    ) throws {
        var heads = try (0..<parts).map(next)
        while true {
            var best: Int?
            for k in heads.indices {
                guard let h = heads[k] else { continue }
                if best.map({ key(h) < (heads[$0].map(key) ?? .max) }) ?? true { best = k }
            }
            guard let k = best, let head = heads[k] else { return }
            try emit(head)
            heads[k] = try next(k)
        }
    }
}
