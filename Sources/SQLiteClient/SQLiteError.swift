/// What SQLite said when something failed: its own message, with its extended result code
/// where a connection had one.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
