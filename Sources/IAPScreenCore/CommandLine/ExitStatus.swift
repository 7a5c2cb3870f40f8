/// The exit statuses of every command (docs/exit-codes.md).
public enum ExitStatus: Int32, Sendable {
    /// Done, findings or not.
    case ok = 0
    /// Done, and some finding is at or above `--fail-on`.
    case findingsAtThreshold = 1
    /// Bad usage or a bad Rules directory; nothing written.
    case usage = 2
    /// An input could not be read at all; nothing written.
    case unreadableInput = 3
    /// The ledger is held by another run.
    case ledgerBusy = 4
}
