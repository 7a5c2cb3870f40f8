import IAPBasics
import JSONText

/// Everything summary.json says of a run (docs/outputs.md).
/// summary.json's `store_events`: what the night's store-event logs held and what came of them.
public struct StoreEventFigures: Sendable, Equatable {
    public var read = 0, distinct = 0, refunds = 0, reversals = 0, matched = 0, unmatched = 0, invalid = 0
    /// Distinct events per type, sorted by type.
    public var byType: [(String, Int)] = []
    /// Believed refunds per UTC day of the refund (days since 1970-01-01), for the report's chart.
    public var refundsPerDay: [Int64: Int] = [:]

    public init() {}

    public static func == (a: StoreEventFigures, b: StoreEventFigures) -> Bool { a.json == b.json }

    public var json: JSONObject {
        JSONObject([
            ("read", .integer(read)), ("distinct", .integer(distinct)),
            ("by_type", .object(JSONObject(byType.map { (key: $0.0, value: .integer($0.1)) }))),
            ("refunds", .integer(refunds)), ("reversals", .integer(reversals)), ("matched", .integer(matched)),
            ("unmatched", .integer(unmatched)), ("invalid", .integer(invalid)),
        ])
    }
}

public struct RunSummary: Sendable {
    public struct Input: Sendable {
        public var path: String
        public var sha256: String
        public var records: Int

        public init(path: String, sha256: String, records: Int) {
            self.path = path
            self.sha256 = sha256
            self.records = records
        }
    }

    public var version: String
    public var startedAt: Timestamp
    public var finishedAt: Timestamp
    public var exitStatus: Int32
    public var orders: Int
    public var receipts: Int
    public var flagged: Int
    public var new: Int
    public var exempted: Int
    public var malformed: Int
    /// Findings that count (neither exempted nor reviewed legit: what `--fail-on` counts), and
    /// how many of them flag no order (malformed records, orphan receipts, store events not
    /// believed).
    public var findings = 0
    public var findingsWithoutOrder = 0
    /// Findings that count, per rule and per severity, in a stable order.
    public var byRule: [(String, Int)]
    public var bySeverity: [(String, Int)]
    /// Amounts of flagged orders per currency.
    public var atRisk: [(String, DecimalAmount)]
    /// The stores (`apple`, `google`) whose receipts were seen while the Rules hold no trust
    /// for them: their signatures were not checked. Sorted; empty when every store was.
    public var unverifiedStores: [String] = []
    public var inputs: [Input]
    /// What `--store-events` read (docs/store-events.md); nil without it.
    public var storeEvents: StoreEventFigures?
    /// The refund requests answered (docs/consumption.md); nil when none were read.
    public var consumptionRequests: RequestFigures?
    public var rulesSHA256: String
    public var ordersPerSecond: Double
    /// A sharded run's worker: `I/N`, and the run's id (docs/ledger.md).
    public var shard: String?
    public var runID: String?

    public init(
        version: String, startedAt: Timestamp, finishedAt: Timestamp, exitStatus: Int32, orders: Int, receipts: Int,
        flagged: Int, new: Int, exempted: Int, malformed: Int, byRule: [(String, Int)], bySeverity: [(String, Int)],
        atRisk: [(String, DecimalAmount)], inputs: [Input], rulesSHA256: String, ordersPerSecond: Double
    ) {
        self.version = version
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.exitStatus = exitStatus
        self.orders = orders
        self.receipts = receipts
        self.flagged = flagged
        self.new = new
        self.exempted = exempted
        self.malformed = malformed
        self.byRule = byRule
        self.bySeverity = bySeverity
        self.atRisk = atRisk
        self.inputs = inputs
        self.rulesSHA256 = rulesSHA256
        self.ordersPerSecond = ordersPerSecond
    }

    public var json: JSONObject {
        func counts(_ list: [(String, Int)]) -> JSONValue {
            .object(JSONObject(list.map { (key: $0.0, value: .integer($0.1)) }))
        }
        let rate = (ordersPerSecond * 10).rounded() / 10
        var sharded: [(key: String, value: JSONValue)] = []
        if let shard { sharded.append((key: "shard", value: .string(shard))) }
        if let runID { sharded.append((key: "run_id", value: .string(runID))) }
        return JSONObject(
            [
                ("version", .string(version)),
                ("started_at", .string(startedAt.iso8601)),
                ("finished_at", .string(finishedAt.iso8601)),
                ("exit_status", .integer(exitStatus)),
                ("orders", .integer(orders)),
                ("receipts", .integer(receipts)),
                ("flagged", .integer(flagged)),
                ("new", .integer(new)),
                ("exempted", .integer(exempted)),
                ("malformed", .integer(malformed)),
                ("findings", .integer(findings)),
                ("findings_without_order", .integer(findingsWithoutOrder)),
                ("by_rule", counts(byRule)),
                ("by_severity", counts(bySeverity)),
                ("at_risk", .object(JSONObject(atRisk.map { (key: $0.0, value: .string($0.1.text(in: $0.0))) }))),
                ("unverified_stores", .array(unverifiedStores.map { .string($0) })),
            ] + (storeEvents.map { [("store_events", JSONValue.object($0.json))] } ?? [])
                + (consumptionRequests.map { [("consumption_requests", JSONValue.object($0.json))] } ?? []) + [
                    (
                        "inputs",
                        .array(
                            inputs.map {
                                .object(
                                    JSONObject([
                                        ("path", .string($0.path)), ("sha256", .string($0.sha256)),
                                        ("records", .integer($0.records)),
                                    ]))
                            })
                    ),
                    ("rules_sha256", .string(rulesSHA256)),
                    ("orders_per_second", .number(rate.isFinite ? String(rate) : "0")),
                ] + sharded)
    }
}
