/// One flag a command accepts, as `--help` prints it and the parser reads it.
public struct OptionSpec: Sendable {
    public enum Arity: Sendable {
        /// `--quiet`
        case flag
        /// `--rules DIR`; given twice, the last wins.
        case one
        /// `--orders A B C`: values up to the next flag; repeating the flag adds more.
        case many
    }

    public var name: String
    public var arity: Arity
    public var valueName: String
    public var help: String
    /// When set, the only values accepted (`--verdict fraud|legit`).
    public var choices: [String]?
    /// The command refuses to run without it: `--help` says so (the command's own check says
    /// what it is for).
    public var required: Bool

    public init(
        _ name: String, _ arity: Arity, valueName: String = "", help: String, choices: [String]? = nil,
        required: Bool = false
    ) {
        self.name = name
        self.arity = arity
        self.valueName = valueName
        self.help = help
        self.choices = choices
        self.required = required
    }

    var synopsis: String {
        switch arity {
        case .flag: return name
        case .one: return "\(name) \(choices?.joined(separator: "|") ?? valueName)"
        case .many: return "\(name) \(valueName)..."
        }
    }
}

/// A command's positional arguments (`status|copy`, `SHARD_OUT...`, `PATH|-`).
public struct PositionalSpec: Sendable {
    public var name: String
    public var help: String
    /// How many at most.
    public var max: Int
    /// The command refuses to run without one.
    public var required: Bool

    public init(_ name: String, _ help: String, max: Int, required: Bool = false) {
        self.name = name
        self.help = help
        self.max = max
        self.required = required
    }
}

/// A command's outside: what `--help` shows and what the parser accepts.
public struct CommandSpec: Sendable {
    public var name: String
    public var summary: String
    public var options: [OptionSpec]
    public var positional: PositionalSpec?
    /// Paragraphs printed after the options.
    public var details: String

    public init(
        name: String, summary: String, options: [OptionSpec],
        positional: PositionalSpec? = nil, details: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.options = options
        self.positional = positional
        self.details = details
    }

    /// What must be given stands bare, first; what may be given, in brackets.
    public var usageLine: String {
        var parts = ["iapscreen", name]
        if let p = positional { parts.append(p.required ? p.name : "[\(p.name)]") }
        parts += options.filter(\.required).map(\.synopsis)
        parts += options.filter { !$0.required }.map { "[\($0.synopsis)]" }
        return parts.joined(separator: " ")
    }

    public var helpText: String {
        var out = "\(summary)\n\nUsage: \(usageLine)\n"
        if let p = positional {
            out += "\nArguments:\n  \(pad(p.name, 24))\(p.required ? "(required) " : "")\(p.help)\n"
        }
        out += "\nOptions:\n"
        for o in options {
            out += "  \(pad(o.synopsis, 24))\(o.required ? "(required) " : "")\(o.help)\n"
        }
        out += "  \(pad("--help", 24))Show this help.\n"
        if !details.isEmpty { out += "\n\(details)\n" }
        return out
    }
}

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s + "  " : s + String(repeating: " ", count: width - s.count)
}
