/// `receipt-undecodable`: the payload is none of the receipt kinds this tool reads
/// (docs/receipts.md), or is one that is damaged. The evidence says what the decoder stopped
/// at and where. It stands alone: a receipt that cannot be read is not judged any further.
public enum ReceiptUndecodable: NamedRule {
    public static let id: RuleID = "receipt-undecodable"
    public static let defaultSeverity = Severity.high
    public static let summary = "the payload is not a receipt this tool can read"
    public static let stage = RuleStage.payload

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        switch c.receipt {
        case .undecodable(let e):
            verdict.fire(
                "the receipt cannot be read: \(e.reason) (\(e.code) at byte \(e.offset))",
                Evidence(
                    expected: "a store receipt", actual: e.code,
                    extra: [("reason", .string(e.reason)), ("offset", .integer(e.offset))]))
        case .decoded(let d):
            verdict.pass("the receipt decoded as \(d.kind.rawValue)")
        case .missing:
            verdict.notApplicable("there is no receipt to check")
        }
    }
}
