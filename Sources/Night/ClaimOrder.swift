/// The order claims are made in: creation time, then order id. A million orders sort by
/// time as small keys with a radix sort; only runs of equal times compare order ids.
enum ClaimOrder {
    struct Key {
        var millis: Int64
        var slot: Int32
    }

    /// By `millis`, stable, least significant byte first; bytes all keys share are skipped.
    static func sorted(_ keys: [Key]) -> [Key] {
        guard keys.count > 1 else { return keys }
        var from = keys
        var to = keys
        var counts = [Int](repeating: 0, count: 256)
        for shift in stride(from: UInt64(0), to: 64, by: 8) {
            for i in counts.indices { counts[i] = 0 }
            for k in from { counts[digit(k, shift)] += 1 }
            if counts.contains(from.count) { continue }
            var total = 0
            for i in counts.indices {
                let c = counts[i]
                counts[i] = total
                total += c
            }
            for k in from {
                let d = digit(k, shift)
                to[counts[d]] = k
                counts[d] += 1
            }
            swap(&from, &to)
        }
        return from
    }

    /// The sign bit flipped, so that times before 1970 come first as unsigned numbers.
    private static func digit(_ k: Key, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((UInt64(bitPattern: k.millis) ^ (1 << 63)) >> shift) & 0xFF)
    }

    /// Sorts each run of equal times by `less` on their slots (order ids), in place.
    static func breakTies(_ keys: inout [Key], by less: (Int32, Int32) -> Bool) {
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count, keys[end].millis == keys[start].millis { end += 1 }
            if end - start > 1 { keys[start..<end].sort { less($0.slot, $1.slot) } }
            start = end
        }
    }
}
