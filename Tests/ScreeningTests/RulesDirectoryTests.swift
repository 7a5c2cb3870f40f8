import Foundation
import IAPBasics
import ReceiptFormats
import Screening
import Testing

/// A Rules directory the test writes, removed afterwards.
final class TempRules {
    let path: String

    init(_ files: [String: String]) throws {
        path = NSTemporaryDirectory() + "rules-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files {
            let full = path + "/" + name
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func load() -> Result<RulesDirectory, RulesProblems> { RulesDirectory.load(path) }

    func problems() -> [RulesDiagnostic] {
        if case .failure(let p) = load() { return p.list }
        return []
    }
}

@Suite("Rules directory")
struct RulesDirectoryTests {
    @Test("a directory without .rules files runs every rule with its defaults")
    func defaults() throws {
        let dir = try TempRules([:])
        let rules = try dir.load().get()
        #expect(NamedRules.standard.all.count == 17)
        for rule in NamedRules.standard.all {
            #expect(rules.settings.isEnabled(rule.id))
            #expect(rules.settings.severity(rule.id) == rule.defaultSeverity)
        }
        #expect(rules.settings.parameter(ExpiredValidity.id, "grace_days") == 1)
        #expect(rules.settings.parameter(ExpiredValidity.id, "max_proof_age_days") == 30)
        #expect(rules.settings.reviewerExemptions == ["sandbox-in-production"])
    }

    @Test("exempt lines of several files add up: a later file's first line does not forget an earlier file's rules")
    func exemptionsAcrossFiles() throws {
        let dir = try TempRules([
            "a.rules": "exempt reviewers from expired-validity\n",
            "b.rules": "exempt reviewers from orphan-receipt\nexempt reviewers from account-mismatch\n",
            "c.rules": "rule orphan-receipt severity high\n",
        ])
        let s = try dir.load().get().settings
        #expect(s.reviewerExemptions == ["expired-validity", "orphan-receipt", "account-mismatch"])
    }

    @Test("a missing directory is one clear problem")
    func missing() {
        guard case .failure(let p) = RulesDirectory.load("/nonexistent/rules") else {
            Issue.record("expected a failure")
            return
        }
        #expect(p.list.first?.message == "Rules directory not found")
    }

    @Test("rule lines change severity, switch rules off and set parameters; custom rules and exemptions parse")
    func settings() throws {
        let dir = try TempRules([
            "a.rules": """
            # house rules
            rule expired-validity severity high grace_days 3 max_proof_age_days 7
            rule orphan-receipt off
            exempt reviewers from sandbox-in-production, big-sandbox
            flag high big-sandbox if receipt.environment = "Sandbox" and order.amount > 50 say "sandbox purchase over 50"
            flag low odd-hours if order.hour in [2, 3, 4] and not (order.currency = "USD")
            """
        ])
        let s = try dir.load().get().settings
        #expect(s.severity(ExpiredValidity.id) == .high)
        #expect(s.parameter(ExpiredValidity.id, "grace_days") == 3)
        #expect(!s.isEnabled(OrphanReceipt.id))
        #expect(s.reviewerExemptions == ["sandbox-in-production", "big-sandbox"])
        #expect(s.customRules.map(\.id) == ["big-sandbox", "odd-hours"])
        #expect(s.customRules.first?.message == "sandbox purchase over 50")

        let big = try #require(s.customRules.first)
        let values: [ConditionField: FieldValue] = [
            .receiptEnvironment: .text("Sandbox"), .orderAmount: .number(99.99),
        ]
        #expect(big.condition.holds { values[$0] ?? .null })
        #expect(!big.condition.holds { $0 == .orderAmount ? .number(10) : (values[$0] ?? .null) })
        #expect(!big.condition.holds { _ in .null })
    }

    @Test("every problem is reported with file, line, column, a caret and a hint")
    func diagnostics() throws {
        let dir = try TempRules([
            "x.rules": """
            rule expird-validity severity high
            rule revoked severity urgent
            flag high r1 if order.amout > 5
            flag high r2 if order.user_id < "5"
            flag high r3 if receipt.environment = "Sandbox
            frag high r4 if order.amount > 5
            exempt reviewers from no-such-rule
            """
        ])
        let problems = dir.problems()
        #expect(problems.map(\.line) == [1, 2, 3, 4, 5, 6, 7])
        let first = try #require(problems.first)
        #expect(first.column == 6)
        #expect(first.hint == "did you mean 'expired-validity'?")
        #expect(first.description.contains("x.rules:1:6: error: unknown rule 'expird-validity'"))
        #expect(first.description.contains("\n         ^~~~~~~~~~~~~~~"))
        #expect(problems[1].hint == "did you mean 'urgent'?" || problems[1].message.contains("unknown severity"))
        #expect(problems[2].hint == "did you mean 'order.amount'?")
        #expect(problems[3].message.contains("is text"))
        #expect(problems[4].message == "unterminated string")
        #expect(problems[5].hint == "did you mean 'flag'?")
        #expect(problems[6].message.contains("no-such-rule"))
    }

