import Decompression
import Ledger

/// Rows a night keeps on disk for its ledger (`PassFile`s), handed over as `RunRows`: read
/// back a batch at a time inside the ledger's transaction, so they are never all in memory.
/// The next batches are read (and merged) on a thread of their own while the ledger writes
/// the one before: the night's record is the last thing a run waits for, with one core idle,
/// and reading its rows back was a third of it (10⁶ orders: 1 s of 3).
enum SpooledRows {
    static let batch = 4096
    /// Batches read ahead of the ledger: enough to keep it fed, few enough to stay small.
    static let depth = 2

    /// Rows `open` starts reading from the start (each time it is called), giving the cursor
    /// that hands them over, nil after the last. A read that fails fails the ledger's
    /// transaction.
    static func rows<Row: Sendable>(
        open: @escaping () throws(PassFile.Failure) -> () throws(PassFile.Failure) -> Row?
    ) -> RunRows<Row> {
        // Read on one thread at a time: the reading thread, once the night is done writing them.
        nonisolated(unsafe) let open = open
        return RunRows { (batch) throws(LedgerError) in
            nonisolated(unsafe) let next = try readable { () throws(PassFile.Failure) in try open() }
            let ahead = ReadAhead<[Row]>(depth: depth) { () throws(InputError) -> [Row]? in
                var rows: [Row] = []
                rows.reserveCapacity(Self.batch)
                do throws(PassFile.Failure) {
                    while rows.count < Self.batch, let r = try next() { rows.append(r) }
                } catch {
                    throw InputError(path: "a pass file", reason: error.description)
                }
                return rows.isEmpty ? nil : rows
            }
            while let rows = try readable(ahead.next) { try batch(rows) }
        }
    }

    /// A pass file's failure as the ledger's (its transaction then rolls back).
    private static func readable<T, E: Error>(_ body: () throws(E) -> T) throws(LedgerError) -> T {
        do {
            return try body()
        } catch {
            throw LedgerError("tonight's rows for the ledger cannot be read back: \(error)", code: .unreadableRows)
        }
    }
}
