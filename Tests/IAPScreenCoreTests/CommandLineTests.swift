import Foundation
import JSONText
import Testing

@Suite("The command line")
struct CommandLineTests {
    @Test("--help lists only the commands that are built; --version prints the version")
    func helpAndVersion() throws {
        let help = try Tool.run(["--help"])
        #expect(help.status == 0)
        for command in ["screen", "decode", "explain", "review", "ledger", "reconcile", "rules", "samples"] {
            #expect(help.stdout.contains("  \(command) "))
        }
        let version = try Tool.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("iapscreen "))
        for command in ["screen", "decode", "explain", "review", "ledger", "reconcile", "rules"] {
            let r = try Tool.run([command, "--help"])
            #expect(r.status == 0)
            #expect(r.stdout.contains("Usage: iapscreen \(command)"))
        }
    }

    @Test(
        "--help marks the required flags and arguments: bare in the usage line, (required) in the options; the others in brackets"
    )
    func requiredInHelp() throws {
        let usages = [
            "screen": "Usage: iapscreen screen --orders PATH... [--receipts PATH...]",
            "review": "Usage: iapscreen review --order ID --verdict fraud|legit [--note TEXT]",
            "reconcile": "Usage: iapscreen reconcile --orders PATH... --store-report PATH... [--receipts PATH...]",
            "backtest": "Usage: iapscreen backtest --orders PATH... --rules DIR [--receipts PATH...]",
            "ledger": "Usage: iapscreen ledger status|copy [--ledger URL]",
            "merge": "Usage: iapscreen merge SHARD_OUT... [--out DIR]",
            "decode": "Usage: iapscreen decode [PATH|-] [--rules DIR]",
        ]
        for (command, usage) in usages {
            let help = try Tool.run([command, "--help"])
            #expect(help.status == 0)
            let line = help.stdout.split(separator: "\n").first { $0.hasPrefix("Usage: ") }
            #expect(line?.hasPrefix(usage) == true, "\(help.stdout)")
        }
        let review = try Tool.run(["review", "--help"]).stdout
        let options = review.split(separator: "\n").filter { $0.hasPrefix("  --") }
        for flag in ["--order", "--verdict"] {
            #expect(options.contains { $0.hasPrefix("  \(flag) ") && $0.contains("(required)") }, "\(review)")
        }
        for flag in ["--note", "--by", "--ledger"] {
            #expect(options.contains { $0.hasPrefix("  \(flag) ") && !$0.contains("equired") }, "\(review)")
        }
    }

    @Test("iapscreen help CMD prints that command's help and exits 0; an unknown CMD exits 2 with the nearest command")
    func helpCommand() throws {
        for command in ["screen", "review", "ledger"] {
            let help = try Tool.run(["help", command])
            #expect(help.status == 0, "\(help.stderr)")
            #expect(help.stdout == (try Tool.run([command, "--help"])).stdout)
        }
        let typo = try Tool.run(["help", "reconcle"])
        #expect(typo.status == 2 && typo.stdout.isEmpty)
        #expect(typo.stderr.contains("unknown command 'reconcle' (did you mean 'reconcile'?)"), "\(typo.stderr)")
        #expect(try Tool.run(["help"]).stdout == (try Tool.run(["--help"])).stdout)
    }

    @Test("a bad flag or a missing value says what was wrong, shows the usage and exits 2")
    func usageErrors() throws {
        let typo = try Tool.run(["screen", "--order", "x.csv"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("unknown option '--order' (did you mean '--orders'?)"))
        #expect(typo.stderr.contains("Usage: iapscreen screen"))
        let missing = try Tool.run(["screen", "--orders", "a.csv", "--fail-on"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--fail-on needs a value"))
        let choice = try Tool.run(["screen", "--orders", "a.csv", "--fail-on", "severe"])
        #expect(choice.status == 2)
        #expect(choice.stderr.contains("--fail-on takes one of info, low, medium, high, critical, not 'severe'"))
        let unknown = try Tool.run(["decod"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("did you mean 'decode'?"))
        #expect(try Tool.run([]).status == 2)
    }

    @Test("rules check prints every problem with file:line:column and a caret, and exits 2; a sound directory exits 0")
    func rulesCheck() throws {
        let s = try Scratch()
        try s.write("Rules/a.rules", "rule revokd severity high\nflag high x if order.amount > \"5\"\n")
        let bad = try Tool.run(["rules", "check", "--rules", s.file("Rules")])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("a.rules:1:6: error: unknown rule 'revokd'"))
        #expect(bad.stderr.contains("hint: did you mean 'revoked'?"))
        #expect(bad.stderr.contains("a.rules:2:"))
        try s.write("Good/a.rules", "rule revoked severity critical\n")
        let good = try Tool.run(["rules", "check", "--rules", s.file("Good")])
        #expect(good.status == 0)
        #expect(try Tool.run(["rules", "check", "--rules", s.file("nope")]).status == 2)
    }

    @Test(
        "rules list prints every named rule with what it flags, as a Rules directory sets it; --markdown the README's table"
    )
    func rulesList() throws {
        let defaults = try Tool.run(["rules", "list"])
        #expect(defaults.status == 0)
        let lines = defaults.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("replayed-transaction") == true)
        #expect(lines.contains { $0.hasPrefix("expired-validity") && $0.contains("medium") })
        #expect(lines.contains { $0.contains("grace_days 1: days a subscription may be past its expiry") })
        let s = try Scratch()
        try s.write(
            "Rules/a.rules",
            """
            rule expired-validity severity high grace_days 3
            rule orphan-receipt off
            flag high night-whale if order.hour in [1, 2, 3] say "large purchase at night"

            """)
        let tuned = try Tool.run(["rules", "list", "--rules", s.file("Rules")])
        #expect(tuned.status == 0)
        let tunedLines = tuned.stdout.split(separator: "\n")
        #expect(tunedLines.contains { $0.hasPrefix("expired-validity") && $0.contains(" high ") })
        #expect(tunedLines.contains { $0.contains("grace_days 3:") })
        #expect(tunedLines.contains { $0.hasPrefix("orphan-receipt") && $0.contains(" off ") })
        #expect(tunedLines.last?.hasPrefix("night-whale") == true)
        #expect(
            tunedLines.last?.contains("custom rule (\(s.file("Rules/a.rules")):3): large purchase at night") == true)
        let markdown = try Tool.run(["rules", "list", "--markdown"])
        #expect(markdown.status == 0)
        #expect(
            try String(contentsOfFile: ShippedRulesTests.root + "/Rules/README.md", encoding: .utf8).contains(
                markdown.stdout))
        #expect(try Tool.run(["rules", "list", "--markdown", "--rules", s.file("Rules")]).status == 2)
        #expect(try Tool.run(["rules", "check", "--markdown"]).status == 2)
        let unknown = try Tool.run(["rules", "show"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown subcommand 'show'; there are check and list"))
    }

    @Test("decode prints one error object per undecodable line and still exits 0")
    func decodeGarbage() throws {
        let r = try Tool.run(["decode", "-"], stdin: Data("not a receipt\n\n{\"x\":1}\nAAAA\n".utf8))
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains("\"line\":1,\"error\":"))
        #expect(lines[1].contains("\"line\":3,\"error\":\"not-a-receipt\""))
        #expect(lines[2].contains("\"line\":4,\"error\":"))
        #expect(try Tool.run(["decode", "/nonexistent/file"]).status == 3)
    }
}

