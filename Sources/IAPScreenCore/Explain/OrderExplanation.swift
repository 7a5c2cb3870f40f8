import DumpFormats
import IAPBasics
import Ledger
import Night
import ReceiptFormats
import Screening

/// The words `explain` prints for one order, built from the same pieces screening uses:
/// the order resolved against the catalog, its receipt decoded and verified again, the
/// selection the night's claims gave it, and the rules run with a trace.
struct OrderExplanation {
    let night: Night
    let slot: Int
    /// The order's receipt as the join chose it.
    let watched: WatchedOrder
    let rules: NightRules
    let claims: NightScreener.Claims
    let ledger: (any LedgerStore)?
    let ledgerNote: String
    /// The night's store events, when `--store-events` named logs.
    let events: StoreEventNight?
    /// The refund requests of the order's transaction, each with its answer; nil when none.
    let requests: RequestLines?

    func text() -> String {
        let stored = night.order(at: slot)
        let row = stored.row
        var out = rowLines(row)
        guard row.status == .credited else {
            out.append("")
            out.append("not screened: the order is \(row.status.rawValue), and only credited orders are screened.")
            if let requests { out += [""] + requests.lines }
            return out.joined(separator: "\n") + "\n"
        }

        let receipt = watchedReceipt(platform: stored.receiptPlatform)
        let order = rules.resolve(row, index: stored.position, receiptPlatform: receipt.platform)
        out.append(screenedAs(order, readable: receipt.decoded != nil))
        out.append("")
        out += receipt.lines

        let selection = claims.watched ?? .none
        var state = receipt.state
        var keys: [String] = []
        if let decoded = receipt.decoded {
            let (signature, forgery) = rules.verifier.verify(decoded)
            out.append(
                "  signature: \(signature.verdict.rawValue) (\(signature.reason))"
                    + (forgery.map { "; forged: \($0)" } ?? ""))
            let digest = ReceiptDigest(receipt: decoded, signature: signature, forgery: forgery, for: order)
            state = .decoded(digest)
            keys = ClaimBook.keys(of: digest) + digest.candidates.compactMap(\.purchaseToken)
            out.append("")
            out += entryLines(order: order, digest: digest, selection: selection)
        }

        let trace = RuleTrace()
        // With what the store events found on this order.
        let found = claims.evaluator.findings(order: order, receipt: state, selection: selection, trace: trace)
        let findings = Revoked.once(found + (claims.events?.bySlot[Int32(slot)] ?? [])).map(marked)
        out.append("")
        out += ruleLines(trace)
        out.append("")
        out += exemptionLines(order: order)
        if let events {
            out.append("")
            out += eventLines(events, keys: Set(keys))
        }
        if let requests { out += [""] + requests.lines }
        out.append("")
        out += verdictLines(findings)
        return out.joined(separator: "\n") + "\n"
    }

    /// The order as its dump row has it.
    private func rowLines(_ row: OrderRow) -> [String] {
        [
            "order \(row.orderID) (user \(row.userID)), credited-at \(row.createdAt.iso8601), \(row.location)",
            "  dump row: platform \(row.platform?.rawValue ?? "not stated"), item \(row.itemID ?? "-"), "
                + "product \(row.productID ?? "-"), transaction \(row.transactionID ?? "-"), "
                + "\(row.amount ?? "-") \(row.currency ?? ""), status \(row.status.rawValue), "
                + "environment \(row.environment?.rawValue ?? "not stated (--environment applies)")",
        ]
    }

    /// The receipt as the join chose it, decoded again: what it says, its platform (else the
    /// one screening saw), and the receipt state for the rules.
    private func watchedReceipt(platform: Platform?) -> (
        lines: [String], decoded: Receipt?, state: ReceiptState, platform: Platform?
    ) {
        guard let watched = watched.receipt else {
            return (
                ["receipt: none (no receipt field in the order's row and no row for it in the receipts dumps)"], nil,
                .missing, platform
            )
        }
        let source =
            watched.fromReceiptsDump
            ? "from the receipts dump, \(watched.location) (the order has no receipt of its own; of its rows there, the latest received_at wins)"
            : "the order's own receipt field, \(watched.location)"
        var lines = ["receipt: \(source)"]
        do {
            let receipt = try ReceiptDecoder.decode(Array(watched.payload.utf8), limits: .standard)
            lines.append(
                "  \(receipt.kind.rawValue), environment \(receipt.environment ?? "not stated"), "
                    + "app \(receipt.appID ?? "not stated"), \(receipt.purchases.count) purchase(s)")
            return (lines, receipt, .missing, receipt.platform)
        } catch {
            lines.append("  cannot be read: \(error.reason) (\(error.code) at byte \(error.offset))")
            return (lines, nil, .undecodable(error), platform)
        }
    }

