/// SplitMix64: the same seed gives the same world (samples, benchmark logs, test values) on
/// every machine.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0 ..< n
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }

    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A lowercase UUID-shaped string (32 hex digits in 8-4-4-4-12), from 32 draws.
    public mutating func uuid() -> String {
        let hex = Array("0123456789abcdef")
        var s = ""
        for i in 0..<32 {
            if [8, 12, 16, 20].contains(i) { s.append("-") }
            s.append(hex[below(16)])
        }
        return s
    }
}
