import Foundation
import IAPBasics
import JSONText
import Reporting
import Screening
import Testing

@testable import IAPScreenCore

/// `docs/` is the tool's reference. These tests read it beside the sources and fail, naming what is
/// missing, when the tool has something the pages do not mention: a command or a flag its `--help`
/// prints (docs/commands.md, in that command's own section), a named rule or its default severity
/// or parameters (docs/rules.md), an exit status (docs/exit-codes.md), a key of summary.json
/// (docs/outputs.md, docs/store-events.md) or a metric (docs/monitoring.md); and when a page links
/// to a page or a heading that is not there.
@Suite("The reference in docs/ names everything the tool has")
struct ReferenceDocsTests {
    /// The checkout's `docs/`, found from this file (`Tests/IAPScreenCoreTests/` is two levels down).
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    static func page(_ name: String) throws -> String {
        try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
    }

    static func report(_ page: String, _ missing: [String]) -> Comment {
        Comment(rawValue: "docs/\(page) lacks (or says wrongly):\n  " + missing.joined(separator: "\n  "))
    }

    @Test(
        "every command of the command table has its row in the table and its section in docs/commands.md, naming every flag --help prints"
    )
    func everyCommandAndFlag() throws {
        let page = try Self.page("commands.md")
        var missing: [String] = []
        let names = IAPScreen.commands.map(\.spec.name)
        #expect(!names.isEmpty)
        for spec in IAPScreen.commands.map(\.spec) {
            let help = try Tool.run([spec.name, "--help"])
            #expect(help.status == 0, "iapscreen \(spec.name) --help exited \(help.status)")
            let heading = "## `iapscreen \(spec.name)`"
            // The table at the top lists every command, linked to its section.
            let row = "| [`\(spec.name)`](#iapscreen-\(spec.name)) |"
            if !page.contains("\n" + row) { missing.append("the row \(row) in the table of commands") }
            guard let section = Self.section(of: page, heading: heading) else {
                missing.append("a section headed \(heading)")
                continue
            }
            for flag in Self.flags(in: help.stdout) where !section.contains("`\(flag)`") {
                missing.append("`\(flag)` in the section \(heading): `iapscreen \(spec.name) --help` prints it")
            }
            for word in Self.subcommands(spec) where !section.contains("iapscreen \(spec.name) \(word)") {
                missing.append("`iapscreen \(spec.name) \(word)` in the section \(heading)")
            }
        }
        let overview = try Tool.run(["--help"])
        #expect(overview.status == 0)
        for flag in Self.flags(in: overview.stdout) where !page.contains("`\(flag)`") {
            missing.append("`\(flag)`, which `iapscreen --help` prints")
        }
        // A section for a command the tool does not have (not built yet, or gone) is as wrong.
        for heading in Self.headings(of: page, level: 2) where heading.hasPrefix("`iapscreen ") {
            let name = heading.dropFirst("`iapscreen ".count).prefix { $0 != "`" && $0 != " " }
            if !names.contains(String(name)) {
                missing.append(
                    "nothing about `iapscreen \(name)`: there is no such command (\(names.joined(separator: ", ")))")
            }
        }
        #expect(missing.isEmpty, Self.report("commands.md", missing))
    }

    @Test("every named rule has its section in docs/rules.md, with its default severity and each parameter's default")
    func everyNamedRule() throws {
        let page = try Self.page("rules.md")
        var missing: [String] = []
        let rules = NamedRules.standard
        #expect(!rules.all.isEmpty)
        for rule in rules.all {
            let heading = "### `\(rule.id)`"
            guard let section = Self.section(of: page, heading: heading) else {
                missing.append("a section headed \(heading)")
                continue
            }
            let severity = "Default severity: `\(rule.defaultSeverity.name)`"
            if !section.contains(severity) { missing.append("\"\(severity)\" in the section \(heading)") }
            for p in rule.parameters {
                let value = p.kind == .yesNo ? (p.defaultValue == 0 ? "no" : "yes") : String(p.defaultValue)
                let row = "| `\(p.name)` | `\(value)` |"
                if !section.contains(row) { missing.append("the row \(row) in the section \(heading)") }
            }
        }
        let named = try #require(Self.section(of: page, heading: "## The named rules"))
        for heading in Self.headings(of: named, level: 3) where heading.hasPrefix("`") {
            let id = heading.dropFirst().prefix { $0 != "`" }
            if rules.rule(named: String(id)) == nil {
                missing.append("nothing about `\(id)`: it is not a named rule (\(rules.ids.map(\.rawValue)))")
            }
        }
        #expect(missing.isEmpty, Self.report("rules.md", missing))
    }

