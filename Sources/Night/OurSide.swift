import DumpFormats
import IAPBasics
import ReceiptFormats
import Reconciliation
import Screening
import StoreReports

/// Our side of a reconciliation: the orders dumps read exactly as `screen` reads them (the
/// same reader, the same later-row-wins, the same catalog resolution, receipts joined the
/// same way), kept small, then turned into the credits the stores should have charged.
///
/// A receipt is decoded only where it says something the order does not: the platform of
/// an order that names none, and a Google order's order number (`orderId`). Which app the
/// receipt is of does not matter here: an order credited against another app's purchase
/// is still our credit. Signatures are `screen`'s business, not checked here.
package final class OurSide {
    /// What a receipt adds to its order.
    struct ReceiptFacts {
        var platform: Platform?
        var orderNumber: String?

        init?(payload: String, limits: Limits) {
            guard let receipt = try? ReceiptDecoder.decode(Array(payload.utf8), limits: limits) else { return nil }
            platform = receipt.platform
            orderNumber = receipt.kind == .googlePurchase ? receipt.purchases.first?.transactionID : nil
        }
    }

    struct Order {
        var stored: StoredOrder
        var own: ReceiptFacts?
        var hasOwnReceipt: Bool
        var fromDump: ReceiptFacts?
        var dumpReceiptSeen = false
        var dumpReceivedAt: Timestamp?
    }

    /// Orders not compared, by why (reconciliation.json says how many).
    package struct NotCompared {
        package var notCredited = 0, sandbox = 0, zeroAmount = 0, outsideCatalog = 0, unknownPlatform = 0
    }

    let pool = StringPool()
    let limits: Limits
    private var orders: [Order] = []
    private var slotOf: [String: Int32] = [:]
    private(set) var inputs: [InputRecord] = []
    private(set) var skipped: [SkippedRow] = []
    private(set) var notCompared = NotCompared()

    init(limits: Limits) {
        self.limits = limits
    }

    /// Reads every orders dump, then every receipts dump; throws when a file cannot be read.
    func load(orders paths: [String], receipts: [String], progress: (any NightProgress)? = nil) throws(InputError) {
        for path in paths { try read(path, { (r) throws(InputError) in try r.nextOrder() }, add, progress) }
        for path in receipts { try read(path, { (r) throws(InputError) in try r.nextReceipt() }, add, progress) }
        slotOf = [:]
    }

    /// Reads one file to its end, rows to `add`, unreadable records to `skipped`.
    private func read<Row>(
        _ path: String, _ next: (DumpReader) throws(InputError) -> Result<Row, UnreadableRecord>?,
        _ add: (Row) -> Void, _ progress: (any NightProgress)?
    ) throws(InputError) {
        inputs.append(
            try readHashed(path, limits: limits, counted: progress?.bytes) { reader throws(InputError) in
                var records = 0
                while let item = try next(reader) {
                    switch item {
                    case .failure(let m): skip(m)
                    case .success(let row): add(row)
                    }
                    records &+= 1
                    if records & 255 == 0 { progress?.tick(count: orders.count) }
                }
            })
    }

    /// Orders read so far (the progress line).
    var orderCount: Int { orders.count }

    private func skip(_ m: UnreadableRecord) {
        switch m.location.position {
        case .line(let n): skipped.append(SkippedRow(file: m.location.file, line: n, reason: m.reason))
        case .row(let n):
            skipped.append(SkippedRow(file: m.location.file, line: n, reason: "XML row \(n): \(m.reason)"))
        }
    }

    /// Orders whose receipt may name their store or their Google order number.
    private static func wantsReceipt(_ row: OrderRow) -> Bool {
        row.platform != .ios
    }

    private func add(_ row: OrderRow) {
        let own = row.receipt.flatMap { OurSide.wantsReceipt(row) ? ReceiptFacts(payload: $0, limits: limits) : nil }
        let order = Order(stored: StoredOrder(row, pool: pool), own: own, hasOwnReceipt: row.receipt != nil)
        if let existing = slotOf[row.orderID] {
            orders[Int(existing)] = order  // the later row wins, at the first row's place
        } else {
            slotOf[row.orderID] = Int32(truncatingIfNeeded: orders.count)
            orders.append(order)
        }
    }

    private func add(_ r: ReceiptRow) {
        guard let found = slotOf[r.orderID] else { return }
        let i = Int(found)
        guard !orders[i].hasOwnReceipt, OurSide.wantsReceipt(orders[i].stored.row(pool: pool)) else { return }
        guard
            ReceiptRowOrder.replaces(seen: orders[i].dumpReceiptSeen, old: orders[i].dumpReceivedAt, new: r.receivedAt)
        else {
            return
        }
        orders[i].dumpReceiptSeen = true
        orders[i].dumpReceivedAt = r.receivedAt
        orders[i].fromDump = ReceiptFacts(payload: r.receipt, limits: limits)
    }

    /// Every order the stores should have charged, in input order. Rows that cannot be
    /// resolved (no product, no amount) become skipped rows.
    func credits(rules: RulesDirectory) -> [OurCredit] {
        let resolver = OrderResolver(catalog: rules.catalog, defaultProduction: true)
        var out: [OurCredit] = []
        out.reserveCapacity(orders.count)
        for (index, order) in orders.enumerated() {
            let stored = order.stored
            guard stored.status == .credited || stored.status == .refunded else {
                notCompared.notCredited += 1
                continue
            }
            let facts = order.hasOwnReceipt ? order.own : order.fromDump
            let row = stored.row(pool: pool)
            let resolved = resolver.resolve(row, index: index, receiptPlatform: facts?.platform)
            // Neither the row nor a receipt names the platform: no store to compare with.
            guard let platform = resolved.platform else {
                notCompared.unknownPlatform += 1
                continue
            }
            guard resolved.production else {
                notCompared.sandbox += 1
                continue
            }
            guard let productID = resolved.expectedProductID else {
                skip(UnreadableRecord(location: row.location, reason: resolved.productUnknown ?? "no product"))
                continue
            }
            guard rules.catalog.product(productID, platform: platform) != nil else {
                notCompared.outsideCatalog += 1
                continue
            }
            guard let text = resolved.amount, let currency = resolved.currency else {
                skip(
                    UnreadableRecord(
                        location: row.location,
                        reason: "no amount or currency: neither the row nor the catalog gives one"))
                continue
            }
            guard let amount = DecimalAmount(text) else {
                skip(
                    UnreadableRecord(
                        location: row.location, reason: "amount '\(text.prefix(40))' is not a decimal number"))
                continue
            }
            guard !amount.isZero else {
                notCompared.zeroAmount += 1
                continue
            }
            // An order credited against another app's purchase stays: apps.csv picks the
            // store's rows (our packages' reports), never our credits. The store has no such
            // charge, so it is an unpaid credit.
            out.append(
                OurCredit(
                    orderID: row.orderID, store: platform == .android ? .google : .apple,
                    storeOrderID: platform == .android ? (row.transactionID ?? facts?.orderNumber) : row.transactionID,
                    productID: productID, createdAt: row.createdAt, amount: amount,
                    currency: currency.uppercased(), refunded: stored.status == .refunded))
        }
        orders = []
        return out
    }
}
