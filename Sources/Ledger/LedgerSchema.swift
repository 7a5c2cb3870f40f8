/// The ledger's tables by schema version (`PRAGMA user_version`), and how a file reaches the
/// current one.
///
///     0  iapscreen before versions (up to 3855577): claims(key, order_id, user_id, created_at),
///        reported, reviews, runs; user_version left at 0
///     2  claims + product_id, amount, currency, purchase_token, platform (NULL on claims
///        that schema 0 kept), an index on purchase_token where there is one (with created_at:
///        a token's first claim is read from the index alone); store_events; refunds
///     3  consents: each user's latest consent (§13) from the dumps screened, by user id, with
///        the id case-folded beside it (indexed: a refund request's account token finds its user)
///     4  the desk (§14): flagged_orders, flagged_findings and flagged_keys, which every run
///        writes; desk_users, desk_sessions, desk_login_failures, desk_orders, desk_notes,
///        desk_verdicts (given, not yet applied by a run) and desk_audit, which the desk writes
///     5  a run's findings.jsonl lines and receipts packed in blocks (`FlaggedBlock`):
///        flagged_blocks, and flagged_history (each run before the latest that flagged an
///        order, its rules and block) for flagged_findings; flagged_orders names its latest
///        run's block
///
/// No iapscreen writes 1: a file that says 1 (or anything else unknown) is refused, not guessed at.
enum LedgerSchema {
    static let current: Int64 = 5

    /// The tables as iapscreen before versions created them on every open: the start of
    /// every ledger, fresh or old (an old file lacking one of them gets it, as its own code
    /// would have given it).
    static let version0 = """
        CREATE TABLE IF NOT EXISTS claims(key TEXT PRIMARY KEY, order_id TEXT NOT NULL, user_id TEXT NOT NULL,
                                          created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS reported(order_id TEXT NOT NULL, rule TEXT NOT NULL,
                                            PRIMARY KEY(order_id, rule)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS reviews(order_id TEXT PRIMARY KEY, verdict TEXT NOT NULL, note TEXT, by TEXT,
                                           at TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
                                        orders INTEGER NOT NULL, flagged INTEGER NOT NULL);
        """

    /// 0 -> 2. ADD COLUMN rewrites no row, so a million old claims migrate in the time the
    /// index takes to scan them. Runs inside the caller's transaction.
    static let migration0to2 = """
        ALTER TABLE claims ADD COLUMN product_id TEXT;
        ALTER TABLE claims ADD COLUMN amount TEXT;
        ALTER TABLE claims ADD COLUMN currency TEXT;
        ALTER TABLE claims ADD COLUMN purchase_token TEXT;
        ALTER TABLE claims ADD COLUMN platform TEXT;
        CREATE INDEX claims_by_token ON claims(purchase_token, created_at) WHERE purchase_token IS NOT NULL;
        CREATE TABLE store_events(identity TEXT PRIMARY KEY, type TEXT NOT NULL, first_run INTEGER) WITHOUT ROWID;
        CREATE TABLE refunds(key TEXT PRIMARY KEY, refunded_at INTEGER NOT NULL, event TEXT NOT NULL, reason TEXT,
                             source TEXT, identity TEXT NOT NULL, reversed_at INTEGER) WITHOUT ROWID;
        PRAGMA user_version = 2;
        """

    /// 2 -> 3: a new table, nothing rewritten.
    static let migration2to3 = """
        CREATE TABLE consents(user_id TEXT PRIMARY KEY, folded TEXT NOT NULL, consent INTEGER NOT NULL,
                              said_at INTEGER NOT NULL, order_id TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX consents_by_folded ON consents(folded);
        PRAGMA user_version = 3;
        """

