import IAPBasics
import JSONText
import ReceiptFormats

/// The rule engine: runs every named rule on one credited order, once its purchase has been
/// selected, then the custom rules, and applies the reviewer exemption. What each rule checks
/// and says is in its own file (`NamedRules/`); here is only what is no one rule's — the
/// order the rules are asked in, and how they combine (docs/rules.md):
/// - a missing or unreadable receipt stands alone: every rule that would read it is noted
///   not applicable;
/// - a rule that `replaces` another is asked first, and when it fires the other is not
///   (`transaction-not-in-receipt` replaces `item-id-mismatch`);
/// - the purchase rules judge the entry the claims gave the order, only when it is of the
///   order's product;
/// - the others fire side by side.
public struct RuleEvaluator: Sendable {
    public let rules: RulesDirectory
    /// Credited orders per user in this run (for `user.orders`); empty when no rule asks.
    public var ordersPerUser: [String: Int] = [:]
    /// Refunds the night's store events matched to each user's orders (`user.refunds`); nil
    /// when no store events were read.
    public var refundsPerUser: [String: Int]?
    /// Why the store refunded an order's purchase, by order id (`event.reason`).
    public var refundReasons: [String: String] = [:]
    private let shared: SharedRules
    /// The named rules with this run's settings, in the list's order.
    private let tuned: [TunedRule]
    /// What the engine asks, stage after stage: stage s's steps are `steps[stageStarts[s]..<
    /// stageStarts[s + 1]]` (s = `RuleStage.rawValue`). One flat array: an array per stage
    /// was retained and released by every order, on both workers at once.
    private let steps: [Step]
    private let stageStarts: [Int]
    /// A custom rule asks `user.orders`: every decoded order is judged once the night is read.
    public let needsOrdersPerUser: Bool
    /// A custom rule asks what the store events said (`user.refunds`, `event.reason`): its
    /// orders are judged once the events are.
    public let needsStoreEventFields: Bool

    /// A named rule as this run's Rules set it.
    struct TunedRule: Sendable {
        let rule: any NamedRule.Type
        let id: RuleID
        let stage: RuleStage
        let enabled: Bool
        let severity: Severity
    }

    /// One question of a stage: a rule alone, or a rule and the rule it replaces.
    enum Step: Sendable {
        case single(TunedRule)
        case replacing(TunedRule, replaced: TunedRule)
    }

    public init(rules: RulesDirectory) {
        self.rules = rules
        shared = SharedRules(rules)
        // Asked for every order: decided once here.
        let asked = rules.settings.customRules.flatMap(\.condition.fields)
        needsOrdersPerUser = asked.contains(.userOrders)
        needsStoreEventFields = asked.contains(.userRefunds) || asked.contains(.eventReason)
        let s = rules.settings
        let tuned = s.named.all.map { r in
            TunedRule(rule: r, id: r.id, stage: r.stage, enabled: s.isEnabled(r.id), severity: s.severity(r.id))
        }
        self.tuned = tuned
        let perStage = RuleStage.allCases.map { stage in
            let here = tuned.filter { $0.stage == stage }
            let replaced = Set(here.compactMap { $0.rule.replaces })
            return here.compactMap { t -> Step? in
                if replaced.contains(t.id) { return nil }
                if let other = t.rule.replaces, let r = here.first(where: { $0.id == other }) {
                    return .replacing(t, replaced: r)
                }
                return .single(t)
            }
        }
        steps = perStage.flatMap { $0 }
        stageStarts = perStage.reduce(into: [0]) { starts, stage in starts.append((starts.last ?? 0) + stage.count) }
    }

