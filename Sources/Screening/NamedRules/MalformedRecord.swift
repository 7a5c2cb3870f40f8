import IAPBasics

/// `malformed-record`: a dump record that could not be read (the screener reports those with
/// `words(location:reason:)`, file and line or XML row in the evidence), and an order whose
/// product neither the row nor the catalog gives. Such an order, when its receipt decodes,
/// gets this finding and is still judged by every rule that needs no product. Without a
/// readable receipt it is not asked: the missing or unreadable receipt is the finding, and
/// neither needs a product.
public enum MalformedRecord: NamedRule {
    public static let id: RuleID = "malformed-record"
    public static let defaultSeverity = Severity.low
    public static let summary = "a dump record that could not be read"
    public static let stage = RuleStage.row

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard c.order.expectedProductID == nil else {
            verdict.pass("the row names its product")
            return
        }
        let (message, evidence) = words(
            location: c.order.location, reason: c.order.productUnknown ?? "the order's product is not known")
        verdict.fire(message, evidence)
    }

    /// The finding's words for a record at `location` that says too little or cannot be read.
    public static func words(location: SourceLocation, reason: String) -> (message: String, evidence: Evidence) {
        (
            "\(location): \(reason)",
            Evidence(expected: "a readable record", actual: reason, extra: Evidence.location(location))
        )
    }
}
