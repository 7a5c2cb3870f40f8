import Foundation
import JSONText
import Ledger
import Testing

/// What a cron job's operators read (docs/monitoring.md): the metrics file their monitoring
/// scrapes, and the progress line a person watching a run in a terminal sees.
@Suite("What cron's monitoring reads", .serialized)
struct CronMonitoringTests {
    /// Debian's python3 with python3-prometheus-client, which scripts/install-deps.sh --test-tools installs.
    static let python = "/usr/bin/python3"
    static var parserUsable: Bool {
        Chromium.onCI || (try? Tool.runProgram(python, ["-c", "import prometheus_client"]).status) == 0
    }

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The file as prometheus_client's parser reads it: sample ("name{labels}") -> value, and each family's type.
    static func parsed(_ file: String) throws -> (samples: [String: Double?], types: [String: String]) {
        let r = try Tool.runProgram(python, [repository + "/scripts/parse-metrics.py", file])
        try #require(r.status == 0, "the parser refused \(file): \(r.stderr)")
        let json = try #require(try JSONParser.parse(r.stdout).object)
        var samples: [String: Double?] = [:]
        for (k, v) in json["samples"]?.object?.members ?? [] { samples[k] = v.scalarText.flatMap(Double.init) }
        var types: [String: String] = [:]
        for (k, v) in json["types"]?.object?.members ?? [] { types[k] = v.string }
        return (samples, types)
    }

