import IAPBasics

/// `refund-reversed`: Apple reversed a refund (`REFUND_REVERSED`) that a finding reported as
/// `refunded-after-credit` on this order: an earlier run's, or tonight's from an event read
/// before the reversal. Not fraud: the order may be owed its credit
/// back, and the earlier finding no longer holds.
public enum RefundReversed: NamedRule {
    public static let id: RuleID = "refund-reversed"
    public static let defaultSeverity = Severity.info
    public static let summary =
        "the store reversed a refund an earlier finding reported: the order may be owed its credit back"
    public static let stage = RuleStage.night

    public static func words(_ r: StoreRefund) -> (message: String, evidence: Evidence) {
        (
            "Apple reversed the refund of transaction \(r.transaction) on \(r.at.iso8601) (\(r.event), \(r.saidWhere)); "
                + "it was reported refunded-after-credit, so the order may be owed its credit back",
            Evidence(
                expected: "a refund that stands", actual: "reversed \(r.at.iso8601)",
                extra: [
                    ("transaction_id", .string(r.transaction)), ("event", .string(r.event)),
                    ("reversed_at", .string(r.at.iso8601)),
                ])
        )
    }
}
