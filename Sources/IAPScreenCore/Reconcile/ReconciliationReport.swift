import Foundation
import IAPBasics
import JSONText
import Night
import Reconciliation
import Reporting
import StoreReports

/// reconciliation.csv, reconciliation.json and the summary on stderr (docs/reconcile.md).
struct ReconciliationReport {
    var outcome: ReconciliationOutcome
    var inputs: [InputRecord]
    var skipped: [SkippedRow]
    var notCompared: OurSide.NotCompared
    var storeRowsIgnored: Int
    var window: DayWindow
    var started: Timestamp
    var finished: Timestamp
    var status: ExitStatus

    static let csvHeader =
        "store,bucket,order_id,store_order_id,product_id,day,currency,our_units,store_units,our_amount,store_amount,detail\n"

    /// One row per difference; cells made safe for spreadsheets. Each amount at the scale of
    /// its side's currency.
    static func csvRow(_ d: Difference) -> String {
        SpreadsheetCSV.row([
            d.store.rawValue, d.bucket.rawValue, d.orderID, d.storeOrderID, d.productID, CalendarDay.text(d.day),
            d.currency, String(d.ourUnits), String(d.storeUnits), d.ourAmount?.text(in: d.ourCurrency ?? d.currency),
            d.storeAmount?.text(in: d.currency), d.detail,
        ])
    }

    /// `amount` sums the known amounts (null when none of a non-empty count is known);
    /// `unknown_amounts` says how many had none, when any.
    private static func tally(_ t: Reconciliation.Tally, in currency: String) -> JSONValue {
        let known = t.count == 0 || t.unknownAmounts < t.count
        var members: [(key: String, value: JSONValue)] = [
            ("count", .integer(t.count)), ("amount", known ? .string(t.amount.text(in: currency)) : .null),
        ]
        if t.unknownAmounts > 0 { members.append(("unknown_amounts", .integer(t.unknownAmounts))) }
        return .object(JSONObject(members))
    }

    /// A tally's money for a person: the known sum, and what is not known.
    private static func money(_ t: Reconciliation.Tally, in currency: String) -> String {
        let known = t.amount.text(in: currency)
        guard t.unknownAmounts > 0 else { return known }
        guard t.unknownAmounts < t.count else { return "amount unknown" }
        return "\(known) + \(t.unknownAmounts) of unknown amount"
    }

    var json: JSONObject {
        var stores: [(key: String, value: JSONValue)] = []
        for store in StoreName.allCases {
            let byCurrency = outcome.totals[store] ?? [:]
            let currencies = byCurrency.keys.sorted().map { currency -> (key: String, value: JSONValue) in
                let totals = byCurrency[currency] ?? CurrencyTotals()
                var members: [(key: String, value: JSONValue)] = [
                    ("matched", ReconciliationReport.tally(totals.matched, in: currency))
                ]
                for bucket in Bucket.allCases {
                    let t = totals.buckets[bucket] ?? Reconciliation.Tally()
                    members.append((bucket.rawValue, ReconciliationReport.tally(t, in: currency)))
                }
                return (currency, .object(JSONObject(members)))
            }
            stores.append((store.rawValue, .object(JSONObject(currencies))))
        }
        let n = notCompared
        return JSONObject([
            ("stores", .object(JSONObject(stores))),
            (
                "inputs",
                .array(
                    inputs.map {
                        .object(
                            JSONObject([
                                ("path", .string($0.path)), ("sha256", .string($0.sha256)),
                                ("rows", .integer($0.records)),
                            ]))
                    })
            ),
            (
                "skipped",
                .array(
                    skipped.map {
                        .object(
                            JSONObject([
                                ("file", .string($0.file)), ("line", .integer($0.line)), ("reason", .string($0.reason)),
                            ]))
                    })
            ),
            ("version", .string(IAPScreen.version)),
            ("started_at", .string(started.iso8601)),
            ("finished_at", .string(finished.iso8601)),
            ("exit_status", .integer(Int(status.rawValue))),
            ("from", .string(orNull: window.from.map(CalendarDay.text))),
            ("until", .string(orNull: window.until.map(CalendarDay.text))),
            ("tolerance_days", .integer(window.tolerance)),
            ("differences", .integer(outcome.differences.count)),
            ("credits_compared", .integer(outcome.creditsCompared)),
            ("store_rows_compared", .integer(outcome.eventsCompared)),
            (
                "not_compared",
                .object(
                    JSONObject([
                        ("orders_not_credited", .integer(n.notCredited)), ("orders_sandbox", .integer(n.sandbox)),
                        ("orders_zero_amount", .integer(n.zeroAmount)),
                        ("orders_outside_catalog", .integer(n.outsideCatalog)),
                        ("orders_unknown_platform", .integer(n.unknownPlatform)),
                        ("store_rows_ignored", .integer(storeRowsIgnored)),
                    ]))
            ),
        ])
    }

    /// Writes both files under temporary names, then renames them into place.
    func write(to directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportWriter.WriteError(description: "cannot create the directory: \(error.localizedDescription)")
        }
        let csv = try TempFile(in: directory, for: "reconciliation.csv")
        try csv.write(Array(ReconciliationReport.csvHeader.utf8))
        var chunk = ""
        for d in outcome.differences {
            chunk += ReconciliationReport.csvRow(d)
            if chunk.utf8.count > 1 << 20 {
                try csv.write(Array(chunk.utf8))
                chunk = ""
            }
        }
        try csv.write(Array(chunk.utf8))
        let summary = try TempFile(in: directory, for: "reconciliation.json")
        try summary.write(Array((JSONWriter().string(.object(json)) + "\n").utf8))
        for f in [csv, summary] { try f.sync() }
        for f in [csv, summary] { try f.publish() }
    }

    /// One screen for a person: per store and currency, what matched and each bucket.
    func text(outDir: String) -> String {
        let rows = inputs.reduce(0) { $0 + $1.records }
        var out =
            "iapscreen reconcile: \(outcome.creditsCompared) credits and \(outcome.eventsCompared) store rows compared "
            + "(\(inputs.count) inputs, \(rows) rows, \(skipped.count) skipped); \(outcome.differences.count) difference(s)\n"
        for store in StoreName.allCases {
            for (currency, totals) in (outcome.totals[store] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let named = currency == Reconciliation.Tally.unknownCurrency ? "currency unknown" : currency
                var line =
                    "  \(store.rawValue) \(named): \(totals.matched.count) matched (\(Self.money(totals.matched, in: currency)))"
                for bucket in Bucket.allCases {
                    guard let t = totals.buckets[bucket], t.count > 0 else { continue }
                    line += ", \(t.count) \(bucket.rawValue) (\(Self.money(t, in: currency)))"
                }
                out += line + "\n"
            }
        }
        for s in skipped.prefix(5) { out += "  skipped \(s)\n" }
        if skipped.count > 5 { out += "  … and \(skipped.count - 5) more skipped rows in reconciliation.json\n" }
        out += "  written: \(outDir)/reconciliation.csv, \(outDir)/reconciliation.json"
        return out
    }
}
