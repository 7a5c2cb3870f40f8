/// The queue's SELECT and COUNT for a filter, as text both backends run: parameters are
/// numbered (`?1` for SQLite, `$1` for PostgreSQL), values in `values`, every one bound,
/// none spliced. Only the filter's shape picks the text, so each shape is prepared once.
///
/// Queue order: highest severity first, then the earliest first flagged, then order id.
/// `open`/`all` walk `flagged_orders` by that order (index `flagged_queue`) and stop at the
/// page; `claimed`/`decided`/an assignee start from the desk's few touched orders.
struct QueueQuery {
    typealias Dialect = SQLDialect
    typealias Value = DeskValue

    /// The page: columns as `QueueQuery.columns`.
    private(set) var select = ""
    /// How many orders the filter keeps (no page, no cursor).
    private(set) var count = ""
    private(set) var values: [Value] = []
    /// How many of `values` `count` binds (the first ones).
    private(set) var countValues = 0

    static let columns = """
        f.order_id, f.user_id, f.platform, f.product_id, f.amount, f.currency, f.created_at, f.severity, f.rules,
        f.first_flagged_at, f.last_flagged_at, d.claimed_by, d.claimed_until, d.verdict, d.verdict_by
        """

    init(_ filter: QueueFilter, now: Int64, dialect: Dialect) {
        var conditions: [String] = []
        func bind(_ v: Value) -> String {
            values.append(v)
            return dialect.parameter(values.count)
        }
        let fromDesk: Bool
        switch filter.status {
        case .open:
            fromDesk = false
            let at = bind(.int(now))
            // `decided` first: the index `flagged_open` starts at the undecided orders, however
            // many verdicts the top of the queue has had.
            conditions.append("f.decided = 0 AND (d.claimed_until IS NULL OR d.claimed_until <= \(at))")
        case .claimed:
            fromDesk = true
            conditions.append("d.verdict IS NULL AND d.claimed_until > \(bind(.int(now)))")
        case .decided:
            fromDesk = true
            conditions.append("d.verdict IS NOT NULL")
        case .all:
            fromDesk = false
        }
        if let who = filter.assignee {
            conditions.append("d.claimed_by = \(bind(.text(who))) AND d.claimed_until > \(bind(.int(now)))")
        }
        if let rule = filter.rule {
            let p = bind(.text(rule))
            conditions.append(
                dialect == .sqlite
                    ? "instr(f.rules, ' ' || \(p) || ' ') > 0" : "strpos(f.rules, ' ' || \(p) || ' ') > 0")
        }
        if let s = filter.minimumSeverity { conditions.append("f.severity >= \(bind(.int(Int64(s))))") }
        if let q = filter.query {
            let p = bind(.text(q))
            conditions.append(
                "(f.order_id = \(p) OR f.user_id = \(p) OR f.order_id IN (SELECT order_id FROM \(QueueQuery.schema(dialect))flagged_keys "
                    + "WHERE key IN (\(p), 'g:' || \(p), 'gt:' || \(p))))")
        }
        let s = QueueQuery.schema(dialect)
        // SQLite keeps a CROSS JOIN's order: the desk's rows first when they are the few.
        let from =
            fromDesk || filter.assignee != nil
            ? "\(s)desk_orders d \(dialect == .sqlite ? "CROSS JOIN" : "JOIN") \(s)flagged_orders f ON f.order_id = d.order_id"
            : "\(s)flagged_orders f LEFT JOIN \(s)desk_orders d ON d.order_id = f.order_id"
        let filtered = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        count = "SELECT count(*) FROM \(from)\(filtered)"
        if filter.rule == nil, filter.query == nil, filter.assignee == nil,
            filter.status == .open || filter.status == .all
        {
            count = QueueQuery.quickCount(filter, values: values, dialect: dialect)
        }
        countValues = values.count
        if let after = filter.after {
            let (sv, ff, id) = (
                bind(.int(Int64(after.severity))), bind(.text(after.firstFlaggedAt)), bind(.text(after.orderID))
            )
            conditions.append(
                "(f.severity < \(sv) OR (f.severity = \(sv) AND (f.first_flagged_at > \(ff) OR (f.first_flagged_at = \(ff) "
                    + "AND f.order_id > \(id)))))")
        }
        let paged = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limit = bind(.int(Int64(filter.limit)))
        select =
            "SELECT \(QueueQuery.columns) FROM \(from)\(paged) "
            + "ORDER BY f.severity DESC, f.first_flagged_at, f.order_id LIMIT \(limit)"
    }

    static func schema(_ dialect: Dialect) -> String { dialect == .sqlite ? "" : "iapscreen." }

    /// The queue's length without visiting every flagged order through the desk's rows (12 ms
    /// at 10⁵ orders on SQLite, on every page): the flagged orders (an index range when a
    /// severity is given), less the decided ones (a range of `flagged_open`) and the few with a
    /// live claim. `values` as bound so far: `now` first for `open`, then the severity.
    private static func quickCount(_ filter: QueueFilter, values: [Value], dialect: Dialect) -> String {
        let s = schema(dialect)
        let severity = filter.minimumSeverity.map { _ in "f.severity >= \(dialect.parameter(values.count))" }
        let flagged = "SELECT count(*) FROM \(s)flagged_orders f" + (severity.map { " WHERE " + $0 } ?? "")
        guard filter.status == .open else { return flagged }
        let decided =
            "SELECT count(*) FROM \(s)flagged_orders f WHERE f.decided = 1" + (severity.map { " AND " + $0 } ?? "")
        // The desk's rows first (SQLite keeps a CROSS JOIN's order): left to itself it walked the
        // undecided orders and looked each up among the desk's, 6 ms at 10⁵.
        let claimed =
            "SELECT count(*) FROM \(s)desk_orders d \(dialect == .sqlite ? "CROSS JOIN" : "JOIN") \(s)flagged_orders f "
            + "ON f.order_id = d.order_id "
            + "WHERE d.claimed_until > \(dialect.parameter(1)) AND f.decided = 0"
            + (severity.map { " AND " + $0 } ?? "")
        return "SELECT (\(flagged)) - (\(decided)) - (\(claimed))"
    }
}
