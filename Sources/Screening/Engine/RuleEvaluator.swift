import IAPBasics
import JSONText
import ReceiptFormats

/// Runs every enabled rule on one credited order, once its purchase has been selected, and
/// applies the reviewer exemption. How the rules combine (CONTRACT §6): a missing or
/// undecodable receipt stands alone; `transaction-not-in-receipt` replaces
/// `item-id-mismatch`; the others fire side by side.
public struct RuleEvaluator: Sendable {
    public let rules: RulesDirectory
    /// Credited orders per user in this run (for `user.orders`); empty when no rule asks.
    public var ordersPerUser: [String: Int] = [:]

    public init(rules: RulesDirectory) {
        self.rules = rules
    }

    public var needsOrdersPerUser: Bool {
        rules.settings.customRules.contains { $0.condition.fields.contains(.userOrders) }
    }

    /// `trace`, when given, learns what every rule concluded and why (for `explain`).
    public func findings(order: ScreenOrder, receipt: ReceiptState, selection: Selection,
                         trace: RuleTrace? = nil) -> [Finding] {
        var out: [Finding] = []
        let s = rules.settings
        let note = Note(trace: trace, settings: s)
        func add(_ id: RuleID, _ message: String, _ evidence: Evidence) {
            guard s.isEnabled(id) else {
                note.off(id, "would have fired: \(message)")
                return
            }
            note.fired(id, message)
            out.append(Finding(orderID: order.orderID, userID: order.userID, rule: id.rawValue, severity: s.severity(id),
                               message: message, evidence: evidence))
        }

        switch receipt {
        case .missing:
            add(.missingReceipt, "credited order \(order.orderID) has no receipt",
                Evidence(expected: "a receipt for \(order.expectedProductID ?? order.itemID.map { "item \($0)" } ?? "the order")", actual: nil))
            note.skipped(RuleID.allCases.filter { $0 != .missingReceipt && $0 != .malformedRecord && $0 != .orphanReceipt },
                         "there is no receipt to check")
        case .undecodable(let e):
            note.passed(.missingReceipt, "the order has a receipt")
            add(.receiptUndecodable, "the receipt cannot be read: \(e.reason) (\(e.code) at byte \(e.offset))",
                Evidence(expected: "a store receipt", actual: e.code,
                         extra: [("reason", .string(e.reason)), ("offset", .integer(e.offset))]))
            note.skipped(RuleID.allCases.filter { ![.missingReceipt, .receiptUndecodable, .malformedRecord, .orphanReceipt].contains($0) },
                         "the receipt could not be read")
        case .decoded(let d):
            note.passed(.missingReceipt, "the order has a receipt")
            note.passed(.receiptUndecodable, "the receipt decoded as \(d.kind.rawValue)")
            receiptRules(order, d, selection, add, note)
            out += customRules(order, d, selection, trace: trace)
        }
        return out.map { applyExemption($0, order) }
    }

    /// Writes to the trace when there is one; the words are only built then.
    struct Note {
        let trace: RuleTrace?
        let settings: RuleSettings

        func fired(_ id: RuleID, _ why: String) { trace?.note(id.rawValue, .fired, why) }
        func off(_ id: RuleID, _ why: @autoclosure () -> String) { trace?.note(id.rawValue, .off, why()) }

        func passed(_ id: RuleID, _ why: @autoclosure () -> String) {
            guard let trace else { return }
            trace.note(id.rawValue, settings.isEnabled(id) ? .passed : .off, why())
        }

        func notApplicable(_ id: RuleID, _ why: @autoclosure () -> String) {
            guard let trace else { return }
            trace.note(id.rawValue, settings.isEnabled(id) ? .notApplicable : .off, why())
        }

        /// Autoclosures: without a trace, not even the list of rules is built.
        func skipped(_ ids: @autoclosure () -> [RuleID], _ why: @autoclosure () -> String) {
            guard trace != nil else { return }
            let reason = why()
            for id in ids() { notApplicable(id, reason) }
        }
    }

    // MARK: Named rules on a decoded receipt

