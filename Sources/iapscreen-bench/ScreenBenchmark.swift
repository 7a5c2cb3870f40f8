#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// End to end: `iapscreen samples` writes a gzipped world of `orders` orders (cached in
/// /tmp by size), then `iapscreen screen` screens it; wall time and the child's peak RSS.
func runScreenBenchmark(orders: Int, jobs: Int?) -> [String] {
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapscreen").path
    guard FileManager.default.isExecutableFile(atPath: tool) else { return ["build iapscreen first: \(tool) is missing"] }
    let world = NSTemporaryDirectory() + "iapscreen-bench-world-\(orders)"
    var lines: [String] = []
    if !FileManager.default.fileExists(atPath: world + "/expected.csv") {
        let t0 = monotonicSeconds()
        let r = spawn(tool, ["samples", "--out", world, "--orders", String(orders), "--seed", "1"])
        guard r.status == 0 else { return ["samples failed"] }
        lines.append("world: \(orders) orders generated in \(format2(monotonicSeconds() - t0)) s (cached in \(world))")
    }
    let bytes = ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz", "receipts-appstore.csv.gz"]
        .map { (try? FileManager.default.attributesOfItem(atPath: world + "/" + $0)[.size] as? Int) ?? 0 }.reduce(0, +)
    var args = ["screen", "--rules", world + "/Rules", "--orders", world + "/orders-appstore.csv.gz", world + "/orders-storekit.xml.gz",
                world + "/orders-play.jsonl.gz", "--receipts", world + "/receipts-appstore.csv.gz", "--out", world + "/report",
                "--ledger", "none", "--quiet"]
    if let jobs { args += ["--jobs", String(jobs)] }
    let t0 = monotonicSeconds()
    let r = spawn(tool, args)
    let seconds = monotonicSeconds() - t0
    lines.append("screen: \(orders) orders, \(bytes / 1_000_000) MB gzipped, exit \(r.status)")
    lines.append("  \(format2(seconds)) s, \(Int(Double(orders) / seconds)) orders/s, peak RSS \(r.maxRSSKiB / 1024) MiB (\(r.maxRSSKiB * 1024 / max(orders, 1)) bytes/order)")
    return lines
}

/// Runs a child and returns its exit status and peak resident set size.
func spawn(_ path: String, _ args: [String]) -> (status: Int32, maxRSSKiB: Int) {
    var pid: pid_t = 0
    let argv = ([path] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    guard posix_spawn(&pid, path, nil, nil, argv, environ) == 0 else { return (-1, 0) }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    return ((status >> 8) & 0xFF, usage.ru_maxrss)
}
