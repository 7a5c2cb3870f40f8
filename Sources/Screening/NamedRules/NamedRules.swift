import Foundation

/// The named rules a run knows, in the order docs/rules.md lists them. Everything that
/// enumerates rules reads this list: the `.rules` parser (which ids, parameters), `rules
/// check`, the engine (which asks them stage by stage, in this order within a stage),
/// `explain`, the report's legend and the table of `Rules/README.md`.
public struct NamedRules: Sendable {
    public let all: [any NamedRule.Type]
    private let byID: [RuleID: Int]

    /// Every rule of iapscreen.
    public static let standard = NamedRules([
        ReplayedTransaction.self,
        SignatureInvalid.self,
        BundleIDMismatch.self,
        ItemIDMismatch.self,
        SandboxInProduction.self,
        TransactionNotInReceipt.self,
        Revoked.self,
        AccountMismatch.self,
        ReceiptUndecodable.self,
        ExpiredValidity.self,
        MissingReceipt.self,
        OrphanReceipt.self,
        PurchaseNotCompleted.self,
        MalformedRecord.self,
        RefundedAfterCredit.self,
        RefundReversed.self,
        StoreEventInvalid.self,
    ])

    /// A list of rules; ids are unique (a second rule of an id is a programming error).
    public init(_ rules: [any NamedRule.Type]) {
        var byID: [RuleID: Int] = [:]
        for (i, r) in rules.enumerated() {
            precondition(byID[r.id] == nil, "two named rules with the id \(r.id)")
            byID[r.id] = i
        }
        all = rules
        self.byID = byID
    }

    /// This list and `more` after it.
    public func adding(_ more: any NamedRule.Type...) -> NamedRules {
        NamedRules(all + more)
    }

    public var ids: [RuleID] { all.map { $0.id } }

    public func rule(_ id: RuleID) -> (any NamedRule.Type)? {
        byID[id].map { all[$0] }
    }

    public func rule(named name: String) -> (any NamedRule.Type)? {
        rule(RuleID(rawValue: name))
    }

    /// The table of `Rules/README.md`: id, default severity, what it flags, its parameters.
    public var markdownTable: String {
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        var out = "| rule id | default | what it flags | parameters |\n|---|---|---|---|\n"
        for r in all {
            let parameters = r.parameters.map { p in
                switch p.kind {
                case .number: return "`\(p.name)` (default \(p.defaultValue)): \(cell(p.meaning))"
                case .yesNo:
                    return "`\(p.name)` yes/no (default \(p.defaultValue == 0 ? "no" : "yes")): \(cell(p.meaning))"
                }
            }
            out +=
                "| `\(r.id)` | \(r.defaultSeverity.name) | \(cell(r.summary)) | \(parameters.joined(separator: "; ")) |\n"
        }
        return out
    }
}
