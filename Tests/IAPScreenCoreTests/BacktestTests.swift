import Foundation
import JSONText
import Ledger
import Testing

/// `backtest` against what two `screen` runs say: its rows must be exactly their differences.
@Suite("Backtest: a Rules change over a night, before it runs")
struct BacktestTests {
    /// One order's findings in one screen: "rule severity exempted" each, sorted.
    typealias Findings = [String: [String]]

    /// A copy of the world's Rules with `rules` as its default.rules.
    func candidate(_ world: SampleWorld, _ s: Scratch, _ name: String, rules: String) throws -> String {
        let dir = s.file(name)
        try FileManager.default.copyItem(atPath: world.path + "/Rules", toPath: dir)
        try rules.write(toFile: dir + "/default.rules", atomically: true, encoding: .utf8)
        return dir
    }

    func inputs(_ world: SampleWorld, events: Bool = true) -> [String] {
        ["--orders"] + world.orders + ["--receipts", world.receipts]
            + (events ? ["--store-events", world.storeEvents] : [])
    }

    /// Each order's findings as `screen --rules rules` writes them.
    func screened(_ world: SampleWorld, _ s: Scratch, rules: String, ledger: String = "none", out: String) throws
        -> Findings
    {
        let r = try Tool.run(
            ["screen", "--rules", rules, "--out", s.file(out), "--ledger", ledger, "--quiet"] + inputs(world))
        #expect(r.status == 0, "\(r.stderr)")
        return try Self.byOrder(s.file(out + "/findings.jsonl"))
    }

    /// findings.jsonl's findings by order; one without an order (a malformed record, an
    /// event of no order) by its evidence, as `place …`.
    static func byOrder(_ file: String) throws -> Findings {
        var byOrder: Findings = [:]
        for f in try FindingLine.read(file) {
            let id = f.orderID ?? "place " + (f.object["evidence"].map { JSONValue.string($0.jsonText).jsonText } ?? "")
            byOrder[id, default: []].append("\(f.rule) \(f.severity) \(f.exempted ?? "")")
        }
        return byOrder.mapValues { $0.sorted() }
    }