    /// How the order was screened: its platform, the product expected, the environment.
    private func screenedAs(_ order: ScreenOrder, readable: Bool) -> String {
        let product =
            order.expectedProductID
            ?? "not known: \(order.productUnknown ?? "?")"
            + (!readable
                ? " (none is needed without a readable receipt)"
                : "; a malformed-record, and only the rules that need no product run")
        return "  screened as: \(order.platform?.rawValue ?? "unknown platform"), expected product \(product)"
            + "\(order.catalogType.map { " (\($0) in the catalog)" } ?? "")"
            + ", \(order.production ? "production" : "sandbox")"
    }

    /// Every rule's outcome and why, aligned.
    private func ruleLines(_ trace: RuleTrace) -> [String] {
        let width = max(24, trace.lines.map(\.rule.count).max() ?? 0)
        return ["rules:"] + trace.lines.map { "  \(pad($0.outcome.rawValue, 7)) \(pad($0.rule, width))  \($0.why)" }
    }

    /// The verdict: flagged or not, and each finding with its evidence and its standing.
    private func verdictLines(_ findings: [Finding]) -> [String] {
        guard !findings.isEmpty else { return ["verdict: not flagged: no rule found anything."] }
        var out: [String] = []
        if let worst = findings.filter(\.counts).map(\.severity).max() {
            out.append("verdict: flagged, highest severity \(worst.name):")
        } else {
            out.append("verdict: not flagged: every finding is exempted or reviewed legit:")
        }
        for f in findings {
            var line = "  \(f.severity.name) \(f.rule): \(f.message)"
            if f.evidence.expected != nil || f.evidence.actual != nil {
                line += "\n      expected \(f.evidence.expected ?? "nothing"), actual \(f.evidence.actual ?? "nothing")"
            }
            if f.exempted != nil { line += "\n      exempted: the user is a reviewer within their window" }
            if let r = f.review {
                switch r.status {
                case .new: line += "\n      new: no earlier run on this ledger reported it"
                case .seen: line += "\n      seen: an earlier run on this ledger reported it"
                case .reviewed:
                    line +=
                        "\n      reviewed \(r.verdict ?? "?") by \(r.by ?? "someone") at \(r.at ?? "?")"
                        + (r.note.map { ": \($0)" } ?? "")
                }
            }
            out.append(line)
        }
        return out
    }

    /// Which receipt entries could be the order's, the one it got, and why.
    private func entryLines(order: ScreenOrder, digest: ReceiptDigest, selection: Selection) -> [String] {
        var out: [String] = []
        if let txn = order.transactionID {
            out.append(
                "entries: the order names transaction \(txn); the receipt \(digest.candidates.isEmpty ? "does not hold it" : "holds it")"
            )
        } else {
            out.append(
                "entries: the order names no transaction, so its entry is chosen among the \(digest.candidates.count) "
                    + "purchase(s) of \(order.expectedProductID ?? "?"): the nearest at or before the credit that no earlier order took"
            )
        }
        for (i, p) in digest.candidates.prefix(8).enumerated() {
            out.append("  #\(i + 1) \(describe(p))")
        }
        if digest.candidates.count > 8 { out.append("  … and \(digest.candidates.count - 8) more") }
        switch selection {
        case .none:
            out.append("picked: none")
        case .picked(let i):
            out.append("picked: #\(i + 1), taken first by this order")
            if let p = digest.candidates.indices.contains(i) ? digest.candidates[i] : nil, let txn = p.transactionID,
                let original = p.originalTransactionID, original != txn
            {
                out.append(
                    "  a renewal: transaction \(txn) renews original transaction \(original); each renewal is a "
                        + "transaction of its own, so crediting it is not a replay of the original")
            }
            out += ledgerLines(digest.candidates, i, platform: digest.platform)
        case .restore(let i, let original):
            out.append(
                "picked: #\(i + 1), which order \(original.orderID) (user \(original.userID), \(original.createdAt.iso8601)) "
                    + "took first: the same user restoring a non-consumable, not a replay")
            out += ledgerLines(digest.candidates, i, platform: digest.platform)
        case .replayOf(let i, let original, _):
            out.append(
                "picked: #\(i + 1), which order \(original.orderID) (user \(original.userID), \(original.createdAt.iso8601)) "
                    + "took first\(tonight(original.orderID) ? " tonight" : ""): every candidate was already taken")
            out += ledgerLines(digest.candidates, i, platform: digest.platform)
        }
        return out
    }

