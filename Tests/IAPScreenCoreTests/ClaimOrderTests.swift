import Testing

@testable import Night

/// Claims are made oldest order first, ties by order id: the radix sort must agree with
/// the plain comparison sort on every kind of time, including hostile ones.
@Suite("Claim order")
struct ClaimOrderTests {
    /// A small deterministic generator: the same keys on every run.
    struct Mix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
    }

    @Test("times before 1970, far in the future, at the extremes and equal sort as a comparison sort would")
    func agreesWithComparisonSort() {
        var mix = Mix(state: 7)
        let special: [Int64] = [.min, .min + 1, -1, 0, 1, 1_709_251_594_000, .max - 1, .max]
        var millis: [Int64] = []
        var ids: [String] = []
        for i in 0..<5000 {
            switch i % 4 {
            case 0: millis.append(special[Int(mix.next() % UInt64(special.count))])
            case 1: millis.append(1_709_251_594_000 + Int64(mix.next() % 50))
            case 2: millis.append(Int64(bitPattern: mix.next() << 11))
            default: millis.append(-Int64(mix.next() % 1_000_000_000))
            }
            ids.append("ORD-\(mix.next() % 100_000)-\(i)")
        }
        var keys = ClaimOrder.sorted(millis.indices.map { ClaimOrder.Key(millis: millis[$0], slot: Int32($0)) })
        ClaimOrder.breakTies(&keys) { ids[Int($0)] < ids[Int($1)] }
        let expected = millis.indices.sorted { a, b in millis[a] != millis[b] ? millis[a] < millis[b] : ids[a] < ids[b]
        }
        #expect(keys.map { Int($0.slot) } == expected)
    }

    @Test("equal times and equal ids keep the order they came in")
    func stable() {
        let keys = (0..<300).map { ClaimOrder.Key(millis: Int64($0 % 3), slot: Int32($0)) }
        var sorted = ClaimOrder.sorted(keys)
        ClaimOrder.breakTies(&sorted) { _, _ in false }
        let expected = (0..<3).flatMap { t in stride(from: t, to: 300, by: 3).map { Int32($0) } }
        #expect(sorted.map(\.slot) == expected)
    }

    @Test("no keys and one key")
    func tiny() {
        #expect(ClaimOrder.sorted([]).isEmpty)
        #expect(ClaimOrder.sorted([ClaimOrder.Key(millis: -5, slot: 9)]).map(\.slot) == [9])
    }
}