    /// `trace`, when given, learns what every rule concluded and why (for `explain`).
    public func findings(
        order: ScreenOrder, receipt: ReceiptState, selection: Selection,
        trace: RuleTrace? = nil
    ) -> [Finding] {
        var run = Run(
            context: OrderContext(order: order, receipt: receipt, selection: selection, directory: shared),
            trace: trace)
        switch receipt {
        case .missing:
            ask(.presence, &run)
            run.skip(tuned.filter { $0.stage.readsReceipt }, "there is no receipt to check")
        case .undecodable:
            ask(.presence, &run)
            ask(.payload, &run)
            run.skip(tuned.filter { $0.stage.readsDecodedReceipt }, "the receipt could not be read")
        case .decoded(let d):
            for stage in Self.beforePurchase { ask(stage, &run) }
            // The purchase rules judge the order's own entry: the one the claims gave it, of
            // its product (any entry when the order names no transaction or no product).
            let p = run.context.purchase
            if let p,
                order.expectedProductID == nil || p.productID == order.expectedProductID || order.transactionID == nil
            {
                ask(.purchaseDates, &run)
                ask(.purchaseState, &run)
            } else {
                run.skip(
                    [RuleStage.purchaseDates, .purchaseState].flatMap { s in tuned.filter { $0.stage == s } },
                    p == nil ? "no receipt entry is this order's" : "the order's entry is of another product")
            }
            run.findings += customRules(order, d, run.context.purchase, trace: trace)
        }
        return run.findings.map { applyExemption($0, order) }
    }

    /// The stages of a decoded receipt before its purchase rules (a constant: no array per order).
    private static let beforePurchase: [RuleStage] = [.presence, .payload, .row, .receipt, .entry, .claims]

    private func ask(_ stage: RuleStage, _ run: inout Run) {
        for i in stageStarts[stage.rawValue]..<stageStarts[stage.rawValue + 1] {
            switch steps[i] {
            case .single(let t):
                run.record(t, run.verdict(of: t))
            case .replacing(let t, let replaced):
                let first = run.verdict(of: t)
                guard first.fired == nil else {
                    run.record(t, first)
                    continue
                }
                // In the trace the replaced rule comes first, unless it passed.
                let second = run.verdict(of: replaced)
                if second.fired == nil && second.note?.outcome == .passed {
                    run.record(t, first)
                    run.record(replaced, second)
                } else {
                    run.record(replaced, second)
                    run.record(t, first)
                }
            }
        }
    }

    /// One order's screening: its context, the findings so far, and the trace.
    struct Run {
        let context: OrderContext
        let trace: RuleTrace?
        var findings: [Finding] = []

        init(context: OrderContext, trace: RuleTrace?) {
            self.context = context
            self.trace = trace
        }

        func verdict(of t: TunedRule) -> RuleVerdict {
            var v = RuleVerdict(tracing: trace != nil)
            t.rule.judge(context, &v)
            return v
        }

        /// A finding when the rule fired and is on; the trace's line in any case.
        mutating func record(_ t: TunedRule, _ v: RuleVerdict) {
            if let (message, evidence) = v.fired {
                if t.enabled {
                    trace?.note(t.id.rawValue, .fired, message)
                    findings.append(
                        Finding(
                            orderID: context.order.orderID, userID: context.order.userID, rule: t.id.rawValue,
                            severity: t.severity, message: message, evidence: evidence))
                } else {
                    trace?.note(t.id.rawValue, .off, v.offWords ?? "would have fired: \(message)")
                }
            } else if let trace, let (outcome, why) = v.note {
                trace.note(t.id.rawValue, t.enabled ? outcome : .off, why)
            }
        }

        /// Rules not asked, noted not applicable (or off) for the same reason.
        func skip(_ rules: @autoclosure () -> [TunedRule], _ why: @autoclosure () -> String) {
            guard let trace else { return }
            let reason = why()
            for t in rules() { trace.note(t.id.rawValue, t.enabled ? .notApplicable : .off, reason) }
        }
    }

