import Foundation
import IAPBasics
import ReceiptFormats
import Screening
import Testing

@Suite("The list of named rules")
struct NamedRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The standard rules and the toy one: the one line a new rule needs.
    static let withToy = NamedRules.standard.adding(LargeOrder.self)

    @Test("the table of Rules/README.md is the list's (iapscreen rules list --markdown writes it)")
    func readmeTable() throws {
        let readme = try String(contentsOfFile: Self.root + "/Rules/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- named rules:"))
        let end = try #require(readme.range(of: "<!-- end of named rules -->"))
        let block = readme[start.upperBound..<end.lowerBound]
        let newline = try #require(block.firstIndex(of: "\n"))
        let table = String(block[block.index(after: newline)...])
        #expect(
            table == NamedRules.standard.markdownTable,
            "Rules/README.md's table is stale; replace it with the output of `iapscreen rules list --markdown`")
    }

    @Test("every named rule lives in a file named after it, in Screening/NamedRules, with its id")
    func oneFilePerRule() throws {
        var ids: Set<RuleID> = []
        for rule in NamedRules.standard.all {
            let file = Self.root + "/Sources/Screening/NamedRules/\(rule).swift"
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("static let id: RuleID = \"\(rule.id)\""), "\(file) does not declare \(rule.id)")
            #expect(ids.insert(rule.id).inserted)
            #expect(!rule.summary.isEmpty && !rule.summary.hasSuffix("."))
        }
    }

    @Test("a rule added in a test, with one file and one line in a list, is parsed, asked, traced and listed")
    func toyRule() throws {
        let text = "rule large-order severity high min_amount 50\n"
        // The standard list does not know it.
        let refused = RulesDirectory.load(path: "Rules", files: ["x.rules": Array(text.utf8)])
        guard case .failure(let problems) = refused else {
            Issue.record("a rule the list does not have was accepted")
            return
        }
        #expect(problems.list.map(\.message) == ["unknown rule 'large-order'"])

        let rules = try RulesDirectory.load(path: "Rules", files: ["x.rules": Array(text.utf8)], named: Self.withToy)
            .get()
        #expect(rules.settings.severity(LargeOrder.id) == .high)
        #expect(rules.settings.parameter(LargeOrder.id, "min_amount") == 50)
        let wrong = RulesDirectory.load(
            path: "Rules", files: ["x.rules": Array("rule large-order max_amount 5\n".utf8)],
            named: Self.withToy)
        if case .failure(let p) = wrong {
            #expect(p.list.first?.message == "rule large-order has no parameter 'max_amount'")
        } else {
            Issue.record("an unknown parameter of the toy rule was accepted")
        }

        let evaluator = RuleEvaluator(rules: rules)
        func screen(_ amount: String, receipt: Bool = true) -> ([Finding], [RuleTrace.Line]) {
            var o = World.order("o-\(amount)")
            o.amount = amount
            let r = World.receipt([World.purchase("gems", txn: "100")])
            let trace = RuleTrace()
            let state: ReceiptState = receipt ? .decoded(World.digest(r, for: o)) : .missing
            let found = evaluator.findings(
                order: o, receipt: state, selection: receipt ? .picked(0) : .none, trace: trace)
            return (found, trace.lines.filter { $0.rule == "large-order" })
        }
        let (big, bigTrace) = screen("60.00")
        #expect(big.map(\.rule) == ["large-order"])
        #expect(big.first?.severity == .high)
        #expect(big.first?.message == "the order is worth 60.00 USD, at least 50")
        #expect(bigTrace.map(\.outcome) == [.fired])
        let (small, smallTrace) = screen("10.00")
        #expect(small.isEmpty)
        #expect(smallTrace.map(\.why) == ["worth 10.00, less than 50"])
        let (missing, missingTrace) = screen("60.00", receipt: false)
        #expect(missing.map(\.rule) == ["missing-receipt"])
        #expect(missingTrace.map(\.outcome) == [.notApplicable])
        #expect(missingTrace.map(\.why) == ["there is no receipt to check"])

        let off = try RulesDirectory.load(
            path: "Rules", files: ["x.rules": Array("rule large-order off\n".utf8)],
            named: Self.withToy
        ).get()
        let trace = RuleTrace()
        var o = World.order("o-off")
        o.amount = "500"
        let found = RuleEvaluator(rules: off).findings(
            order: o, receipt: .decoded(World.digest(World.receipt([]), for: o)),
            selection: .none, trace: trace)
        #expect(!found.contains { $0.rule == "large-order" })
        #expect(
            trace.lines.first { $0.rule == "large-order" }?.why
                == "would have fired: the order is worth 500 USD, at least 100")

        #expect(
            Self.withToy.markdownTable.hasSuffix(
                "| `large-order` | low | an order worth at least min_amount in its currency | `min_amount` (default 100): the smallest amount flagged |\n"
            ))
    }
}
