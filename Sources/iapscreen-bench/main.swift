// Benchmarks that print numbers (run with `swift run -c release iapscreen-bench <what>`).
// Speed is measured here, never by timed tests.
#if canImport(Glibc)
    import Glibc
#endif

let args = Array(CommandLine.arguments.dropFirst())
let what = args.first ?? "help"
let size = args.dropFirst().first.flatMap { Int($0) }
let second = args.dropFirst(2).first.flatMap { Int($0) }

/// A line now, not when the benchmark ends (writing a large log takes minutes).
func say(_ line: String) {
    print(line)
    fflush(nil)
}

switch what {
case "dumps":
    for line in runDumpBenchmark(megabytes: size ?? 200) { print(line) }
case "decode":
    for line in runDecodeBenchmark(receipts: size ?? 200_000) { print(line) }
case "verify":
    for line in runVerifyBenchmark(receipts: size ?? 20_000) { print(line) }
case "screen":
    for line in runScreenBenchmark(orders: size ?? 100_000, jobs: second) { print(line) }
case "reconcile":
    for line in runReconcileBenchmark(orders: size ?? 1_000_000) { print(line) }
case "report":
    for line in runReportBenchmark(findings: size ?? 100_000) { print(line) }
case "events":
    runEventsBenchmark(events: size ?? 100_000, orders: second, say: say)
case "events-only":
    runEventsOnlyBenchmark(events: size ?? 100_000, orders: second, say: say)
case "shards":
    runShardsBenchmark(orders: size ?? 1_000_000, say: say)
case "shards-pinned":
    runPinnedShardsBenchmark(orders: size ?? 200_000, say: say)
case "backtest":
    runBacktestBenchmark(orders: size ?? 1_000_000, say: say)
case "ledger":
    runLedgerBenchmark(claims: size ?? 1_000_000, say: say)
case "consumption":
    runConsumptionBenchmark(requests: size ?? 10_000, claims: second ?? 1_000_000, say: say)
case "consumption-screen":
    runConsumptionScreenBenchmark(requests: size ?? 10_000, orders: second ?? 100_000, say: say)
case "desk":
    runDeskBenchmark(orders: size ?? 100_000, clients: second ?? 50, say: say)
case "events-log":
    if !writeEventLog(events: size ?? 100_000, orders: second ?? 1_000_000, say: say) { exit(1) }
default:
    print(
        """
        usage: iapscreen-bench <benchmark> [size] [jobs or orders]
          dumps [MB]             read CSV / JSON Lines / XML dumps, plain and gzipped (default 200 MB)
          decode [N]             decode N ~10 KB app receipts, then N App Store JWS transactions, on one core (default 200000)
          verify [N]             signature checks per receipt kind, chain cache on and off (default 20000)
          screen [N] [jobs]      generate (once, cached in /tmp) and screen a world of N orders (default 100000)
          reconcile [N]          a month of Google sales rows against N orders, once and with the report twice (default 1000000)
          report [N]             a night of N findings (cached in /tmp): report.html's size, its open time in Chromium
          desk [N] [clients]     a ledger of N flagged orders (N/10, then N) served by `iapscreen desk serve`, worked by
                                 CLIENTS keep-alive reviewers (default 100000, 50): latencies, errors, verdicts kept, memory
          events [N] [orders]    a log of N store events (cached in /tmp) for the screen world of ORDERS orders (default 10 N,
                                 at most 1000000): screened with the events, then without, back to back (default 100000)
          events-only [N] [orders]  the same log of N store events with a one-order dump: events/s read, verified, matched
          shards [N]             the screen world of N orders on SQLite, PostgreSQL, and 2 shards at once then merge
                                 (IAPSCREEN_BENCH_POSTGRES=URI), each run's phases (default 1000000)
          shards-pinned [N]      two hosts simulated by pinning to a core each: one run on core 0 against shards 1/2
                                 and 2/2 on cores 0 and 1 at once then merge, given every dump, then their own
                                 (--split-dumps), twice; speed-up and peak RSS (default 200000)
          backtest [N]           the screen world of N orders: one screen, then a backtest of a changed Rules directory,
                                 back to back, twice (default 1000000)
          consumption [N] [claims]  N refund requests (signed, verified) answered against a SQLite ledger of CLAIMS
                                 claims and their users' consents, without dumps, twice (default 10000, 1000000)
          consumption-screen [N] [orders]  the screen world of ORDERS orders without and with N refund requests in
                                 its log, then the requests answered alone (default 10000, 100000)
          ledger [N]             N new claims recorded, then N keys looked up, in SQLite and (IAPSCREEN_BENCH_POSTGRES=URI)
                                 PostgreSQL (default 1000000)
        """)
}
