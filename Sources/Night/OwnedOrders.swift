import Decompression
import DumpFormats
import IAPBasics

/// Which of the night's orders this run keeps: all of them, or one shard's (a sharded run's
/// worker, docs/ledger.md). The others' rows are counted in the inputs' positions and left
/// undecoded (and, where the layout finds the order id alone, unparsed).
package struct OwnedOrders: Sendable {
    /// nil: every order.
    package let shard: ShardSpec?

    package static let all = OwnedOrders(shard: nil)

    package static func shard(_ spec: ShardSpec) -> OwnedOrders { OwnedOrders(shard: spec) }

    private init(shard: ShardSpec?) {
        self.shard = shard
    }

    package func owns(_ orderID: String) -> Bool { shard?.owns(orderID) ?? true }

    /// Whether this run reports what names no order (a record too broken for its id, an
    /// event of no order): the first shard's.
    package var ownsTheUnattributed: Bool { shard.map { $0.index == 1 } ?? true }

    /// Whether this run reports a record, a refund or an event naming `orderID` (nil: none).
    package func reports(_ orderID: String?) -> Bool { orderID.map(owns) ?? ownsTheUnattributed }

    /// The next order record: another shard's is `.elsewhere`.
    func nextOrder(_ reader: DumpReader) throws(InputError) -> ShardRead<OrderRow>? {
        if let shard { return try reader.nextOrder(in: shard) }
        return try reader.nextOrder().map(ShardRead.init)
    }

    /// The next receipt record: another shard's is `.elsewhere`.
    func nextReceipt(_ reader: DumpReader) throws(InputError) -> ShardRead<ReceiptRow>? {
        if let shard { return try reader.nextReceipt(in: shard) }
        return try reader.nextReceipt().map(ShardRead.init)
    }
}
