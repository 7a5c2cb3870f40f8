import IAPBasics
import JSONText

/// `refunded-after-credit`: the store refunded, voided or revoked the purchase an order took,
/// after the order was credited, and the order is still credited — buy, spend, get the money
/// back. The store says it later (a notification, the refund history, a voided purchase), so
/// this is judged on the night's store events against tonight's orders and, through the
/// ledger, orders of earlier nights; an order the dump marks `refunded` is not flagged.
public enum RefundedAfterCredit: NamedRule {
    public static let id: RuleID = "refunded-after-credit"
    public static let defaultSeverity = Severity.high
    public static let summary =
        "the store refunded the purchase an order took, after the credit, and the order is still credited"
    public static let stage = RuleStage.night

    public static func words(_ r: StoreRefund, creditedAt: Timestamp) -> (message: String, evidence: Evidence) {
        var extra: [(key: String, value: JSONValue)] = [
            ("transaction_id", .string(r.transaction)), ("event", .string(r.event)),
            ("refunded_at", .string(r.at.iso8601)), ("credited_at", .string(creditedAt.iso8601)),
            ("reason", .string(orNull: r.reason)), ("source", .string(orNull: r.source)),
        ]
        if let t = r.revocationType { extra.append(("revocation_type", .string(t))) }
        if let p = r.revocationPercentage { extra.append(("revocation_percentage", .integer(p))) }
        let why = r.reason.map { ", reason \($0)" } ?? ""
        return (
            "the store refunded transaction \(r.transaction) on \(r.at.iso8601) (\(r.event)\(why), \(r.saidWhere)), "
                + "after the order was credited on \(creditedAt.iso8601); the order is still credited",
            Evidence(expected: "a purchase the store kept", actual: "refunded \(r.at.iso8601)", extra: extra)
        )
    }
}
