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

    public init(_ name: String, _ arity: Arity, valueName: String = "", help: String, choices: [String]? = nil) {
        self.name = name
        self.arity = arity
        self.valueName = valueName
        self.help = help
        self.choices = choices
    }

    var synopsis: String {
        switch arity {
        case .flag: return name
        case .one: return "\(name) \(choices?.joined(separator: "|") ?? valueName)"
        case .many: return "\(name) \(valueName)..."
        }
    }
}

/// A command's outside: what `--help` shows and what the parser accepts.
public struct CommandSpec: Sendable {
    public var name: String
    public var summary: String
    public var options: [OptionSpec]
    /// Name and description of positional arguments, and how many at most.
    public var positional: (name: String, help: String, max: Int)?
    /// Paragraphs printed after the options.
    public var details: String

    public init(
        name: String, summary: String, options: [OptionSpec],
        positional: (name: String, help: String, max: Int)? = nil, details: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.options = options
        self.positional = positional
        self.details = details
    }

    public var usageLine: String {
        var parts = ["iapscreen", name]
        if let p = positional { parts.append("[\(p.name)]") }
        for o in options { parts.append("[\(o.synopsis)]") }
        return parts.joined(separator: " ")
    }

    public var helpText: String {
        var out = "\(summary)\n\nUsage: \(usageLine)\n"
        if let p = positional {
            out += "\nArguments:\n  \(pad(p.name, 24))\(p.help)\n"
        }
        out += "\nOptions:\n"
        for o in options {
            out += "  \(pad(o.synopsis, 24))\(o.help)\n"
        }
        out += "  \(pad("--help", 24))Show this help.\n"
        if !details.isEmpty { out += "\n\(details)\n" }
        return out
    }
}

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s + "  " : s + String(repeating: " ", count: width - s.count)
}
