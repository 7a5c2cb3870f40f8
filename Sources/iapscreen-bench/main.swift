// Benchmarks that print numbers (run with `swift run -c release iapscreen-bench <what>`).
// Speed is measured here, never by timed tests.

let args = Array(CommandLine.arguments.dropFirst())
let what = args.first ?? "help"
let size = args.dropFirst().first.flatMap { Int($0) }

switch what {
case "dumps":
    for line in runDumpBenchmark(megabytes: size ?? 200) { print(line) }
default:
    print("""
    usage: iapscreen-bench <benchmark> [size]
      dumps [MB]    read CSV / JSON Lines / XML dumps, plain and gzipped (default 200 MB)
    """)
}
