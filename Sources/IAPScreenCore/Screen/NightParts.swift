import Foundation
import Night

/// How many parts `screen` reads a night in (docs/commands.md, "Big nights"): one part for
/// every `IAPSCREEN_PART_MB` (default 512) megabytes of dumps as they lie on disk, so memory
/// stays about one part's however big the night grows. A sharded worker's night is read at once.
enum NightParts {
    static let variable = "IAPSCREEN_PART_MB"
    static let defaultMegabytes = 512.0

    /// nil when the variable is set to something that is not a positive number of megabytes.
    /// `atOnce`: the night is a sharded worker's.
    static func count(dumps: [String], atOnce: Bool, environment: [String: String]) -> Int? {
        var megabytes = defaultMegabytes
        if let text = environment[variable] {
            guard let m = Double(text), m.isFinite, m > 0 else { return nil }
            megabytes = m
        }
        if atOnce { return 1 }
        let bytes = Double(ProgressLine.totalSize(of: dumps))
        let parts = (bytes / (megabytes * 1_048_576)).rounded(.up)
        return Int(min(max(parts, 1), 4096))
    }

    /// `inputs` with the parts `screen` reads them in, and how many; nil when the variable is
    /// bad (said on `io`).
    static func split(_ inputs: Night.Inputs, sharded: Bool, command: CommandSpec, io: Console) -> (
        Night.Inputs, Int
    )? {
        guard
            let parts = count(
                dumps: inputs.dumps, atOnce: sharded,
                environment: ProcessInfo.processInfo.environment)
        else {
            io.usageError(command: command, "\(variable) must be a positive number of megabytes")
            return nil
        }
        var split = inputs
        split.passes = parts
        return (split, parts)
    }
}
