import ReceiptFormats

/// `expired-validity`: a subscription whose period had ended (past a grace) before the order
/// was credited, or a consumable bought longer ago than the maximum proof age. Subscriptions
/// are judged by expiry, never by age; non-consumables have no maximum age. The type is the
/// receipt's when it says, else the catalog's; an entry with an expiry and no type is taken
/// for a subscription.
public enum ExpiredValidity: NamedRule {
    public static let id: RuleID = "expired-validity"
    public static let defaultSeverity = Severity.medium
    public static let summary = "the subscription had expired, or the proof is older than the maximum age"
    public static let stage = RuleStage.purchaseDates

    public static let graceDays = RuleParameter(
        rule: id, "grace_days", default: 1, .number, meaning: "days a subscription may be past its expiry")
    public static let maxProofAgeDays = RuleParameter(
        rule: id, "max_proof_age_days", default: 30, .number, meaning: "oldest acceptable consumable proof")
    public static var parameters: [RuleParameter] { [graceDays, maxProofAgeDays] }

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let p = c.purchase else { return }
        let credited = c.order.createdAt
        let txn = c.purchaseName
        let type =
            p.productType.flatMap { if case .unknown = $0 { return nil } else { return $0 } } ?? c.order.catalogType
        if type == .autoRenewable || type == .nonRenewing || (type == nil && p.expiresDate != nil) {
            let grace = Int64(c.value(graceDays))
            if let e = p.expiresDate, let limit = e.adding(days: grace), limit < credited {
                verdict.fire(
                    "the subscription period expired on \(e.iso8601), before the order was credited on \(credited.iso8601) (grace \(grace) day(s))",
                    Evidence(
                        expected: "expiry after \(credited.iso8601) minus \(grace) day(s)", actual: e.iso8601,
                        extra: [("transaction_id", .string(txn))]))
            } else {
                verdict.pass(
                    p.expiresDate.map {
                        "the period runs until \($0.iso8601); credited \(credited.iso8601), grace \(grace) day(s)"
                    }
                        ?? "the subscription entry states no expiry")
            }
        } else if type == .consumable, let bought = p.purchaseDate {
            let maxAge = Int64(c.value(maxProofAgeDays))
            if let oldest = credited.adding(days: -maxAge), bought < oldest {
                let days = (credited.millis - bought.millis) / 86_400_000
                verdict.fire(
                    "the purchase proof is \(days) days old (bought \(bought.iso8601)); the maximum age is \(maxAge) days",
                    Evidence(
                        expected: "bought after \(oldest.iso8601)", actual: bought.iso8601,
                        extra: [("transaction_id", .string(txn))]))
            } else {
                verdict.pass("a consumable bought \(bought.iso8601), within the maximum proof age of \(maxAge) days")
            }
        } else {
            verdict.notApplicable(
                "neither a subscription nor a dated consumable (\(type.map { "\($0)" } ?? "type unknown"))")
        }
    }
}
