import Foundation
import IAPBasics
import PostgresClient

#if canImport(Glibc)
    import Glibc
#endif

/// `shards N`: the screen world of N orders, every signature verified, on a fresh ledger
/// each time, back to back: SQLite; PostgreSQL; PostgreSQL with 2 workers at once
/// (`--shard 1/2`, `--shard 2/2`) then `merge`. Each run's phases as `IAPSCREEN_TIMINGS`
/// prints them. PostgreSQL's server: IAPSCREEN_BENCH_POSTGRES (a superuser URI).
func runShardsBenchmark(orders: Int, say: (String) -> Void) {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let bench = ShardBench(orders: orders, &lines) else { return }
    let (tool, world, scratch) = (bench.tool, bench.world, bench.scratch)
    defer { bench.cleanUp() }
    func arguments(out: String, ledger: String) -> [String] { bench.arguments(out: out, ledger: ledger) }
    func database(_ name: String) -> String? { bench.database(name) }
    lines.append(
        "shards: \(orders) orders (\(world.gzippedBytes / 1_000_000) MB gzipped), every signature verified, "
            + "a fresh ledger each run")
    let sqlite = spawnCapturing(
        [(tool, arguments(out: "sqlite", ledger: "sqlite:" + scratch + "/ledger.sqlite"))], scratch)[0]
    lines.append("  SQLite:           " + sqlite.summary(orders) + sqlite.phases)
    guard let one = database("one"), let two = database("two") else {
        lines.append("  PostgreSQL: cannot create a database on IAPSCREEN_BENCH_POSTGRES's server")
        return
    }
    let postgres = spawnCapturing([(tool, arguments(out: "postgres", ledger: one))], scratch)[0]
    lines.append(
        "  PostgreSQL:       " + postgres.summary(orders)
            + String(
                format: " (%+.1f%% wall against SQLite)",
                (postgres.wall / sqlite.wall - 1) * 100) + postgres.phases)
    let t0 = SystemClock.monotonicSeconds()
    let shards = spawnCapturing(
        (1...2).map { i in
            (tool, arguments(out: "shard\(i)", ledger: two) + ["--shard", "\(i)/2", "--run-id", "bench-\(getpid())"])
        }, scratch)
    let merged = spawnCapturing(
        [(tool, ["merge", "--quiet", "--out", scratch + "/merged", scratch + "/shard1", scratch + "/shard2"])],
        scratch)[0]
    let all = SystemClock.monotonicSeconds() - t0
    for (k, s) in shards.enumerated() { lines.append("  shard \(k + 1)/2:        " + s.summary(nil) + s.phases) }
    lines.append("  merge:            " + merged.summary(nil))
    lines.append(
        String(
            format:
                "  2 shards + merge: %.2f s wall, %.2f CPU-s, %d orders/s (%+.1f%% wall against one PostgreSQL run)",
            all, shards.map(\.cpu).reduce(0, +) + merged.cpu, Int(Double(orders) / all), (all / postgres.wall - 1) * 100
        ))
}

/// What the shard benchmarks share: the world, a scratch folder in it, fresh databases on
/// IAPSCREEN_BENCH_POSTGRES's server (dropped at the end), and `screen`'s arguments.
struct ShardBench {
    let tool: String
    let world: BenchWorld
    let scratch: String
    private let server: String
    private var parts: URLComponents
    private let made = Made()

    private final class Made {
        var databases: [String] = []
    }

