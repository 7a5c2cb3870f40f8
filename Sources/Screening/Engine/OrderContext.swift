import ReceiptFormats

/// What a rule sees of one order: the order, its receipt as far as it could be read, the
/// entry the claims gave it, and the Rules directory (apps, parameters).
public struct OrderContext: Sendable {
    public let order: ScreenOrder
    public let receipt: ReceiptState
    public let selection: Selection
    /// The decoded receipt: set for every stage from `.row` on (the engine asks those only then).
    public let digest: ReceiptDigest?
    /// The receipt entry the claims gave the order (nil: none). From `.purchaseDates` on it
    /// is set and of the order's product.
    public let purchase: Purchase?
    let directory: SharedRules

    init(order: ScreenOrder, receipt: ReceiptState, selection: Selection, directory: SharedRules) {
        self.order = order
        self.receipt = receipt
        self.selection = selection
        self.directory = directory
        if case .decoded(let d) = receipt {
            digest = d
            switch selection {
            case .none: purchase = nil
            case .picked(let i), .restore(let i, _), .replayOf(let i, _, _):
                purchase = d.candidates.indices.contains(i) ? d.candidates[i] : nil
            }
        } else {
            digest = nil
            purchase = nil
        }
    }

    public var rules: RulesDirectory { directory.rules }

    /// A parameter's value in this run's Rules (its default when no `.rules` file sets it).
    public func value(_ p: RuleParameter) -> Int {
        directory.rules.settings.parameters[p.rule]?[p.name] ?? p.defaultValue
    }

    /// The order's entry as people name it: its transaction id, else its purchase token.
    public var purchaseName: String {
        purchase?.transactionID ?? purchase?.purchaseToken ?? "(no transaction id)"
    }
}

/// The Rules directory, shared by reference: building a context per order then costs one
/// retain, not a copy of every table in it.
final class SharedRules: Sendable {
    let rules: RulesDirectory

    init(_ rules: RulesDirectory) {
        self.rules = rules
    }
}
