import IAPBasics
import StoreCrypto

/// The whole command line: argv in, exit status out.
public enum IAPScreen {
    public static let version = "0.1.0"

    typealias Command = (spec: CommandSpec, run: @Sendable (ParsedArguments, Console) -> ExitStatus)

    /// Commands that are built; a command appears here only once it works.
    static let commands: [Command] = [
        (ScreenCommand.spec, ScreenCommand.run),
        (DecodeCommand.spec, DecodeCommand.run),
        (ExplainCommand.spec, ExplainCommand.run),
        (ConsumptionCommand.spec, ConsumptionCommand.run),
        (ReconcileCommand.spec, ReconcileCommand.run),
        (ReviewCommand.spec, ReviewCommand.run),
        (LedgerCommand.spec, LedgerCommand.run),
        (DeskCommand.spec, DeskCommand.run),
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
            return help(Array(arguments.dropFirst()), console: console).rawValue
        case "--version":
            console.out.write("iapscreen \(version)\n")
            return ExitStatus.ok.rawValue
        default:
            break
        }
        guard let command = command(named: name, console: console) else { return ExitStatus.usage.rawValue }
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

    /// The command called `name`; nil after saying it is unknown, with the nearest name.
    static func command(named name: String, console: Console) -> Command? {
        if let found = commands.first(where: { $0.spec.name == name }) { return found }
        var message = "unknown command '\(name)'"
        if let near = Spelling.nearest(name, in: commands.map(\.spec.name)) {
            message += " (did you mean '\(near)'?)"
        }
        console.usageError(command: nil, message)
        return nil
    }

    /// `iapscreen help [COMMAND]`: the overview, or that command's help, on stdout.
    static func help(_ rest: [String], console: Console) -> ExitStatus {
        guard let name = rest.first, !["--help", "-h"].contains(name) else {
            console.out.write(overview)
            return .ok
        }
        guard rest.count == 1 else {
            console.usageError(command: nil, "help takes one command name: iapscreen help \(name)")
            return .usage
        }
        guard let command = command(named: name, console: console) else { return .usage }
        console.out.write(command.spec.helpText)
        return .ok
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
              --help        Show this help; after a command, or as iapscreen help COMMAND, that command's.
              --version     Print the version.

            Exit status: 0 done; 1 findings at or above --fail-on; 2 bad usage or Rules;
            3 an input could not be read; 4 the ledger is in use by another run.

            """
        return out
    }
}
