import Foundation
import IAPBasics
import Night
import ReceiptFormats
import ReceiptVerification
import Reporting
import Screening
import StoreCrypto

/// summary.json and the one-screen summary on stderr.
enum Summaries {
    static func make(
        tally t: Tally, orders: Int, receipts: Int, inputs: [InputRecord], rules: RulesDirectory,
        started: Timestamp, finished: Timestamp, status: ExitStatus, rate: Double
    ) -> RunSummary {
        make(
            tally: t, orders: orders, receipts: receipts, inputs: inputs, rulesSHA256: rulesDigest(rules),
            started: started,
            finished: finished, status: status, rate: rate)
    }

    static func make(
        tally t: Tally, orders: Int, receipts: Int, inputs: [InputRecord], rulesSHA256: String,
        started: Timestamp, finished: Timestamp, status: ExitStatus, rate: Double
    ) -> RunSummary {
        var s = RunSummary(
            version: IAPScreen.version, startedAt: started, finishedAt: finished, exitStatus: status.rawValue,
            orders: orders, receipts: receipts, flagged: t.flagged, new: t.new, exempted: t.exempted,
            malformed: t.malformed, byRule: t.byRule.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            bySeverity: Severity.allCases.reversed().compactMap { s in t.bySeverity[s].map { (s.name, $0) } },
            atRisk: t.atRisk.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            inputs: inputs.map { RunSummary.Input(path: $0.path, sha256: $0.sha256, records: $0.records) },
            rulesSHA256: rulesSHA256, ordersPerSecond: rate)
        s.findings = t.findings
        s.findingsWithoutOrder = t.withoutOrder
        return s
    }

    /// The stores whose trust the Rules leave empty, of those in `seen` (nil: every store).
    static func unverified(_ rules: RulesDirectory, seen: Set<Platform>? = nil) -> [TrustSummary.Store] {
        TrustSummary.Store.untrusted(appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
            .filter { seen?.contains($0.platform) ?? true }
    }

    /// Every run says which stores' signatures its Rules cannot check, whatever else it prints.
    static func trustWarnings(_ rules: RulesDirectory, seen: Set<Platform>, command: String) -> [String] {
        unverified(rules).map { store in
            "iapscreen \(command): warning: \(TrustLines.unverified(store))"
                + (seen.contains(store.platform) ? "; tonight's \(store.rawValue) receipts are unverified" : "")
        }
    }

    static func storeEvents(_ e: EventOutcome) -> StoreEventFigures {
        var f = StoreEventFigures()
        f.read = e.counts.read
        f.distinct = e.counts.distinct
        f.byType = e.counts.byType.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        f.refunds = e.counts.refunds
        f.reversals = e.counts.reversals
        f.matched = e.matched
        f.unmatched = e.unmatched
        f.invalid = e.counts.invalid
        f.refundsPerDay = e.counts.refundsPerDay
        return f
    }

    /// SHA-256 over every file that shapes the run: name, NUL, bytes, NUL; sorted by name.
    static func rulesDigest(_ rules: RulesDirectory) -> String {
        guard let hasher = try? SHA256Hasher() else { return "" }
        for path in rules.files {
            let relative = path.hasPrefix(rules.path) ? String(path.dropFirst(rules.path.count)) : path
            try? hasher.update(Array(relative.utf8) + [0])
            if let data = FileManager.default.contents(atPath: path) { try? hasher.update(Array(data) + [0]) }
        }
        return (try? hasher.finalize()).map(Digest.hex) ?? ""
    }

    /// What `screen` says on stderr at its end: the stores its Rules cannot check, even with
    /// `--quiet` (a store left unchecked is never a silent clean night), then the summary.
    static func say(
        _ summary: RunSummary, setup: ScreenSetup, outcome: NightScreener.Outcome, outDir: String,
        index: ExplainIndexOutput?, quiet: Bool, io: Console
    ) {
        for warning in trustWarnings(setup.rules.rules, seen: outcome.receiptPlatforms, command: "screen") {
            io.error(warning)
        }
        guard !quiet else { return }
        io.error(
            text(
                summary, outDir: outDir, indexProblem: index?.problem, receiptsDumps: !setup.inputs.receipts.isEmpty))
    }

    /// `indexProblem`: why `screen` left no explain index (said after the reports).
    /// `receiptsDumps`: whether `--receipts` named any (nil: not known, as for `merge`).
    static func text(_ s: RunSummary, outDir: String, indexProblem: String? = nil, receiptsDumps: Bool? = nil)
        -> String
    {
        var out =
            "iapscreen: \(s.orders) orders, \(s.receipts) receipts, \(s.flagged) flagged (\(s.new) new findings), "
            + "\(s.exempted) exempted, \(s.malformed) malformed; \(Int(s.ordersPerSecond)) orders/s"
        // Orders and not one receipt: every order is a missing-receipt, which looks like a
        // night of fraud but is most often a dump left out.
        if s.orders > 0, s.receipts == 0 {
            out += "\n  no receipt at all: none of the \(s.orders) orders came with one"
            if receiptsDumps == false { out += " (no --receipts dump was given: was it forgotten?)" }
        }
        if !s.bySeverity.isEmpty {
            out +=
                "\n  findings that count: \(s.findings) ("
                + s.bySeverity.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                + ")" + (s.findingsWithoutOrder > 0 ? ", \(s.findingsWithoutOrder) of them on no order" : "")
        }
        if !s.atRisk.isEmpty {
            out += "\n  at risk: " + s.atRisk.map { "\($0.0) \($0.1.text(in: $0.0))" }.joined(separator: ", ")
        }
        if let e = s.storeEvents {
            out +=
                "\n  store events: \(e.read) read (\(e.distinct) distinct), \(e.refunds) refund\(e.refunds == 1 ? "" : "s"), "
                + "\(e.reversals) reversal\(e.reversals == 1 ? "" : "s"), "
                + "\(e.matched) matched, \(e.unmatched) unmatched, \(e.invalid) not believed"
        }
        if let r = s.consumptionRequests {
            out +=
                "\n  refund requests: \(r.count("read")) read, \(r.count("answered")) answered, "
                + "\(r.count("no_consent")) without consent, \(r.count("late")) late, \(r.count("invalid")) not believed "
                + "(consumption.jsonl)"
        }
        out += "\n  reports in \(outDir)"
        if let indexProblem { out += "\n  no explain index: \(indexProblem); explain reads the whole night again" }
        if s.exitStatus == ExitStatus.findingsAtThreshold.rawValue {
            out += "\n  exit 1: findings at or above --fail-on"
        }
        return out
    }
}
