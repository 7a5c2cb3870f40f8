import IAPBasics

/// `orphan-receipt`: a row of a receipts dump whose order is in no orders dump — an order
/// the server may have lost. It is about the night, not one order's receipt: the screener
/// reports each with these words, once every dump has been read.
public enum OrphanReceipt: NamedRule {
    public static let id: RuleID = "orphan-receipt"
    public static let defaultSeverity = Severity.medium
    public static let summary = "a receipt whose order is not in the dump"
    public static let stage = RuleStage.night

    public static func words(orderID: String, location: SourceLocation) -> (message: String, evidence: Evidence) {
        (
            "a receipt for order \(orderID) (\(location)), which is not in the orders dump",
            Evidence(expected: "order \(orderID) in the orders dump", actual: nil, extra: Evidence.location(location))
        )
    }
}
