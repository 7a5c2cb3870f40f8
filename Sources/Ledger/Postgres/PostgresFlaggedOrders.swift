import PostgresClient

/// A run's flagged orders for the desk, on PostgreSQL: staged with COPY (the heads, the
/// blocks, the transactions the orders named) and merged with one statement per table, to
/// the same rows `SQLiteFlaggedWriter` writes one by one: the order as the latest run saw it
/// (the first run that flagged it stays; the run before goes to the history by trigger), the
/// run's blocks, the transactions it named. 10⁵ flagged orders are a few COPYs and three
/// INSERTs.
enum PostgresFlaggedOrders {
    /// The night's staging of them, made with the night's other staging tables (`staging`).
    /// `n`: an order's place among those given.
    static let staging = """
        CREATE TEMP TABLE night_flagged(n bigint, order_id text, user_id text, platform text, product_id text,
                                        amount text, currency text, created_at text, severity integer, rules text,
                                        block bigint) ON COMMIT DROP;
        CREATE TEMP TABLE night_flagged_blocks(n bigint, data text) ON COMMIT DROP;
        CREATE TEMP TABLE night_flagged_keys(order_id text, key text) ON COMMIT DROP;
        """

    /// The staged columns, in every staging table of them (after a shard's run id and number).
    static let orderColumns =
        "n, order_id, user_id, platform, product_id, amount, currency, created_at, severity, rules, block"
    static let blockColumns = "n, data"
    static let keyColumns = "order_id, key"

    /// `night` into the tables `<prefix>flagged`, `<prefix>flagged_blocks` and
    /// `<prefix>flagged_keys`; `lead` writes the columns `leading` names, first in every row.
    static func copy(
        _ db: PostgresConnection, _ target: String, _ night: FlaggedNight, into prefix: String,
        leading: String = "", lead: (inout PostgresCopyRows) -> Void = { _ in }
    ) throws(LedgerError) {
        try night.blocks.forEachBatch { (batch) throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                _ = try db.copyIn(
                    "COPY \(prefix)flagged_blocks(\(leading)\(blockColumns)) FROM STDIN", count: batch.count
                ) { out, i in
                    lead(&out)
                    out.add(batch[i].n)
                    out.add(batch[i].data)
                    out.endRow()
                }
            }
        }
        var first: Int64 = 0
        try night.heads.forEachBatch { (batch) throws(LedgerError) in
            let keys = batch.flatMap { f in f.transactions.map { (orderID: f.orderID, key: $0) } }
            try onServer(target) { () throws(PostgresError) in
                try db.copyIn("COPY \(prefix)flagged(\(leading)\(orderColumns)) FROM STDIN", count: batch.count) {
                    out, i in
                    lead(&out)
                    out.add(first + Int64(i))
                    out.add(batch[i])
                    out.endRow()
                }
                try db.copyIn("COPY \(prefix)flagged_keys(\(leading)\(keyColumns)) FROM STDIN", count: keys.count) {
                    out, i in
                    lead(&out)
                    out.add(keys[i].orderID)
                    out.add(keys[i].key)
                    out.endRow()
                }
            }
            first += Int64(batch.count)
        }
    }

    /// The staged orders into the ledger under run `run`, flagged at `at` (the run's end, §7
    /// text). Of an order given twice, the later one's columns and block win, as SQLite's
    /// upserts one after the other leave them.
    static func merge(_ db: PostgresConnection, run: Int64, at: String) throws(PostgresError) {
        try db.query(
            """
            INSERT INTO iapscreen.flagged_blocks(run, n, data) SELECT $1, n, data FROM pg_temp.night_flagged_blocks
            ON CONFLICT (run, n) DO UPDATE SET data = excluded.data
            """, [.int64(run)])
        try db.query(
            """
            INSERT INTO iapscreen.flagged_orders(order_id, user_id, platform, product_id, amount, currency, created_at,
                severity, rules, first_run, first_flagged_at, last_run, last_flagged_at, decided, block)
            SELECT DISTINCT ON (order_id) order_id, user_id, platform, product_id, amount, currency, created_at, severity,
                rules, $1, $2, $1, $2,
                (EXISTS (SELECT 1 FROM iapscreen.desk_orders d WHERE d.order_id = night.order_id AND d.verdict IS NOT NULL))::int,
                block
            FROM pg_temp.night_flagged night ORDER BY order_id, n DESC
            ON CONFLICT (order_id) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                product_id = excluded.product_id, amount = excluded.amount, currency = excluded.currency,
                created_at = excluded.created_at, severity = excluded.severity, rules = excluded.rules,
                last_run = excluded.last_run, last_flagged_at = excluded.last_flagged_at, block = excluded.block
            """, [.int64(run), .text(at)])
        try db.execute(
            """
            INSERT INTO iapscreen.flagged_keys(order_id, key) SELECT DISTINCT order_id, key FROM pg_temp.night_flagged_keys
            ON CONFLICT (order_id, key) DO NOTHING
            """)
    }
}

extension PostgresCopyRows {
    /// order_id, user_id, platform, product_id, amount, currency, created_at, severity, rules, block
    mutating func add(_ f: FlaggedOrderHead) {
        for text in [f.orderID, f.userID, f.platform, f.productID, f.amount, f.currency, f.createdAt] { add(text) }
        add(Int64(f.severity))
        add(f.rules)
        add(f.block)
    }
}
