import Decompression
import DumpFormats
import IAPBasics

/// Which of the night's orders this run keeps: all of them, or one shard's (a sharded run's
/// worker, docs/ledger.md). The others' rows are counted in the inputs' positions and left
/// undecoded (and, where the layout finds the order id alone, unparsed).
package struct OwnedOrders: Sendable {
    /// nil: every order.
    package let shard: ShardSpec?
    /// The dumps hold this shard's records alone (`--split-dumps`: an export split by
    /// shard): every record is read, another shard's is an input error, and what is too
    /// broken for its order id is this worker's, since no other worker reads it.
    package let splitDumps: Bool

    package static let all = OwnedOrders(shard: nil, splitDumps: false)

    package static func shard(_ spec: ShardSpec, splitDumps: Bool = false) -> OwnedOrders {
        OwnedOrders(shard: spec, splitDumps: splitDumps)
    }

    private init(shard: ShardSpec?, splitDumps: Bool) {
        self.shard = shard
        self.splitDumps = splitDumps
    }

    package func owns(_ orderID: String) -> Bool { shard?.owns(orderID) ?? true }

    /// Whether this run reports what names no order (a record too broken for its id, an
    /// event of no order): the first shard's.
    package var ownsTheUnattributed: Bool { shard.map { $0.index == 1 } ?? true }

    /// Whether this run reports a record, a refund or an event naming `orderID` (nil: none).
    package func reports(_ orderID: String?) -> Bool { orderID.map(owns) ?? ownsTheUnattributed }

    /// Where a record stood among every worker's records, for what workers and `merge`
    /// compare (staged orders, the reports' order): its position as it is, unless the dumps
    /// are split by shard and each worker counts only its own records. Then it stands as in
    /// one run over every shard's orders dumps in shard order, then every shard's receipts
    /// dumps: orders before receipts, then by shard, then by the worker's own count.
    /// `orderRecords`: how many order records the worker's dumps held.
    func sharedPosition(_ position: Int, orderRecords: Int) -> Int64 {
        guard let shard, splitDumps else { return Int64(position) }
        let receipts: Int64 = position >= orderRecords ? 1 << 56 : 0
        return receipts | Int64(shard.index) << 36 | Int64(position)
    }

    /// The next order record: another shard's is `.elsewhere`.
    func nextOrder(_ reader: DumpReader) throws(InputError) -> ShardRead<OrderRow>? {
        if let shard, splitDumps { return try ownOnly(reader.nextOrder(), shard, \.orderID, \.location) }
        if let shard { return try reader.nextOrder(in: shard) }
        return try reader.nextOrder().map(ShardRead.init)
    }

    /// The next receipt record: another shard's is `.elsewhere`.
    func nextReceipt(_ reader: DumpReader) throws(InputError) -> ShardRead<ReceiptRow>? {
        if let shard, splitDumps { return try ownOnly(reader.nextReceipt(), shard, \.orderID, \.location) }
        if let shard { return try reader.nextReceipt(in: shard) }
        return try reader.nextReceipt().map(ShardRead.init)
    }

    /// A split dump's record: its shard's, or the split is wrong and nothing can be trusted
    /// to be where it belongs (exit 3, naming the record and the shard it hashes to).
    private func ownOnly<Row>(
        _ read: Result<Row, UnreadableRecord>?, _ shard: ShardSpec, _ id: KeyPath<Row, String>,
        _ location: KeyPath<Row, SourceLocation>
    ) throws(InputError) -> ShardRead<Row>? {
        switch read {
        case .none: return nil
        case .failure(let m)?: return .malformed(m, ownID: true)
        case .success(let row)?:
            let other = shard.shard(of: row[keyPath: id])
            guard other == shard.index else {
                throw InputError(
                    path: row[keyPath: location].description,
                    reason:
                        "order \(quotedValue(row[keyPath: id])) is shard \(other)/\(shard.count)'s "
                        + "(fnv1a64 of its order_id mod \(shard.count)), not shard \(shard)'s: with --split-dumps "
                        + "a worker's dumps hold its own shard's records alone",
                    code: "wrong-shard")
            }
            return .row(row)
        }
    }
}
