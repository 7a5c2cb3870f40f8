import Screening

/// A toy rule, added the way a new rule is: this one file, and one line in a list
/// (`NamedRulesTests.withToy`). `large-order` flags an order worth `min_amount` or more.
enum LargeOrder: NamedRule {
    static let id: RuleID = "large-order"
    static let defaultSeverity = Severity.low
    static let summary = "an order worth at least min_amount in its currency"
    static let stage = RuleStage.receipt

    static let minAmount = RuleParameter(
        rule: id, "min_amount", default: 100, .number, meaning: "the smallest amount flagged")
    static var parameters: [RuleParameter] { [minAmount] }

    static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let amount = c.order.amount.flatMap(Double.init) else {
            verdict.notApplicable("the order states no amount")
            return
        }
        let least = c.value(minAmount)
        if amount >= Double(least) {
            verdict.fire(
                "the order is worth \(c.order.amount ?? "?") \(c.order.currency ?? ""), at least \(least)",
                Evidence(expected: "less than \(least)", actual: c.order.amount))
        } else {
            verdict.pass("worth \(c.order.amount ?? "?"), less than \(least)")
        }
    }
}
