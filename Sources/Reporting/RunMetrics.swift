import IAPBasics

/// A run's figures in the Prometheus text exposition format (version 0.0.4), for
/// node_exporter's textfile collector (docs/monitoring.md). Every metric is a gauge: the file
/// says what the last run found, and the collector re-reads it on every scrape.
///
/// A run that could not be done (exit 3 or 4) has no figures: its file says only its exit
/// status and when it ended, so an alert sees the failed night instead of the last good
/// night's numbers. `lastSuccess` is carried over from the previous file so that "no
/// successful run in 26 h" stays one comparison.
public struct RunMetrics: Sendable {
    public struct Figures: Sendable {
        /// A screened night's; nil for `consumption`, which screens none.
        public var summary: RunSummary?
        /// Findings that count (not exempted), per rule and its severity.
        public var findings: [(rule: String, severity: String, count: Int)]
        /// Store events read, per type (none without `--store-events`).
        public var storeEvents: [(type: String, count: Int)]
        /// The refund requests answered; nil when none were read.
        public var requests: RequestFigures?

        public init(
            summary: RunSummary, findings: [(rule: String, severity: String, count: Int)],
            storeEvents: [(type: String, count: Int)] = []
        ) {
            self.summary = summary
            self.findings = findings
            self.storeEvents = storeEvents
            requests = summary.consumptionRequests
        }

        /// `consumption`'s figures: its requests only.
        public init(requests: RequestFigures) {
            summary = nil
            findings = []
            storeEvents = []
            self.requests = requests
        }
    }

    /// When the run ended and how long it took, in seconds.
    public var finishedAt: Timestamp
    public var durationSeconds: Double
    public var exitStatus: Int32
    /// When the last run that was done (exit 0 or 1) ended: this one, or an earlier one's.
    public var lastSuccess: Timestamp?
    public var figures: Figures?

    public init(
        finishedAt: Timestamp, durationSeconds: Double, exitStatus: Int32, lastSuccess: Timestamp?,
        figures: Figures?
    ) {
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitStatus = exitStatus
        self.lastSuccess = lastSuccess
        self.figures = figures
    }

    public static let lastSuccessName = "iapscreen_last_success_timestamp_seconds"

    public var text: String {
        var out = ""
        func metric(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for s in samples {
                let labels =
                    s.labels.isEmpty
                    ? ""
                    : "{" + s.labels.map { "\($0.0)=\"\(RunMetrics.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                out += name + labels + " " + s.value + "\n"
            }
        }
        func one(_ name: String, _ help: String, _ value: String) { metric(name, help, [([], value)]) }

        one(
            "iapscreen_last_run_timestamp_seconds", "When the last run ended, in seconds since the epoch.",
            RunMetrics.seconds(finishedAt))
        one("iapscreen_last_run_duration_seconds", "How long the last run took.", RunMetrics.number(durationSeconds))
        one(
            "iapscreen_exit_status",
            "The last run's exit status: 0 done, 1 a finding at --fail-on, 3 an input unreadable, 4 the ledger in use.",
            String(exitStatus))
        if let lastSuccess {
            one(
                RunMetrics.lastSuccessName, "When the last run that was done (exit 0 or 1) ended.",
                RunMetrics.seconds(lastSuccess))
        }
        guard let f = figures else { return out }
        if let s = f.summary { night(s, f, metric: metric, one: one) }
        if let r = f.requests {
            metric(
                "iapscreen_consumption_requests",
                "Refund requests (CONSUMPTION_REQUEST) read, answered, late, not believed, and the answers' preferences.",
                r.states.map { ([("state", $0.name)], String($0.count)) })
        }
        return out
    }

    /// A screened night's metrics.
    private func night(
        _ s: RunSummary, _ f: Figures,
        metric: (_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) -> Void,
        one: (_ name: String, _ help: String, _ value: String) -> Void
    ) {
        one("iapscreen_orders", "Distinct credited orders screened.", String(s.orders))
        one("iapscreen_receipts", "Credited orders with a receipt.", String(s.receipts))
        one(
            "iapscreen_flagged_orders", "Orders with a finding that is neither exempted nor reviewed legit.",
            String(s.flagged))
        one("iapscreen_new_findings", "Findings first reported by this run.", String(s.new))
        one(
            "iapscreen_findings_without_order",
            "Findings that count but flag no order: malformed records, orphan receipts, store events not believed.",
            String(s.findingsWithoutOrder))
        one("iapscreen_exempted_findings", "Findings exempted for App Review accounts.", String(s.exempted))
        one("iapscreen_malformed_records", "Dump records that could not be read.", String(s.malformed))
        one(
            "iapscreen_orders_per_second", "Throughput of the run, startup included.",
            RunMetrics.number(s.ordersPerSecond))
        metric(
            "iapscreen_findings", "Findings that count (neither exempted nor reviewed legit), per rule and severity.",
            f.findings.map { ([("rule", $0.rule), ("severity", $0.severity)], String($0.count)) })
        metric(
            "iapscreen_at_risk", "Amounts of flagged orders, per currency, in major units.",
            s.atRisk.map { ([("currency", $0.0)], RunMetrics.decimal($0.1)) })
        if !f.storeEvents.isEmpty {
            metric(
                "iapscreen_store_events", "Distinct store events read, per type.",
                f.storeEvents.map { ([("type", $0.type)], String($0.count)) })
        }
    }

    /// The value of `iapscreen_last_success_timestamp_seconds` in an earlier file, if any.
    public static func lastSuccess(inPrevious text: String) -> Timestamp? {
        for line in text.split(separator: "\n") where line.hasPrefix(lastSuccessName + " ") {
            guard let value = Double(line.dropFirst(lastSuccessName.count + 1)), value.isFinite,
                abs(value) < 1e12
            else { return nil }
            return Timestamp(clampingMillis: Int64(value * 1000), hasMilliseconds: false)
        }
        return nil
    }

    /// Label values are quoted; backslash, quote and line feed are escaped (the format's rule).
    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func seconds(_ t: Timestamp) -> String {
        let ms = t.millis
        let whole = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let frac = ms - whole * 1000
        return frac == 0 ? String(whole) : String(whole) + "." + String(String(frac + 1000).dropFirst())
    }

    static func number(_ v: Double) -> String {
        guard v.isFinite else { return v.isNaN ? "NaN" : (v > 0 ? "+Inf" : "-Inf") }
        return String((v * 1000).rounded() / 1000)
    }

    /// A sum that overflowed (`overflow`) is no number: NaN says so.
    static func decimal(_ d: DecimalAmount) -> String {
        let text = d.description
        return Double(text) == nil ? "NaN" : text
    }
}
