import IAPBasics
import JSONText
import Ledger
import Reporting
import Screening

/// After loading: every credited order claims its purchase in (created_at, order_id)
/// order on top of the ledger's memory, then the rules run and each finding learns what
/// the ledger knows of it. The result is in input order.
struct NightScreener {
    let rules: RulesDirectory
    let ledger: SQLiteLedger?

    struct Outcome {
        var reports: [OrderReport]
        var newClaims: [(key: String, claim: Claim)]
        /// Distinct credited orders, and those with a receipt.
        var orders: Int
        var receipts: Int
    }

    func screen(_ night: NightLoader) throws -> Outcome {
        // Credited, screenable orders with their receipt state.
        var screened: [(slot: Int, order: ScreenOrder, state: ReceiptState)] = []
        var unresolved: [MalformedItem] = []
        for (i, slot) in night.slots.enumerated() where slot.row.status == .credited {
            switch slot.outcome {
            case .screened(let order, let state)?: screened.append((i, order, state))
            case .unresolvable(let reason)?:
                unresolved.append(MalformedItem(position: slot.position, location: slot.row.location, reason: reason,
                                                orderID: slot.row.orderID, userID: slot.row.userID))
            case nil: break
            }
        }

        // Claims, in claim order, on top of the ledger's earlier claims.
        var book = ClaimBook()
        var keys: [String] = []
        for s in screened { if case .decoded(let d) = s.state { keys += ClaimBook.keys(of: d) } }
        if let ledger { book.remember(try ledger.claims(of: keys)) }
        let claimOrder = screened.indices.sorted { ScreenOrder.claimOrder(screened[$0].order, screened[$1].order) }
        var selections = [Selection](repeating: .none, count: screened.count)
        for i in claimOrder {
            if case .decoded(let d) = screened[i].state { selections[i] = book.select(for: screened[i].order, digest: d) }
        }

        var evaluator = RuleEvaluator(rules: rules)
        if evaluator.needsOrdersPerUser {
            for s in screened { evaluator.ordersPerUser[s.order.userID, default: 0] += 1 }
        }

        // Reports by input position.
        var byPosition: [(Int, OrderReport)] = []
        byPosition.reserveCapacity(screened.count / 8)
        for (i, s) in screened.enumerated() {
            let findings = evaluator.findings(order: s.order, receipt: s.state, selection: selections[i])
            guard !findings.isEmpty else { continue }
            let o = s.order
            var platform = o.platform?.rawValue
            if platform == nil, case .decoded(let d) = s.state { platform = d.platform.rawValue }
            byPosition.append((o.index, OrderReport(orderID: o.orderID, userID: o.userID, platform: platform,
                                                    productID: o.expectedProductID, amount: o.amount, currency: o.currency,
                                                    createdAt: o.createdAt, findings: try marked(findings))))
        }
        let malformedSeverity = rules.settings.severity(.malformedRecord)
        if rules.settings.isEnabled(.malformedRecord) {
            for m in night.malformed + unresolved {
                let f = Finding(orderID: m.orderID, userID: m.userID, rule: RuleID.malformedRecord.rawValue,
                                severity: malformedSeverity, message: "\(m.location): \(m.reason)",
                                evidence: Evidence(expected: "a readable record", actual: m.reason,
                                                   extra: locationEvidence(m.location)))
                byPosition.append((m.position, OrderReport(orderID: m.orderID, userID: m.userID, platform: nil, productID: nil,
                                                           amount: nil, currency: nil, createdAt: nil,
                                                           findings: try marked([f]), isOrder: false)))
            }
        }
        if rules.settings.isEnabled(.orphanReceipt) {
            for o in night.orphans {
                let f = Finding(orderID: o.orderID, userID: nil, rule: RuleID.orphanReceipt.rawValue,
                                severity: rules.settings.severity(.orphanReceipt),
                                message: "a receipt for order \(o.orderID) (\(o.location)), which is not in the orders dump",
                                evidence: Evidence(expected: "order \(o.orderID) in the orders dump", actual: nil,
                                                   extra: locationEvidence(o.location)))
                byPosition.append((o.position, OrderReport(orderID: o.orderID, userID: nil, platform: nil, productID: nil,
                                                           amount: nil, currency: nil, createdAt: nil,
                                                           findings: try marked([f]), isOrder: false)))
            }
        }
        byPosition.sort { $0.0 < $1.0 }
        let receipts = screened.filter { if case .missing = $0.state { return false } else { return true } }.count
        return Outcome(reports: byPosition.map(\.1), newClaims: book.newClaims, orders: screened.count + unresolved.count,
                       receipts: receipts)
    }

    /// Each finding's standing in the ledger: reviewed (with the verdict), seen by an
    /// earlier completed run, or new. Without a ledger: nil.
    private func marked(_ findings: [Finding]) throws -> [Finding] {
        guard let ledger else { return findings }
        var out = findings
        var reviewCache: [String: Review?] = [:]
        for i in out.indices {
            guard let order = out[i].orderID else { out[i].review = ReviewMark(status: .new); continue }
            let review: Review?
            if let cached = reviewCache[order] {
                review = cached
            } else {
                review = try ledger.review(of: order)
                reviewCache[order] = review
            }
            if let r = review {
                out[i].review = ReviewMark(status: .reviewed, verdict: r.verdict, note: r.note, by: r.by, at: r.at)
            } else if try ledger.wasReported(orderID: order, rule: out[i].rule) {
                out[i].review = ReviewMark(status: .seen)
            } else {
                out[i].review = ReviewMark(status: .new)
            }
        }
        return out
    }

    private func locationEvidence(_ l: SourceLocation) -> [(key: String, value: JSONValue)] {
        switch l.position {
        case .line(let n): return [("file", .string(l.file)), ("line", .integer(n))]
        case .row(let n): return [("file", .string(l.file)), ("row", .integer(n))]
        }
    }
}
