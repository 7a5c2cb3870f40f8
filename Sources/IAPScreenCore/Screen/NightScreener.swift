import IAPBasics
import JSONText
import Ledger
import ReceiptFormats
import Reporting
import Screening

/// After loading: every credited order claims its purchase in (created_at, order_id)
/// order on top of the ledger's memory, replays are added to the findings the workers
/// found, orders with several candidate purchases are judged now, and each finding learns
/// what the ledger knows of it. The result is in input order.
struct NightScreener {
    let rules: RulesDirectory
    let ledger: SQLiteLedger?
    let resolver: OrderResolver
    let evaluator: RuleEvaluator

    struct Outcome {
        var newClaims: [(key: String, claim: Claim)]
        /// Distinct credited orders, and those with a receipt.
        var orders: Int
        var receipts: Int
    }

    /// Hands each order's report to `sink` in input order (orders, malformed records and
    /// orphan receipts interleaved by where they stood).
    func screen(_ night: NightLoader, sink: (OrderReport) throws -> Void) throws -> Outcome {
        let slots = night.slots
        var screenable: [Int32] = []
        var unresolved: [MalformedItem] = []
        var receipts = 0, orders = 0
        for i in slots.indices {
            let slot = slots[i]
            guard slot.order.status == .credited, let outcome = slot.outcome else { continue }
            orders += 1
            if outcome.kind != .missing { receipts += 1 }
            if outcome.kind == .unresolvable {
                let row = slot.order.row(pool: night.pool)
                var reason = "cannot be screened"
                if case .failure(let f) = resolver.resolve(row, index: Int(slot.position), receiptPlatform: outcome.receiptPlatform) {
                    reason = f.reason
                }
                unresolved.append(MalformedItem(position: Int(slot.position), location: row.location, reason: reason,
                                                orderID: row.orderID, userID: row.userID))
            } else {
                screenable.append(Int32(i))
            }
        }

        // `user.orders` needs the whole night: then every decoded order was deferred to here.
        var evaluator = self.evaluator
        if evaluator.needsOrdersPerUser {
            for i in screenable { evaluator.ordersPerUser[slots[Int(i)].order.userID, default: 0] += 1 }
        }

        // Claims, in claim order, on top of the ledger's earlier claims.
        var book = ClaimBook { i in
            let o = slots[Int(i)].order
            return Claim(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt)
        }
        if let ledger {
            var keys: [String] = []
            for i in screenable {
                guard let o = slots[Int(i)].outcome else { continue }
                if let k = o.candidate?.key { keys.append(k) }
                if let d = o.deferred { keys += ClaimBook.keys(of: d.digest) }
            }
            book.remember(try ledger.claims(of: keys))
        }
        // Sort small keys, not the slots themselves.
        var keys = screenable.map { i in
            let o = slots[Int(i)].order
            return (millis: o.createdAt.millis, orderID: o.orderID, slot: i)
        }
        keys.sort { $0.millis != $1.millis ? $0.millis < $1.millis : $0.orderID < $1.orderID }
        screenable = keys.map(\.slot)
        keys = []
        var late: [Int32: [Finding]] = [:]
        for i in screenable {
            let slot = slots[Int(i)]
            guard let outcome = slot.outcome else { continue }
            let claimant = Claimant(orderID: slot.order.orderID, userID: slot.order.userID, createdAt: slot.order.createdAt,
                                    catalogType: nil, handle: i)
            if let box = outcome.deferred {
                guard let order = screenOrder(slot, night) else { continue }
                let selection = book.select(for: order, digest: box.digest)
                late[i] = evaluator.findings(order: order, receipt: .decoded(box.digest), selection: selection)
            } else if let candidate = outcome.candidate {
                var selection = book.select(for: claimant, candidates: [candidate])
                // Whether a conflict is a same-user restore may need the catalog's word; asking
                // again changes nothing in the book (a conflict takes nothing).
                if case .replayOf = selection, candidate.nonConsumable == nil, let type = screenOrder(slot, night)?.catalogType {
                    var c = claimant
                    c.catalogType = type
                    selection = book.select(for: c, candidates: [candidate])
                }
                if case .replayOf(_, let original, let key) = selection, let order = screenOrder(slot, night),
                   let f = evaluator.replayFinding(order: order, transaction: candidate.transactionText, original: original, key: key) {
                    late[i] = [f]
                }
            }
        }

        // Reports in input order: slots are in first-appearance order; malformed records
        // and orphan receipts are merged in by position.
        var pending: [(position: Int, report: () throws -> OrderReport?)] = []
        if rules.settings.isEnabled(.malformedRecord) {
            for m in night.malformed + unresolved {
                pending.append((m.position, { () throws -> OrderReport? in
                    let f = Finding(orderID: m.orderID, userID: m.userID, rule: RuleID.malformedRecord.rawValue,
                                    severity: rules.settings.severity(.malformedRecord), message: "\(m.location): \(m.reason)",
                                    evidence: Evidence(expected: "a readable record", actual: m.reason,
                                                       extra: locationEvidence(m.location)))
                    return OrderReport(orderID: m.orderID, userID: m.userID, platform: nil, productID: nil, amount: nil,
                                       currency: nil, createdAt: nil, findings: try marked([f]), isOrder: false)
                }))
            }
        }
        if rules.settings.isEnabled(.orphanReceipt) {
            for o in night.orphans {
                pending.append((o.position, { () throws -> OrderReport? in
                    let f = Finding(orderID: o.orderID, userID: nil, rule: RuleID.orphanReceipt.rawValue,
                                    severity: rules.settings.severity(.orphanReceipt),
                                    message: "a receipt for order \(o.orderID) (\(o.location)), which is not in the orders dump",
                                    evidence: Evidence(expected: "order \(o.orderID) in the orders dump", actual: nil,
                                                       extra: locationEvidence(o.location)))
                    return OrderReport(orderID: o.orderID, userID: nil, platform: nil, productID: nil, amount: nil,
                                       currency: nil, createdAt: nil, findings: try marked([f]), isOrder: false)
                }))
            }
        }
        pending.sort { $0.position < $1.position }
        var next = 0
        func flush(before position: Int) throws {
            while next < pending.count, pending[next].position < position {
                if let r = try pending[next].report() { try sink(r) }
                next += 1
            }
        }
        let unresolvedSlots = Set(unresolved.map(\.position))
        for i in slots.indices {
            let slot = slots[i]
            guard slot.order.status == .credited, let outcome = slot.outcome,
                  !unresolvedSlots.contains(Int(slot.position)) else { continue }
            try flush(before: Int(slot.position))
            var findings = try slot.spilled.map(night.spill.read) ?? []
            findings += late[Int32(i)] ?? []
            guard !findings.isEmpty, let o = screenOrder(slot, night) else { continue }
            try sink(OrderReport(orderID: o.orderID, userID: o.userID, platform: (o.platform ?? outcome.receiptPlatform)?.rawValue,
                                 productID: o.expectedProductID, amount: o.amount, currency: o.currency,
                                 createdAt: o.createdAt, findings: try marked(findings)))
        }
        try flush(before: Int.max)
        return Outcome(newClaims: book.newClaims, orders: orders, receipts: receipts)
    }

    /// The order as the rules saw it (its platform from the row, else from its receipt).
    private func screenOrder(_ slot: NightLoader.Slot, _ night: NightLoader) -> ScreenOrder? {
        let row = slot.order.row(pool: night.pool)
        guard case .success(let order) = resolver.resolve(row, index: Int(slot.position),
                                                          receiptPlatform: slot.outcome?.receiptPlatform) else { return nil }
        return order
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