    /// The finding for an order whose one entry was judged before the claims were made, and
    /// which another order took first (nil when `replayed-transaction` is off).
    public func replayFinding(order: ScreenOrder, transaction: String?, original: Claim, key: String) -> Finding? {
        let id = ReplayedTransaction.id
        guard rules.settings.isEnabled(id) else { return nil }
        let (message, evidence) = ReplayedTransaction.words(transaction: transaction, original: original, key: key)
        let f = Finding(
            orderID: order.orderID, userID: order.userID, rule: id.rawValue, severity: rules.settings.severity(id),
            message: message, evidence: evidence)
        return applyExemption(f, order)
    }

    /// A finding of the night rather than of one order's receipt (`orphan-receipt`, an unreadable
    /// `malformed-record`), nil when its rule is off. No exemption: there is no credited order.
    public func nightFinding(
        _ rule: any NamedRule.Type, orderID: String?,
        _ words: (message: String, evidence: Evidence)
    ) -> Finding? {
        guard rules.settings.isEnabled(rule.id) else { return nil }
        return Finding(
            orderID: orderID, userID: nil, rule: rule.id.rawValue, severity: rules.settings.severity(rule.id),
            message: words.message, evidence: words.evidence)
    }

    /// A finding of a store event on the order that took its transaction — tonight's or an
    /// earlier night's — nil when its rule is off; exempt as any finding of that order.
    /// Whether the Rules leave `rule` on.
    public func isEnabled(_ rule: any NamedRule.Type) -> Bool { rules.settings.isEnabled(rule.id) }

    public func eventFinding(
        _ rule: any NamedRule.Type, orderID: String, userID: String, createdAt: Timestamp,
        _ words: (message: String, evidence: Evidence)
    ) -> Finding? {
        guard rules.settings.isEnabled(rule.id) else { return nil }
        let f = Finding(
            orderID: orderID, userID: userID, rule: rule.id.rawValue, severity: rules.settings.severity(rule.id),
            message: words.message, evidence: words.evidence)
        return exempted(f, userID: userID, at: createdAt)
    }

    // MARK: Custom rules

    private func customRules(
        _ order: ScreenOrder, _ d: ReceiptDigest, _ picked: Purchase?,
        trace: RuleTrace?
    ) -> [Finding] {
        let custom = rules.settings.customRules
        guard !custom.isEmpty else { return [] }
        let refunds = refundsPerUser.map { $0[order.userID] ?? 0 }
        let lookup = { (f: ConditionField) in
            FieldValues.value(
                f, order: order, digest: d, purchase: picked,
                ordersOfUser: ordersPerUser[order.userID], refundsOfUser: refunds,
                eventReason: refundReasons[order.orderID])
        }
        return custom.compactMap { rule in
            let holds = rule.condition.holds(lookup)
            if let trace {
                let values = rule.condition.fields.map {
                    "\($0.rawValue) = \(FieldValues.json(lookup($0)).scalarText ?? "null")"
                }
                trace.note(
                    rule.id, holds ? .fired : .passed,
                    "custom rule (\(rule.file):\(rule.line)) \(holds ? "matched" : "did not match"): \(values.joined(separator: ", "))"
                )
            }
            guard holds else { return nil }
            var extra: [(key: String, value: JSONValue)] = []
            for f in rule.condition.fields {
                extra.append((f.rawValue, FieldValues.json(lookup(f))))
            }
            return Finding(
                orderID: order.orderID, userID: order.userID, rule: rule.id, severity: rule.severity,
                message: rule.message ?? "custom rule \(rule.id) matched (\(rule.file):\(rule.line))",
                evidence: Evidence(expected: "custom rule \(rule.id) not to match", actual: "matched", extra: extra))
        }
    }

    // MARK: Exemption

    func applyExemption(_ f: Finding, _ order: ScreenOrder) -> Finding {
        exempted(f, userID: order.userID, at: order.createdAt)
    }

    private func exempted(_ f: Finding, userID: String, at createdAt: Timestamp) -> Finding {
        guard rules.settings.reviewerExemptions.contains(f.rule),
            rules.reviewers.window(for: userID, at: createdAt) != nil
        else { return f }
        var exempt = f
        exempt.exempted = "reviewer"
        return exempt
    }
}
