/// `transaction-not-in-receipt`: the order names a transaction (its `transaction_id`) that its
/// receipt does not hold — a receipt of another purchase sent for this order. It replaces
/// `item-id-mismatch` (docs/rules.md): it is asked first, and when it fires the product is not
/// compared.
public enum TransactionNotInReceipt: NamedRule {
    public static let id: RuleID = "transaction-not-in-receipt"
    public static let defaultSeverity = Severity.high
    public static let summary = "the order names a transaction its receipt does not contain"
    public static let stage = RuleStage.entry
    public static let replaces: RuleID? = ItemIDMismatch.id

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let d = c.digest else { return }
        let order = c.order
        if d.holdsOrderTransaction == false, let txn = order.transactionID {
            verdict.fire(
                "the order names transaction \(txn), which its receipt does not contain",
                Evidence(
                    expected: txn,
                    actual: d.purchaseCount == 0 ? "no purchases" : "\(d.purchaseCount) other purchase(s)",
                    extra: [("transaction_id", .string(txn))]))
            return
        }
        guard verdict.tracing else { return }
        if let txn = order.transactionID {
            // When the product does not match, the mismatch is the finding, and this rule
            // had nothing of its own to find.
            if ItemIDMismatch.mismatch(c) != nil {
                verdict.notApplicable("the receipt holds transaction \(txn)")
            } else {
                verdict.pass("the receipt holds transaction \(txn)")
            }
        } else if order.expectedProductID == nil {
            verdict.pass("the order names no transaction, and without a product no entry is its own")
        } else if ItemIDMismatch.mismatch(c) != nil {
            verdict.notApplicable("the order names no transaction")
        } else {
            verdict.pass("the order names no transaction; its entry is chosen by product and time")
        }
    }
}
