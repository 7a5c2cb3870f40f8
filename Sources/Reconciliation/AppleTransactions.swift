import IAPBasics

/// An App Store transaction a store event names (a charge: `ONE_TIME_CHARGE`, `SUBSCRIBED`,
/// `DID_RENEW`, `OFFER_REDEEMED`; or a `REFUND`), with what its signed transaction says.
public struct AppleTransactionEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case charge, refund
    }

    public var kind: Kind
    public var transactionID: String
    public var productID: String?
    public var purchaseDate: Timestamp?
    public var price: DecimalAmount?
    public var currency: String?

    public init(
        kind: Kind, transactionID: String, productID: String?, purchaseDate: Timestamp?,
        price: DecimalAmount?, currency: String?
    ) {
        self.kind = kind
        self.transactionID = transactionID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.price = price
        self.currency = currency
    }
}

/// Apple per transaction, where store events cover it (docs/reconcile.md, Apple per transaction): a
/// charge without a credited order is a `lost-order`; a refund whose order is still credited
/// is `refunded-still-credited`. A transaction compared this way leaves the unit comparison
/// on both sides (our credit, and the sale it made in the report), so nothing is counted
/// twice.
struct AppleTransactions {
    /// By transaction id: the charge (or, without one, the refund's transaction) and whether
    /// a refund names it.
    private var covered: [String: (event: AppleTransactionEvent, refunded: Bool, charged: Bool)] = [:]
    private var credited: [String: OurCredit] = [:]

    mutating func add(_ e: AppleTransactionEvent) {
        var entry = covered[e.transactionID] ?? (e, false, false)
        switch e.kind {
        case .charge:
            entry.event = e
            entry.charged = true
        case .refund:
            entry.refunded = true
        }
        covered[e.transactionID] = entry
    }

    /// Takes a credit whose transaction an event covers; false leaves it to the unit comparison.
    mutating func take(_ c: OurCredit) -> Bool {
        guard let txn = c.storeOrderID, covered[txn] != nil else { return false }
        credited[txn] = c
        return true
    }

    /// The sales the covered transactions made, to take out of the report's units.
    var sales: [(product: String, day: Int, currency: String, amount: DecimalAmount)] {
        covered.values.compactMap { v in
            guard let product = v.event.productID, let bought = v.event.purchaseDate, let currency = v.event.currency
            else { return nil }
            return (product, CalendarDay.pacific(bought), currency.uppercased(), v.event.price ?? .zero)
        }
    }

    func finish(window: DayWindow, into ledger: inout Ledger) {
        for txn in covered.keys.sorted() {
            guard let v = covered[txn] else { continue }
            let e = v.event
            let day =
                e.purchaseDate.map(CalendarDay.pacific) ?? credited[txn].map { CalendarDay.pacific($0.createdAt) } ?? 0
            guard window.contains(day) else { continue }
            let currency = (e.currency ?? credited[txn]?.currency ?? "").uppercased()
            let product = e.productID ?? credited[txn]?.productID ?? ""
            if let c = credited[txn] {
                if v.refunded, !c.refunded {
                    ledger.report(
                        Difference(
                            store: .apple, bucket: .refundedStillCredited, orderID: c.orderID, storeOrderID: txn,
                            productID: product, day: day, currency: c.currency, ourUnits: 1, storeUnits: 0,
                            ourAmount: c.amount, storeAmount: e.price,
                            detail: "the store refunded transaction \(txn); order \(c.orderID) is still credited"))
                } else if v.charged || v.refunded {
                    ledger.matched(.apple, c.currency, count: 1, amount: e.price ?? c.amount)
                }
            } else if v.charged, !v.refunded {
                ledger.report(
                    Difference(
                        store: .apple, bucket: .lostOrder, orderID: nil, storeOrderID: txn, productID: product,
                        day: day, currency: currency, ourUnits: 0, storeUnits: 1, ourAmount: nil, storeAmount: e.price,
                        detail: "the store charged transaction \(txn) (a store event), and no order credits it"))
            }
        }
    }
}
