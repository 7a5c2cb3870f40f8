import Foundation
import IAPBasics
import JSONText
import Night
import Reporting
import Screening

/// summary.json of the merged run: the shards' summaries added up.
extension MergeCommand {
    static func pairs(_ value: JSONValue?) -> [(String, String)] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { item in
            guard case .array(let pair) = item, pair.count == 2, let a = pair[0].string, let b = pair[1].string else {
                return nil
            }
            return (a, b)
        }
    }

    /// The totals of one run: what the reports counted, as the writer tallied them; orders
    /// and receipts summed; the inputs and the store events (every worker read the whole
    /// log) as the first shard saw them; the run from its first start to its last end.
    static func summarize(_ folders: [ShardFolder], tally: Tally) throws(Problem) -> RunSummary {
        func int(_ o: JSONObject, _ key: String) -> Int { o[key]?.int64.flatMap { Int(exactly: $0) } ?? 0 }
        func time(_ o: JSONObject, _ key: String) throws(Problem) -> Timestamp {
            guard let t = o[key]?.string.flatMap(Timestamp.parse) else {
                throw Problem(message: "a summary.json without \(key)", status: .usage)
            }
            return t
        }
        let first = folders[0].summary
        var started = try time(first, "started_at")
        var finished = try time(first, "finished_at")
        var status: Int32 = 0
        for f in folders {
            let s = try time(f.summary, "started_at")
            let e = try time(f.summary, "finished_at")
            if s < started { started = s }
            if e > finished { finished = e }
            status = max(status, Int32(clamping: int(f.summary, "exit_status")))
        }
        let orders = folders.reduce(0) { $0 + int($1.summary, "orders") }
        let receipts = folders.reduce(0) { $0 + int($1.summary, "receipts") }
        let inputs = try mergedInputs(folders)
        let seconds = Double(finished.millis - started.millis) / 1000
        var summary = Summaries.make(
            tally: tally, orders: orders, receipts: receipts, inputs: inputs,
            rulesSHA256: first["rules_sha256"]?.string ?? "", started: started, finished: finished,
            status: ExitStatus(rawValue: status) ?? .ok, rate: seconds > 0 ? Double(orders) / seconds : 0)
        if let events = first["store_events"]?.object {
            var figures = StoreEventFigures()
            figures.read = int(events, "read")
            figures.distinct = int(events, "distinct")
            figures.refunds = int(events, "refunds")
            figures.reversals = int(events, "reversals")
            figures.matched = int(events, "matched")
            figures.unmatched = int(events, "unmatched")
            figures.invalid = int(events, "invalid")
            figures.byType = events["by_type"]?.object?.members.map { ($0.key, Int($0.value.int64 ?? 0)) } ?? []
            if case .array(let days)? = folders[0].run["refunds_per_day"] {
                for d in days {
                    guard case .array(let pair) = d, pair.count == 2, let day = pair[0].int64, let n = pair[1].int64
                    else { continue }
                    figures.refundsPerDay[day] = Int(clamping: n)
                }
            }
            summary.storeEvents = figures
        }
        // A store unverified on any shard is unverified for the run.
        var unverified: Set<String> = []
        for f in folders {
            if case .array(let stores)? = f.summary["unverified_stores"] {
                unverified.formUnion(stores.compactMap(\.string))
            }
        }
        summary.unverifiedStores = unverified.sorted()
        return summary
    }
}

extension MergeCommand {
    /// The inputs as one run over the same dumps lists them: every worker's when each read
    /// every dump; with `--split-dumps`, every shard's orders dumps in shard order, then every
    /// shard's receipts dumps, then the store-event logs (which every worker reads).
    static func mergedInputs(_ folders: [ShardFolder]) throws(Problem) -> [InputRecord] {
        guard let first = folders.first else { return [] }
        guard first.splitDumps != nil else { return first.inputs }
        var orders: [InputRecord] = []
        var receipts: [InputRecord] = []
        var logs: [InputRecord] = []
        for (k, f) in folders.enumerated() {
            let inputs = f.inputs
            guard let (o, r) = f.splitDumps, o + r <= inputs.count else {
                throw Problem(
                    message: "\(f.path): \(ShardReportLines.runFile) and summary.json disagree on the shard's dumps",
                    status: .usage)
            }
            orders += inputs[0..<o]
            receipts += inputs[o..<(o + r)]
            if k == 0 { logs = Array(inputs[(o + r)...]) }
        }
        return orders + receipts + logs
    }
}