    /// 3 -> 4: new tables, nothing rewritten; the verdicts `review` recorded become the desk's.
    /// The audit trail refuses UPDATE and DELETE by trigger: nothing of iapscreen changes it.
    static let migration3to4 = """
        CREATE TABLE flagged_orders(order_id TEXT PRIMARY KEY, user_id TEXT, platform TEXT, product_id TEXT,
                                    amount TEXT, currency TEXT, created_at TEXT, severity INTEGER NOT NULL,
                                    rules TEXT NOT NULL, receipt TEXT, first_run INTEGER NOT NULL,
                                    first_flagged_at TEXT NOT NULL, last_run INTEGER NOT NULL,
                                    last_flagged_at TEXT NOT NULL, decided INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE INDEX flagged_queue ON flagged_orders(severity DESC, first_flagged_at, order_id);
        CREATE INDEX flagged_open ON flagged_orders(decided, severity DESC, first_flagged_at, order_id);
        CREATE INDEX flagged_by_user ON flagged_orders(user_id);
        CREATE TABLE flagged_findings(order_id TEXT NOT NULL, run INTEGER NOT NULL, n INTEGER NOT NULL,
                                      rule TEXT NOT NULL, line TEXT NOT NULL,
                                      PRIMARY KEY(order_id, run, n)) WITHOUT ROWID;
        CREATE TABLE flagged_keys(order_id TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY(order_id, key)) WITHOUT ROWID;
        CREATE INDEX flagged_keys_by_key ON flagged_keys(key);
        CREATE TABLE desk_users(name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT NOT NULL,
                                disabled INTEGER NOT NULL, password_set_at INTEGER NOT NULL,
                                created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE desk_sessions(id_hash TEXT PRIMARY KEY, user TEXT NOT NULL, csrf TEXT NOT NULL,
                                   created_at INTEGER NOT NULL, seen_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE INDEX desk_sessions_by_user ON desk_sessions(user);
        CREATE TABLE desk_login_failures(name TEXT NOT NULL, at INTEGER NOT NULL);
        CREATE INDEX desk_login_failures_by_name ON desk_login_failures(name, at);
        CREATE TABLE desk_orders(order_id TEXT PRIMARY KEY, version INTEGER NOT NULL, changed_by TEXT,
                                 claimed_by TEXT, claimed_until INTEGER, verdict TEXT, verdict_by TEXT,
                                 verdict_at TEXT, verdict_note TEXT) WITHOUT ROWID;
        CREATE TABLE desk_notes(id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, by TEXT NOT NULL, at TEXT NOT NULL,
                                text TEXT NOT NULL);
        CREATE INDEX desk_notes_by_order ON desk_notes(order_id, id);
        CREATE TABLE desk_verdicts(id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, verdict TEXT NOT NULL, note TEXT,
                                   by TEXT NOT NULL, at TEXT NOT NULL);
        CREATE TABLE desk_audit(id INTEGER PRIMARY KEY, at TEXT NOT NULL, user TEXT NOT NULL, action TEXT NOT NULL,
                                order_id TEXT, detail TEXT);
        CREATE INDEX desk_audit_by_time ON desk_audit(at, id);
        CREATE TRIGGER desk_audit_no_update BEFORE UPDATE ON desk_audit
            BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER desk_audit_no_delete BEFORE DELETE ON desk_audit
            BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        INSERT INTO desk_orders(order_id, version, changed_by, verdict, verdict_by, verdict_at, verdict_note)
            SELECT order_id, 1, by, verdict, by, at, note FROM reviews;
        PRAGMA user_version = 4;
        """

