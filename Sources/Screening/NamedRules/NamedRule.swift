/// One named rule of docs/rules.md, all of it in one file: its id, default severity,
/// parameters, the sentence that says what it flags, the check, its evidence, and the words
/// `explain` prints for it. The rule is a caseless enum; everything is static, so asking it
/// costs a call and no allocation.
///
/// To add a rule: write its file, and add it to `NamedRules.standard` (or, in a test, to a
/// list of its own). The parser, `rules check`, `explain`, the report's legend and the
/// Rules README's table follow from the list.
public protocol NamedRule: Sendable {
    static var id: RuleID { get }
    static var defaultSeverity: Severity { get }
    /// One sentence: what the rule flags.
    static var summary: String { get }
    /// What a `.rules` file may set for it (none by default).
    static var parameters: [RuleParameter] { get }
    /// When in an order's screening it is asked (which also says what it may read).
    static var stage: RuleStage { get }
    /// A rule of the same stage whose finding this one's replaces: it is asked first, and
    /// when it fires, the replaced rule is not asked.
    static var replaces: RuleID? { get }
    /// Looks at one order and says, through `verdict`, that it fires, passes or is not
    /// applicable. Saying nothing leaves no line in the trace.
    static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict)
}

extension NamedRule {
    public static var parameters: [RuleParameter] { [] }
    public static var replaces: RuleID? { nil }
    /// Rules of the `.night` stage are not asked per order.
    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {}
}

/// The steps of screening one order, in the order they are taken. The engine asks every
/// rule of a step (in the list's order) before the next step; a missing or unreadable
/// receipt stops after its step (docs/rules.md: those findings stand alone), and the
/// purchase steps run only on the entry that is the order's.
public enum RuleStage: Int, Sendable, Comparable, CaseIterable {
    /// Whether the order has a receipt at all.
    case presence
    /// Whether its receipt can be read.
    case payload
    /// The order's row: whether it names its product. Asked only once the receipt is read.
    case row
    /// The receipt as a whole: its signature, app and environment. `OrderContext.digest` is set.
    case receipt
    /// Which entry of the receipt is the order's: the transaction it names, its product.
    case entry
    /// Whether another order took that entry first (the claims made in claim order).
    case claims
    /// The order's entry, its dates: refund, expiry, age. `OrderContext.purchase` is set.
    case purchaseDates
    /// The order's entry, the rest: whose it is, whether it completed.
    case purchaseState
    /// Not about one order's receipt: records of the night (a receipt without its order, a
    /// dump row that cannot be read), reported by the screener with the rule's words.
    case night

    public static func < (a: RuleStage, b: RuleStage) -> Bool { a.rawValue < b.rawValue }

    /// Steps that read the receipt: noted not applicable when there is none.
    var readsReceipt: Bool { self == .payload || readsDecodedReceipt }

    /// Steps that read the decoded receipt: noted not applicable when it cannot be read.
    var readsDecodedReceipt: Bool { self >= .receipt && self <= .purchaseState }
}