    init?(orders: Int, _ lines: inout [String]) {
        guard let tool = iapscreenTool(&lines), let world = benchWorld(orders: orders, tool: tool, lines: &lines) else {
            return nil
        }
        guard let server = ProcessInfo.processInfo.environment["IAPSCREEN_BENCH_POSTGRES"], !server.isEmpty,
            let parts = URLComponents(string: server)
        else {
            lines.append("shards: IAPSCREEN_BENCH_POSTGRES=$(scripts/postgres-test-cluster.sh start) names the server")
            return nil
        }
        self.tool = tool
        self.world = world
        self.server = server
        self.parts = parts
        scratch = world.directory + "/shards-\(getpid())"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// A fresh database's URI, nil when the server refuses.
    func database(_ name: String) -> String? {
        let db = "bench_\(name)_\(getpid())"
        guard let admin = try? PostgresConnection(uri: server),
            (try? admin.execute("DROP DATABASE IF EXISTS \(db) WITH (FORCE)")) != nil,
            (try? admin.execute("CREATE DATABASE \(db)")) != nil
        else { return nil }
        made.databases.append(db)
        var uri = parts
        uri.path = "/" + db
        return uri.string
    }

    /// `screen` on the whole world with its reports in `out` under the scratch folder.
    func arguments(out: String, ledger: String) -> [String] {
        var args = world.screenArguments(out: scratch + "/" + out)
        if let i = args.firstIndex(of: "--ledger"), i + 1 < args.count { args[i + 1] = ledger }
        return args
    }

    /// The world's dumps split into `count` shards as an export job writes them
    /// (scripts/split-dumps-by-shard.py, run once and cached beside the world); nil, and a line
    /// saying why, when they cannot be written.
    func splitDumps(count: Int, _ lines: inout [String]) -> String? {
        let dir = world.directory + "/split-\(count)"
        let stamp = dir + "/split.txt"
        if FileManager.default.fileExists(atPath: stamp) { return dir }
        try? FileManager.default.removeItem(atPath: dir)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/split-dumps-by-shard.py").path
        let t0 = SystemClock.monotonicSeconds()
        let r = spawn(
            "/usr/bin/python3",
            [script, String(count), dir]
                + (BenchWorld.orderDumps + [BenchWorld.receiptDump]).map {
                    world.directory + "/" + $0
                })
        guard r.status == 0, FileManager.default.createFile(atPath: stamp, contents: Data()) else {
            lines.append("cannot split the world's dumps by shard with \(script) (exit \(r.status))")
            return nil
        }
        lines.append(
            "world split into \(count) shards' dumps in \(format2(SystemClock.monotonicSeconds() - t0)) s (cached in \(dir))"
        )
        return dir
    }

    /// `screen --shard I/N --split-dumps` on shard I's own dumps under `split`.
    func splitArguments(out: String, ledger: String, split: String, shard i: Int, of count: Int, runID: String)
        -> [String]
    {
        ["screen", "--rules", world.directory + "/Rules", "--orders"]
            + BenchWorld.orderDumps.map { "\(split)/shard-\(i)/\($0)" }
            + ["--receipts", "\(split)/shard-\(i)/\(BenchWorld.receiptDump)", "--out", scratch + "/" + out]
            + ["--ledger", ledger, "--quiet", "--shard", "\(i)/\(count)", "--run-id", runID, "--split-dumps"]
    }

    func cleanUp() {
        for db in made.databases {
            _ = try? PostgresConnection(uri: server).execute("DROP DATABASE IF EXISTS \(db) WITH (FORCE)")
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }
}

/// A run's figures and the phases it printed.
struct CapturedRun {
    var run: TimedRun
    var timings: String

    var wall: Double { run.wall }
    var cpu: Double { run.cpu }

    func summary(_ orders: Int?) -> String { run.line(orders: orders, events: nil) }

    /// The phases line, indented under the summary.
    var phases: String { timings.isEmpty ? "" : "\n                    " + timings }
}

/// Starts every command at once (stderr to a file each, IAPSCREEN_TIMINGS set) and waits for all.
func spawnCapturing(_ commands: [(String, [String])], _ scratch: String) -> [CapturedRun] {
    setenv("IAPSCREEN_TIMINGS", "1", 1)
    defer { unsetenv("IAPSCREEN_TIMINGS") }
    var started: [(pid: pid_t, at: Double, log: String)] = []
    for (k, (path, args)) in commands.enumerated() {
        let log = scratch + "/stderr-\(k)-\(UInt32.random(in: 0...UInt32.max)).txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let t0 = SystemClock.monotonicSeconds()
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { continue }
        started.append((pid, t0, log))
    }
    // Each as it ends, so that a quick one's time is its own.
    var ended: [pid_t: (status: Int32, usage: rusage, at: Double)] = [:]
    while ended.count < started.count {
        var status: Int32 = 0
        var usage = rusage()
        let pid = wait4(-1, &status, 0, &usage)
        guard pid > 0 else { break }
        ended[pid] = (status, usage, SystemClock.monotonicSeconds())
    }
    return started.map { s in
        let end = ended[s.pid]
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        let text = (try? String(contentsOfFile: s.log, encoding: .utf8)) ?? ""
        let timings =
            text.split(separator: "\n").first { $0.hasPrefix("timings:") }.map(String.init)
            ?? text.split(separator: "\n").last.map(String.init) ?? ""
        return CapturedRun(
            run: TimedRun(
                wall: (end?.at ?? SystemClock.monotonicSeconds()) - s.at,
                cpu: end.map { seconds($0.usage.ru_utime) + seconds($0.usage.ru_stime) } ?? 0,
                maxRSSKiB: end?.usage.ru_maxrss ?? 0, status: end.map { ($0.status >> 8) & 0xFF } ?? -1),
            timings: timings)
    }
}