    private func describe(_ p: Purchase) -> String {
        var parts = ["\(p.productID ?? "no product")", "transaction \(p.transactionID ?? p.purchaseToken ?? "none")"]
        if let d = p.purchaseDate { parts.append("bought \(d.iso8601)") }
        if let e = p.expiresDate { parts.append("expires \(e.iso8601)") }
        if let c = p.cancellationDate { parts.append("cancelled \(c.iso8601)") }
        return parts.joined(separator: ", ")
    }

    /// What the ledger remembered of the picked entry's transaction before tonight.
    private func ledgerLines(_ candidates: [Purchase], _ i: Int, platform: Platform) -> [String] {
        guard candidates.indices.contains(i), let key = claimKey(candidates[i], platform: platform) else { return [] }
        guard let ledger else { return ["ledger: \(ledgerNote)"] }
        guard let earlier = try? ledger.claims(of: [key])[key] else {
            return ["ledger: no earlier run credited transaction \(key)"]
        }
        return [
            "ledger: an earlier run recorded order \(earlier.orderID) (user \(earlier.userID), \(earlier.createdAt.iso8601)) as the first to take \(key)"
        ]
    }

    private func tonight(_ orderID: String) -> Bool {
        night.slot(of: orderID) != nil
    }

    /// The store events that name the order's transaction (its claim key, or for Google its
    /// purchase token), as the night read them.
    private func eventLines(_ events: StoreEventNight, keys: Set<String>) -> [String] {
        var lines: [String] = []
        for item in events.items {
            switch item {
            case .refund(let r, let token, _) where keys.contains(r.key) || token.map(keys.contains) == true:
                let what = r.kind == .refund ? "refund" : "reversal of a refund"
                lines.append(
                    "  \(r.event) at \(r.at.iso8601) (\(r.saidWhere)): \(what)"
                        + (r.reason.map { ", reason \($0)" } ?? "") + (r.source.map { ", asked by \($0)" } ?? ""))
            case .invalid(let type, let transaction?, let location, let reason) where keys.contains(transaction):
                lines.append("  \(type) (\(location)): not believed: \(reason)")
            default:
                continue
            }
        }
        guard !lines.isEmpty else {
            return [
                "store events: none of the \(events.counts.read) read names its transaction"
                    + (keys.isEmpty ? " (the order took no receipt entry)" : "")
            ]
        }
        return ["store events of its transaction:"] + lines
    }

    private func exemptionLines(order: ScreenOrder) -> [String] {
        let exempted = rules.rules.settings.reviewerExemptions.sorted().joined(separator: ", ")
        guard let w = rules.rules.reviewers.window(for: order.userID, at: order.createdAt) else {
            return [
                "exemption: none; user \(order.userID) is not a reviewer in reviewers.csv at \(order.createdAt.iso8601)"
            ]
        }
        let from = w.from?.iso8601 ?? "the start"
        let until = w.until?.iso8601 ?? "no end"
        return [
            "exemption: user \(order.userID) is a reviewer from \(from) until \(until)"
                + (w.note.isEmpty ? "" : " (\(w.note))") + "; their findings of \(exempted) are marked exempted, "
                + "kept in the report, and left out of --fail-on and money at risk"
        ]
    }

    /// The finding's standing in the ledger, as the report would show it.
    private func marked(_ f: Finding) -> Finding {
        guard let ledger, let order = f.orderID else { return f }
        var out = f
        if let r = try? ledger.review(of: order) {
            out.review = ReviewMark(status: .reviewed, verdict: r.verdict, note: r.note, by: r.by, at: r.at)
        } else if (try? ledger.wasReported(orderID: order, rule: f.rule)) == true {
            out.review = ReviewMark(status: .seen)
        } else {
            out.review = ReviewMark(status: .new)
        }
        return out
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
    }
}