    /// 4 -> 5: the findings kept one row a line become blocks (`FlaggedBlock`). Each order a
    /// run flagged becomes a plain block of its own, numbered within the run in order id
    /// order; new runs write packed ones. The receipt an order's row held goes in the entry
    /// of its latest run (earlier runs' receipts were not kept). The latest run that flagged
    /// an order is on its own row (`last_run`, `rules`, `block`); the runs before it are
    /// `flagged_history`, where the trigger moves the row's run when a later run flags the
    /// order again: a night of orders flagged for the first time writes no history.
    static let migration4to5 = """
        CREATE TABLE flagged_blocks(run INTEGER NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY(run, n));
        CREATE TABLE flagged_history(order_id TEXT NOT NULL, run INTEGER NOT NULL, block INTEGER NOT NULL,
                                     rules TEXT NOT NULL, PRIMARY KEY(order_id, run)) WITHOUT ROWID;
        CREATE TEMP TABLE migrated_runs(order_id TEXT NOT NULL, run INTEGER NOT NULL, block INTEGER NOT NULL,
                                        rules TEXT NOT NULL, PRIMARY KEY(order_id, run)) WITHOUT ROWID;
        INSERT INTO migrated_runs(order_id, run, block, rules)
            SELECT order_id, run, row_number() OVER (PARTITION BY run ORDER BY order_id) - 1,
                   ' ' || group_concat(rule, ' ') || ' '
            FROM (SELECT DISTINCT order_id, run, rule FROM flagged_findings ORDER BY order_id, run, rule)
            GROUP BY order_id, run;
        INSERT INTO flagged_blocks(run, n, data)
            SELECT r.run, r.block, char(30) || json_quote(r.order_id) || char(10)
                || coalesce((SELECT o.receipt FROM flagged_orders o WHERE o.order_id = r.order_id AND o.last_run = r.run),
                            'null')
                || coalesce((SELECT group_concat(char(10) || line, '') FROM
                                (SELECT line FROM flagged_findings f WHERE f.order_id = r.order_id AND f.run = r.run
                                 ORDER BY n)), '')
            FROM migrated_runs r;
        INSERT INTO flagged_history(order_id, run, block, rules)
            SELECT r.order_id, r.run, r.block, r.rules FROM migrated_runs r JOIN flagged_orders o
                ON o.order_id = r.order_id AND r.run < o.last_run;
        ALTER TABLE flagged_orders ADD COLUMN block INTEGER NOT NULL DEFAULT 0;
        UPDATE flagged_orders SET block = coalesce((SELECT r.block FROM migrated_runs r
            WHERE r.order_id = flagged_orders.order_id AND r.run = flagged_orders.last_run), 0);
        ALTER TABLE flagged_orders DROP COLUMN receipt;
        DROP TABLE flagged_findings;
        DROP TABLE migrated_runs;
        CREATE TRIGGER flagged_orders_history BEFORE UPDATE OF last_run ON flagged_orders
            WHEN old.last_run != new.last_run
            BEGIN
                INSERT OR REPLACE INTO flagged_history(order_id, run, block, rules)
                    VALUES (old.order_id, old.last_run, old.block, old.rules);
            END;
        PRAGMA user_version = 5;
        """

    /// Every column the current schema reads. Preparing them before COMMIT proves the file is one this
    /// code can use (an odd old file fails here, and is rolled back, not left half-usable).
    static let probes: [(table: String, columns: String)] = [
        ("claims", "key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform"),
        ("reported", "order_id, rule"),
        ("reviews", "order_id, verdict, note, by, at"),
        ("runs", "id, started_at, finished_at, orders, flagged"),
        ("store_events", "identity, type, first_run"),
        ("refunds", "key, refunded_at, event, reason, source, identity, reversed_at"),
        ("consents", "user_id, folded, consent, said_at, order_id"),
        (
            "flagged_orders",
            "order_id, user_id, platform, product_id, amount, currency, created_at, severity, rules, "
                + "first_run, first_flagged_at, last_run, last_flagged_at, decided, block"
        ),
        ("flagged_history", "order_id, run, block, rules"),
        ("flagged_blocks", "run, n, data"),
        ("flagged_keys", "order_id, key"),
        ("desk_users", "name, role, password_hash, disabled, password_set_at, created_at"),
        ("desk_sessions", "id_hash, user, csrf, created_at, seen_at"),
        ("desk_login_failures", "name, at"),
        (
            "desk_orders",
            "order_id, version, changed_by, claimed_by, claimed_until, verdict, verdict_by, verdict_at, verdict_note"
        ),
        ("desk_notes", "id, order_id, by, at, text"),
        ("desk_verdicts", "id, order_id, verdict, note, by, at"),
        ("desk_audit", "id, at, user, action, order_id, detail"),
    ]