@Suite("The shipped Rules directories")
struct ShippedRulesTests {
    /// The package root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("Rules/ and samples/Rules pass rules check")
    func shippedRulesAreSound() throws {
        for dir in ["Rules", "samples/Rules"] {
            let r = try Tool.run(["rules", "check", "--rules", ShippedRulesTests.root + "/" + dir])
            #expect(r.status == 0, "\(dir): \(r.stderr)")
        }
    }

    @Test(
        "the README's first command screens the shipped samples exactly as samples/expected.csv says, and answers its refund requests"
    )
    func shippedSamples() throws {
        let s = try Scratch()
        let root = ShippedRulesTests.root
        let r = try Tool.run([
            "screen", "--rules", root + "/samples/Rules",
            "--orders", root + "/samples/orders-appstore.csv.gz", root + "/samples/orders-storekit.xml.gz",
            root + "/samples/orders-play.jsonl.gz", "--receipts", root + "/samples/receipts-appstore.csv.gz",
            "--store-events", root + "/samples/store-events.jsonl.gz", "--now", "2024-03-02T13:00:00Z",
            "--out", s.file("out"), "--ledger", "sqlite:" + s.file("ledger.sqlite"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("iapscreen: "))
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        #expect(
            readme.contains(
                "iapscreen screen --rules samples/Rules --orders samples/orders-*.gz "
                    + "--receipts samples/receipts-appstore.csv.gz --store-events samples/store-events.jsonl.gz "
                    + "--now 2024-03-02T13:00:00Z\n"),
            "the README's first command is the one this test runs")
        let findings = try FindingLine.read(s.file("out/findings.jsonl"))
        let expectedText = try String(contentsOfFile: root + "/samples/expected.csv", encoding: .utf8)
        var flaggedIDs = Set<String>()
        for line in expectedText.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            if cells.count == 4, !cells[1].isEmpty, cells[1] != "malformed-record" {
                flaggedIDs.insert(String(cells[0]))
            }
        }
        let got = Set(findings.filter { $0.exempted == nil && $0.rule != "malformed-record" }.compactMap(\.orderID))
        #expect(got == flaggedIDs)
        let summary = try #require(try JSONParser.parse(try s.read("out/summary.json")).object)
        let planted = try #require(
            try JSONParser.parse(
                try String(
                    contentsOfFile: root + "/samples/expected-store-events.json",
                    encoding: .utf8)
            ).object)
        #expect(
            summary["store_events"] == planted["store_events"],
            "summary.json's store_events against samples/expected-store-events.json")
        #expect(planted["consumption_now"]?.string == "2024-03-02T13:00:00Z")
        #expect(summary["consumption_requests"] == planted["consumption_requests"])
        // Something a reader can look at: answers with a body, and one without.
        let answers = try s.read("out/consumption.jsonl")
        #expect(answers.contains("\"status\":\"answer\"") && answers.contains("\"status\":\"no-consent\""))
        #expect(answers.contains("\"refundPreference\":\"DECLINE\"") && answers.contains("\"GRANT_FULL\""))
    }

    @Test(
        "the README's reconcile command reconciles the shipped samples exactly as samples/expected-reconciliation.csv says"
    )
    func shippedStoreReports() throws {
        let s = try Scratch()
        let root = ShippedRulesTests.root
        let reports = try FileManager.default.contentsOfDirectory(atPath: root + "/samples/store-reports").sorted()
            .map { root + "/samples/store-reports/" + $0 }
        let r = try Tool.run(
            [
                "reconcile", "--rules", root + "/samples/Rules",
                "--orders", root + "/samples/orders-appstore.csv.gz", root + "/samples/orders-storekit.xml.gz",
                root + "/samples/orders-play.jsonl.gz", "--receipts", root + "/samples/receipts-appstore.csv.gz",
                "--store-report",
            ] + reports + ["--out", s.file("out")])
        #expect(r.status == 0, "\(r.stderr)")
        func keys(_ text: String) -> [String] {
            text.split(separator: "\n").dropFirst().map {
                $0.split(separator: ",", omittingEmptySubsequences: false).prefix(7).joined(separator: ",")
            }
            .sorted()
        }
        let expected = try String(contentsOfFile: root + "/samples/expected-reconciliation.csv", encoding: .utf8)
        #expect(keys(try s.read("out/reconciliation.csv")) == keys(expected))
    }
}
