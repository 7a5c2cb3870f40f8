import Foundation

/// `backtest N`: the screen world of N orders, every signature verified, `--ledger none`:
/// one `screen`, then a `backtest` of a candidate Rules directory against the world's
/// (a tightened proof age, a custom rule, a rule off), back to back, twice. The backtest
/// shares decoding and verification between its two Rules directories, so it should take
/// far less than two screens.
func runBacktestBenchmark(orders: Int, say: (String) -> Void) {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let tool = iapscreenTool(&lines), let world = benchWorld(orders: orders, tool: tool, lines: &lines) else {
        return
    }
    let candidate = world.directory + "/Rules-candidate"
    do {
        try? FileManager.default.removeItem(atPath: candidate)
        try FileManager.default.copyItem(atPath: world.directory + "/Rules", toPath: candidate)
        try """
        rule expired-validity severity medium grace_days 1 max_proof_age_days 7
        rule purchase-not-completed off
        exempt reviewers from sandbox-in-production
        flag medium night-whale if order.hour in [3, 4] and order.amount >= 9.99 say "large purchase at night"

        """.write(toFile: candidate + "/default.rules", atomically: true, encoding: .utf8)
    } catch {
        lines.append("backtest: cannot write the candidate Rules in \(candidate): \(error)")
        return
    }
    let screen = world.screenArguments(out: world.directory + "/report")
    var backtest = screen
    backtest[0] = "backtest"
    if let i = backtest.firstIndex(of: "--rules"), i + 1 < backtest.count {
        backtest[i + 1] = candidate
        backtest += ["--baseline", world.directory + "/Rules"]
    }
    if let i = backtest.firstIndex(of: "--out"), i + 1 < backtest.count {
        backtest[i + 1] = world.directory + "/backtest"
    }
    lines.append(
        "backtest: \(orders) orders (\(world.gzippedBytes / 1_000_000) MB gzipped), every signature verified, --ledger none"
    )
    for round in 1...2 {
        let one = timedScreen(tool, screen)
        let both = timedScreen(tool, backtest)
        lines.append("  round \(round): screen   " + one.line(orders: orders, events: nil))
        lines.append(
            "           backtest " + both.line(orders: orders, events: nil)
                + String(format: "  (%.2f× the screen's wall, %.2f× its CPU)", both.wall / one.wall, both.cpu / one.cpu)
        )
    }
}
