import IAPBasics
import JSONText
import Reporting
import Screening

/// What a sharded run's worker keeps beside its reports so that `merge` can write the one
/// report of the whole run (docs/ledger.md): every order report it wrote, whole, with where it
/// stood in the night (`shard-reports.jsonl`), and what its summary cannot say
/// (`shard-run.json`: the run, the rules' sentences for report.html, refunds per day). `merge`
/// feeds the reports, in the night's order, through the writer `screen` uses, so the merged
/// files are those of one unsharded run.
package enum ShardReportLines {
    package static let reportsFile = "shard-reports.jsonl"
    package static let runFile = "shard-run.json"

    /// Where a report stood: its record's position in the inputs (`NightLoader.sharedPosition`,
    /// below 2^57); what the store events found on orders not in tonight's dump comes after,
    /// in the events' order.
    static func afterNightKey(_ index: Int) -> Int64 { (1 << 60) + Int64(index) }

    /// shard-run.json: the run, this shard, the rules' sentences, refunds per day; with
    /// `--split-dumps`, how many orders and receipts dumps were this shard's own (the first of
    /// its summary's inputs), so that `merge` lists every shard's inputs as one run would.
    package static func run(_ shard: OwnedShard, inputs: Night.Inputs, legend: RuleLegend, summary: RunSummary)
        -> JSONObject
    {
        let perDay = (summary.storeEvents?.refundsPerDay ?? [:]).sorted { $0.key < $1.key }
        var members: [(String, JSONValue)] = [
            ("run_id", .string(shard.runID)), ("shard", .string(shard.spec.description)),
            ("legend", .array(legend.all.map { .array([.string($0.rule), .string($0.sentence)]) })),
            ("refunds_per_day", .array(perDay.map { .array([.integer(Int($0.key)), .integer($0.value)]) })),
        ]
        if shard.splitDumps {
            members.append(
                (splitDumpsKey, .array([.integer(inputs.orders.count), .integer(inputs.receipts.count)])))
        }
        return JSONObject(members)
    }

    /// shard-run.json's `[orders dumps, receipts dumps]` of a worker given `--split-dumps`.
    package static let splitDumpsKey = "split_dumps"
}