    private func receiptRules(_ order: ScreenOrder, _ d: ReceiptDigest, _ selection: Selection,
                              _ add: (RuleID, String, Evidence) -> Void, _ note: Note) {
        let s = rules.settings
        // A product neither the row nor the catalog gives: a data-quality finding, and only
        // the rules that need no product judge the receipt.
        if order.expectedProductID == nil {
            let why = order.productUnknown ?? "the order's product is not known"
            add(.malformedRecord, "\(order.location): \(why)",
                Evidence(expected: "a readable record", actual: why, extra: Evidence.location(order.location)))
        } else {
            note.passed(.malformedRecord, "the row names its product")
        }
        // Signature. A forged verifyReceipt JSON says which claim its signed receipt denies.
        if let forgery = d.forgery {
            add(.signatureInvalid, "forged: the JSON contradicts its signed receipt (\(forgery))",
                Evidence(expected: "claims that match the signed receipt", actual: forgery,
                         extra: [("reason", .string("forged: JSON contradicts its signed receipt"))]))
        } else if d.signature.verdict == .invalid {
            add(.signatureInvalid, "the receipt's signature does not verify: \(d.signature.reason)",
                Evidence(expected: "a signature that verifies against Rules/trust", actual: d.signature.verdict.rawValue,
                         extra: [("reason", .string(d.signature.reason))]))
        } else if d.signature.verdict == .unsigned {
            if d.kind == .googlePurchase {
                add(.signatureInvalid, "the Google purchase carries no signature",
                    Evidence(expected: "a signed purchase", actual: "unsigned", extra: [("reason", .string("unsigned"))]))
            } else if d.kind == .appleVerifyReceiptJSON, s.parameter(.signatureInvalid, "flag_unsigned_verify_receipt") != 0 {
                add(.signatureInvalid, "the verifyReceipt JSON carries no signed receipt to check it against",
                    Evidence(expected: "an embedded latest_receipt", actual: "unsigned", extra: [("reason", .string("unsigned"))]))
            } else if d.kind == .appleJWSTransaction, s.parameter(.signatureInvalid, "flag_unsigned_decoded_payload") != 0 {
                // A JWS is never unsigned: this is a transaction's decoded JSON stored without it.
                add(.signatureInvalid, "the decoded transaction JSON carries no JWS to check it against",
                    Evidence(expected: "a signed JWS", actual: "unsigned", extra: [("reason", .string(d.signature.reason))]))
            } else {
                let parameter = d.kind == .appleJWSTransaction ? "flag_unsigned_decoded_payload" : "flag_unsigned_verify_receipt"
                note.passed(.signatureInvalid, "unsigned (\(d.signature.reason)); \(parameter) is 0, so only its claims are screened")
            }
        } else {
            note.passed(.signatureInvalid, "signature \(d.signature.verdict.rawValue): \(d.signature.reason)")
        }
        // Which app the receipt belongs to.
        if rules.hasAppsFile, let app = d.appID, !rules.isOurApp(app, platform: d.platform) {
            add(.bundleIDMismatch, "the receipt belongs to \(app), which is not one of our apps",
                Evidence(expected: ourApps(d.platform), actual: app))
        } else if let app = d.appID {
            if rules.hasAppsFile {
                note.passed(.bundleIDMismatch, "the receipt belongs to \(app), one of our apps in apps.csv")
            } else {
                note.notApplicable(.bundleIDMismatch, "the Rules have no apps.csv to compare \(app) with")
            }
        } else {
            note.notApplicable(.bundleIDMismatch, "the receipt names no app")
        }
        // Environment. An iOS 6 receipt's environment is not signed: a Sandbox receipt
        // stripped of it (or rewritten) verifies all the same, so only a word that already
        // says sandbox is believed, unless the Rules accept the unsigned word.
        let trustsLegacy = s.parameter(.sandboxInProduction, "trust_legacy_environment") != 0
        if order.production, d.isSandbox {
            let env = d.status == 21007 ? "status 21007 (sandbox receipt)" : (d.environment ?? "test purchase")
            add(.sandboxInProduction, "a \(env) receipt was credited in production",
                Evidence(expected: "Production", actual: d.environment ?? env))
        } else if order.production, !d.kind.signsEnvironment, !trustsLegacy {
            let stated = d.environment.map { "environment \"\($0)\"" } ?? "no environment"
            add(.sandboxInProduction,
                "an iOS 6 receipt with \(stated) was credited in production; the iOS 6 environment is not signed, "
                    + "and a Sandbox receipt stripped of its environment (or with it rewritten) would look the same",
                Evidence(expected: "a signed Production environment", actual: d.environment ?? "absent (unsigned)"))
        } else if order.production, !d.kind.signsEnvironment {
            note.passed(.sandboxInProduction,
                        "iOS 6 receipt environment \(d.environment ?? "absent") taken as production: trust_legacy_environment is yes, though it is not signed")
        } else if order.production {
            note.passed(.sandboxInProduction, "receipt environment \(d.environment ?? "not stated, and no test purchase")")
        } else {
            note.notApplicable(.sandboxInProduction, "the order was credited in sandbox")
        }
        // Which purchase is the order's.
        if d.holdsOrderTransaction == false, let txn = order.transactionID {
            add(.transactionNotInReceipt, "the order names transaction \(txn), which its receipt does not contain",
                Evidence(expected: txn, actual: d.purchaseCount == 0 ? "no purchases" : "\(d.purchaseCount) other purchase(s)",
                         extra: [("transaction_id", .string(txn))]))
        } else if let expected = order.expectedProductID,
                  d.candidates.isEmpty || (order.transactionID != nil && d.candidates.allSatisfy { $0.productID != expected }) {
            let held = order.transactionID != nil ? d.candidates.compactMap(\.productID) : d.products
            add(.itemIDMismatch,
                "expected product \(expected), receipt has \(held.isEmpty ? "no purchases" : held.joined(separator: ", "))",
                Evidence(expected: expected, actual: held.isEmpty ? nil : held.joined(separator: ", ")))
            note.notApplicable(.transactionNotInReceipt, order.transactionID.map { "the receipt holds transaction \($0)" }
                               ?? "the order names no transaction")
        } else if let expected = order.expectedProductID {
            note.passed(.transactionNotInReceipt, order.transactionID.map { "the receipt holds transaction \($0)" }
                        ?? "the order names no transaction; its entry is chosen by product and time")
            note.passed(.itemIDMismatch, "the receipt holds \(expected), the order's product (\(d.candidates.count) entr\(d.candidates.count == 1 ? "y" : "ies"))")
        } else {
            note.notApplicable(.itemIDMismatch, "the order's product is not known")
            note.passed(.transactionNotInReceipt, order.transactionID.map { "the receipt holds transaction \($0)" }
                        ?? "the order names no transaction, and without a product no entry is its own")
        }
        let picked: Purchase?
        switch selection {
        case .none:
            picked = nil
            note.notApplicable(.replayedTransaction, "no receipt entry is this order's, so none could be taken twice")
        case .picked(let i):
            picked = d.candidates.indices.contains(i) ? d.candidates[i] : nil
            note.passed(.replayedTransaction, "no earlier order took transaction \(picked.flatMap { $0.transactionID ?? $0.purchaseToken } ?? "?")")
        case .restore(let i, let original):
            picked = d.candidates.indices.contains(i) ? d.candidates[i] : nil
            note.passed(.replayedTransaction, "order \(original.orderID) took it first, but this is the same user restoring a non-consumable or a family-shared purchase: not a replay")
        case .replayOf(let i, let original, let key):
            picked = d.candidates.indices.contains(i) ? d.candidates[i] : nil
            if let f = replayFinding(order: order, transaction: picked?.transactionID ?? picked?.purchaseToken,
                                     original: original, key: key) {
                add(.replayedTransaction, f.message, f.evidence)
            } else {
                note.off(.replayedTransaction, "would have fired: order \(original.orderID) took it first")
            }
        }
        guard let p = picked, order.expectedProductID == nil || p.productID == order.expectedProductID || order.transactionID == nil else {
            note.skipped([.revoked, .expiredValidity, .accountMismatch, .purchaseNotCompleted],
                         picked == nil ? "no receipt entry is this order's" : "the order's entry is of another product")
            return
        }
        purchaseRules(order, d, p, add, note)
    }

