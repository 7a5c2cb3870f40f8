/// How many rows a ledger holds, table by table: what `ledger status` prints, and how a
/// copy checks that its target is empty and, before it commits, that every row arrived.
public struct LedgerCounts: Sendable, Equatable, CustomStringConvertible {
    /// Rows of each table (`reported`: the findings completed runs reported); `reversed`:
    /// of the refunds, those Apple reversed.
    public var claims = 0, reported = 0, reviews = 0, runs = 0, storeEvents = 0, refunds = 0, reversed = 0
    /// Users whose latest consent the ledger keeps.
    public var consents = 0

    public init() {}

    public var isEmpty: Bool { self == LedgerCounts() }

    /// "3 claims, 1 finding reported, …": the tables that hold something.
    public var description: String {
        let parts = [
            (claims, "claim", "claims"), (reported, "finding reported", "findings reported"),
            (reviews, "review", "reviews"),
            (runs, "run", "runs"), (storeEvents, "store event", "store events"), (refunds, "refund", "refunds"),
            (consents, "user's consent", "users' consents"),
        ]
        let held = parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
        return held.isEmpty ? "nothing" : held.joined(separator: ", ")
    }

    /// Counts what a batch of rows adds.
    mutating func add(_ rows: LedgerRows) {
        switch rows {
        case .runs(let r): runs += r.count
        case .claims(let c): claims += c.count
        case .reported(let f): reported += f.count
        case .reviews(let r): reviews += r.count
        case .events(let e): storeEvents += e.count
        case .refunds(let r):
            refunds += r.count
            reversed += r.count(where: { $0.reversedAt != nil })
        case .consents(let c): consents += c.count
        }
    }
}

/// A batch of one table's rows, as a ledger's export hands them out and a copy writes them.
/// Runs keep their ids, so that the events that name the run that first read them still do.
public enum LedgerRows: Sendable {
    case runs([RecordedRun])
    case claims([NewClaim])
    case reported([ReportedFinding])
    case reviews([(orderID: String, review: Review)])
    case events([RememberedEvent])
    case refunds([RememberedRefund])
    case consents([RememberedConsent])
}

extension LedgerStore {
    /// Fills this ledger, which must hold nothing (else `.notEmpty`, saying what it holds),
    /// with every row of `source`, read from one snapshot `batch` rows at a time, in one
    /// transaction: a copy that fails anywhere leaves this ledger as it was. Returns what it copied.
    public func copy(from source: any LedgerStore, batch: Int = 50_000) throws(LedgerError) -> LedgerCounts {
        var sent = LedgerCounts()
        try load { write throws(LedgerError) in
            try source.exportRows(batch: batch) { rows throws(LedgerError) in
                sent.add(rows)
                try write(rows)
            }
            // A row the target took for another's (a key written twice) would be lost without a word.
            let held = try counts()
            guard held == sent else {
                throw LedgerError(
                    "the copy sent \(sent) but the target would hold \(held); nothing copied", code: .copyFailed)
            }
        }
        return sent
    }
}
