/// Rows a run hands its ledger (claims, findings, consents), read once and in order, a batch
/// at a time: held in memory, or read back from disk by a night too big to hold them
/// (`screen`'s parts), so recording the night does not need the whole night in memory.
public struct RunRows<Row: Sendable>: Sendable {
    /// Hands every row to `batch`, in order, a batch at a time.
    public typealias Reader = @Sendable (_ batch: ([Row]) throws(LedgerError) -> Void) throws(LedgerError) -> Void

    private let reader: Reader

    /// Rows in memory, in the order given: one batch.
    public init(_ rows: [Row]) {
        reader = { (batch) throws(LedgerError) in if !rows.isEmpty { try batch(rows) } }
    }

    /// Rows that `reader` reads (from disk); a failure to read them is a `LedgerError` with
    /// code `.unreadableRows`, and the ledger's transaction is rolled back.
    public init(reader: @escaping Reader) {
        self.reader = reader
    }

    public static var none: RunRows { RunRows([]) }

    public func forEachBatch(_ body: ([Row]) throws(LedgerError) -> Void) throws(LedgerError) {
        try reader(body)
    }

    /// Every row, in order.
    public func forEachRow(_ body: (Row) throws(LedgerError) -> Void) throws(LedgerError) {
        try forEachBatch { (rows) throws(LedgerError) in
            for r in rows { try body(r) }
        }
    }
}

extension RunRows where Row == NewClaim {
    /// Claims smallest key first, as a ledger records them: each insert lands beside the last.
    public static func inKeyOrder(_ claims: [NewClaim]) -> RunRows {
        RunRows(claims.sorted { $0.key < $1.key })
    }
}

extension RunRows where Row == RememberedConsent {
    /// One consent a user, in user order.
    public static func inUserOrder(_ consents: [RememberedConsent]) -> RunRows {
        RunRows(consents.sorted { $0.userID < $1.userID })
    }
}
