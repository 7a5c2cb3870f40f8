import Foundation
import IAPBasics
import JSONText
import Ledger
import Reporting
import Screening
import StoreCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the reports of a run as the orders come, in input order: each file under a
/// temporary name in the output directory, all renamed into place by `finish`, so a
/// reader never sees half a report and memory does not grow with the findings.
package final class ReportWriter: ReportSink {
    package struct WriteError: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    let directory: String
    private let findings: TempFile
    private let flagged: TempFile
    /// report.html's data arrays, streamed like the other reports (elements comma-separated),
    /// by `ReportHTML.Section.rawValue`, and how many elements each has.
    private let pageData: [TempFile]
    private var pageDataCount = [Int](repeating: 0, count: ReportHTML.Section.allCases.count)
    package private(set) var tally = Tally()
    private var page = ReportHTML.Tally()
    private var strings = SharedStrings()
    /// (order id, rule) of every finding, for the ledger: on disk, since a big night's
    /// findings would not fit (nil without a ledger, which is all that wants them).
    private let reportedFile: PassFile?
    /// The flagged orders with their findings, for the desk (nil without a ledger).
    private let flaggedSpill: FlaggedOrderSpill?
    private let writer = JSONWriter()

    /// A sharded run's worker's reports, whole, for `merge` (`ShardReportLines`).
    private let shardReports: TempFile?

    package init(directory: String, keepsReported: Bool = true, keepsShardReports: Bool = false) throws {
        self.directory = directory
        do {
            reportedFile = keepsReported ? try PassFile() : nil
            flaggedSpill = keepsReported ? try FlaggedOrderSpill() : nil
        } catch {
            throw WriteError(description: error.description)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WriteError(description: "cannot create the directory: \(error.localizedDescription)")
        }
        findings = try TempFile(in: directory, for: "findings.jsonl")
        flagged = try TempFile(in: directory, for: "flagged.csv")
        pageData = try ReportHTML.Section.allCases.map { section in
            switch section {
            case .rows: try TempFile(in: directory, for: "report-rows")
            case .exempted: try TempFile(in: directory, for: "report-exempted")
            case .malformed: try TempFile(in: directory, for: "report-malformed")
            }
        }
        try flagged.write(FlaggedCSV.header.utf8)
        shardReports = keepsShardReports ? try TempFile(in: directory, for: ShardReportLines.reportsFile) : nil
    }

    /// Every finding written, for the ledger (none when it was made not to keep them).
    package var reported: RunRows<ReportedFinding> {
        guard let f = reportedFile else { return .none }
        return SpooledRows.rows { () throws(PassFile.Failure) in
            try f.rewind()
            return { () throws(PassFile.Failure) in
                f.atEnd ? nil : ReportedFinding(orderID: try f.string(), rule: try f.string())
            }
        }
    }

    /// Every flagged order written, for the desk (none when it was made not to keep them).
    package var flaggedOrders: FlaggedNight { flaggedSpill?.night ?? .none }

    package var formatter: (@Sendable (OrderReport) -> ReportLines)? { { ReportLines($0) } }
    package var wantsKeys: Bool { shardReports != nil }

    /// Writes a formatted report, in the order reports come.
    package func append(_ formatted: ReportLines?, of r: OrderReport, key: Int64 = 0) throws {
        let f = formatted ?? ReportLines(r)
        try findings.write(f.jsonl)
        if let shardReports {
            var line: [UInt8] = []
            writer.write(.object(OrderReportLine.line(r, key: key)), to: &line)
            line.append(0x0A)
            try shardReports.write(line)
        }
        tally.add(r)
        page.add(r)
        if let reportedFile {
            for f in r.findings {
                guard let reported = ReportedFinding(f) else { continue }
                try reportedFile.put(reported.orderID)
                try reportedFile.put(reported.rule)
            }
        }
        try flaggedSpill?.put(r, jsonl: f.jsonl)
        try flagged.write(f.csv)
        for (k, section) in f.sections.enumerated() {
            let s = section.rawValue
            try pageData[s].write { out in
                if pageDataCount[s] > 0 { out.append(contentsOf: [0x2C, 0x0A]) }
                f.writeElement(k, strings: &strings, to: &out)
            }
            pageDataCount[s] += 1
        }
    }

    /// Writes summary.json and report.html and syncs every file, still under its temporary
    /// name: `publish` puts them in place.
    package func prepare(summary: RunSummary, legend: RuleLegend, shardRun: JSONObject? = nil) throws {
        let summaryFile = try TempFile(in: directory, for: "summary.json")
        if let shardRun {
            let file = try TempFile(in: directory, for: ShardReportLines.runFile)
            try file.write(Array((writer.string(.object(shardRun)) + "\n").utf8))
            extraPrepared.append(file)
        }
        try summaryFile.write(Array((writer.string(.object(summary.json)) + "\n").utf8))
        let html = try TempFile(in: directory, for: "report.html")
        try ReportHTML.assemble(
            summary: summary, tally: page, strings: strings, hashes: ReportWriter.pageHashes,
            legend: legend
        ) { part in
            switch part {
            case .text(let text): try html.write(Array(text.utf8))
            case .data(let section): try pageData[section.rawValue].copy(into: html)
            }
        }
        for f in [findings, flagged, html, summaryFile] + sidecars { try f.sync() }
        for f in pageData { f.discard() }
        prepared = [html, summaryFile]
    }

    /// A file beside the reports (consumption.jsonl), written whole now, before `prepare`, and
    /// synced and put in place with them.
    package func attach(_ name: String, _ bytes: [UInt8]) throws {
        let file = try TempFile(in: directory, for: name)
        try file.write(bytes)
        extraPrepared.append(file)
    }

    /// summary.json and report.html, once `prepare` wrote them (and a worker's files for `merge`).
    private var prepared: [TempFile] = []
    private var extraPrepared: [TempFile] = []
    private var sidecars: [TempFile] { extraPrepared + (shardReports.map { [$0] } ?? []) }

    /// Renames every report into place.
    package func publish() throws {
        for f in [findings, flagged] + prepared + sidecars { try f.publish() }
    }

    /// Removes every temporary file (a run that cannot finish leaves no half report).
    package func abandon() {
        for f in [findings, flagged] + pageData + prepared + sidecars { f.discard() }
    }

    /// What report.html's Content-Security-Policy allows: its own script and style sheet.
    static let pageHashes = ReportHTML.Hashes(
        script: sha256Base64(ReportAssets.script), style: sha256Base64(ReportAssets.style))

    package static func sha256Base64(_ text: String) -> String {
        // Without a digest the CSP names no script: the page stays safe, its tables stay empty.
        (try? Digest.sha256(Array(text.utf8))).map { Base64.encode($0) } ?? "unavailable"
    }
}

