import Foundation
import IAPBasics
import Screening

/// What the commands that read dumps check first, said the same way by each.
extension Console {
    /// The `--rules` directory (default `./Rules`), or nil after printing every problem it
    /// has and what was not done (the command then exits 2).
    func loadRules(_ args: ParsedArguments, command: String, notDone: String) -> RulesDirectory? {
        loadRules(at: args.one("--rules") ?? "Rules", command: command, notDone: notDone)
    }

    /// The Rules directory at `path`; `which` names it among several (`the baseline Rules
    /// directory Rules/`).
    func loadRules(at path: String, which: String? = nil, command: String, notDone: String) -> RulesDirectory? {
        switch RulesDirectory.load(path) {
        case .success(let r): return r
        case .failure(let problems):
            for p in problems.list { error(p.description) }
            let named = which.map { "the \($0) Rules directory \(path)" } ?? "the Rules directory"
            error("iapscreen \(command): \(named) has \(problems.list.count) problem(s); \(notDone)")
            return nil
        }
    }

    /// False after saying which input cannot be read (the command then exits 3).
    func allReadable(_ paths: [String], command: String, consequence: String) -> Bool {
        guard let path = paths.first(where: { !FileManager.default.isReadableFile(atPath: $0) }) else { return true }
        error("iapscreen \(command): cannot read input '\(path)'; \(consequence)")
        return false
    }
}
