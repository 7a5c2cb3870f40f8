import DumpFormats
import IAPBasics
import Ledger
import Night
import ReceiptFormats
import Screening

/// One order as `explain` explains it, whichever way it was found — the night screened again,
/// or the index `screen` left — in the same words either way.
struct ExplainedOrder {
    /// As the night keeps it (no payload), at the place screen read it.
    var row: OrderRow
    var position: Int
    /// The platform of the receipt screening saw (nil: none was decoded).
    var receiptPlatform: Platform?
    /// The receipt as the join chose it.
    var receipt: (payload: String, location: SourceLocation, fromReceiptsDump: Bool)?
    /// The purchase the claims gave it; nil: what screening assumes (its receipt's first
    /// candidate, or none).
    var selection: Selection?
    /// The evaluator as the claims used it (orders per user, refunds, reasons).
    var evaluator: RuleEvaluator
    /// The findings the store events gave it.
    var eventFindings: [Finding]
    /// Whether an order is in tonight's dumps.
    var isTonight: (String) -> Bool
    /// With `--store-events`: how many events were read, and the lines of those a set of
    /// names (claim keys, tokens) names.
    var events: (read: Int, lines: (Set<String>) throws -> [String])?
    /// Its refund requests' answers.
    var requests: [RequestWords]
}

/// The words `explain` prints for one order, built from the same pieces screening uses:
/// the order resolved against the catalog, its receipt decoded and verified again, the
/// selection the night's claims gave it, and the rules run with a trace.
struct OrderExplanation {
    let order: ExplainedOrder
    let rules: NightRules
    let ledger: (any LedgerStore)?
    let ledgerNote: String
    /// `explain --now`: whether a refund request is past its deadline.
    let now: Timestamp

    /// Throws what finding the store events' lines threw (an index that cannot say them).
    func text() throws -> String {
        let row = order.row
        var out = rowLines(row)
        let requests = RequestLines(order.requests, now: now)
        guard row.status == .credited else {
            out.append("")
            out.append("not screened: the order is \(row.status.rawValue), and only credited orders are screened.")
            if let requests { out += [""] + requests.lines }
            return out.joined(separator: "\n") + "\n"
        }

        let receipt = watchedReceipt(platform: order.receiptPlatform)
        let screened = rules.resolve(row, index: order.position, receiptPlatform: receipt.platform)
        out.append(screenedAs(screened, readable: receipt.decoded != nil))
        out.append("")
        out += receipt.lines

        var selection = order.selection ?? .none
        var state = receipt.state
        var keys: [String] = []
        if let decoded = receipt.decoded {
            let (signature, forgery) = rules.verifier.verify(decoded)
            out.append(
                "  signature: \(signature.verdict.rawValue) (\(signature.reason))"
                    + (forgery.map { "; forged: \($0)" } ?? ""))
            let digest = ReceiptDigest(receipt: decoded, signature: signature, forgery: forgery, for: screened)
            state = .decoded(digest)
            keys = ClaimBook.keys(of: digest) + digest.candidates.compactMap(\.purchaseToken)
            selection = order.selection ?? (digest.candidates.isEmpty ? .none : .picked(0))
            out.append("")
            out += entryLines(order: screened, digest: digest, selection: selection)
        }

        let trace = RuleTrace()
        // With what the store events found on this order.
        let found = order.evaluator.findings(order: screened, receipt: state, selection: selection, trace: trace)
        let findings = Revoked.once(found + order.eventFindings).map(marked)
        out.append("")
        out += ruleLines(trace)
        out.append("")
        out += exemptionLines(order: screened)
        if let events = order.events {
            out.append("")
            out += eventLines(try events.lines(Set(keys)), read: events.read, tookNone: keys.isEmpty)
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
        guard let watched = order.receipt else {
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
        var parts = ["\(p.productID ?? "no product")", spokenName(of: p)]
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
            return ["ledger: no earlier run credited \(ClaimKey.spoken(key))"]
        }
        return [
            "ledger: an earlier run recorded order \(earlier.orderID) (user \(earlier.userID), \(earlier.createdAt.iso8601)) as the first to take \(ClaimKey.spoken(key))"
        ]
    }

    private func tonight(_ orderID: String) -> Bool { order.isTonight(orderID) }

    /// The store events that name the order's transaction (its claim key, or for Google its
    /// purchase token), as the night read them.
    private func eventLines(_ lines: [String], read: Int, tookNone: Bool) -> [String] {
        guard !lines.isEmpty else {
            return [
                "store events: none of the \(read) read names its transaction"
                    + (tookNone ? " (the order took no receipt entry)" : "")
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
