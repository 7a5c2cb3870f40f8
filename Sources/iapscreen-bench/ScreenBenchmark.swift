import Foundation
import IAPBasics

#if canImport(Glibc)
    import Glibc
#endif

/// End to end: `iapscreen samples` writes a gzipped world of `orders` orders (cached in
/// /tmp by size), then `iapscreen screen` screens it; wall time, the child's CPU time and peak RSS.
func runScreenBenchmark(orders: Int, jobs: Int?) -> [String] {
    var lines: [String] = []
    guard let tool = iapscreenTool(&lines) else { return lines }
    guard let world = benchWorld(orders: orders, tool: tool, lines: &lines) else { return lines }
    var args = world.screenArguments(out: world.directory + "/report")
    if let jobs { args += ["--jobs", String(jobs)] }
    let t0 = SystemClock.monotonicSeconds()
    let r = spawn(tool, args)
    let seconds = SystemClock.monotonicSeconds() - t0
    lines.append("screen: \(orders) orders, \(world.gzippedBytes / 1_000_000) MB gzipped, exit \(r.status)")
    lines.append(
        "  \(format2(seconds)) s wall, \(format2(r.cpuSeconds)) CPU-s, \(Int(Double(orders) / seconds)) orders/s, "
            + "peak RSS \(r.maxRSSKiB / 1024) MiB (\(r.maxRSSKiB * 1024 / max(orders, 1)) bytes/order)")
    return lines
}

/// The world `screen` benchmarks: `iapscreen samples` writes it once (seed 1, mostly StoreKit 2
/// so that millions of orders take minutes), cached in /tmp by size.
struct BenchWorld {
    let directory: String
    let orders: Int

    init(orders: Int) {
        self.orders = orders
        directory = NSTemporaryDirectory() + "iapscreen-bench-world-\(orders)"
    }

    static let orderDumps = ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz"]
    static let receiptDump = "receipts-appstore.csv.gz"

    /// How `samples` is asked for it; written into the cache when it is whole, so a world made
    /// another way (or cut short) is made again.
    var samplesArguments: [String] {
        ["samples", "--out", directory, "--orders", String(orders), "--seed", "1", "--mix", "storekit2"]
    }

    var stamp: String { directory + "/bench-world.txt" }

    var isCached: Bool {
        (try? String(contentsOfFile: stamp, encoding: .utf8)) == samplesArguments.dropFirst(3).joined(separator: " ")
    }

    var gzippedBytes: Int {
        (Self.orderDumps + [Self.receiptDump]).map { fileSize(directory + "/" + $0) }.reduce(0, +)
    }

    /// `iapscreen screen` on the whole world, reports in `out`, no ledger, no progress.
    func screenArguments(out: String) -> [String] {
        ["screen", "--rules", directory + "/Rules", "--orders"] + Self.orderDumps.map { directory + "/" + $0 }
            + ["--receipts", directory + "/" + Self.receiptDump, "--out", out, "--ledger", "none", "--quiet"]
    }
}

/// The cached world of `orders` orders, generated first if it is not there yet (a line says so).
func benchWorld(orders: Int, tool: String, lines: inout [String]) -> BenchWorld? {
    let world = BenchWorld(orders: orders)
    if !world.isCached {
        try? FileManager.default.removeItem(atPath: world.directory)
        let t0 = SystemClock.monotonicSeconds()
        let r = spawn(tool, world.samplesArguments)
        let seconds = SystemClock.monotonicSeconds() - t0
        guard r.status == 0 else {
            lines.append("samples failed (exit \(r.status)) writing \(world.directory)")
            return nil
        }
        let written = FileManager.default.createFile(
            atPath: world.stamp, contents: Data(world.samplesArguments.dropFirst(3).joined(separator: " ").utf8))
        lines.append(
            "world: \(orders) orders generated in \(format2(seconds)) s, \(format2(r.cpuSeconds)) CPU-s, peak RSS "
                + "\(r.maxRSSKiB / 1024) MiB (cached in \(world.directory)\(written ? "" : "; cannot write its stamp"))"
        )
    }
    return world
}

func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// `iapscreen` beside this executable; nil (and a line saying so) when it was not built.
func iapscreenTool(_ lines: inout [String]) -> String? {
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "iapscreen"
    ).path
    guard FileManager.default.isExecutableFile(atPath: tool) else {
        lines.append("build iapscreen first: \(tool) is missing")
        return nil
    }
    return tool
}

/// Runs a child and returns its exit status, peak resident set size and CPU time (user and
/// system, all its threads, from `wait4`'s rusage). The peak is at least this process's RSS
/// when it spawned the child (Linux keeps the high-water mark of the memory it execs from):
/// spawn from a small process to measure a small child.
func spawn(_ path: String, _ args: [String]) -> (status: Int32, maxRSSKiB: Int, cpuSeconds: Double) {
    var pid: pid_t = 0
    let argv = ([path] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    guard posix_spawn(&pid, path, nil, nil, argv, environ) == 0 else { return (-1, 0, 0) }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return ((status >> 8) & 0xFF, usage.ru_maxrss, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}
