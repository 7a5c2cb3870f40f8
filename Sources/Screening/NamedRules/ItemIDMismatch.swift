/// `item-id-mismatch`: the receipt holds no purchase of the product the order should have
/// bought (the row's `product_id`, else the catalog's product for its item and platform) —
/// a receipt of a cheaper product sent for a dearer one. With a `transaction_id` the entry
/// of that transaction is compared; without one, any entry of the product will do (which of
/// them is the order's is for the claims to decide). An item the catalog sells only on the
/// other store is compared against that store's product.
public enum ItemIDMismatch: NamedRule {
    public static let id: RuleID = "item-id-mismatch"
    public static let defaultSeverity = Severity.high
    public static let summary = "the receipt holds no purchase of the order's product"
    public static let stage = RuleStage.entry

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let d = c.digest else { return }
        guard let expected = c.order.expectedProductID else {
            verdict.notApplicable("the order's product is not known")
            return
        }
        if let held = mismatch(c) {
            verdict.fire(
                "expected product \(expected), receipt has \(held.isEmpty ? "no purchases" : held.joined(separator: ", "))",
                Evidence(expected: expected, actual: held.isEmpty ? nil : held.joined(separator: ", ")))
        } else {
            let n = d.candidates.count
            verdict.pass("the receipt holds \(expected), the order's product (\(n) entr\(n == 1 ? "y" : "ies"))")
        }
    }

    /// The products the receipt holds instead, when none of its entries that could be the
    /// order's is of the order's product; nil when one is (or the product is not known).
    static func mismatch(_ c: OrderContext) -> [String]? {
        guard let d = c.digest, let expected = c.order.expectedProductID else { return nil }
        let named = c.order.transactionID != nil
        guard d.candidates.isEmpty || (named && d.candidates.allSatisfy { $0.productID != expected }) else {
            return nil
        }
        return named ? d.candidates.compactMap(\.productID) : d.products
    }
}