/// The counts summary.json reports, kept as the orders go by (docs/outputs.md defines each):
/// - `flagged`: orders (tonight's, or an earlier night's a store event names) with a finding
///   that counts;
/// - findings that count: neither exempted nor reviewed `legit`, what `--fail-on` counts;
///   `byRuleSeverity` splits them, `findings` sums them;
/// - `withoutOrder`: those of them that flag no order (a malformed record, an orphan receipt,
///   a store event not believed): `findings` is the flagged orders' findings and these.
package struct Tally {
    /// Findings that count, per rule and severity (as the metrics label them).
    var byRuleSeverity: [String: [Severity: Int]] = [:]
    package var atRisk: [String: DecimalAmount] = [:]
    package var flagged = 0, new = 0, exempted = 0, malformed = 0, withoutOrder = 0
    /// The most severe finding that counts (for `--fail-on`).
    package var worst: Severity?

    package var byRule: [String: Int] { byRuleSeverity.mapValues { $0.values.reduce(0, +) } }
    package var findings: Int { byRuleSeverity.values.reduce(0) { $0 + $1.values.reduce(0, +) } }

    package var bySeverity: [Severity: Int] {
        var out: [Severity: Int] = [:]
        for counts in byRuleSeverity.values {
            for (severity, n) in counts { out[severity, default: 0] += n }
        }
        return out
    }

    /// For the metrics: sorted by rule, then from the most severe.
    package var findingsByRuleAndSeverity: [(rule: String, severity: String, count: Int)] {
        byRuleSeverity.sorted { $0.key < $1.key }.flatMap { rule, counts in
            counts.sorted { $0.key > $1.key }.map { (rule, $0.key.name, $0.value) }
        }
    }

    mutating func add(_ r: OrderReport) {
        for f in r.findings {
            if f.rule == MalformedRecord.id.rawValue { malformed += 1 }
            if f.exempted != nil {
                exempted += 1
                continue
            }
            guard f.counts else { continue }
            byRuleSeverity[f.rule, default: [:]][f.severity, default: 0] += 1
            if !r.isOrder { withoutOrder += 1 }
            if f.review.map({ $0.status == .new }) ?? true { new += 1 }
            worst = max(worst ?? f.severity, f.severity)
        }
        if r.isFlagged {
            flagged += 1
            if let c = r.currency, let a = r.amount.flatMap(DecimalAmount.init) {
                atRisk[c, default: .zero] = atRisk[c, default: .zero] + a
            }
        }
    }
}

/// Where `NightScreener`'s reports go, one at a time in input order, on one thread.
package protocol ReportSink: AnyObject {
    /// How the reports come formatted, on every core, before they are appended (nil: not).
    var formatter: (@Sendable (OrderReport) -> ReportLines)? { get }
    /// Whether each report comes with where it stood in the night (`merge`, `backtest`).
    var wantsKeys: Bool { get }
    func append(_ formatted: ReportLines?, of r: OrderReport, key: Int64) throws
    /// The night failed: nothing of what was appended may be left (files under temporary names).
    func abandon()
}