    /// Throws, naming the table, when one lacks a column the current schema reads.
    static func probe(_ db: LedgerFile) throws(LedgerError) {
        for (table, columns) in probes {
            do throws(LedgerError) {
                _ = try db.prepare("SELECT \(columns) FROM \(table)")
            } catch {
                throw LedgerError("ledger: its \(table) table is not as schema \(current) reads it: \(db.lastError)")
            }
        }
    }

    enum State: Equatable {
        case current
        /// No tables yet: a new file, or an empty one.
        case empty
        case version0
        /// Claims with details, store events and refunds; no consents.
        case version2
        /// Consents; nothing of the desk.
        case version3
        /// The desk, its findings one row a line.
        case version4

        /// The schema number a state stands for.
        var number: Int64 {
            switch self {
            case .current: LedgerSchema.current
            case .empty, .version0: 0
            case .version2: 2
            case .version3: 3
            case .version4: 4
            }
        }
    }

    /// What the file holds, or why this build must not touch it. Reads only.
    static func inspect(_ db: LedgerFile, path: String) throws(LedgerError) -> State {
        let version = try db.userVersion()
        if version == current { return .current }
        if version == 2 { return .version2 }
        if version == 3 { return .version3 }
        if version == 4 { return .version4 }
        if version > current {
            throw LedgerError(
                "ledger \(path) was written by a newer iapscreen: schema \(version), this one reads up to "
                    + "\(current); use that iapscreen (nothing read or written)", code: .newerSchema)
        }
        guard version == 0 else {
            throw LedgerError(
                "ledger \(path) says schema \(version), which no iapscreen writes (this one reads 0, 2, 3, "
                    + "4 and \(current)); not opened", code: .unknownSchema)
        }
        let tables = try tableNames(db)
        if tables.isEmpty { return .empty }
        guard tables.contains("claims") else {
            throw LedgerError(
                "\(path) is a SQLite file but not an iapscreen ledger: it has no claims table (it has "
                    + "\(tables.joined(separator: ", "))); not opened", code: .notALedger)
        }
        return .version0
    }

    /// Brings the file to the current schema in one transaction: a run killed in it, or a
    /// step that fails, leaves the file as it was. Looks again inside the transaction, as
    /// another process may have done it meanwhile.
    static func upgrade(_ db: LedgerFile, path: String, from state: State) throws(LedgerError) {
        var from = state
        do throws(LedgerError) {
            try db.writing { () throws(LedgerError) in
                from = try inspect(db, path: path)
                switch from {
                case .current: return
                case .version4: break
                case .version3: try db.execute(migration3to4)
                case .version2:
                    try db.execute(migration2to3)
                    try db.execute(migration3to4)
                case .empty, .version0:
                    try db.execute(version0)
                    try db.execute(migration0to2)
                    try db.execute(migration2to3)
                    try db.execute(migration3to4)
                }
                try db.execute(migration4to5)
                try probe(db)
            }
        } catch  where error.code == .sqlite {
            let reason = error.message.hasPrefix("ledger: ") ? String(error.message.dropFirst(8)) : error.message
            if from == .empty {
                throw LedgerError("cannot create the ledger \(path): \(reason)")
            }
            throw LedgerError(
                "cannot migrate ledger \(path) from schema \(from.number) to \(current): \(reason); the file is "
                    + "unchanged",
                code: .migrationFailed)
        }
    }

    static func tableNames(_ db: LedgerFile) throws(LedgerError) -> [String] {
        let stmt = try db.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                + "ORDER BY name")
        var names: [String] = []
        while try stmt.step() {
            if let name = stmt.text(0) { names.append(name) }
        }
        return names
    }
}
