import Foundation

/// `shards-pinned N`: two hosts, simulated by pinning each process to a core of its own
/// (`taskset`): one unsharded run on core 0; `--shard 1/2` on core 0 and `--shard 2/2` on
/// core 1 started at once, then `merge` on core 0; each run on a fresh PostgreSQL ledger. Twice,
/// the second time sharded first (this machine's speed drifts). The speed-up is the unsharded
/// run's wall time over the slower worker's plus merge's; each worker's phases and peak RSS
/// beside the unsharded run's.
func runPinnedShardsBenchmark(orders: Int, say: (String) -> Void) {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let bench = ShardBench(orders: orders, &lines) else { return }
    defer { bench.cleanUp() }
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
    func sharded(_ round: Int) -> (workers: [CapturedRun], merge: CapturedRun)? {
        guard let db = bench.database("two\(round)") else { return nil }
        let outs = (1...2).map { "shard\(round)-\($0)" }
        let workers = spawnCapturing(
            (1...2).map { i in
                pinned(
                    i - 1,
                    bench.arguments(out: outs[i - 1], ledger: db) + [
                        "--shard", "\(i)/2", "--run-id", "pinned-\(round)",
                    ])
            }, bench.scratch)
        let merge = spawnCapturing(
            [
                pinned(
                    0,
                    ["merge", "--quiet", "--out", bench.scratch + "/merged\(round)"]
                        + outs.map { bench.scratch + "/" + $0 })
            ],
            bench.scratch)
        guard let merged = merge.first else { return nil }
        return (workers, merged)
    }
    for round in 1...2 {
        let one: CapturedRun?
        let two: (workers: [CapturedRun], merge: CapturedRun)?
        if round == 1 {
            one = unsharded(round)
            two = sharded(round)
        } else {
            two = sharded(round)
            one = unsharded(round)
        }
        guard let one, let two, !two.workers.isEmpty else {
            lines.append("  round \(round): cannot create a database on IAPSCREEN_BENCH_POSTGRES's server")
            return
        }
        lines.append("  round \(round), one run on core 0:  " + one.summary(orders) + one.phases)
        for (k, w) in two.workers.enumerated() {
            lines.append("  round \(round), shard \(k + 1)/2 on core \(k):  " + w.summary(nil) + w.phases)
        }
        lines.append("  round \(round), merge on core 0:  " + two.merge.summary(nil))
        let slowest = two.workers.map(\.wall).max() ?? 0
        let largest = two.workers.map(\.run.maxRSSKiB).max() ?? 0
        lines.append(
            String(
                format:
                    "  round %d: 2 pinned workers + merge %.2f s wall, %.2f CPU-s: %.2f× one pinned run; "
                    + "the larger worker's peak RSS %.0f%% of the run's",
                round, slowest + two.merge.wall, two.workers.map(\.cpu).reduce(0, +) + two.merge.cpu,
                one.wall / max(slowest + two.merge.wall, 1e-9),
                Double(largest) / Double(max(one.run.maxRSSKiB, 1)) * 100))
    }
}
