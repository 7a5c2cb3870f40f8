import ReceiptVerification
import Screening

/// `iapscreen rules check|list`: every problem of a Rules directory, or what it holds; and
/// the named rules, with what a directory sets of them.
enum RulesCommand {
    static let spec = CommandSpec(
        name: "rules",
        summary: "Check a Rules directory, or list the rules: `iapscreen rules check|list [--rules DIR]`.",
        options: [
            OptionSpec(
                "--rules", .one, valueName: "DIR", help: "Rules directory (default ./Rules; list: none, the defaults)."),
            OptionSpec("--markdown", .flag, help: "list: the table of Rules/README.md (the defaults)."),
        ],
        positional: PositionalSpec(
            "check|list", "check: check the directory; list: every named rule.", max: 1, required: true),
        details: """
            check prints every problem as file:line:column with the line, a caret and a hint, and
            exits 2; it exits 0 with a short inventory when the directory is sound.
            list prints each named rule: its id, severity, what it flags and its parameters, as
            --rules DIR sets them (and that directory's custom rules), else the defaults.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        switch args.positionals {
        case ["check"]:
            guard !args.has("--markdown") else {
                io.usageError(command: spec, "--markdown is for rules list")
                return .usage
            }
            return check(args.one("--rules") ?? "Rules", io: io)
        case ["list"]:
            return list(args, io: io)
        case []:
            io.usageError(command: spec, "say what to do: iapscreen rules check, or iapscreen rules list")
            return .usage
        default:
            io.usageError(command: spec, "unknown subcommand '\(args.positionals[0])'; there are check and list")
            return .usage
        }
    }

    private static func load(_ path: String, io: Console) -> RulesDirectory? {
        switch RulesDirectory.load(path) {
        case .failure(let problems):
            for p in problems.list { io.error(p.description) }
            io.error("\(path): \(problems.list.count) problem(s)")
            return nil
        case .success(let rules):
            return rules
        }
    }

    private static func check(_ path: String, io: Console) -> ExitStatus {
        guard let rules = load(path, io: io) else { return .usage }
        let s = rules.settings
        let named = s.named.ids
        let off = named.filter { !s.isEnabled($0) }.map(\.rawValue)
        var lines = ["\(path): OK"]
        lines.append(
            "  named rules: \(named.count - off.count) on"
                + (off.isEmpty ? "" : ", off: \(off.joined(separator: ", "))"))
        lines.append(
            "  custom rules: \(s.customRules.isEmpty ? "none" : s.customRules.map(\.id).joined(separator: ", "))")
        lines.append(
            "  catalog: \(rules.catalog.entries.count) products; apps: \(rules.apps.count); reviewers: \(rules.reviewers.windows.count)"
        )
        lines.append("  reviewers exempt from: \(s.reviewerExemptions.sorted().joined(separator: ", "))")
        let trust: TrustSummary
        do {
            trust = try TrustSummary(appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
        } catch {
            io.error("\(error.path): error: \(error.reason)")
            io.error("\(path): 1 problem(s)")
            return .usage
        }
        lines += TrustLines.check(trust)
        io.out.write(lines.joined(separator: "\n") + "\n")
        return .ok
    }

    private static func list(_ args: ParsedArguments, io: Console) -> ExitStatus {
        if args.has("--markdown") {
            guard args.one("--rules") == nil else {
                io.usageError(command: spec, "--markdown lists the defaults; leave out --rules")
                return .usage
            }
            io.out.write(NamedRules.standard.markdownTable)
            return .ok
        }
        var settings = RuleSettings()
        if let path = args.one("--rules") {
            guard let rules = load(path, io: io) else { return .usage }
            settings = rules.settings
        }
        io.out.write(RuleListing.text(settings))
        return .ok
    }
}
