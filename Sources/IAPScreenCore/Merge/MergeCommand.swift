import Decompression
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import Reporting
import Screening

/// `iapscreen merge --out DIR SHARD_OUT...` (docs/ledger.md): the reports of every shard of
/// one sharded run joined into the reports one unsharded run writes — findings.jsonl and
/// flagged.csv in the night's order, summary.json with the totals, report.html — by feeding
/// the shards' reports, in order, through the writer `screen` uses.
enum MergeCommand {
    static let spec = CommandSpec(
        name: "merge",
        summary: "Join the reports of every shard of a sharded run into one run's reports.",
        options: [
            OptionSpec(
                "--out", .one, valueName: "DIR", help: "Where the joined reports go (default ./iapscreen-report)."),
            OptionSpec("--quiet", .flag, help: "Print nothing, not even the summary."),
        ],
        positional: ("SHARD_OUT...", "The --out folder of every shard of the run.", ShardSpec.maxCount),
        details: """
            Each folder is the --out of one `screen --shard I/N --run-id ID`; together they must
            hold every shard 1…N of one run id, each once. Writes findings.jsonl, flagged.csv,
            summary.json and report.html into --out, each under a temporary name first.
            Exit status: 0 done; 2 bad usage or a set of folders that is not one whole run;
            3 a folder cannot be read or the reports cannot be written.
            """)

    /// One shard's folder, as its summary and run file say.
    private struct ShardFolder {
        var path: String
        var shard: ShardSpec
        var runID: String
        var summary: JSONObject
        var run: JSONObject
    }

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let outDir = args.one("--out") ?? "iapscreen-report"
        let paths = args.positionals
        guard !paths.isEmpty else {
            io.usageError(command: spec, "merge needs the --out folder of every shard of the run")
            return .usage
        }
        var folders: [ShardFolder] = []
        for path in paths {
            switch read(path) {
            case .success(let f): folders.append(f)
            case .failure(let problem):
                io.error("iapscreen merge: \(path): \(problem.message); nothing written")
                return problem.status
            }
        }
        if let refusal = wholeRun(folders) {
            io.error("iapscreen merge: \(refusal); nothing written")
            return .usage
        }
        folders.sort { $0.shard.index < $1.shard.index }
        do {
            let summary = try merge(folders, into: outDir)
            if !args.has("--quiet") { io.error(Summaries.text(summary, outDir: outDir)) }
            return ExitStatus(rawValue: summary.exitStatus) ?? .ok
        } catch let problem as Problem {
            io.error("iapscreen merge: \(problem.message); nothing written")
            return problem.status
        } catch {
            io.error("iapscreen merge: cannot write the reports in \(outDir): \(error); nothing written")
            return .unreadableInput
        }
    }

    struct Problem: Error {
        var message: String
        var status: ExitStatus
    }

    private static func json(_ path: String) throws(Problem) -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(message: "cannot read \((path as NSString).lastPathComponent)", status: .unreadableInput)
        }
        guard let object = try? JSONParser.parse(Array(data), limits: .standard).object else {
            throw Problem(
                message: "\((path as NSString).lastPathComponent) is not the JSON a shard writes", status: .usage)
        }
        return object
    }

    private static func read(_ path: String) -> Result<ShardFolder, Problem> {
        Result { () throws(Problem) in
            let summary = try json((path as NSString).appendingPathComponent("summary.json"))
            guard let shardText = summary["shard"]?.string, let shard = ShardSpec(shardText),
                let runID = summary["run_id"]?.string
            else {
                throw Problem(
                    message: "not the reports of a sharded run's worker (its summary.json names no shard and run id)",
                    status: .usage)
            }
            let run = try json((path as NSString).appendingPathComponent(ShardReportLines.runFile))
            guard run["run_id"]?.string == runID, run["shard"]?.string == shardText else {
                throw Problem(
                    message: "\(ShardReportLines.runFile) and summary.json name different runs", status: .usage)
            }
            return ShardFolder(path: path, shard: shard, runID: runID, summary: summary, run: run)
        }
    }

    /// Why the folders are not every shard of one run, each once; nil when they are.
    private static func wholeRun(_ folders: [ShardFolder]) -> String? {
        guard let first = folders.first else { return "no folders" }
        let runs = Set(folders.map(\.runID))
        guard runs.count == 1 else {
            return "the folders are of different runs: \(runs.sorted().joined(separator: ", "))"
        }
        let counts = Set(folders.map(\.shard.count))
        guard counts.count == 1 else {
            return "the folders split run \(first.runID) differently: N = \(counts.sorted())"
        }
        var seen: [Int: String] = [:]
        for f in folders {
            if let other = seen[f.shard.index] {
                return "shard \(f.shard) of run \(first.runID) is both \(other) and \(f.path)"
            }
            seen[f.shard.index] = f.path
        }
        let missing = (1...first.shard.count).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            return
                "run \(first.runID) has \(first.shard.count) shards; missing: \(missing.map(String.init).joined(separator: ", "))"
        }
        let rules = Set(folders.map { $0.summary["rules_sha256"]?.string ?? "" })
        guard rules.count == 1 else { return "the shards of run \(first.runID) were screened with different Rules" }
        return nil
    }

    /// The reports of every shard in the night's order, through one writer; the summary.
    private static func merge(_ folders: [ShardFolder], into outDir: String) throws -> RunSummary {
        let writer = try ReportWriter(directory: outDir, keepsReported: false)
        do {
            var streams: [ShardReportStream] = []
            for f in folders {
                streams.append(
                    try ShardReportStream((f.path as NSString).appendingPathComponent(ShardReportLines.reportsFile)))
            }
            // The next report of each shard; the smallest key goes first.
            var heads = try streams.map { try $0.next() }
            while true {
                var best: Int?
                for k in heads.indices {
                    guard let h = heads[k] else { continue }
                    if best.map({ h.key < (heads[$0]?.key ?? .max) }) ?? true { best = k }
                }
                guard let k = best, let head = heads[k] else { break }
                try writer.append(head.formatted, of: head.report)
                heads[k] = try streams[k].next()
            }
            let summary = try summarize(folders, tally: writer.tally)
            let legend = RuleLegend(sentences: pairs(folders[0].run["legend"]))
            try writer.prepare(summary: summary, legend: legend)
            try writer.publish()
            return summary
        } catch {
            writer.abandon()
            throw error
        }
    }

    private static func pairs(_ value: JSONValue?) -> [(String, String)] {
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
    private static func summarize(_ folders: [ShardFolder], tally: Tally) throws(Problem) -> RunSummary {
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
        var inputs: [InputRecord] = []
        if case .array(let list)? = first["inputs"] {
            for i in list {
                guard let o = i.object, let path = o["path"]?.string else { continue }
                inputs.append(InputRecord(path: path, sha256: o["sha256"]?.string ?? "", records: int(o, "records")))
            }
        }
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
        return summary
    }
}

