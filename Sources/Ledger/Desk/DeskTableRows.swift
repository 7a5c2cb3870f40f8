/// A row of one of the desk's tables (flagged orders and what the desk keeps) as both backends
/// read, write, count and copy it: the columns in one order, read by `init(_:)` and written
/// from `values`, so a row leaves one ledger and arrives in the other alike. Ids and times
/// are kept: the audit trail and the notes copy in their order.
protocol DeskTableRow: Sendable {
    static var table: String { get }
    /// Its columns, in the order `init(_:)` reads them and `values` gives them.
    static var columns: String { get }
    /// What an export orders the table by (its key).
    static var key: String { get }
    /// The count in `LedgerCounts` of this table's rows.
    static var counted: WritableKeyPath<LedgerCounts, Int> { get }
    /// A batch of them, as a copy hands it on.
    static func batch(_ rows: [Self]) -> LedgerRows

    init?(_ row: DeskRow)
    var values: [DeskValue] { get }
}

extension DeskTableRow {
    static var countRows: String { "SELECT count(*) FROM \(table)" }
    static var exportRows: String { "SELECT \(columns) FROM \(table) ORDER BY \(key)" }
    static var columnCount: Int { columns.split(separator: ",").count }

    /// "a.x, a.y" from "x, y".
    static func columns(of alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingPrefix(" "))" }.joined(separator: ", ")
    }
}

/// `LedgerCounts.openClaims`: the claims that have not lapsed at ?1.
let countOpenClaims = "SELECT count(*) FROM desk_orders WHERE claimed_by IS NOT NULL AND claimed_until > ?1"

/// Every desk table a copy carries, in the order it copies them. Not the sessions and the
/// failed logins: a copy's desk starts with nobody logged in and no lockout.
let copiedDeskTables: [any DeskTableRow.Type] = [
    FlaggedOrderRow.self, FlaggedHistoryRow.self, FlaggedBlockRow.self, FlaggedKeyRow.self, DeskUser.self,
    DeskOrderState.self, DeskNoteRow.self, PendingVerdict.self, AuditEntry.self,
]

/// An order of `flagged_orders`: as the latest run that flagged it saw it, with the first run.
public struct FlaggedOrderRow: Sendable, Equatable {
    public var orderID: String
    public var userID, platform, productID, amount, currency, createdAt: String?
    public var severity: Int
    /// `FlaggedOrderHead.rulesColumn(_:)`.
    public var rules: String
    public var firstRun: Int64
    public var firstFlaggedAt: String
    public var lastRun: Int64
    public var lastFlaggedAt: String
    /// 1 once the order has a verdict (the queue's `open` skips it by index).
    public var decided: Int64
    /// The block of its latest run that holds its receipt and lines (`FlaggedBlock.n`).
    public var block: Int64
}

extension FlaggedOrderRow: DeskTableRow {
    static let table = "flagged_orders"
    static let columns = """
        order_id, user_id, platform, product_id, amount, currency, created_at, severity, rules, first_run,
        first_flagged_at, last_run, last_flagged_at, decided, block
        """
    static let key = "order_id"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.flaggedOrders }
    static func batch(_ rows: [FlaggedOrderRow]) -> LedgerRows { .flaggedOrders(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.text(0), let severity = r.int(7).flatMap({ Int(exactly: $0) }), let rules = r.text(8),
            let firstRun = r.int(9), let first = r.text(10), let lastRun = r.int(11), let last = r.text(12),
            let decided = r.int(13), let block = r.int(14)
        else { return nil }
        self.init(
            orderID: id, userID: r.text(1), platform: r.text(2), productID: r.text(3), amount: r.text(4),
            currency: r.text(5), createdAt: r.text(6), severity: severity, rules: rules, firstRun: firstRun,
            firstFlaggedAt: first, lastRun: lastRun, lastFlaggedAt: last, decided: decided, block: block)
    }

    var values: [DeskValue] {
        [
            .text(orderID), .text(userID), .text(platform), .text(productID), .text(amount), .text(currency),
            .text(createdAt), .int(Int64(severity)), .text(rules), .int(firstRun), .text(firstFlaggedAt),
            .int(lastRun), .text(lastFlaggedAt), .int(decided), .int(block),
        ]
    }
}

/// A run before the latest that flagged an order (the latest is the order's own row): the
/// rules it found and the block of that run's that holds the order's lines.
public struct FlaggedHistoryRow: Sendable, Equatable {
    public var orderID: String
    public var run: Int64
    public var block: Int64
    /// `FlaggedOrderHead.rulesColumn(_:)`.
    public var rules: String
}

extension FlaggedHistoryRow: DeskTableRow {
    static let table = "flagged_history"
    static let columns = "order_id, run, block, rules"
    static let key = "order_id, run"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.flaggedHistory }
    static func batch(_ rows: [FlaggedHistoryRow]) -> LedgerRows { .flaggedHistory(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.text(0), let run = r.int(1), let block = r.int(2), let rules = r.text(3) else { return nil }
        self.init(orderID: id, run: run, block: block, rules: rules)
    }

    var values: [DeskValue] { [.text(orderID), .int(run), .int(block), .text(rules)] }
}

/// A block of a run's flagged orders' receipts and lines (`FlaggedBlock`), under its run.
public struct FlaggedBlockRow: Sendable, Equatable {
    public var run: Int64
    public var block: FlaggedBlock
}

