import Foundation
import IAPBasics
import Reporting
import Screening
import StoreCrypto

/// summary.json and the one-screen summary on stderr.
enum Summaries {
    static func make(outcome: NightScreener.Outcome, inputs: [InputRecord], rules: RulesDirectory, started: Timestamp,
                     finished: Timestamp, status: ExitStatus, rate: Double) -> RunSummary {
        var byRule: [String: Int] = [:]
        var bySeverity: [Severity: Int] = [:]
        var atRisk: [String: DecimalAmount] = [:]
        var flagged = 0, new = 0, exempted = 0, malformed = 0
        for r in outcome.reports {
            for f in r.findings {
                if f.rule == RuleID.malformedRecord.rawValue { malformed += 1 }
                if f.exempted != nil { exempted += 1; continue }
                byRule[f.rule, default: 0] += 1
                bySeverity[f.severity, default: 0] += 1
                if f.counts, f.review.map({ $0.status == .new }) ?? true { new += 1 }
            }
            if r.isFlagged {
                flagged += 1
                if let c = r.currency, let a = r.amount.flatMap(DecimalAmount.init) { atRisk[c, default: .zero] = atRisk[c, default: .zero] + a }
            }
        }
        return RunSummary(
            version: IAPScreen.version, startedAt: started, finishedAt: finished, exitStatus: status.rawValue,
            orders: outcome.orders, receipts: outcome.receipts, flagged: flagged, new: new, exempted: exempted,
            malformed: malformed, byRule: byRule.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            bySeverity: Severity.allCases.reversed().compactMap { s in bySeverity[s].map { (s.name, $0) } },
            atRisk: atRisk.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            inputs: inputs.map { RunSummary.Input(path: $0.path, sha256: $0.sha256, records: $0.records) },
            rulesSHA256: rulesDigest(rules), ordersPerSecond: rate)
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

    static func text(_ s: RunSummary, outDir: String) -> String {
        var out = "iapscreen: \(s.orders) orders, \(s.receipts) receipts, \(s.flagged) flagged (\(s.new) new findings), "
            + "\(s.exempted) exempted, \(s.malformed) malformed; \(Int(s.ordersPerSecond)) orders/s"
        if !s.bySeverity.isEmpty { out += "\n  findings: " + s.bySeverity.map { "\($0.0) \($0.1)" }.joined(separator: ", ") }
        if !s.atRisk.isEmpty { out += "\n  at risk: " + s.atRisk.map { "\($0.0) \($0.1)" }.joined(separator: ", ") }
        out += "\n  reports in \(outDir)"
        if s.exitStatus == ExitStatus.findingsAtThreshold.rawValue { out += "\n  exit 1: findings at or above --fail-on" }
        return out
    }
}
