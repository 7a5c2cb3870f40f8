/// Why the ledger cannot be used: a code tests and callers compare, and a message people
/// read (SQLite's or libpq's own, where they said it; never a password).
public struct LedgerError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// SQLite refused (cannot open, disk, busy, corrupt, ...).
        case sqlite
        /// PostgreSQL refused, or could not be reached, or went away.
        case postgres
        /// The file (or schema) carries a schema version newer than this build reads.
        case newerSchema
        /// The file carries a schema version no iapscreen wrote.
        case unknownSchema
        /// A SQLite file, but not one iapscreen wrote.
        case notALedger
        /// An older ledger could not be brought to this schema; the file is as it was.
        case migrationFailed
        /// Another run holds the ledger (PostgreSQL's run lock); the message names it.
        case inUse
        /// No run has written this ledger yet (an empty file, a database without schema
        /// `iapscreen`), and the caller asked not to create one.
        case empty
        /// A copy's target holds rows already; the message says what.
        case notEmpty
        /// A copy did not arrive whole, and was rolled back.
        case copyFailed
        /// A sharded run was joined with another number of shards than it has, or after it
        /// was committed.
        case shardMismatch
        /// The other shards of a run did not stage in time; the message names them.
        case shardTimeout
        /// A run's record was written and then rolled back: its reports could not be prepared.
        case notCommitted
        /// Tonight's rows kept on disk for the ledger (`RunRows`) could not be read back;
        /// the run's transaction was rolled back.
        case unreadableRows
    }

    public var code: Code
    public var message: String
    public init(_ message: String, code: Code = .sqlite) {
        self.message = message
        self.code = code
    }
    public var description: String { message }

    /// What `record(_:commitIf:)` throws when it was told not to commit.
    public static let notCommitted = LedgerError(
        "the run's reports could not be prepared: its record was rolled back", code: .notCommitted)

    /// What a copy from a schema 4 ledger opened read-only throws: its desk's tables are in
    /// the shape before blocks (`FlaggedBlock`), which this build does not read.
    static func unmigratedDesk(_ target: String) -> LedgerError {
        LedgerError(
            "ledger \(target) is at schema 4 and was opened read-only: its desk's tables are copied once this "
                + "iapscreen has migrated it (any command that writes it, such as screen, does); nothing copied",
            code: .copyFailed)
    }
}
