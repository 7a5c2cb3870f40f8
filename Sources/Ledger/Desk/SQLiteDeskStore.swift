import IAPBasics
import SQLiteClient

/// The desk's side of a SQLite ledger (`LedgerSchema` 4): one connection, used by one desk
/// thread at a time. Its writes wait for a run's write transaction to end rather than fail:
/// a desk working while `screen` records its night loses nothing (CONTRACT §14).
public final class SQLiteDeskStore: DeskStore {
    let db: LedgerFile
    public let path: String
    /// Prepared once a connection, by their SQL.
    private var statements: [String: LedgerStatement] = [:]

    /// Long enough for the biggest night's record transaction; a reviewer's click waits for it.
    static let waitForRunMilliseconds: Int32 = 600_000

    /// Opens the ledger at `path`, which must exist at the current schema (the desk opens it
    /// once as a `SQLiteLedger` first, which creates or migrates it).
    public init(path: String) throws(LedgerError) {
        self.path = path
        db = try LedgerFile(path: path, creating: false)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        db.waitForLocks(milliseconds: SQLiteDeskStore.waitForRunMilliseconds)
        let version = try db.userVersion()
        guard version == LedgerSchema.current else {
            throw LedgerError(
                "ledger \(path) is at schema \(version), not \(LedgerSchema.current): open it with this iapscreen first",
                code: .unknownSchema)
        }
    }

    /// The statement of `sql`, prepared on first use and reset for this one.
    func statement(_ sql: String) throws(LedgerError) -> LedgerStatement {
        if let s = statements[sql] {
            s.reset()
            return s
        }
        let s = try db.prepare(sql)
        statements[sql] = s
        return s
    }

    /// Rows of `sql` with `values` bound, each read by `row`.
    func rows<T>(_ sql: String, _ values: [SQLiteValue], _ row: (LedgerStatement) -> T?) throws(LedgerError) -> [T] {
        let s = try statement(sql)
        defer { s.reset() }
        s.bind(values)
        var out: [T] = []
        while try s.step() {
            if let r = row(s) { out.append(r) }
        }
        return out
    }

    func run(_ sql: String, _ values: SQLiteValue...) throws(LedgerError) {
        let s = try statement(sql)
        s.bind(values)
        try s.run()
    }

    /// Appends an entry to the audit trail (inside the caller's transaction).
    func audit(_ entry: AuditEntry) throws(LedgerError) {
        try run(
            "INSERT INTO desk_audit(at, user, action, order_id, detail) VALUES (?, ?, ?, ?, ?)", .text(entry.at),
            .text(entry.user), .text(entry.action.rawValue), .text(entry.orderID), .text(entry.detail))
    }

    // MARK: Users

    public func addUser(_ user: DeskUser, by actor: String) throws(LedgerError) -> Bool {
        try db.writing { () throws(LedgerError) -> Bool in
            guard try self.user(named: user.name) == nil else { return false }
            try run(
                "INSERT INTO desk_users(name, role, password_hash, disabled, password_set_at, created_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?)",
                .text(user.name), .text(user.role.rawValue), .text(user.passwordHash), .int(user.disabled ? 1 : 0),
                .int(user.passwordSetAt), .int(user.createdAt))
            try audit(
                AuditEntry(
                    at: DeskTime.text(user.createdAt), user: actor, action: .userAdd,
                    detail: "\(user.name) as \(user.role.rawValue)"))
            return true
        }
    }

    static let userColumns = "name, role, password_hash, disabled, password_set_at, created_at"

    static func user(_ s: LedgerStatement, from column: Int32 = 0) -> DeskUser? {
        guard let name = s.text(column), let role = s.text(column + 1).flatMap(DeskRole.init(rawValue:)),
            let hash = s.text(column + 2)
        else { return nil }
        return DeskUser(
            name: name, role: role, passwordHash: hash, disabled: s.int(column + 3) != 0,
            passwordSetAt: s.int(column + 4), createdAt: s.int(column + 5))
    }

    public func user(named name: String) throws(LedgerError) -> DeskUser? {
        try rows("SELECT \(SQLiteDeskStore.userColumns) FROM desk_users WHERE name = ?", [.text(name)]) {
            SQLiteDeskStore.user($0)
        }.first
    }

    public func users() throws(LedgerError) -> [DeskUser] {
        try rows("SELECT \(SQLiteDeskStore.userColumns) FROM desk_users ORDER BY name", []) { SQLiteDeskStore.user($0) }
    }

    public func setPassword(of name: String, hash: String, at: Int64, by actor: String) throws(LedgerError) -> Bool {
        try db.writing { () throws(LedgerError) -> Bool in
            guard try user(named: name) != nil else { return false }
            try run("UPDATE desk_users SET password_hash = ?, password_set_at = ? WHERE name = ?", .text(hash), .int(at), .text(name))
            try run("DELETE FROM desk_sessions WHERE user = ?", .text(name))
            try audit(AuditEntry(at: DeskTime.text(at), user: actor, action: .userPassword, detail: name))
            return true
        }
    }

