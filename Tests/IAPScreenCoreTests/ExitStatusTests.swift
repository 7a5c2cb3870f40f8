import Foundation
import Ledger
import Testing

@Suite("Exit statuses a cron job relies on", .serialized)
struct ExitStatusTests {
    /// One credited order without a receipt: a single medium finding.
    func nightWithOneMissingReceipt(_ s: Scratch) throws -> [String] {
        try s.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumable,0.99,USD\n")
        try s.write(
            "orders.csv", "order_id,user_id,item_id,platform,created_at\nO-1,u1,gems,ios,2024-03-01T10:00:00Z\n")
        return [
            "screen", "--rules", s.file("Rules"), "--orders", s.file("orders.csv"), "--out", s.file("out"), "--ledger",
            "none",
        ]
    }

    @Test("--fail-on: exit 1 only when a finding reaches the threshold; without it, never")
    func failOn() throws {
        let s = try Scratch()
        let args = try nightWithOneMissingReceipt(s)
        #expect(try Tool.run(args).status == 0)
        #expect(try Tool.run(args + ["--fail-on", "high"]).status == 0)
        let medium = try Tool.run(args + ["--fail-on", "medium", "--quiet"])
        #expect(medium.status == 1)
        // Nothing but the warning that these Rules check no store's signatures.
        #expect(
            medium.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("iapscreen screen: warning: no ") },
            "\(medium.stderr)")
        #expect(try Tool.run(args + ["--fail-on", "info"]).status == 1)
        let summary = try s.read("out/summary.json")
        #expect(summary.contains("\"exit_status\":1"))
    }

    @Test("a reviewer-exempted finding never fails the run")
    func exemptDoesNotFail() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        // Only the reviewers' orders of the world.
        let expected = try world.expectations().filter { $0.value.name == "reviewer-sandbox" }
        #expect(!expected.isEmpty)
        let out = s.file("out")
        let r = try Tool.run(world.screenArguments(out: out) + ["--fail-on", "critical"])
        #expect(r.status == 1)  // the world has critical findings
        let findings = try FindingLine.read(out + "/findings.jsonl")
        #expect(findings.filter { expected[$0.orderID ?? ""] != nil }.allSatisfy { $0.exempted == "reviewer" })
    }

    @Test("an unreadable input exits 3 and writes nothing")
    func unreadable() throws {
        let s = try Scratch()
        var args = try nightWithOneMissingReceipt(s)
        args[args.firstIndex(of: s.file("orders.csv")) ?? 0] = s.file("missing.csv")
        let r = try Tool.run(args)
        #expect(r.status == 3)
        #expect(r.stderr.contains("missing.csv"))
        #expect(!FileManager.default.fileExists(atPath: s.file("out")))

        try Data([0x1F, 0x8B, 0x08, 0x00] + Array("garbage that is not deflate".utf8)).write(
            to: URL(fileURLWithPath: s.file("broken.csv.gz")))
        args[args.firstIndex(of: s.file("missing.csv")) ?? 0] = s.file("broken.csv.gz")
        let ledger = s.file("l.sqlite")
        args[args.count - 1] = "sqlite:" + ledger
        #expect(try Tool.run(args).status == 3)
        #expect(!FileManager.default.fileExists(atPath: s.file("out")))
    }

    @Test("a dump that breaks off while its readers and workers are busy exits 3, never by a signal")
    func breaksOffMidRead() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let whole = try Data(contentsOf: URL(fileURLWithPath: world.receipts))
        try whole.prefix(whole.count * 3 / 4).write(to: URL(fileURLWithPath: s.file("receipts.csv.gz")))
        var args = world.screenArguments(out: s.file("out"), ledger: "sqlite:" + s.file("l.sqlite")) + ["--jobs", "2"]
        args[args.firstIndex(of: world.receipts) ?? 0] = s.file("receipts.csv.gz")
        let r = try Tool.run(args)
        #expect(!r.bySignal)
        #expect(r.status == 3)
        #expect(r.stderr.contains("receipts.csv.gz: gzip stream is truncated"))
        #expect(!FileManager.default.fileExists(atPath: s.file("out")))
    }

    @Test("a bad Rules directory exits 2 with the problems, and writes nothing")
    func badRules() throws {
        let s = try Scratch()
        var args = try nightWithOneMissingReceipt(s)
        try s.write("Rules/x.rules", "rule nope off\n")
        let r = try Tool.run(args)
        #expect(r.status == 2)
        #expect(r.stderr.contains("x.rules:1:6: error: unknown rule 'nope'"))
        #expect(!FileManager.default.fileExists(atPath: s.file("out")))
        args[args.firstIndex(of: s.file("Rules")) ?? 0] = s.file("NoRules")
        #expect(try Tool.run(args).status == 2)
    }

    @Test("a ledger held by another run exits 4 and names the process")
    func ledgerBusy() throws {
        let s = try Scratch()
        var args = try nightWithOneMissingReceipt(s)
        let ledger = s.file("l.sqlite")
        args[args.count - 1] = "sqlite:" + ledger
        let held = try LedgerLock(ledgerPath: ledger)
        let r = try Tool.run(args)
        #expect(r.status == 4)
        #expect(r.stderr.contains("process \(getpid())"))
        #expect(!FileManager.default.fileExists(atPath: s.file("out")))
        _ = held
    }
}