/// One shard's `shard-reports.jsonl`, a report at a time (memory stays flat). Its lines
/// are parsed and formatted a batch ahead on a thread of their own: one per shard, beside
/// the one writing the merged reports.
private final class ShardReportStream {
    typealias Item = (key: Int64, report: OrderReport, formatted: ReportWriter.Formatted)
    private let ahead: ReadAhead<[Item]>
    private var batch: [Item] = []
    private var index = 0

    init(_ path: String) throws(MergeCommand.Problem) {
        let lines: LogLineReader
        do {
            lines = try LogLineReader(path: path)
        } catch {
            throw MergeCommand.Problem(message: "cannot read \(path): \(error.reason)", status: .unreadableInput)
        }
        // Only the reading thread touches the reader.
        nonisolated(unsafe) let reader = lines
        ahead = ReadAhead(depth: 4) { () throws(InputError) -> [Item]? in
            var out: [Item] = []
            out.reserveCapacity(256)
            while out.count < 256, let (key, report) = try Self.report(reader) {
                out.append((key, report, ReportWriter.format(report)))
            }
            return out.isEmpty ? nil : out
        }
    }

    func next() throws(MergeCommand.Problem) -> Item? {
        if index == batch.count {
            do {
                guard let next = try ahead.next() else { return nil }
                (batch, index) = (next, 0)
            } catch {
                throw MergeCommand.Problem(message: error.reason, status: .unreadableInput)
            }
        }
        defer { index += 1 }
        return batch[index]
    }

    /// The next line's report; a line that is none ends the merge (its whole message in the reason).
    private static func report(_ lines: LogLineReader) throws(InputError) -> (key: Int64, report: OrderReport)? {
        let line: LogLineReader.Line?
        do {
            line = try lines.next()
        } catch {
            throw InputError(path: lines.path, reason: "cannot read \(lines.path): \(error.reason)")
        }
        guard let line else { return nil }
        guard !line.tooLong, let object = try? JSONParser.parse(line.bytes, limits: .standard).object,
            let r = OrderReportLine.report(object)
        else {
            throw InputError(path: lines.path, reason: "\(lines.path):\(line.number): not a report a shard writes")
        }
        return r
    }
}
