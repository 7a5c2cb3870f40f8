import Foundation
import IAPBasics
import Night
import Reporting

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
        positional: PositionalSpec(
            "SHARD_OUT...", "The --out folder of every shard of the run.", max: ShardSpec.maxCount, required: true),
        details: """
            Each folder is the --out of one `screen --shard I/N --run-id ID`; together they must
            hold every shard 1…N of one run id, each once. Writes findings.jsonl, flagged.csv,
            summary.json and report.html into --out, each under a temporary name first.
            Exit status: 0 done; 2 bad usage or a set of folders that is not one whole run;
            3 a folder cannot be read or the reports cannot be written.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let outDir = args.one("--out") ?? "iapscreen-report"
        let paths = args.positionals
        guard !paths.isEmpty else {
            io.usageError(command: spec, "merge needs the --out folder of every shard of the run")
            return .usage
        }
        var folders: [ShardFolder] = []
        for path in paths {
            switch ShardFolder.read(path) {
            case .success(let f): folders.append(f)
            case .failure(let problem):
                io.error("iapscreen merge: \(path): \(problem.message); nothing written")
                return problem.status
            }
        }
        if let refusal = ShardFolder.wholeRun(folders) {
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

    /// The reports of every shard in the night's order, through one writer; the summary.
    private static func merge(_ folders: [ShardFolder], into outDir: String) throws -> RunSummary {
        let writer = try ReportWriter(directory: outDir, keepsReported: false)
        do {
            let streams = try folders.map { f in
                try ShardReportStream((f.path as NSString).appendingPathComponent(ShardReportLines.reportsFile))
            }
            try KeyedMerge.run(
                parts: streams.count, key: \.key, next: { try streams[$0].next() },
                emit: { try writer.append($0.formatted, of: $0.report) })
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
}