    @Test("catalog, apps and reviewers load; bad rows are reported with their line")
    func csvFiles() throws {
        let good = try TempRules([
            "catalog.csv":
                "item_id,platform,product_id,type,price,currency\ngems500,ios,com.x.gems500,consumable,4.99,usd\ngems500,android,gems_500,consumable,4.99,USD\n",
            "apps.csv": "platform,app_id\nios,com.x.app\nandroid,com.x.app\n",
            "reviewers.csv": "user_id,from,until,note\nrev1,2024-03-01,2024-03-02,App Review\nrev2,,,open\n",
        ])
        let rules = try good.load().get()
        #expect(rules.catalog.item("gems500", platform: .android)?.productID == "gems_500")
        #expect(rules.catalog.item("gems500", platform: .ios)?.currency == "USD")
        #expect(rules.isOurApp("com.x.app", platform: .ios))
        #expect(rules.reviewers.window(for: "rev1", at: try #require(Timestamp.parse("2024-03-02T23:59:59Z"))) != nil)
        #expect(rules.reviewers.window(for: "rev1", at: try #require(Timestamp.parse("2024-03-03T00:00:00Z"))) == nil)
        #expect(rules.reviewers.window(for: "rev2", at: try #require(Timestamp.parse("2030-01-01T00:00:00Z"))) != nil)

        let bad = try TempRules([
            "catalog.csv": "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumible,1,USD\n",
            "reviewers.csv": "user_id,from,until\nrev,someday,\n",
        ])
        let problems = bad.problems()
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.line == 2 })
    }

    @Test("files given in memory load as the same directory on disk does: settings, tables, every problem")
    func fromMemory() throws {
        let files = [
            "a.rules": "rule expired-validity severity high grace_days 3\nrule revokd off\nexempt reviewers from odd\n"
                + "flag low odd if order.hour in [2, 3] say \"late\"\n",
            "b.rules": "rule orphan-receipt off\nflag high x if order.amout > 5\n",
            "catalog.csv": "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumable,4.99,usd\n"
                + "gems,ios,com.x.gems,consumable,4.99,usd\n",
            "apps.csv": "platform,app_id\nios,com.x.app\n",
            "reviewers.csv": "user_id,from,until\nrev,someday,\n",
            "notes.txt": "not read\n",
        ]
        let dir = try TempRules(files)
        // A file that is not UTF-8.
        try Data([0x72, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: dir.path + "/bad.rules"))
        var bytes = files.mapValues { Array($0.utf8) }
        bytes["bad.rules"] = [0x72, 0xFF, 0x0A]
        let onDisk = dir.load()
        let inMemory = RulesDirectory.load(path: dir.path, files: bytes)
        guard case .failure(let expected) = onDisk, case .failure(let got) = inMemory else {
            Issue.record("both should have problems")
            return
        }
        #expect(got.list == expected.list)
        #expect(got.list.count >= 5)

        var good = files.filter { !["b.rules", "reviewers.csv"].contains($0.key) }
        good["a.rules"] = "rule expired-validity severity high grace_days 3\nflag low odd if order.hour in [2, 3]\n"
        good["catalog.csv"] =
            "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumable,4.99,usd\n"
        let fromDisk = try TempRules(good).load().get()
        let fromMemory = try RulesDirectory.load(path: "Rules", files: good.mapValues { Array($0.utf8) }).get()
        #expect(fromMemory.settings.parameter(ExpiredValidity.id, "grace_days") == 3)
        #expect(fromMemory.settings.customRules.map(\.id) == fromDisk.settings.customRules.map(\.id))
        #expect(fromMemory.catalog.item("gems", platform: .ios)?.currency == "USD")
        #expect(fromMemory.isOurApp("com.x.app", platform: .ios))
        #expect(fromMemory.files == ["Rules/a.rules", "Rules/apps.csv", "Rules/catalog.csv"])
        #expect(fromMemory.appleTrustFiles.isEmpty && fromMemory.googleKeyFiles.isEmpty)
    }
}