extension FlaggedBlockRow: DeskTableRow {
    static let table = "flagged_blocks"
    static let columns = "run, n, data"
    static let key = "run, n"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.flaggedBlocks }
    static func batch(_ rows: [FlaggedBlockRow]) -> LedgerRows { .flaggedBlocks(rows) }

    init?(_ r: DeskRow) {
        guard let run = r.int(0), let n = r.int(1), let data = r.text(2) else { return nil }
        self.init(run: run, block: FlaggedBlock(n: n, data: data))
    }

    var values: [DeskValue] { [.int(run), .int(block.n), .text(block.data)] }
}

/// A store transaction (claim key) a flagged order's receipt named.
public struct FlaggedKeyRow: Sendable, Equatable {
    public var orderID: String
    public var key: String
}

extension FlaggedKeyRow: DeskTableRow {
    static let table = "flagged_keys"
    static let columns = "order_id, key"
    static let key = "order_id, key"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.flaggedKeys }
    static func batch(_ rows: [FlaggedKeyRow]) -> LedgerRows { .flaggedKeys(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.text(0), let key = r.text(1) else { return nil }
        self.init(orderID: id, key: key)
    }

    var values: [DeskValue] { [.text(orderID), .text(key)] }
}

extension DeskUser: DeskTableRow {
    static let table = "desk_users"
    static let columns = "name, role, password_hash, disabled, password_set_at, created_at"
    static let key = "name"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.users }
    static func batch(_ rows: [DeskUser]) -> LedgerRows { .deskUsers(rows) }

    init?(_ r: DeskRow) {
        guard let name = r.text(0), let role = r.text(1).flatMap(DeskRole.init(rawValue:)), let hash = r.text(2),
            let disabled = r.bool(3), let set = r.int(4), let created = r.int(5)
        else { return nil }
        self.init(
            name: name, role: role, passwordHash: hash, disabled: disabled, passwordSetAt: set, createdAt: created)
    }

    var values: [DeskValue] {
        [.text(name), .text(role.rawValue), .text(passwordHash), .bool(disabled), .int(passwordSetAt), .int(createdAt)]
    }
}

/// Where the desk stands on an order: its version, claim and verdict.
public struct DeskOrderState: Sendable, Equatable {
    public var orderID: String
    public var version: Int64
    public var changedBy, claimedBy: String?
    public var claimedUntil: Int64?
    public var verdict, verdictBy, verdictAt, verdictNote: String?
}

extension DeskOrderState: DeskTableRow {
    static let table = "desk_orders"
    static let columns =
        "order_id, version, changed_by, claimed_by, claimed_until, verdict, verdict_by, verdict_at, verdict_note"
    static let key = "order_id"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.deskOrders }
    static func batch(_ rows: [DeskOrderState]) -> LedgerRows { .deskOrders(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.text(0), let version = r.int(1) else { return nil }
        self.init(
            orderID: id, version: version, changedBy: r.text(2), claimedBy: r.text(3), claimedUntil: r.int(4),
            verdict: r.text(5), verdictBy: r.text(6), verdictAt: r.text(7), verdictNote: r.text(8))
    }

    var values: [DeskValue] {
        [
            .text(orderID), .int(version), .text(changedBy), .text(claimedBy), .int(claimedUntil), .text(verdict),
            .text(verdictBy), .text(verdictAt), .text(verdictNote),
        ]
    }
}

/// A reviewer's note on an order, in its place among all notes.
public struct DeskNoteRow: Sendable, Equatable {
    public var id: Int64
    public var orderID: String
    public var note: DeskNote
}

extension DeskNoteRow: DeskTableRow {
    static let table = "desk_notes"
    static let columns = #"id, order_id, "by", at, text"#
    static let key = "id"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.notes }
    static func batch(_ rows: [DeskNoteRow]) -> LedgerRows { .deskNotes(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.int(0), let order = r.text(1), let by = r.text(2), let at = r.text(3), let text = r.text(4)
        else { return nil }
        self.init(id: id, orderID: order, note: DeskNote(by: by, at: at, text: text))
    }

    var values: [DeskValue] { [.int(id), .text(orderID), .text(note.by), .text(note.at), .text(note.text)] }
}

/// A verdict the desk gave that no run has applied yet.
public struct PendingVerdict: Sendable, Equatable {
    public var id: Int64
    public var orderID: String
    public var verdict: DeskVerdict
}

extension PendingVerdict: DeskTableRow {
    static let table = "desk_verdicts"
    static let columns = #"id, order_id, verdict, note, "by", at"#
    static let key = "id"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.pendingVerdicts }
    static func batch(_ rows: [PendingVerdict]) -> LedgerRows { .deskVerdicts(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.int(0), let order = r.text(1), let verdict = r.text(2), let by = r.text(4), let at = r.text(5)
        else { return nil }
        self.init(id: id, orderID: order, verdict: DeskVerdict(verdict: verdict, by: by, at: at, note: r.text(3)))
    }

    var values: [DeskValue] {
        [.int(id), .text(orderID), .text(verdict.verdict), .text(verdict.note), .text(verdict.by), .text(verdict.at)]
    }
}

extension AuditEntry: DeskTableRow {
    static let table = "desk_audit"
    static let columns = #"id, at, "user", action, order_id, detail"#
    static let key = "id"
    static var counted: WritableKeyPath<LedgerCounts, Int> { \.auditEntries }
    static func batch(_ rows: [AuditEntry]) -> LedgerRows { .deskAudit(rows) }

    init?(_ r: DeskRow) {
        guard let id = r.int(0), let at = r.text(1), let user = r.text(2), let action = r.text(3).flatMap(Action.init)
        else { return nil }
        self.init(id: id, at: at, user: user, action: action, orderID: r.text(4), detail: r.text(5))
    }

    var values: [DeskValue] {
        [.int(id), .text(at), .text(user), .text(action.rawValue), .text(orderID), .text(detail)]
    }
}