    /// The rows of backtest.csv by order id: (baseline rules, candidate rules, change, verdict,
    /// refunded); rows without an order id as `place 1`, `place 2`, … in their order.
    func rows(_ file: String) throws -> [String: [String]] {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(
            lines.first
                == "order_id,user_id,created_at,product_id,amount,currency,baseline_rules,candidate_rules,change,verdict,refunded"
        )
        var out: [String: [String]] = [:]
        var places = 0
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(cells.count == 11, "\(line)")
            if cells[0].isEmpty { places += 1 }
            out[cells[0].isEmpty ? "place \(places)" : cells[0]] = Array(cells.suffix(5))
        }
        return out
    }

    /// What backtest.csv must say of two screens: per order whose findings differ, the rules
    /// that count each way and the change.
    func differences(_ before: Findings, _ after: Findings) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for id in Set(before.keys).union(after.keys) where before[id] != after[id] {
            let (was, now) = (flags(before[id]), flags(after[id]))
            out[id] = [
                counting(before[id]), counting(after[id]),
                now && !was ? "newly-flagged" : was && !now ? "no-longer-flagged" : "rules-changed",
            ]
        }
        return out
    }

    /// Compares rows with order ids one by one, and the others by how many there are and what changed.
    func expectSame(_ got: [String: [String]], _ expected: [String: [String]], _ name: String) {
        func split(_ d: [String: [String]]) -> (ids: [String: [String]], places: [String]) {
            (
                d.filter { !$0.key.hasPrefix("place ") },
                d.filter { $0.key.hasPrefix("place ") }.values.map { $0.joined(separator: ",") }.sorted()
            )
        }
        let (a, pa) = split(got)
        let (b, pb) = split(expected)
        #expect(Set(a.keys) == Set(b.keys), "\(name)")
        for (id, row) in b { #expect(a[id].map { Array($0.prefix(3)) } == row, "\(name): order \(id)") }
        #expect(
            pa.map { $0.split(separator: ",", omittingEmptySubsequences: false).prefix(3).joined(separator: ",") }
                == pb, "\(name): rows of no order")
    }

    /// Whether an order's findings flag it (whatever its review): one that is not exempted, of
    /// a rule other than `store-event-invalid`, which names an order without flagging it.
    func flags(_ findings: [String]?) -> Bool {
        (findings ?? []).contains { $0.hasSuffix(" ") && !$0.hasPrefix("store-event-invalid ") }
    }

    /// Distinct rules of the findings that are not exempted, as backtest.csv lists them.
    func counting(_ findings: [String]?) -> String {
        Set((findings ?? []).filter { $0.hasSuffix(" ") }.map { String($0.split(separator: " ")[0]) }).sorted().joined(
            separator: ";")
    }

    static let changes: [(name: String, rules: String)] = [
        ("a rule switched off", "rule sandbox-in-production off\nexempt reviewers from sandbox-in-production\n"),
        ("a severity changed", "rule signature-invalid severity medium\nexempt reviewers from sandbox-in-production\n"),
        (
            "a parameter tightened",
            "rule expired-validity severity medium grace_days 1 max_proof_age_days 1\nexempt reviewers from sandbox-in-production\n"
        ),
        (
            "a custom rule added",
            "rule expired-validity severity medium grace_days 1 max_proof_age_days 30\nexempt reviewers from sandbox-in-production\nflag high big-order if order.amount >= 9.99\n"
        ),
        // Trusting no Apple anchor: every receipt verified again, under the candidate's trust.
        (
            "the trust changed",
            "rule expired-validity severity medium grace_days 1 max_proof_age_days 30\nexempt reviewers from sandbox-in-production\n"
        ),
        // Widened below: one more account in reviewers.csv.
        (
            "an exemption widened",
            "rule expired-validity severity medium grace_days 1 max_proof_age_days 30\nexempt reviewers from sandbox-in-production\n"
        ),
    ]

    @Test(
        "the rows are exactly the differences between screening under each Rules directory", arguments: changes.indices)
    func rowsAreTheDifferences(_ k: Int) throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let (name, text) = Self.changes[k]
        let baseline = world.path + "/Rules"
        let cand = try candidate(world, s, "cand", rules: text)
        let before = try screened(world, s, rules: baseline, out: "base")
        if name == "the trust changed" {
            let apple = cand + "/trust/apple"
            for file in try FileManager.default.contentsOfDirectory(atPath: apple) {
                try FileManager.default.removeItem(atPath: apple + "/" + file)
            }
        }
        if name == "an exemption widened" {
            // A user flagged for a sandbox purchase becomes an App Review account.
            let line = try #require(
                try FindingLine.read(s.file("base/findings.jsonl")).first {
                    $0.rule == "sandbox-in-production" && $0.exempted == nil
                })
            let user = try #require(line.object["user_id"]?.string)
            let reviewers = try String(contentsOfFile: cand + "/reviewers.csv", encoding: .utf8)
            try (reviewers + "\(user),2020-01-01,,a new reviewer\n").write(
                toFile: cand + "/reviewers.csv", atomically: true, encoding: .utf8)
        }
        let after = try screened(world, s, rules: cand, out: "cand-out")
        let r = try Tool.run(
            ["backtest", "--rules", cand, "--baseline", baseline, "--out", s.file("bt"), "--ledger", "none"]
                + inputs(world))
        #expect(r.status == 0, "\(r.stderr)")
        let got = try rows(s.file("bt/backtest.csv"))
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        #expect(!changed.isEmpty, "\(name): the change changes nothing in the world, the test shows nothing")
        expectSame(got, differences(before, after), name)
        // The summary a person reads, and the totals.
        let json = try #require(try JSONParser.parse(try s.read("bt/backtest.json")).object)
        let newly = changed.filter { flags(after[$0]) && !flags(before[$0]) }.count
        let gone = changed.filter { flags(before[$0]) && !flags(after[$0]) }.count
        #expect(json["newly_flagged"]?.object?["orders"]?.int64 == Int64(newly))
        #expect(json["no_longer_flagged"]?.object?["orders"]?.int64 == Int64(gone))
        #expect(r.stderr.contains("+\(newly) flagged ("), "\(r.stderr)")
        #expect(r.stderr.contains("\u{2212}\(gone) no longer flagged ("), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: s.file("bt/backtest.html")))
    }

    @Test(
        "a severity change is said with both severities and counted, on stderr, in backtest.json and backtest.html; without --baseline, stderr names the baseline used"
    )
    func severityChange() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        // The world's Rules as ./Rules: the baseline when --baseline is left out.
        try FileManager.default.copyItem(atPath: world.path + "/Rules", toPath: s.file("Rules"))
        let cand = try candidate(
            world, s, "cand",
            rules: "rule signature-invalid severity medium\nexempt reviewers from sandbox-in-production\n")
        let before = try screened(world, s, rules: world.path + "/Rules", out: "base")
        let findings = before.values.joined().filter { $0 == "signature-invalid critical " }.count
        try #require(findings > 0, "the world has no signature-invalid finding: the test shows nothing")
        let r = try Tool.run(
            ["backtest", "--rules", cand, "--out", s.file("bt"), "--ledger", "none"] + inputs(world), in: s.path)
        #expect(r.status == 0, "\(r.stderr)")
        let said = "signature-invalid severity critical \u{2192} medium: \(findings) findings"
        #expect(r.stderr.contains(said), "\(r.stderr)")
        #expect(
            r.stderr.contains("no --baseline given: the baseline is ./Rules (\(s.file("Rules")))"), "\(r.stderr)")

        let json = try #require(try JSONParser.parse(try s.read("bt/backtest.json")).object)
        let changes = try #require(json["severity_changed"]?.array)
        #expect(changes.count == 1)
        let change = try #require(changes.first?.object)
        #expect(change["rule"]?.string == "signature-invalid")
        #expect(change["baseline"]?.string == "critical" && change["candidate"]?.string == "medium")
        #expect(change["findings"]?.int64 == Int64(findings))
        #expect(try s.read("bt/backtest.html").contains(said))

        // Given, the baseline is not announced.
        let given = try Tool.run(
            ["backtest", "--rules", cand, "--baseline", "Rules", "--out", s.file("bt"), "--ledger", "none"]
                + inputs(world), in: s.path)
        #expect(given.status == 0 && !given.stderr.contains("--baseline"), "\(given.stderr)")
    }

    @Test("two nights' dumps at once are one backtest, as they are one screen")
    func severalNights() throws {
        let world = try SampleWorld.shared.get()
        let other = try SampleWorld(orders: 300, seed: 12)
        let s = try Scratch()
        let cand = try candidate(
            world, s, "cand", rules: "rule sandbox-in-production off\nflag low night-owl if order.hour in [1, 2, 3]\n")
        let both = ["--orders"] + world.orders + other.orders + ["--receipts", world.receipts, other.receipts]
        func findings(_ rules: String, _ out: String) throws -> Findings {
            let r = try Tool.run(
                ["screen", "--rules", rules, "--out", s.file(out), "--ledger", "none", "--quiet"] + both)
            #expect(r.status == 0, "\(r.stderr)")
            return try Self.byOrder(s.file(out + "/findings.jsonl"))
        }
        let before = try findings(world.path + "/Rules", "base")
        let after = try findings(cand, "cand-out")
        let r = try Tool.run(
            [
                "backtest", "--rules", cand, "--baseline", world.path + "/Rules", "--out", s.file("bt"), "--ledger",
                "none",
            ] + both)
        #expect(r.status == 0, "\(r.stderr)")
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        #expect(!changed.isEmpty)
        let got = try rows(s.file("bt/backtest.csv"))
        #expect(Set(got.keys.filter { !$0.hasPrefix("place ") }) == changed.filter { !$0.hasPrefix("place ") })
        #expect(got.keys.filter { $0.hasPrefix("place ") }.count == changed.filter { $0.hasPrefix("place ") }.count)
    }

    @Test("a candidate equal to the baseline changes no order")
    func sameRules() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let r = try Tool.run(
            [
                "backtest", "--rules", world.path + "/Rules", "--baseline", world.path + "/Rules",
                "--out", s.file("bt"), "--ledger", "none",
            ] + inputs(world))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try rows(s.file("bt/backtest.csv")).isEmpty)
        #expect(
            r.stderr.contains("+0 flagged (0 reviewed fraud, 0 legit, 0 refunded), \u{2212}0 no longer flagged"),
            "\(r.stderr)")
    }

    @Test("verdicts and refunds come from the ledger: reviewed orders and refunded purchases are counted each way")
    func verdictsAndRefunds() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        let baseline = world.path + "/Rules"
        // Last night's run: the ledger learns the claims and the refunds.
        _ = try screened(world, s, rules: baseline, ledger: ledger, out: "night")
        // The change: big orders flagged, refunds after credit no longer.
        let cand = try candidate(
            world, s, "cand",
            rules: """
                rule refunded-after-credit off
                exempt reviewers from sandbox-in-production
                flag high big-order if order.amount >= 9.99

                """)
        let before = try screened(world, s, rules: baseline, out: "base")
        let after = try screened(world, s, rules: cand, out: "cand-out")
        let newly = after.keys.filter { counting(after[$0]) != "" && counting(before[$0]) == "" }.sorted()
        try #require(newly.count >= 3, "the world has too few big orders")
        for (id, verdict) in [(newly[0], "fraud"), (newly[1], "legit"), (newly[2], "fraud")] {
            let review = try Tool.run([
                "review", "--order", id, "--verdict", verdict, "--ledger", ledger, "--by", "sec",
            ])
            #expect(review.status == 0, "\(review.stderr)")
        }
        // Each screen on a copy of this ledger, so both see what the backtest sees.
        for copy in ["l1.sqlite", "l2.sqlite"] {
            try FileManager.default.copyItem(atPath: s.file("ledger.sqlite"), toPath: s.file(copy))
        }
        let beforeOnLedger = try screened(
            world, s, rules: baseline, ledger: "sqlite:" + s.file("l1.sqlite"), out: "base-l")
        let afterOnLedger = try screened(world, s, rules: cand, ledger: "sqlite:" + s.file("l2.sqlite"), out: "cand-l")
        let statusBefore = try Tool.run(["ledger", "status", "--ledger", ledger])
        let r = try Tool.run(
            ["backtest", "--rules", cand, "--baseline", baseline, "--out", s.file("bt"), "--ledger", ledger]
                + inputs(world))
        #expect(r.status == 0, "\(r.stderr)")
        let got = try rows(s.file("bt/backtest.csv"))
        // The rows are the differences of the two screens on that ledger.
        expectSame(got, differences(beforeOnLedger, afterOnLedger), "on a ledger")
        #expect(got[newly[0]]?[3] == "fraud" && got[newly[1]]?[3] == "legit" && got[newly[2]]?[3] == "fraud")
        let json = try #require(try JSONParser.parse(try s.read("bt/backtest.json")).object)
        let newlyJSON = try #require(json["newly_flagged"]?.object)
        let goneJSON = try #require(json["no_longer_flagged"]?.object)
        #expect(newlyJSON["reviewed_fraud"]?.int64 == 2 && newlyJSON["reviewed_legit"]?.int64 == 1)
        // Orders that only a refund flagged are no longer flagged, and each was refunded.
        let refundOnly = before.keys.filter {
            counting(before[$0]) == "refunded-after-credit" && counting(after[$0]) == ""
        }
        try #require(!refundOnly.isEmpty)
        for id in refundOnly { #expect(got[id]?[2] == "no-longer-flagged" && got[id]?[4] == "yes", "order \(id)") }
        #expect(
            goneJSON["refunded"]?.int64
                == Int64(got.values.filter { $0[2] == "no-longer-flagged" && $0[4] == "yes" }.count))
        #expect(
            r.stderr.contains("+\(newlyJSON["orders"]?.int64 ?? -1) flagged (2 reviewed fraud, 1 legit, "),
            "\(r.stderr)")
        // Read only: the ledger is as the backtest found it.
        let statusAfter = try Tool.run(["ledger", "status", "--ledger", ledger])
        #expect(statusAfter.status == 0 && statusAfter.stdout == statusBefore.stdout, "\(statusAfter.stdout)")
    }

    @Test("a backtest only reads the ledger: it runs while a screen run holds it, and never makes one")
    func whileARunHoldsTheLedger() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let ledger = s.file("ledger.sqlite")
        _ = try screened(world, s, rules: world.path + "/Rules", ledger: "sqlite:" + ledger, out: "night")
        let cand = try candidate(world, s, "cand", rules: "rule sandbox-in-production off\n")
        let held = try LedgerLock(ledgerPath: ledger)
        let r = try Tool.run(
            [
                "backtest", "--rules", cand, "--baseline", world.path + "/Rules", "--out", s.file("bt"),
                "--ledger", "sqlite:" + ledger, "--quiet",
            ] + inputs(world))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try !rows(s.file("bt/backtest.csv")).isEmpty)
        withExtendedLifetime(held) {}
        // No ledger there: the backtest is one without memory, and creates none.
        let none = try Tool.run(
            [
                "backtest", "--rules", cand, "--baseline", world.path + "/Rules", "--out", s.file("bt2"),
                "--ledger", "sqlite:" + s.file("absent.sqlite"), "--quiet",
            ] + inputs(world))
        #expect(none.status == 0, "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("absent.sqlite")))
    }

    @Test(
        "a refund the ledger keeps only by its purchase token finds tonight's purchase of that token in a backtest as in a screen"
    )
    func tokenOnlyRefundInTheLedger() throws {
        let w = try ThreeNights()
        // Night one: a revoked subscription named by its token alone; no purchase of it is known yet.
        try w.scratch.write(
            "events-token.jsonl",
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709337600000","subscriptionNotification":{"version":"1.0","notificationType":12,"purchaseToken":"tok-q","subscriptionId":"vip_month"}}"#
                + "\n")
        let one = try w.screen("night1.jsonl", events: "events-token.jsonl", out: "out1")
        #expect(one.run.status == 0, "\(one.run.stderr)")
        // Night two credits that purchase after its refund: revoked, found through the token.
        try w.write(
            "night-q.jsonl",
            [try w.google("Q", orderID: "GPA.Q", token: "tok-q", item: "vip", at: "2024-03-10T10:00:00Z")])
        try FileManager.default.copyItem(atPath: w.scratch.file("ledger.sqlite"), toPath: w.scratch.file("copy.sqlite"))
        let two = try w.screen("night-q.jsonl", out: "out2", ledger: "sqlite:copy.sqlite")
        #expect(two.said == ["Q revoked new"])
        try FileManager.default.createDirectory(atPath: w.scratch.file("Cand"), withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: w.scratch.file("Rules")) {
            try FileManager.default.copyItem(
                atPath: w.scratch.file("Rules/" + name), toPath: w.scratch.file("Cand/" + name))
        }
        try w.scratch.write("Cand/off.rules", "rule revoked off\n")
        let bt = try Tool.run(
            [
                "backtest", "--rules", "Cand", "--baseline", "Rules", "--orders", "night-q.jsonl", "--out", "bt",
                "--ledger", "sqlite:ledger.sqlite", "--quiet",
            ], in: w.scratch.path)
        #expect(bt.status == 0, "\(bt.stderr)")
        let changed = try rows(w.scratch.file("bt/backtest.csv"))
        #expect(changed["Q"]?.prefix(3) == ["revoked", "", "no-longer-flagged"], "\(changed)")
    }

    @Test("a bad Rules directory, either one, is exit 2 naming it, and nothing is written")
    func badRules() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let bad = try candidate(world, s, "bad", rules: "rule no-such-rule off\n")
        let good = world.path + "/Rules"
        for (cand, base, named) in [
            (bad, good, ["candidate"]), (good, bad, ["baseline"]), (bad, bad, ["baseline", "candidate"]),
        ] {
            let r = try Tool.run(
                ["backtest", "--rules", cand, "--baseline", base, "--out", s.file("bt"), "--ledger", "none"]
                    + inputs(world))
            #expect(r.status == 2)
            for which in named {
                #expect(
                    r.stderr.contains("the \(which) Rules directory \(bad) has 1 problem(s); nothing written"),
                    "\(r.stderr)")
            }
            #expect(r.stderr.contains("no-such-rule"))
            #expect(!FileManager.default.fileExists(atPath: s.file("bt")))
        }
        let missing = try Tool.run(
            ["backtest", "--baseline", good, "--out", s.file("bt"), "--ledger", "none"] + inputs(world))
        #expect(missing.status == 2 && missing.stderr.contains("--rules is required"), "\(missing.stderr)")
    }
}
