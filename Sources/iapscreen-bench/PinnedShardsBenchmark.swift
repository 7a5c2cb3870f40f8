import Foundation

/// `shards-pinned N`: two hosts, simulated by pinning each process to a core of its own
/// (`taskset`): one unsharded run on core 0; `--shard 1/2` on core 0 and `--shard 2/2` on
/// core 1 started at once, then `merge` on core 0, first with every dump given to both, then
/// with each worker given its own shard's dumps (`--split-dumps`); each run on a fresh
/// PostgreSQL ledger. Twice, the second time sharded first (this machine's speed drifts). The
/// speed-up is the unsharded run's wall time over the slower worker's plus merge's; each
/// worker's phases and peak RSS beside the unsharded run's.
func runPinnedShardsBenchmark(orders: Int, say: (String) -> Void) {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let bench = ShardBench(orders: orders, &lines) else { return }
    defer { bench.cleanUp() }
    guard let split = bench.splitDumps(count: 2, &lines) else { return }
    lines.append(
        "shards-pinned: \(orders) orders (\(bench.world.gzippedBytes / 1_000_000) MB gzipped), every signature "
            + "verified, each process pinned to one core, a fresh PostgreSQL ledger each run")
    func pinned(_ core: Int, _ args: [String]) -> (String, [String]) {
        ("/usr/bin/taskset", ["-c", String(core), bench.tool] + args)
    }
    func unsharded(_ round: Int) -> CapturedRun? {
        guard let db = bench.database("one\(round)") else { return nil }
        return spawnCapturing([pinned(0, bench.arguments(out: "one\(round)", ledger: db))], bench.scratch).first
    }
    func sharded(_ round: Int, splitDumps: Bool) -> (workers: [CapturedRun], merge: CapturedRun)? {
        let name = splitDumps ? "split\(round)" : "two\(round)"
        guard let db = bench.database(name) else { return nil }
        let outs = (1...2).map { "\(name)-\($0)" }
        let workers = spawnCapturing(
            (1...2).map { i in
                pinned(
                    i - 1,
                    splitDumps
                        ? bench.splitArguments(
                            out: outs[i - 1], ledger: db, split: split, shard: i, of: 2, runID: "pinned-\(name)")
                        : bench.arguments(out: outs[i - 1], ledger: db) + [
                            "--shard", "\(i)/2", "--run-id", "pinned-\(name)",
                        ])
            }, bench.scratch)
        let merge = spawnCapturing(
            [
                pinned(
                    0,
                    ["merge", "--quiet", "--out", bench.scratch + "/merged-\(name)"]
                        + outs.map { bench.scratch + "/" + $0 })
            ],
            bench.scratch)
        guard let merged = merge.first else { return nil }
        return (workers, merged)
    }
    for round in 1...2 {
        var one: CapturedRun?
        var two: [(String, (workers: [CapturedRun], merge: CapturedRun)?)] = []
        if round == 1 { one = unsharded(round) }
        for splitDumps in [false, true] {
            two.append((splitDumps ? "own dumps" : "every dump", sharded(round, splitDumps: splitDumps)))
        }
        if round == 2 { one = unsharded(round) }
        guard let one else {
            lines.append("  round \(round): cannot create a database on IAPSCREEN_BENCH_POSTGRES's server")
            return
        }
        lines.append("  round \(round), one run on core 0:  " + one.summary(orders) + one.phases)
        for (label, run) in two {
            guard let run, !run.workers.isEmpty else {
                lines.append(
                    "  round \(round), \(label): cannot create a database on IAPSCREEN_BENCH_POSTGRES's server")
                return
            }
            for (k, w) in run.workers.enumerated() {
                lines.append("  round \(round), \(label), shard \(k + 1)/2 on core \(k):  " + w.summary(nil) + w.phases)
            }
            lines.append("  round \(round), \(label), merge on core 0:  " + run.merge.summary(nil))
            let slowest = run.workers.map(\.wall).max() ?? 0
            let largest = run.workers.map(\.run.maxRSSKiB).max() ?? 0
            lines.append(
                "  round \(round), \(label): "
                    + String(
                        format:
                            "2 pinned workers + merge %.2f s wall, %.2f CPU-s: %.2f× one pinned run; "
                            + "the larger worker's peak RSS %.0f%% of the run's",
                        slowest + run.merge.wall, run.workers.map(\.cpu).reduce(0, +) + run.merge.cpu,
                        one.wall / max(slowest + run.merge.wall, 1e-9),
                        Double(largest) / Double(max(one.run.maxRSSKiB, 1)) * 100))
        }
    }
}
