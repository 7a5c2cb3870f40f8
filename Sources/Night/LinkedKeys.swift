/// The claim keys a worker's own orders can be decided by: their own keys and every key tied
/// to one through another shard's order that may take any of several (an order takes the
/// first of its candidates nobody holds, so what it takes hangs on all of them). Another
/// shard's order none of whose keys is among these cannot change a decision of this worker's,
/// and is not kept (docs/ledger.md).
struct LinkedKeys {
    /// Union-find over the keys seen: each key's index, and each index's parent.
    private var index: [String: Int32] = [:]
    private var parent: [Int32] = []
    private var seeded: [Bool] = []

    /// This worker's own orders' keys.
    init(seeds: some Sequence<String>) {
        for key in seeds { seeded[Int(id(key))] = true }
    }

    /// Another shard's order that may take any of `keys`: they stand or fall together.
    mutating func link(_ keys: [String]) {
        guard let first = keys.first else { return }
        var root = find(id(first))
        for key in keys.dropFirst() {
            let other = find(id(key))
            guard other != root else { continue }
            // The smaller index stays the root; a group with a seed in it is seeded.
            let (low, high) = root < other ? (root, other) : (other, root)
            parent[Int(high)] = low
            seeded[Int(low)] = seeded[Int(low)] || seeded[Int(high)]
            root = low
        }
    }

    /// This worker's keys and every key tied to one, once every order is linked.
    mutating func linked() -> Set<String> {
        var out: Set<String> = []
        for (key, i) in index where seeded[Int(find(i))] { out.insert(key) }
        return out
    }

    private mutating func id(_ key: String) -> Int32 {
        if let i = index[key] { return i }
        let i = Int32(parent.count)
        index[key] = i
        parent.append(i)
        seeded.append(false)
        return i
    }

    private mutating func find(_ i: Int32) -> Int32 {
        var root = i
        while parent[Int(root)] != root { root = parent[Int(root)] }
        // Halved on the way: later finds are short.
        var at = i
        while parent[Int(at)] != root {
            let next = parent[Int(at)]
            parent[Int(at)] = root
            at = next
        }
        return root
    }
}
