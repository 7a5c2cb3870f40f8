import Foundation
import IAPBasics
import JSONText

#if canImport(Glibc)
    import Glibc
#endif

/// `events N [ORDERS]`: the world of `screen`'s benchmark (ORDERS orders, default 10 N up to
/// 10^6), screened with a log of N store events and then without it, back to back, so the two
/// compare: what the events add in wall time, CPU time and peak memory.
func runEventsBenchmark(events: Int, orders: Int?, say: (String) -> Void) {
    guard let (tool, log) = prepareEventLog(events: events, orders: orders, say: say) else { return }
    let world = log.world
    say(
        "events: \(world.orders) orders (\(world.gzippedBytes / 1_000_000) MB gzipped) and \(events) store events "
            + "(\(fileSize(log.path) / 1_000_000) MB gzipped), screened with the events, then without, back to back")
    let withEvents = timedScreen(
        tool, world.screenArguments(out: log.directory + "/report-events") + ["--store-events", log.path])
    say("  with events:    " + withEvents.line(orders: world.orders, events: events))
    let without = timedScreen(tool, world.screenArguments(out: log.directory + "/report-plain"))
    say("  without events: " + without.line(orders: world.orders, events: nil))
    let extra = withEvents.wall - without.wall
    let extraRSS = (withEvents.maxRSSKiB - without.maxRSSKiB) * 1024
    say(
        "  the events add \(format2(extra)) s wall (\(percent(extra / without.wall))), \(format2(withEvents.cpu - without.cpu)) CPU-s, "
            + "\(extra > 0 ? "\(Int(Double(events) / extra)) events/s at the margin" : "no measurable time")"
            + "; peak RSS \(extraRSS >= 0 ? "+" : "")\(extraRSS / 1_048_576) MiB (\(extraRSS / max(events, 1)) bytes an event)"
    )
    say(
        "  "
            + storeEventsLine(
                log.directory + "/report-events/summary.json", without: log.directory + "/report-plain/summary.json"))
}

/// `events-only N [ORDERS]`: the same log of N store events with an orders dump of one
/// order, so what is timed is reading, verifying and matching the events.
func runEventsOnlyBenchmark(events: Int, orders: Int?, say: (String) -> Void) {
    guard let (tool, log) = prepareEventLog(events: events, orders: orders, say: say) else { return }
    let dump = log.directory + "/orders-one.csv"
    do {
        try Data(
            ("order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at\n"
                + "ORD-EVENTS-ONLY,user-1,gems_100,android,GPA.0000-0000-0000-00000,0.99,USD,credited,2024-03-01T00:00:00Z\n")
                .utf8
        )
        .write(to: URL(fileURLWithPath: dump))
    } catch {
        say("cannot write \(dump): \(error)")
        return
    }
    func arguments(_ out: String) -> [String] {
        [
            "screen", "--rules", log.world.directory + "/Rules", "--orders", dump, "--out", log.directory + "/" + out,
            "--ledger", "none", "--quiet",
        ]
    }
    say("events-only: \(events) store events (\(fileSize(log.path) / 1_000_000) MB gzipped) and one order")
    let baseline = timedScreen(tool, arguments("report-one-order"))
    let run = timedScreen(tool, arguments("report-events-only") + ["--store-events", log.path])
    let extraRSS = (run.maxRSSKiB - baseline.maxRSSKiB) * 1024
    say("  " + run.line(orders: nil, events: events))
    say(
        "  the order alone: \(format2(baseline.wall)) s wall, peak RSS \(baseline.maxRSSKiB / 1024) MiB; "
            + "the events: \(extraRSS / max(events, 1)) bytes an event of peak RSS")
    say("  " + storeEventsLine(log.directory + "/report-events-only/summary.json"))
}

/// The tool, the world (generated if need be) and the log (written if need be, by a child:
/// a child's peak RSS as `wait4` reports it starts from the RSS of the process that spawned
/// it, so this one stays small).
private func prepareEventLog(events: Int, orders: Int?, say: (String) -> Void) -> (String, StoreEventLog)? {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let tool = iapscreenTool(&lines),
        let world = benchWorld(orders: orders ?? min(10 * events, 1_000_000), tool: tool, lines: &lines)
    else { return nil }
    lines.forEach(say)
    lines = []
    let log = StoreEventLog(events: events, world: world)
    if let cached = log.cached() {
        lines = cached + ["  (cached in \(log.directory))"]
        return (tool, log)
    }
    say("writing \(events) store events for the world in \(world.directory) …")
    let r = spawn(CommandLine.arguments[0], ["events-log", String(events), String(world.orders)])
    guard r.status == 0, log.cached() != nil else {
        lines = ["the store-event log was not written (exit \(r.status))"]
        return nil
    }
    return (tool, log)
}

/// `events-log N ORDERS` (what `events` and `events-only` run when the log is not cached):
/// writes the log of N store events for the cached world of ORDERS orders; false if it could not.
func writeEventLog(events: Int, orders: Int, say: (String) -> Void) -> Bool {
    let world = BenchWorld(orders: orders)
    do {
        try StoreEventLog(events: events, world: world).write().forEach(say)
        return true
    } catch {
        say("cannot write the store-event log for \(world.directory): \(error)")
        return false
    }
}

struct TimedRun {
    var wall: Double
    var cpu: Double
    var maxRSSKiB: Int
    var status: Int32

    func line(orders: Int?, events: Int?) -> String {
        var rates: [String] = []
        if let orders { rates.append("\(Int(Double(orders) / wall)) orders/s") }
        if let events { rates.append("\(Int(Double(events) / wall)) events/s") }
        return
            (["\(format2(wall)) s wall", "\(format2(cpu)) CPU-s"] + rates + [
                "peak RSS \(maxRSSKiB / 1024) MiB", "exit \(status)",
            ])
            .joined(separator: ", ")
    }
}

func timedScreen(_ tool: String, _ args: [String]) -> TimedRun {
    let t0 = SystemClock.monotonicSeconds()
    let r = spawn(tool, args)
    return TimedRun(
        wall: SystemClock.monotonicSeconds() - t0, cpu: r.cpuSeconds, maxRSSKiB: r.maxRSSKiB, status: r.status)
}

private func percent(_ x: Double) -> String {
    (x >= 0 ? "+" : "") + String(format: "%.1f%%", x * 100)
}

/// summary.json's `store_events`, and the findings of the rules events raise (beside the
/// same run without events, when there is one).
private func storeEventsLine(_ summaryPath: String, without baselinePath: String? = nil) -> String {
    func read(_ path: String) -> JSONObject? {
        FileManager.default.contents(atPath: path).flatMap { (try? JSONParser.parse([UInt8]($0)))?.object }
    }
    guard let summary = read(summaryPath), let events = summary["store_events"]?.object else {
        return "no store_events in \(summaryPath)"
    }
    func count(_ o: JSONObject?, _ key: String) -> String { String(o?[key]?.int64 ?? 0) }
    let counts = ["read", "distinct", "refunds", "reversals", "matched", "unmatched", "invalid"].map {
        "\($0) \(count(events, $0))"
    }
    let byRule = summary["by_rule"]?.object
    let baseline = baselinePath.flatMap(read)?["by_rule"]?.object
    let findings = ["refunded-after-credit", "revoked", "store-event-invalid", "malformed-record"].map { rule in
        "\(rule) \(count(byRule, rule))" + (baselinePath == nil ? "" : " (\(count(baseline, rule)) without)")
    }
    return "store_events: " + counts.joined(separator: ", ") + "; findings: " + findings.joined(separator: ", ")
}
