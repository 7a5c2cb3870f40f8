/// Order id → slot while a night is read: an open-addressing table of 8 bytes a bucket that
/// keeps 32 bits of each id's hash beside its slot. Growing it moves entries by those bits
/// and never hashes an id again (a `[String: Int32]` rehashed every id at every doubling:
/// the largest hashing cost of a run), and it takes 16 MB at 10^6 orders, not 42.
/// The ids themselves stay in the slots; a bucket whose hash bits match is confirmed there.
struct OrderIDTable {
    /// 0: empty; else the hash's low 32 bits above (slot + 1).
    private var buckets: [UInt64] = []
    private var count = 0

    /// The slot of `id`, after taking `slot` for it when it has none. `idOf` gives the id of
    /// a slot already in the table.
    mutating func slot(of id: String, insertingIfAbsent slot: Int32, idOf: (Int32) -> String) -> Int32 {
        if 2 * (count + 1) > buckets.count { grow() }
        let hash = Self.hash(id)
        var i = Int(hash) & (buckets.count - 1)
        while true {
            let entry = buckets[i]
            if entry == 0 {
                buckets[i] = UInt64(hash) << 32 | UInt64(UInt32(bitPattern: slot) &+ 1)
                count += 1
                return slot
            }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let found = Self.slot(entry)
                if idOf(found) == id { return found }
            }
            i = (i + 1) & (buckets.count - 1)
        }
    }

    /// The slot of `id`, nil when it has none.
    func slot(of id: String, idOf: (Int32) -> String) -> Int32? {
        guard !buckets.isEmpty else { return nil }
        let hash = Self.hash(id)
        var i = Int(hash) & (buckets.count - 1)
        while true {
            let entry = buckets[i]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let found = Self.slot(entry)
                if idOf(found) == id { return found }
            }
            i = (i + 1) & (buckets.count - 1)
        }
    }

    /// Seeded per process (`Hasher`): ids a dump chooses cannot be made to collide.
    private static func hash(_ id: String) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(id)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    private static func slot(_ entry: UInt64) -> Int32 {
        Int32(bitPattern: UInt32(truncatingIfNeeded: entry) &- 1)
    }

    /// Twice the buckets (at most half full), entries placed again by their kept hash bits.
    private mutating func grow() {
        let old = buckets
        buckets = [UInt64](repeating: 0, count: max(1024, 2 * old.count))
        let mask = buckets.count - 1
        for entry in old where entry != 0 {
            var i = Int(entry >> 32) & mask
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
    }
}
