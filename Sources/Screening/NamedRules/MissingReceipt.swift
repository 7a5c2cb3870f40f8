/// `missing-receipt`: a credited order with no receipt, in its row or in the receipts dumps.
/// It needs no product, so it fires whatever the row says of its platform or item; and it
/// stands alone (docs/rules.md): with no receipt, no other receipt rule is asked.
public enum MissingReceipt: NamedRule {
    public static let id: RuleID = "missing-receipt"
    public static let defaultSeverity = Severity.medium
    public static let summary = "a credited order has no receipt"
    public static let stage = RuleStage.presence

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard case .missing = c.receipt else {
            verdict.pass("the order has a receipt")
            return
        }
        let o = c.order
        let wanted = o.expectedProductID ?? o.itemID.map { "item \($0)" } ?? "the order"
        verdict.fire(
            "credited order \(o.orderID) has no receipt", Evidence(expected: "a receipt for \(wanted)", actual: nil))
    }
}
