import IAPBasics
import StoreCrypto

/// The whole command line: argv in, exit status out.
public enum IAPScreen {
    public static let version = "0.1.0"

    /// Commands that are built; a command appears here only once it works.
    static let commands: [(spec: CommandSpec, run: @Sendable (ParsedArguments, Console) -> ExitStatus)] = [
        (ScreenCommand.spec, ScreenCommand.run),
        (DecodeCommand.spec, DecodeCommand.run),
        (ExplainCommand.spec, ExplainCommand.run),
        (ConsumptionCommand.spec, ConsumptionCommand.run),
        (ReconcileCommand.spec, ReconcileCommand.run),
        (ReviewCommand.spec, ReviewCommand.run),
        (LedgerCommand.spec, LedgerCommand.run),
        (MergeCommand.spec, MergeCommand.run),
        (BacktestCommand.spec, BacktestCommand.run),
        (RulesCommand.spec, RulesCommand.run),
        (SamplesCommand.spec, SamplesCommand.run),
    ]

    /// What the executable does once, before any command: OpenSSL is initialised without
    /// its exit-time clean-up, which would race any thread still ending when the process
    /// exits (see `OpenSSLProcess`).
    /// `allocator`: the tuning of the allocator the executable links, if any.
    public static func prepareProcess(allocator: AllocatorTuning? = nil) {
        OpenSSLProcess.initializeWithoutExitCleanup()
        ProcessMemory.tuning.withLock { $0 = allocator }
    }

    public static func main(_ arguments: [String], console: Console = Console()) -> Int32 {
        defer {
            console.out.flush()
            console.err.flush()
        }
        guard let name = arguments.first else {
            console.err.write(overview)
            return ExitStatus.usage.rawValue
        }
        switch name {
        case "--help", "-h", "help":
            console.out.write(overview)
            return ExitStatus.ok.rawValue
        case "--version":
            console.out.write("iapscreen \(version)\n")
            return ExitStatus.ok.rawValue
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            var message = "unknown command '\(name)'"
            if let near = Spelling.nearest(name, in: commands.map(\.spec.name)) {
                message += " (did you mean '\(near)'?)"
            }
            console.usageError(command: nil, message)
            return ExitStatus.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            console.out.write(command.spec.helpText)
            return ExitStatus.ok.rawValue
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            return command.run(parsed, console).rawValue
        } catch {
            console.usageError(command: command.spec, error.message)
            return ExitStatus.usage.rawValue
        }
    }

    static var overview: String {
        var out = """
            iapscreen \(version) — screens in-app purchase orders for fraud, offline.

            Usage: iapscreen <command> [options]

            Commands:

            """
        for c in commands { out += "  \(pad(c.spec.name, 12))\(c.spec.summary)\n" }
        out += """

            Options:
              --help        Show this help (also after any command).
              --version     Print the version.

            Exit status: 0 done; 1 findings at or above --fail-on; 2 bad usage or Rules;
            3 an input could not be read; 4 the ledger is in use by another run.

            """
        return out
    }
}
