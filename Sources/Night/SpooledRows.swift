import Ledger

/// Rows a night keeps on disk for its ledger (`PassFile`s), handed over as `RunRows`: read
/// back a batch at a time inside the ledger's transaction, so they are never all in memory.
enum SpooledRows {
    static let batch = 4096

    /// Rows `open` starts reading from the start (each time it is called), giving the cursor
    /// that hands them over, nil after the last. A read that fails fails the ledger's
    /// transaction.
    static func rows<Row: Sendable>(
        open: @escaping () throws(PassFile.Failure) -> () throws(PassFile.Failure) -> Row?
    ) -> RunRows<Row> {
        // Read on the recording thread only, once the night is done writing them.
        nonisolated(unsafe) let open = open
        return RunRows { (batch) throws(LedgerError) in
            let next = try readable { () throws(PassFile.Failure) in try open() }
            while true {
                var rows: [Row] = []
                rows.reserveCapacity(Self.batch)
                while rows.count < Self.batch, let r = try readable(next) { rows.append(r) }
                if rows.isEmpty { return }
                try batch(rows)
            }
        }
    }

    /// A pass file's failure as the ledger's (its transaction then rolls back).
    private static func readable<T>(_ body: () throws(PassFile.Failure) -> T) throws(LedgerError) -> T {
        do {
            return try body()
        } catch {
            throw LedgerError("tonight's rows for the ledger cannot be read back: \(error)", code: .unreadableRows)
        }
    }
}
