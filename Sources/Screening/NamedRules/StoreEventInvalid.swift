import IAPBasics

/// `store-event-invalid`: an App Store notification or refund-history transaction whose
/// signature or chain does not verify against `Rules/trust/apple` at its `signedDate`
/// (Xcode and LocalTesting signatures never do), or that names an app not in `apps.csv`. It
/// is not believed: a server that re-credits on a forged `REFUND_REVERSED` is exploitable.
/// The finding carries the order its event names when one is known.
public enum StoreEventInvalid: NamedRule {
    public static let id: RuleID = "store-event-invalid"
    public static let defaultSeverity = Severity.critical
    public static let summary =
        "an Apple notification or refund-history transaction that does not verify, or names an app that is not ours"
    public static let stage = RuleStage.night

    public static func words(
        type: String, transaction: String?, location: SourceLocation,
        reason: String
    ) -> (message: String, evidence: Evidence) {
        (
            "a \(type) store event\(transaction.map { " of transaction \($0)" } ?? "") at \(location) is not believed: \(reason)",
            Evidence(
                expected: "a store event signed by Apple for one of our apps", actual: reason,
                extra: Evidence.location(location) + [("reason", .string(reason))])
        )
    }
}
