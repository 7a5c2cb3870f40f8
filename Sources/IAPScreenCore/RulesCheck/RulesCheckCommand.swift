import Screening

/// `iapscreen rules check [--rules DIR]`: every problem of a Rules directory, or what it holds.
enum RulesCheckCommand {
    static let spec = CommandSpec(
        name: "rules",
        summary: "Check a Rules directory: `iapscreen rules check [--rules DIR]`.",
        options: [OptionSpec("--rules", .one, valueName: "DIR", help: "Rules directory (default ./Rules).")],
        positional: ("check", "The only subcommand: check the directory.", 1),
        details: """
        Prints every problem as file:line:column with the line, a caret and a hint, and exits 2;
        exits 0 with a short inventory when the directory is sound.
        """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        guard args.positionals == ["check"] else {
            io.usageError(command: spec, args.positionals.isEmpty
                ? "say what to do: iapscreen rules check"
                : "unknown subcommand '\(args.positionals[0])'; the only one is check")
            return .usage
        }
        let path = args.one("--rules") ?? "Rules"
        switch RulesDirectory.load(path) {
        case .failure(let problems):
            for p in problems.list { io.error(p.description) }
            io.error("\(path): \(problems.list.count) problem(s)")
            return .usage
        case .success(let rules):
            let s = rules.settings
            let named = s.named.ids
            let off = named.filter { !s.isEnabled($0) }.map(\.rawValue)
            var lines = ["\(path): OK"]
            lines.append("  named rules: \(named.count - off.count) on" + (off.isEmpty ? "" : ", off: \(off.joined(separator: ", "))"))
            lines.append("  custom rules: \(s.customRules.isEmpty ? "none" : s.customRules.map(\.id).joined(separator: ", "))")
            lines.append("  catalog: \(rules.catalog.entries.count) products; apps: \(rules.apps.count); reviewers: \(rules.reviewers.windows.count)")
            lines.append("  reviewers exempt from: \(s.reviewerExemptions.sorted().joined(separator: ", "))")
            lines.append("  trust: \(rules.appleTrustFiles.count) Apple anchor file(s), \(rules.googleKeyFiles.count) Google key(s)")
            io.out.write(lines.joined(separator: "\n") + "\n")
            return .ok
        }
    }
}
