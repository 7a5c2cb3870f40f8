import DumpFormats
import IAPBasics

/// The one order `explain` asks about: the loader tells it which receipt the join chose for
/// that order and where it came from (screening keeps no payloads).
package final class WatchedOrder {
    package let orderID: String
    package private(set) var receipt: (payload: String, location: SourceLocation, fromReceiptsDump: Bool)?

    package init(_ orderID: String) {
        self.orderID = orderID
    }

    /// A row of the order (a later one wins): its own receipt field, or none yet.
    /// `payload`: the row's receipt, taken out of it.
    func saw(_ row: OrderRow, payload: String?) {
        guard row.orderID == orderID else { return }
        receipt = payload.map { ($0, row.location, false) }
    }

    /// A receipts-dump row the join took for the order.
    func took(_ r: ReceiptRow) {
        guard r.orderID == orderID else { return }
        receipt = (r.receipt, r.location, true)
    }
}
