import IAPBasics

/// The claim keys a worker's own orders can be decided by: their own keys and every key tied
/// to one through another shard's order that may take any of several (an order takes the
/// first of its candidates nobody holds, so what it takes hangs on all of them). Another
/// shard's order none of whose keys is among these cannot change a decision of this worker's,
/// and is not kept (docs/ledger.md).
///
/// The own keys are held as their hashes, sorted (8 bytes a key, not a string and a table
/// entry): a hash that two keys share only keeps an order more, which is always safe. The
/// hash is FNV-1a, the same in every process, so that the ledger's server can filter the
/// other shards' staged orders by it (`PostgresShardRun.OthersFilter`).
struct LinkedKeys {
    private let own: [Int64]
    /// Keys found own while linking (another shard's purchase a store event names by its token).
    private var alsoOwn: Set<String> = []
    /// Union-find over the keys of the orders that may take several: each key's index, and
    /// each index's parent.
    private var index: [String: Int32] = [:]
    private var parent: [Int32] = []

    /// A key's hash, as staged orders carry theirs.
    static func hash(_ key: String) -> Int64 { Int64(bitPattern: ShardSpec.fnv1a64(key)) }

    /// This worker's own orders' keys, as `ownHashes` gives them.
    init(ownHashes: [Int64]) {
        own = ownHashes.sorted()
    }

    init(own keys: some Sequence<String>) {
        self.init(ownHashes: keys.map(Self.hash))
    }

    /// Whether `key` is (or shares its hash with) one of this worker's own keys.
    func isOwn(_ key: String) -> Bool {
        if alsoOwn.contains(key) { return true }
        let h = Self.hash(key)
        var (low, high) = (0, own.count)
        while low < high {
            let mid = (low + high) / 2
            if own[mid] < h { low = mid + 1 } else { high = mid }
        }
        return low < own.count && own[low] == h
    }

    /// Keys this worker's decisions hang on though no order of its own may take them.
    mutating func addOwn(_ keys: [String]) { alsoOwn.formUnion(keys) }

    /// Another shard's order that may take any of `keys`: they stand or fall together.
    mutating func link(_ keys: [String]) {
        guard let first = keys.first else { return }
        var root = find(id(first))
        for key in keys.dropFirst() {
            let other = find(id(key))
            guard other != root else { continue }
            // The smaller index stays the root.
            let (low, high) = root < other ? (root, other) : (other, root)
            parent[Int(high)] = low
            root = low
        }
    }

    /// What to keep, once every order that may take several is linked: an order with a key
    /// of this worker's or one tied to them.
    mutating func linked() -> Filter {
        // A group with an own key in it is seeded: all its keys are tied to this worker's.
        var seeded = [Bool](repeating: false, count: parent.count)
        for (key, i) in index where isOwn(key) { seeded[Int(find(i))] = true }
        var tied: Set<String> = []
        for (key, i) in index where seeded[Int(find(i))] { tied.insert(key) }
        return Filter(keys: self, tied: tied)
    }

    struct Filter {
        fileprivate let keys: LinkedKeys
        fileprivate let tied: Set<String>

        func keeps(_ key: String) -> Bool { keys.isOwn(key) || tied.contains(key) }

        /// The hashes of every key kept: what the server filters the others' orders by.
        var hashes: [Int64] { keys.own + keys.alsoOwn.map(LinkedKeys.hash) + tied.map(LinkedKeys.hash) }
    }

    private mutating func id(_ key: String) -> Int32 {
        if let i = index[key] { return i }
        let i = Int32(parent.count)
        index[key] = i
        parent.append(i)
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
