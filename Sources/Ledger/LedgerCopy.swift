/// How many rows a ledger holds, table by table: what `ledger status` prints, and how a
/// copy checks that its target is empty and, before it commits, that every row arrived.
public struct LedgerCounts: Sendable, Equatable, CustomStringConvertible {
    /// Rows of each table (`reported`: the findings completed runs reported); `reversed`:
    /// of the refunds, those Apple reversed.
    public var claims = 0, reported = 0, reviews = 0, runs = 0, storeEvents = 0, refunds = 0, reversed = 0
    /// Users whose latest consent the ledger keeps.
    public var consents = 0
    /// The desk's (CONTRACT §14): the orders runs flagged, the runs before the latest that
    /// flagged each, the blocks of their lines and the transactions they named; its users, the orders it worked,
    /// notes, verdicts no run applied yet and the audit trail's entries.
    public var flaggedOrders = 0, flaggedHistory = 0, flaggedBlocks = 0, flaggedKeys = 0
    public var users = 0, deskOrders = 0, notes = 0, pendingVerdicts = 0, auditEntries = 0
    /// Of the desk's orders, those claimed now (claims that have not lapsed): no table of its
    /// own, so a copy does not compare it.
    public var openClaims = 0

    public init() {}

    public var isEmpty: Bool { self == LedgerCounts() }

    /// "3 claims, 1 finding reported, …": the tables that hold something.
    public var description: String {
        let parts = [
            (claims, "claim", "claims"), (reported, "finding reported", "findings reported"),
            (reviews, "review", "reviews"),
            (runs, "run", "runs"), (storeEvents, "store event", "store events"), (refunds, "refund", "refunds"),
            (consents, "user's consent", "users' consents"), (flaggedOrders, "flagged order", "flagged orders"),
            (flaggedHistory, "earlier flagging of an order", "earlier flaggings of orders"),
            (flaggedBlocks, "block of findings", "blocks of findings"),
            (flaggedKeys, "transaction of a flagged order", "transactions of flagged orders"),
            (users, "desk user", "desk users"), (deskOrders, "order on the desk", "orders on the desk"),
            (openClaims, "open claim", "open claims"), (notes, "note", "notes"),
            (pendingVerdicts, "desk verdict not yet applied", "desk verdicts not yet applied"),
            (auditEntries, "audit entry", "audit entries"),
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
        case .flaggedOrders(let r): flaggedOrders += r.count
        case .flaggedHistory(let r): flaggedHistory += r.count
        case .flaggedBlocks(let r): flaggedBlocks += r.count
        case .flaggedKeys(let r): flaggedKeys += r.count
        case .deskUsers(let r): users += r.count
        case .deskOrders(let r): deskOrders += r.count
        case .deskNotes(let r): notes += r.count
        case .deskVerdicts(let r): pendingVerdicts += r.count
        case .deskAudit(let r): auditEntries += r.count
        }
    }

    /// The counts that a copy checks: every table's (not `openClaims`: a claim may lapse while it runs).
    var ofTables: LedgerCounts {
        var c = self
        c.openClaims = 0
        return c
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
    // The desk's tables (`DeskTableRow`), ids and times kept. Not its sessions and failed
    // logins: a copy's desk starts with nobody logged in and nobody locked out.
    case flaggedOrders([FlaggedOrderRow])
    case flaggedHistory([FlaggedHistoryRow])
    case flaggedBlocks([FlaggedBlockRow])
    case flaggedKeys([FlaggedKeyRow])
    case deskUsers([DeskUser])
    case deskOrders([DeskOrderState])
    case deskNotes([DeskNoteRow])
    case deskVerdicts([PendingVerdict])
    case deskAudit([AuditEntry])

    /// A batch of a desk table: the table's columns and each row's values, as a copy writes them.
    var deskTable: (type: any DeskTableRow.Type, rows: [[DeskValue]])? {
        func of<R: DeskTableRow>(_ rows: [R]) -> (type: any DeskTableRow.Type, rows: [[DeskValue]]) {
            (R.self, rows.map(\.values))
        }
        switch self {
        case .runs, .claims, .reported, .reviews, .events, .refunds, .consents: return nil
        case .flaggedOrders(let r): return of(r)
        case .flaggedHistory(let r): return of(r)
        case .flaggedBlocks(let r): return of(r)
        case .flaggedKeys(let r): return of(r)
        case .deskUsers(let r): return of(r)
        case .deskOrders(let r): return of(r)
        case .deskNotes(let r): return of(r)
        case .deskVerdicts(let r): return of(r)
        case .deskAudit(let r): return of(r)
        }
    }
}

extension LedgerStore {
    /// Fills this ledger, which must hold nothing (else `.notEmpty`, saying what it holds),
    /// with every row of `source`, read from one snapshot `batch` rows at a time, in one
    /// transaction: a copy that fails anywhere leaves this ledger as it was. Returns what it
    /// holds then: what it copied, with the claims that are open.
    public func copy(from source: any LedgerStore, batch: Int = 50_000) throws(LedgerError) -> LedgerCounts {
        var sent = LedgerCounts()
        var held = LedgerCounts()
        try load { write throws(LedgerError) in
            try source.exportRows(batch: batch) { rows throws(LedgerError) in
                sent.add(rows)
                try write(rows)
            }
            // A row the target took for another's (a key written twice) would be lost without a word.
            held = try counts()
            guard held.ofTables == sent else {
                throw LedgerError(
                    "the copy sent \(sent) but the target would hold \(held); nothing copied", code: .copyFailed)
            }
        }
        return held
    }
}
