/// `replayed-transaction`: one store transaction (an Apple transaction id, a Google order id)
/// credited to more than one order, tonight or on an earlier night the ledger remembers. The
/// claims decide who took it first (docs/rules.md: the ledger's first taker, else the earliest
/// by `created_at`, `order_id`); only the later orders fire, against that first one. The same
/// user restoring a non-consumable, family sharing and renewals are not replays.
public enum ReplayedTransaction: NamedRule {
    public static let id: RuleID = "replayed-transaction"
    public static let defaultSeverity = Severity.critical
    public static let summary = "one store transaction credited to more than one order"
    public static let stage = RuleStage.claims

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        switch c.selection {
        case .none:
            verdict.notApplicable("no receipt entry is this order's, so none could be taken twice")
        case .picked:
            verdict.pass("no earlier order took \(c.purchase.map(spokenName(of:)) ?? "transaction ?")")
        case .restore(_, let original):
            verdict.pass(
                "order \(original.orderID) took it first, but this is the same user restoring a non-consumable "
                    + "or a family-shared purchase: not a replay")
        case .replayOf(_, let original, let key):
            let (message, evidence) = words(
                transaction: c.purchase?.transactionID ?? c.purchase?.purchaseToken,
                original: original, key: key)
            verdict.fire(message, evidence, whenOff: "would have fired: order \(original.orderID) took it first")
        }
    }

    /// The finding's words for an order whose transaction (`key` when the entry names none)
    /// `original` took first. The screener uses them too, for orders whose one entry was
    /// judged before the claims were made.
    public static func words(transaction: String?, original: Claim, key: String) -> (
        message: String, evidence: Evidence
    ) {
        let txn = transaction ?? key
        return (
            "transaction \(txn) was already credited to order \(original.orderID) (\(original.createdAt.iso8601))",
            Evidence(
                expected: "a transaction no other order took", actual: txn,
                extra: [
                    ("original_order_id", .string(original.orderID)), ("transaction_id", .string(txn)),
                    ("original_user_id", .string(original.userID)),
                    ("original_created_at", .string(original.createdAt.iso8601)),
                ])
        )
    }
}
