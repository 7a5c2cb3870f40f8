// Benchmarks that print numbers (run with `swift run -c release iapscreen-bench <what>`).
// Speed is measured here, never by timed tests.

let args = Array(CommandLine.arguments.dropFirst())
let what = args.first ?? "help"
let size = args.dropFirst().first.flatMap { Int($0) }
let jobs = args.dropFirst(2).first.flatMap { Int($0) }

switch what {
case "dumps":
    for line in runDumpBenchmark(megabytes: size ?? 200) { print(line) }
case "decode":
    for line in runDecodeBenchmark(receipts: size ?? 200_000) { print(line) }
case "verify":
    for line in runVerifyBenchmark(receipts: size ?? 20_000) { print(line) }
case "screen":
    for line in runScreenBenchmark(orders: size ?? 100_000, jobs: jobs) { print(line) }
case "reconcile":
    for line in runReconcileBenchmark(orders: size ?? 1_000_000) { print(line) }
case "report":
    for line in runReportBenchmark(findings: size ?? 100_000) { print(line) }
default:
    print("""
    usage: iapscreen-bench <benchmark> [size] [jobs]
      dumps [MB]             read CSV / JSON Lines / XML dumps, plain and gzipped (default 200 MB)
      decode [N]             decode N ~10 KB app receipts on one core (default 200000)
      verify [N]             signature checks per receipt kind, chain cache on and off (default 20000)
      screen [N] [jobs]      generate (once, cached in /tmp) and screen a world of N orders (default 100000)
      reconcile [N]          a month of Google sales rows against N orders, once and with the report twice (default 1000000)
      report [N]             a night of N findings (cached in /tmp): report.html's size, its open time in Chromium
    """)
}