    /// The finding for an order whose purchase another order took first (nil when the rule is off).
    public func replayFinding(order: ScreenOrder, transaction: String?, original: Claim, key: String) -> Finding? {
        guard rules.settings.isEnabled(.replayedTransaction) else { return nil }
        let txn = transaction ?? key
        let f = Finding(
            orderID: order.orderID, userID: order.userID, rule: RuleID.replayedTransaction.rawValue,
            severity: rules.settings.severity(.replayedTransaction),
            message: "transaction \(txn) was already credited to order \(original.orderID) (\(original.createdAt.iso8601))",
            evidence: Evidence(expected: "a transaction no other order took", actual: txn,
                               extra: [("original_order_id", .string(original.orderID)), ("transaction_id", .string(txn)),
                                       ("original_user_id", .string(original.userID)),
                                       ("original_created_at", .string(original.createdAt.iso8601))]))
        return applyExemption(f, order)
    }

    private func purchaseRules(_ order: ScreenOrder, _ d: ReceiptDigest, _ p: Purchase,
                               _ add: (RuleID, String, Evidence) -> Void, _ note: Note) {
        let s = rules.settings
        let txn = p.transactionID ?? p.purchaseToken ?? "(no transaction id)"
        if let c = p.cancellationDate {
            add(.revoked, "the store refunded or revoked transaction \(txn) on \(c.iso8601)",
                Evidence(expected: "no cancellation", actual: c.iso8601, extra: [("transaction_id", .string(txn))]))
        } else {
            note.passed(.revoked, "transaction \(txn) carries no cancellation date")
        }
        let type = p.productType.flatMap { if case .unknown = $0 { return nil } else { return $0 } } ?? order.catalogType
        let grace = Int64(s.parameter(.expiredValidity, "grace_days"))
        if type == .autoRenewable || type == .nonRenewing || (type == nil && p.expiresDate != nil) {
            if let e = p.expiresDate, let limit = e.adding(days: grace), limit < order.createdAt {
                add(.expiredValidity,
                    "the subscription period expired on \(e.iso8601), before the order was credited on \(order.createdAt.iso8601) (grace \(grace) day(s))",
                    Evidence(expected: "expiry after \(order.createdAt.iso8601) minus \(grace) day(s)", actual: e.iso8601,
                             extra: [("transaction_id", .string(txn))]))
            } else {
                note.passed(.expiredValidity, p.expiresDate.map { "the period runs until \($0.iso8601); credited \(order.createdAt.iso8601), grace \(grace) day(s)" }
                            ?? "the subscription entry states no expiry")
            }
        } else if type == .consumable, let bought = p.purchaseDate {
            let maxAge = Int64(s.parameter(.expiredValidity, "max_proof_age_days"))
            if let oldest = order.createdAt.adding(days: -maxAge), bought < oldest {
                let days = (order.createdAt.millis - bought.millis) / 86_400_000
                add(.expiredValidity,
                    "the purchase proof is \(days) days old (bought \(bought.iso8601)); the maximum age is \(maxAge) days",
                    Evidence(expected: "bought after \(oldest.iso8601)", actual: bought.iso8601,
                             extra: [("transaction_id", .string(txn))]))
            } else {
                note.passed(.expiredValidity, "a consumable bought \(bought.iso8601), within the maximum proof age of \(maxAge) days")
            }
        } else {
            note.notApplicable(.expiredValidity, "neither a subscription nor a dated consumable (\(type.map { "\($0)" } ?? "type unknown"))")
        }
        if let token = p.accountToken, !token.isEmpty {
            switch d.platform {
            case .android where token != order.userID:
                add(.accountMismatch, "the purchase is bound to account \(token), the order credited \(order.userID)",
                    Evidence(expected: order.userID, actual: token))
            case .ios where isUUID(order.userID) && token.lowercased() != order.userID.lowercased():
                add(.accountMismatch, "the purchase's appAccountToken is \(token), the order credited \(order.userID)",
                    Evidence(expected: order.userID, actual: token))
            case .ios where !isUUID(order.userID):
                note.notApplicable(.accountMismatch, "user id \(order.userID) is not a UUID, so it cannot be an appAccountToken")
            default:
                note.passed(.accountMismatch, "the purchase is bound to \(token), the order's user")
            }
        } else {
            note.notApplicable(.accountMismatch, "the purchase is bound to no account")
        }
        if d.platform == .android, let state = p.purchaseState, state != 0 {
            let words = state == 1 ? "cancelled" : (state == 2 || state == 4 ? "pending" : "in state \(state)")
            add(.purchaseNotCompleted, "the Google purchase is \(words), not purchased",
                Evidence(expected: "purchaseState 0 (purchased)", actual: "purchaseState \(state) (\(words))"))
        } else if d.platform == .android {
            note.passed(.purchaseNotCompleted, p.purchaseState == nil ? "the purchase states no purchaseState" : "purchaseState 0 (purchased)")
        } else {
            note.notApplicable(.purchaseNotCompleted, "App Store entries are completed purchases")
        }
    }