    func night(_ s: Scratch) throws -> [String] {
        try s.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumable,0.99,USD\n")
        try s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,platform,currency,created_at
            O-1,u1,gems,ios,EUR,2024-03-01T10:00:00Z
            O-2,u2,gems,ios,,2024-03-01T10:00:00Z
            O-3,,gems,ios,,2024-03-01T10:00:00Z

            """)
        return [
            "screen", "--rules", s.file("Rules"), "--orders", s.file("orders.csv"), "--out", s.file("out"),
            "--ledger", "none", "--metrics", s.file("textfile/iapscreen.prom"),
        ]
    }

    @Test(
        "--metrics: a done run (exit 0 or 1) writes every figure, in a file Prometheus' own parser reads",
        .enabled(if: parserUsable, "python3-prometheus-client is not installed; not on CI, so skipped"))
    func metricsOfADoneRun() throws {
        let s = try Scratch()
        try FileManager.default.createDirectory(atPath: s.file("textfile"), withIntermediateDirectories: true)
        let args = try night(s)
        for (extra, status) in [([String](), Int32(0)), (["--fail-on", "medium"], Int32(1))] {
            let before = Date().timeIntervalSince1970
            let r = try Tool.run(args + extra)
            let after = Date().timeIntervalSince1970
            #expect(r.status == status, "\(r.stderr)")
            let (m, types) = try Self.parsed(s.file("textfile/iapscreen.prom"))
            #expect(m["iapscreen_exit_status"] == Double(status))
            #expect(m["iapscreen_orders"] == 2)
            #expect(m["iapscreen_flagged_orders"] == 2)
            #expect(m["iapscreen_malformed_records"] == 1)
            #expect(m["iapscreen_findings{rule=\"missing-receipt\",severity=\"medium\"}"] == 2)
            #expect(m["iapscreen_findings{rule=\"malformed-record\",severity=\"low\"}"] == 1)
            #expect(m["iapscreen_at_risk{currency=\"EUR\"}"] == 0.99)
            #expect(m["iapscreen_at_risk{currency=\"USD\"}"] == 0.99)
            // Within the run as this test saw it, however long it took (a second either side for
            // the clocks' rounding).
            let last = try #require(m["iapscreen_last_run_timestamp_seconds"] ?? nil)
            #expect(last >= before - 1 && last <= after + 1, "\(before) ≤ \(last) ≤ \(after)")
            #expect(m["iapscreen_last_success_timestamp_seconds"] == last)
            let duration = try #require(m["iapscreen_last_run_duration_seconds"] ?? nil)
            #expect(duration >= 0 && duration <= after - before + 1, "\(duration) s of \(after - before) s")
            #expect(types.values.allSatisfy { $0 == "gauge" })
            #expect(m.keys.contains { $0.hasPrefix("iapscreen_store_events") } == false, "no events were read")
        }
        // Written under a temporary name and renamed: nothing else is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("textfile")) == ["iapscreen.prom"])
    }

    @Test(
        "--metrics: a failed run (exit 3 or 4) writes its exit status and time alone, and keeps the last success",
        .enabled(if: parserUsable, "python3-prometheus-client is not installed; not on CI, so skipped"))
    func metricsOfAFailedRun() throws {
        let s = try Scratch()
        try FileManager.default.createDirectory(atPath: s.file("textfile"), withIntermediateDirectories: true)
        var args = try night(s)
        #expect(try Tool.run(args).status == 0)
        let success = try #require(
            try Self.parsed(s.file("textfile/iapscreen.prom")).samples["iapscreen_last_success_timestamp_seconds"]
                ?? nil)

        var unreadable = args
        unreadable[unreadable.firstIndex(of: s.file("orders.csv")) ?? 0] = s.file("missing.csv")
        #expect(try Tool.run(unreadable).status == 3)
        var m = try Self.parsed(s.file("textfile/iapscreen.prom")).samples
        #expect(m["iapscreen_exit_status"] == 3)
        #expect(m["iapscreen_orders"] == nil, "a failed night must not repeat the last night's figures")
        #expect(m["iapscreen_last_success_timestamp_seconds"] == success)
        #expect(
            Set(m.keys) == [
                "iapscreen_exit_status", "iapscreen_last_run_timestamp_seconds",
                "iapscreen_last_run_duration_seconds", "iapscreen_last_success_timestamp_seconds",
            ])
        #expect(!FileManager.default.fileExists(atPath: s.file("out/findings.jsonl.partial")))

        let ledger = s.file("l.sqlite")
        args[args.firstIndex(of: "none") ?? 0] = "sqlite:" + ledger
        let held = try LedgerLock(ledgerPath: ledger)
        #expect(try Tool.run(args).status == 4)
        m = try Self.parsed(s.file("textfile/iapscreen.prom")).samples
        #expect(m["iapscreen_exit_status"] == 4)
        #expect(m["iapscreen_flagged_orders"] == nil)
        #expect(m["iapscreen_last_success_timestamp_seconds"] == success)
        _ = held

        // Bad usage never started a run: the file stays as it was.
        let before = try s.read("textfile/iapscreen.prom")
        #expect(try Tool.run(args + ["--jobs", "0"]).status == 2)
        #expect(try s.read("textfile/iapscreen.prom") == before)
    }

    @Test("a metrics file that cannot be written is reported, and the run's own status stands")
    func metricsUnwritable() throws {
        let s = try Scratch()
        var args = try night(s)
        args[args.count - 1] = s.file("no-such-dir/iapscreen.prom")
        let r = try Tool.run(args)
        #expect(r.status == 0)
        #expect(r.stderr.contains("cannot write the metrics to \(s.file("no-such-dir/iapscreen.prom"))"))
        #expect(FileManager.default.fileExists(atPath: s.file("out/summary.json")))
    }

    @Test(
        "on a terminal screen and reconcile draw a progress line (percent of bytes, orders, orders/s) that the summary replaces; piped, or with --quiet, none",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux's script is not installed")
    )
    func progressOnATerminal() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let screen = world.screenArguments(out: s.file("out"))
        let onTTY = try Tool.inTerminal(screen)
        #expect(onTTY.contains("% of "), "\(onTTY)")
        #expect(onTTY.contains(" orders/s"))
        #expect(onTTY.contains("\r\u{1B}[K"))
        // The line is cleared before the summary is printed.
        #expect(onTTY.contains("\r\u{1B}[Kiapscreen: "))

        let piped = try Tool.run(screen)
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\r"))
        #expect(!piped.stderr.contains("\u{1B}"))
        #expect(piped.stderr.hasPrefix("iapscreen: "))

        #expect(try Tool.inTerminal(screen + ["--quiet"]).filter { $0 == "\r" || $0 == "\u{1B}" }.isEmpty)

        let reports = try FileManager.default.contentsOfDirectory(atPath: world.path + "/store-reports").sorted()
            .map { world.path + "/store-reports/" + $0 }
        let reconcile = try Tool.inTerminal(
            ["reconcile", "--rules", world.path + "/Rules", "--orders"] + world.orders
                + ["--receipts", world.receipts, "--store-report"] + reports + ["--out", s.file("rec")])
        #expect(reconcile.contains("% of "), "\(reconcile)")
        #expect(reconcile.contains("\r\u{1B}[Kiapscreen reconcile: "))
    }
}