    @Test("every exit status has its row in docs/exit-codes.md")
    func everyExitStatus() throws {
        let page = try Self.page("exit-codes.md")
        let statuses = (0...255).compactMap { ExitStatus(rawValue: Int32($0)) }
        #expect(!statuses.isEmpty)
        let missing = statuses.filter { !page.contains("\n| `\($0.rawValue)` |") }.map {
            "a row starting | `\($0.rawValue)` | for exit status \($0.rawValue) (\($0))"
        }
        #expect(missing.isEmpty, Self.report("exit-codes.md", missing))
    }

    @Test(
        "every key of summary.json is in docs/outputs.md (store_events: store-events.md), every metric in monitoring.md"
    )
    func summaryKeysAndMetrics() throws {
        let t = try #require(Timestamp(millis: 0))
        // Everything optional filled in, so that every key and every metric is written.
        var summary = RunSummary(
            version: IAPScreen.version, startedAt: t, finishedAt: t, exitStatus: 0, orders: 1, receipts: 1,
            flagged: 1, new: 1, exempted: 0, malformed: 0, byRule: [("missing-receipt", 1)],
            bySeverity: [("medium", 1)], atRisk: [("USD", try #require(DecimalAmount("0.99")))],
            inputs: [RunSummary.Input(path: "orders.csv", sha256: "", records: 1)], rulesSHA256: "",
            ordersPerSecond: 1)
        summary.storeEvents = StoreEventFigures()
        summary.consumptionRequests = RequestFigures(
            states: [
                "read", "answered", "no_consent", "late", "invalid", "decline", "grant_full", "grant_prorated",
                "no_preference",
            ].map { (name: $0, count: 1) }, open: [])
        summary.shard = "1/2"
        summary.runID = "night"

        let outputs = try Self.page("outputs.md")
        let missingKeys = summary.json.keys.filter { !outputs.contains("`\($0)`") }.map { "summary.json's `\($0)`" }
        #expect(missingKeys.isEmpty, Self.report("outputs.md", missingKeys))

        let events = try Self.page("store-events.md")
        let missingEventKeys = StoreEventFigures().json.keys.filter { !events.contains("`\($0)`") }.map {
            "summary.json's `store_events.\($0)`"
        }
        #expect(missingEventKeys.isEmpty, Self.report("store-events.md", missingEventKeys))

        let requests = try Self.page("consumption.md")
        let missingRequestKeys = (summary.consumptionRequests?.json.keys ?? []).filter {
            !requests.contains("`\($0)`")
        }.map { "summary.json's `consumption_requests.\($0)`" }
        #expect(missingRequestKeys.isEmpty, Self.report("consumption.md", missingRequestKeys))

        let metrics = RunMetrics(
            finishedAt: t, durationSeconds: 1, exitStatus: 0, lastSuccess: t,
            figures: RunMetrics.Figures(
                summary: summary, findings: [(rule: "missing-receipt", severity: "medium", count: 1)],
                storeEvents: [(type: "REFUND", count: 1)]))
        let names = metrics.text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map {
            String($0.dropFirst("# TYPE ".count).prefix { $0 != " " })
        }
        #expect(!names.isEmpty)
        let monitoring = try Self.page("monitoring.md")
        let missingMetrics = names.filter { !monitoring.contains("`\($0)`") }.map { "the metric `\($0)`" }
        #expect(missingMetrics.isEmpty, Self.report("monitoring.md", missingMetrics))
    }

    @Test("every link between the pages of docs/ reaches a file, and a heading of it when it names one")
    func linksResolve() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.docs.path).filter { $0.hasSuffix(".md") }
        #expect(names.contains("README.md"))
        var broken: [String] = []
        for name in names.sorted() {
            let text = try Self.page(name)
            for target in Self.links(in: text) where !target.contains("://") {
                let (file, anchor) = Self.split(target)
                let url = file.isEmpty ? Self.docs.appendingPathComponent(name) : Self.docs.appendingPathComponent(file)
                guard let linked = try? String(contentsOf: url, encoding: .utf8) else {
                    broken.append("\(name): (\(target)) names no file")
                    continue
                }
                if let anchor, url.pathExtension == "md", !Self.anchors(of: linked).contains(anchor) {
                    broken.append("\(name): (\(target)) names no heading of \(file.isEmpty ? name : file)")
                }
            }
        }
        #expect(broken.isEmpty, Comment(rawValue: "broken links in docs/:\n  " + broken.joined(separator: "\n  ")))
    }

