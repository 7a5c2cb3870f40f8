/// `purchase-not-completed`: a Google purchase whose `purchaseState` is not 0 (purchased):
/// cancelled (1) or pending (2, or 4 in older libraries) — credited before the money came.
/// App Store entries are completed purchases.
public enum PurchaseNotCompleted: NamedRule {
    public static let id: RuleID = "purchase-not-completed"
    public static let defaultSeverity = Severity.medium
    public static let summary = "a Google purchase that is pending or cancelled"
    public static let stage = RuleStage.purchaseState

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let p = c.purchase, let d = c.digest else { return }
        guard d.platform == .android else {
            verdict.notApplicable("App Store entries are completed purchases")
            return
        }
        if let state = p.purchaseState, state != 0 {
            let words = state == 1 ? "cancelled" : (state == 2 || state == 4 ? "pending" : "in state \(state)")
            verdict.fire(
                "the Google purchase is \(words), not purchased",
                Evidence(expected: "purchaseState 0 (purchased)", actual: "purchaseState \(state) (\(words))"))
        } else {
            verdict.pass(
                p.purchaseState == nil ? "the purchase states no purchaseState" : "purchaseState 0 (purchased)")
        }
    }
}