    public func setDisabled(_ name: String, _ disabled: Bool, at: Int64, by actor: String) throws(LedgerError) -> Bool {
        try db.writing { () throws(LedgerError) -> Bool in
            guard try user(named: name) != nil else { return false }
            try run("UPDATE desk_users SET disabled = ? WHERE name = ?", .int(disabled ? 1 : 0), .text(name))
            if disabled { try run("DELETE FROM desk_sessions WHERE user = ?", .text(name)) }
            try audit(
                AuditEntry(
                    at: DeskTime.text(at), user: actor, action: disabled ? .userDisable : .userEnable, detail: name))
            return true
        }
    }

    public func unlock(_ name: String, at: Int64, by actor: String) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            try run("DELETE FROM desk_login_failures WHERE name = ?", .text(name))
            try audit(AuditEntry(at: DeskTime.text(at), user: actor, action: .userUnlock, detail: name))
        }
    }

    // MARK: Logins and sessions

    public func loginFailures(of name: String, since: Int64) throws(LedgerError) -> LoginFailures {
        try rows(
            "SELECT count(*), max(at) FROM desk_login_failures WHERE name = ? AND at >= ?", [.text(name), .int(since)]
        ) { s in LoginFailures(count: Int(clamping: s.int(0)), last: s.optionalInt(1)) }.first
            ?? LoginFailures(count: 0, last: nil)
    }

    public func recordLoginFailure(of name: String, at: Int64) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            try run("INSERT INTO desk_login_failures(name, at) VALUES (?, ?)", .text(name), .int(at))
            try audit(AuditEntry(at: DeskTime.text(at), user: name, action: .loginFailed))
        }
    }

    public func startSession(idHash: String, user: String, csrf: String, at: Int64) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            try run("DELETE FROM desk_login_failures WHERE name = ?", .text(user))
            try run(
                "INSERT INTO desk_sessions(id_hash, user, csrf, created_at, seen_at) VALUES (?, ?, ?, ?, ?)",
                .text(idHash), .text(user), .text(csrf), .int(at), .int(at))
            try audit(AuditEntry(at: DeskTime.text(at), user: user, action: .login))
        }
    }

    public func session(idHash: String) throws(LedgerError) -> DeskSession? {
        try rows(
            "SELECT s.id_hash, s.csrf, s.created_at, s.seen_at, \(SQLiteDeskStore.prefixed("u", SQLiteDeskStore.userColumns)) "
                + "FROM desk_sessions s JOIN desk_users u ON u.name = s.user WHERE s.id_hash = ?",
            [.text(idHash)]
        ) { s -> DeskSession? in
            guard let id = s.text(0), let csrf = s.text(1), let user = SQLiteDeskStore.user(s, from: 4) else { return nil }
            return DeskSession(idHash: id, user: user, csrf: csrf, createdAt: s.int(2), seenAt: s.int(3))
        }.first
    }

    public func touchSession(idHash: String, at: Int64) throws(LedgerError) {
        try run("UPDATE desk_sessions SET seen_at = ? WHERE id_hash = ? AND seen_at < ?", .int(at), .text(idHash), .int(at))
    }

    public func endSession(idHash: String, at: Int64, logout user: String?) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            try run("DELETE FROM desk_sessions WHERE id_hash = ?", .text(idHash))
            if let user { try audit(AuditEntry(at: DeskTime.text(at), user: user, action: .logout)) }
        }
    }

    public func audit(since: String?, afterID: Int64, limit: Int) throws(LedgerError) -> [AuditEntry] {
        try rows(
            "SELECT id, at, user, action, order_id, detail FROM desk_audit WHERE at >= ? AND id > ? ORDER BY id LIMIT ?",
            [.text(since ?? ""), .int(afterID), .int(Int64(clamping: limit))]
        ) { s in
            guard let at = s.text(1), let user = s.text(2), let action = s.text(3).flatMap(AuditEntry.Action.init)
            else { return nil }
            return AuditEntry(id: s.int(0), at: at, user: user, action: action, orderID: s.text(4), detail: s.text(5))
        }
    }

    /// "a.x, a.y" from "x, y".
    static func prefixed(_ alias: String, _ columns: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingPrefix(" "))" }.joined(separator: ", ")
    }
}

/// The desk's times as people read them: §7 text, whole seconds.
public enum DeskTime {
    public static func text(_ millis: Int64) -> String {
        Timestamp(clampingMillis: millis - millis % 1000, hasMilliseconds: false).iso8601
    }
}
