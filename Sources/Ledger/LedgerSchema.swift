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
///
/// No iapscreen writes 1: a file that says 1 (or anything else unknown) is refused, not guessed at.
enum LedgerSchema {
    static let current: Int64 = 3

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

        /// The schema number a state stands for.
        var number: Int64 {
            switch self {
            case .current: LedgerSchema.current
            case .empty, .version0: 0
            case .version2: 2
            }
        }
    }

    /// What the file holds, or why this build must not touch it. Reads only.
    static func inspect(_ db: LedgerFile, path: String) throws(LedgerError) -> State {
        let version = try db.userVersion()
        if version == current { return .current }
        if version == 2 { return .version2 }
        if version > current {
            throw LedgerError(
                "ledger \(path) was written by a newer iapscreen: schema \(version), this one reads up to "
                    + "\(current); use that iapscreen (nothing read or written)", code: .newerSchema)
        }
        guard version == 0 else {
            throw LedgerError(
                "ledger \(path) says schema \(version), which no iapscreen writes (this one reads 0, 2 "
                    + "and \(current)); not opened", code: .unknownSchema)
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
                case .version2: break
                case .empty, .version0:
                    try db.execute(version0)
                    try db.execute(migration0to2)
                }
                try db.execute(migration2to3)
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
