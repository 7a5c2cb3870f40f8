/// Where a command speaks: data on stdout, summary and errors on stderr.
public final class Console {
    public let out: OutputStream
    public let err: OutputStream

    public init(out: OutputStream = .standardOutput(), err: OutputStream = .standardError()) {
        self.out = out
        self.err = err
    }

    public func error(_ message: String) {
        err.write(message + "\n")
        err.flush()
    }

    /// A usage problem: what was wrong, then the command's usage line and where help is.
    func usageError(command: CommandSpec?, _ message: String) {
        if let command {
            error(
                "iapscreen \(command.name): \(message)\nUsage: \(command.usageLine)\nSee 'iapscreen \(command.name) --help'."
            )
        } else {
            error("iapscreen: \(message)\nUsage: iapscreen <command> [options]\nSee 'iapscreen --help'.")
        }
    }
}