    private func ourApps(_ platform: Platform) -> String {
        let ids = rules.apps.filter { $0.platform == platform }.map(\.appID).sorted()
        return ids.isEmpty ? "an app listed in apps.csv" : ids.joined(separator: ", ")
    }

    // MARK: Custom rules

    private func customRules(_ order: ScreenOrder, _ d: ReceiptDigest, _ selection: Selection,
                             trace: RuleTrace?) -> [Finding] {
        let custom = rules.settings.customRules
        guard !custom.isEmpty else { return [] }
        let picked: Purchase?
        switch selection {
        case .none: picked = nil
        case .picked(let i), .restore(let i, _), .replayOf(let i, _, _):
            picked = d.candidates.indices.contains(i) ? d.candidates[i] : nil
        }
        let lookup = { (f: ConditionField) in FieldValues.value(f, order: order, digest: d, purchase: picked,
                                                              ordersOfUser: ordersPerUser[order.userID]) }
        return custom.compactMap { rule in
            let holds = rule.condition.holds(lookup)
            if let trace {
                let values = rule.condition.fields.map { "\($0.rawValue) = \(FieldValues.json(lookup($0)).scalarText ?? "null")" }
                trace.note(rule.id, holds ? .fired : .passed,
                           "custom rule (\(rule.file):\(rule.line)) \(holds ? "matched" : "did not match"): \(values.joined(separator: ", "))")
            }
            guard holds else { return nil }
            var extra: [(key: String, value: JSONValue)] = []
            for f in rule.condition.fields {
                extra.append((f.rawValue, FieldValues.json(lookup(f))))
            }
            return Finding(orderID: order.orderID, userID: order.userID, rule: rule.id, severity: rule.severity,
                           message: rule.message ?? "custom rule \(rule.id) matched (\(rule.file):\(rule.line))",
                           evidence: Evidence(expected: "custom rule \(rule.id) not to match", actual: "matched", extra: extra))
        }
    }

    // MARK: Exemption

    func applyExemption(_ f: Finding, _ order: ScreenOrder) -> Finding {
        guard rules.settings.reviewerExemptions.contains(f.rule),
              rules.reviewers.window(for: order.userID, at: order.createdAt) != nil else { return f }
        var exempt = f
        exempt.exempted = "reviewer"
        return exempt
    }
}

/// `8-4-4-4-12` hex digits.
func isUUID(_ s: String) -> Bool {
    let u = Array(s.utf8)
    guard u.count == 36 else { return false }
    for (i, c) in u.enumerated() {
        if i == 8 || i == 13 || i == 18 || i == 23 {
            guard c == 0x2D else { return false }
        } else {
            guard (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c) else { return false }
        }
    }
    return true
}

extension Condition {
    /// The fields a condition names, in order of first appearance.
    public var fields: [ConditionField] {
        var out: [ConditionField] = []
        func walk(_ c: Condition) {
            switch c {
            case .all(let a, let b), .any(let a, let b): walk(a); walk(b)
            case .not(let x): walk(x)
            case .compare(let f, _, _), .oneOf(let f, _), .isNull(let f, _), .text(let f, _, _):
                if !out.contains(f) { out.append(f) }
            }
        }
        walk(self)
        return out
    }
}
