import IAPBasics

/// `revoked`: the order's entry carries a cancellation date — the store refunded or revoked
/// the purchase (an app receipt's or iOS 6 receipt's cancellation date, a verifyReceipt
/// `cancellation_date`, a JWS transaction's `revocationDate`). It also fires when a store
/// event (tonight's, or one the ledger remembers) says the purchase the order took was
/// refunded before the order was credited: a refunded purchase credited again.
public enum Revoked: NamedRule {
    public static let id: RuleID = "revoked"
    public static let defaultSeverity = Severity.high
    public static let summary = "the store refunded or revoked the purchase"
    public static let stage = RuleStage.purchaseDates

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let p = c.purchase else { return }
        let txn = c.purchaseName
        if let cancelled = p.cancellationDate {
            verdict.fire(
                "the store refunded or revoked transaction \(txn) on \(cancelled.iso8601)",
                Evidence(
                    expected: "no cancellation", actual: cancelled.iso8601, extra: [("transaction_id", .string(txn))]))
        } else {
            verdict.pass("\(spokenName(of: p)) carries no cancellation date")
        }
    }

    /// The finding's words when a store event, not the receipt, says the purchase was refunded
    /// before the credit.
    public static func words(_ r: StoreRefund, creditedAt: Timestamp) -> (message: String, evidence: Evidence) {
        (
            "the store refunded or revoked transaction \(r.transaction) on \(r.at.iso8601) (\(r.event), \(r.saidWhere)), "
                + "before the order was credited on \(creditedAt.iso8601)",
            Evidence(
                expected: "no refund before the credit", actual: r.at.iso8601,
                extra: [
                    ("transaction_id", .string(r.transaction)), ("event", .string(r.event)),
                    ("refunded_at", .string(r.at.iso8601)),
                ])
        )
    }

    /// An order's findings with one `revoked` at most: the receipt's cancellation and a store
    /// event may both say it, and it is one finding (the first).
    public static func once(_ findings: [Finding]) -> [Finding] {
        guard let first = findings.firstIndex(where: { $0.rule == id.rawValue }) else { return findings }
        return findings.enumerated().filter { $0.offset == first || $0.element.rule != id.rawValue }.map(\.element)
    }
}
