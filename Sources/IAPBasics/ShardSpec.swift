/// Which part of a night one worker of a sharded run screens (`--shard I/N`, docs/ledger.md):
/// the orders whose id hashes to it, `fnv1a64(UTF-8 order_id) mod N = I - 1`.
public struct ShardSpec: Sendable, Equatable, CustomStringConvertible {
    /// 1…count.
    public let index: Int
    public let count: Int

    /// At most this many shards: more workers than that is no night's need.
    public static let maxCount = 4096

    /// `I/N` with 1 ≤ I ≤ N ≤ `maxCount`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let i = Int(parts[0]), let n = Int(parts[1])
        else { return nil }
        self.init(index: i, count: n)
    }

    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maxCount, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard (1…count) an order belongs to.
    public func shard(of orderID: String) -> Int {
        Int(Self.fnv1a64(orderID) % UInt64(count)) + 1
    }

    public func owns(_ orderID: String) -> Bool { shard(of: orderID) == index }

    /// `owns` of the order id whose UTF-8 bytes these are (a dump reader's, before any
    /// string is made).
    public func owns(utf8 orderID: UnsafeRawBufferPointer) -> Bool {
        var hash = Self.fnvOffset
        for byte in orderID { hash = (hash ^ UInt64(byte)) &* Self.fnvPrime }
        return Int(hash % UInt64(count)) + 1 == index
    }

    /// FNV-1a, 64 bits, over the UTF-8 bytes.
    public static func fnv1a64(_ text: String) -> UInt64 {
        var hash = fnvOffset
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* fnvPrime }
        return hash
    }

    private static let fnvOffset: UInt64 = 0xCBF2_9CE4_8422_2325
    private static let fnvPrime: UInt64 = 0x0000_0100_0000_01B3
}
