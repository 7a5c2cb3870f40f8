import Foundation
import IAPBasics
import JSONText
import Night

/// One shard's folder, as its summary and run file say.
struct ShardFolder {
    var path: String
    var shard: ShardSpec
    var runID: String
    var summary: JSONObject
    var run: JSONObject

    private static func json(_ path: String) throws(MergeCommand.Problem) -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MergeCommand.Problem(
                message: "cannot read \((path as NSString).lastPathComponent)", status: .unreadableInput)
        }
        guard let object = try? JSONParser.parse(Array(data), limits: .standard).object else {
            throw MergeCommand.Problem(
                message: "\((path as NSString).lastPathComponent) is not the JSON a shard writes", status: .usage)
        }
        return object
    }

    static func read(_ path: String) -> Result<ShardFolder, MergeCommand.Problem> {
        Result { () throws(MergeCommand.Problem) in
            let summary = try json((path as NSString).appendingPathComponent("summary.json"))
            guard let shardText = summary["shard"]?.string, let shard = ShardSpec(shardText),
                let runID = summary["run_id"]?.string
            else {
                throw MergeCommand.Problem(
                    message: "not the reports of a sharded run's worker (its summary.json names no shard and run id)",
                    status: .usage)
            }
            let run = try json((path as NSString).appendingPathComponent(ShardReportLines.runFile))
            guard run["run_id"]?.string == runID, run["shard"]?.string == shardText else {
                throw MergeCommand.Problem(
                    message: "\(ShardReportLines.runFile) and summary.json name different runs", status: .usage)
            }
            return ShardFolder(path: path, shard: shard, runID: runID, summary: summary, run: run)
        }
    }

    /// Why the folders are not every shard of one run, each once; nil when they are.
    static func wholeRun(_ folders: [ShardFolder]) -> String? {
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
        let split = Set(folders.map { $0.splitDumps != nil })
        guard split.count == 1 else {
            return
                "the shards of run \(first.runID) read their dumps differently: some their own alone (--split-dumps), "
                + "some every shard's"
        }
        return nil
    }

    /// With `--split-dumps`: how many of the summary's inputs were the shard's orders dumps,
    /// and how many its receipts dumps (they come first); nil when the worker read every dump.
    var splitDumps: (orders: Int, receipts: Int)? {
        guard case .array(let counts)? = run[ShardReportLines.splitDumpsKey], counts.count == 2,
            let o = counts[0].int64.flatMap({ Int(exactly: $0) }),
            let r = counts[1].int64.flatMap({ Int(exactly: $0) }),
            o >= 0, r >= 0
        else { return nil }
        return (o, r)
    }

    /// The inputs its summary lists.
    var inputs: [InputRecord] {
        guard case .array(let list)? = summary["inputs"] else { return [] }
        return list.compactMap { i in
            guard let o = i.object, let path = o["path"]?.string else { return nil }
            let records = o["records"]?.int64.flatMap { Int(exactly: $0) } ?? 0
            return InputRecord(path: path, sha256: o["sha256"]?.string ?? "", records: records)
        }
    }
}