    // MARK: Reading the pages

    /// The lines of `page` that are not inside a fenced code block.
    static func proseLines(_ page: String) -> [(line: Substring, inCode: Bool)] {
        var fenced = false
        return page.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("```") {
                fenced.toggle()
                return (line, true)
            }
            return (line, fenced)
        }
    }

    /// How deep a Markdown heading line is (`## x` is 2), 0 for any other line.
    static func level(_ line: Substring) -> Int {
        let hashes = line.prefix { $0 == "#" }.count
        return hashes > 0 && line.dropFirst(hashes).first == " " ? hashes : 0
    }

    /// The text from the heading line `heading` (the whole line, or its start and then a space) to the
    /// next heading of its level or above, outside code blocks; nil without such a heading.
    static func section(of page: String, heading: String) -> String? {
        let lines = proseLines(page)
        let depth = level(Substring(heading))
        guard
            let start = lines.firstIndex(where: {
                !$0.inCode && ($0.line == heading || $0.line.hasPrefix(heading + " "))
            })
        else { return nil }
        var end = start + 1
        while end < lines.count, lines[end].inCode || level(lines[end].line) == 0 || level(lines[end].line) > depth {
            end += 1
        }
        return lines[start..<end].map(\.line).joined(separator: "\n")
    }

    /// The headings of one level, without their `#`s.
    static func headings(of page: String, level wanted: Int) -> [Substring] {
        proseLines(page).filter { !$0.inCode && level($0.line) == wanted }.map { $0.line.dropFirst(wanted + 1) }
    }

    /// Every `--flag` word of a text, in order, once each.
    static func flags(in text: String) -> [String] {
        let s = Array(text.unicodeScalars)
        func isWord(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "-" }
        var found: [String] = []
        var i = 0
        while i + 2 < s.count {
            let starts = s[i] == "-" && s[i + 1] == "-" && ("a"..."z").contains(s[i + 2])
            guard starts, i == 0 || !(isWord(s[i - 1]) || ("A"..."Z").contains(s[i - 1])) else {
                i += 1
                continue
            }
            var j = i + 2
            while j < s.count, isWord(s[j]) { j += 1 }
            var flag = String(String.UnicodeScalarView(s[i..<j]))
            while flag.hasSuffix("-") { flag.removeLast() }
            if !found.contains(flag) { found.append(flag) }
            i = j
        }
        return found
    }

    /// A command's subcommands, when its argument is a choice of words (`status|copy`).
    static func subcommands(_ spec: CommandSpec) -> [String] {
        guard let p = spec.positional, p.name.contains("|"),
            p.name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || $0 == "|" })
        else { return [] }
        return p.name.split(separator: "|").map(String.init)
    }

    /// The targets of the Markdown links `[text](target)` outside code blocks.
    static func links(in page: String) -> [String] {
        var out: [String] = []
        for (line, inCode) in proseLines(page) where !inCode {
            var rest = line[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                out.append(String(after[..<close]))
                rest = after[after.index(after: close)...]
            }
        }
        return out
    }

    static func split(_ target: String) -> (file: String, anchor: String?) {
        guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
        return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }

    /// The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as `-`.
    static func anchors(of page: String) -> Set<String> {
        var out: Set<String> = []
        for (line, inCode) in proseLines(page) where !inCode && level(line) > 0 {
            let text = line.drop { $0 == "#" }.dropFirst()
            var slug = ""
            for c in text.lowercased().unicodeScalars {
                if ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "_" {
                    slug.unicodeScalars.append(c)
                } else if c == " " {
                    slug += "-"
                }
            }
            out.insert(slug)
        }
        return out
    }
}
