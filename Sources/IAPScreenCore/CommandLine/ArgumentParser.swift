import IAPBasics

/// What the user typed, wrong: the message names the argument and suggests the fix.
/// The command prints it with the usage and exits 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var command: String?
    public var message: String

    public init(command: String?, _ message: String) {
        self.command = command
        self.message = message
    }

    public var description: String { message }
}

/// The parsed arguments of one command.
public struct ParsedArguments: Sendable {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    public func one(_ name: String) -> String? { values[name]?.last }
    public func many(_ name: String) -> [String] { values[name] ?? [] }
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
}

public enum ArgumentParser {
    /// Parses `args` (after the command name) against `spec`. `--help` is handled by the caller.
    /// Flags may come in any order; `--name=value` works as `--name value`.
    public static func parse(_ args: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var i = 0
        func fail(_ message: String) -> UsageError { UsageError(command: spec.name, message) }
        while i < args.count {
            var arg = args[i]
            i += 1
            guard arg.hasPrefix("--"), arg != "--", arg != "-" else {
                guard let p = spec.positional else {
                    throw fail(
                        arg.hasPrefix("-") && arg != "-"
                            ? "unknown option '\(arg)'\(suggestion(arg, spec))"
                            : "unexpected argument '\(arg)': \(spec.name) takes no positional arguments")
                }
                guard result.positionals.count < p.max else {
                    throw fail("unexpected extra argument '\(arg)': \(spec.name) takes at most \(p.max) \(p.name)")
                }
                result.positionals.append(arg)
                continue
            }
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "=") {
                inlineValue = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            guard let option = spec.options.first(where: { $0.name == arg }) else {
                throw fail("unknown option '\(arg)'\(suggestion(arg, spec))")
            }
            switch option.arity {
            case .flag:
                guard inlineValue == nil else { throw fail("\(arg) takes no value") }
                result.flags.insert(arg)
            case .one:
                let value: String
                if let v = inlineValue {
                    value = v
                } else {
                    guard i < args.count, !isFlag(args[i]) else {
                        throw fail("\(arg) needs a value: \(option.synopsis)")
                    }
                    value = args[i]
                    i += 1
                }
                if let choices = option.choices, !choices.contains(value) {
                    throw fail("\(arg) takes one of \(choices.joined(separator: ", ")), not '\(value)'")
                }
                guard !value.isEmpty else { throw fail("\(arg) needs a non-empty value") }
                result.values[arg, default: []] = [value]
            case .many:
                var taken = 0
                if let v = inlineValue {
                    result.values[arg, default: []].append(v)
                    taken += 1
                }
                while i < args.count, !isFlag(args[i]) {
                    result.values[arg, default: []].append(args[i])
                    i += 1
                    taken += 1
                }
                guard taken > 0 else { throw fail("\(arg) needs at least one value: \(option.synopsis)") }
            }
        }
        return result
    }

    static func isFlag(_ s: String) -> Bool { s.hasPrefix("--") && s.count > 2 }

    /// " (did you mean '--rules'?)" for a near miss, else the list of what is accepted.
    static func suggestion(_ arg: String, _ spec: CommandSpec) -> String {
        let names = spec.options.map(\.name) + ["--help"]
        guard let near = Spelling.nearest(arg, in: names) else {
            return "; \(spec.name) accepts \(names.joined(separator: ", "))"
        }
        return " (did you mean '\(near)'?)"
    }
}
