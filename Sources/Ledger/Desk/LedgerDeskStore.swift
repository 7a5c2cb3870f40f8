import IAPBasics

/// The desk's side of a ledger (`LedgerSchema` 4, `PostgresSchema` 4), written once for both
/// backends: every answer comes from the SQL here, so a desk on SQLite and one on PostgreSQL
/// answer alike. `SQLiteDeskStore` and `PostgresDeskStore` give it their connection; one
/// store is one connection, used by one desk thread at a time.
public class LedgerDeskStore: DeskStore {
    let database: any DeskDatabase

    init(database: any DeskDatabase) {
        self.database = database
    }

    /// Appends an entry to the audit trail (inside the caller's transaction).
    func audit(_ entry: AuditEntry) throws(LedgerError) {
        try database.run(
            #"INSERT INTO desk_audit(at, "user", action, order_id, detail) VALUES (?1, ?2, ?3, ?4, ?5)"#,
            [
                .text(entry.at), .text(entry.user), .text(entry.action.rawValue), .text(entry.orderID),
                .text(entry.detail),
            ])
    }

    // MARK: Users

    public func addUser(_ user: DeskUser, by actor: String) throws(LedgerError) -> Bool {
        try database.writing(keep: \.self) { () throws(LedgerError) -> Bool in
            let added = try database.run(
                "INSERT INTO desk_users(\(DeskUser.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(name) DO NOTHING",
                user.values)
            guard added == 1 else { return false }
            try audit(
                AuditEntry(
                    at: DeskTime.text(user.createdAt), user: actor, action: .userAdd,
                    detail: "\(user.name) as \(user.role.rawValue)"))
            return true
        }
    }

    public func user(named name: String) throws(LedgerError) -> DeskUser? {
        try database.rows("SELECT \(DeskUser.columns) FROM desk_users WHERE name = ?1", [.text(name)]) {
            DeskUser($0)
        }.first
    }

    public func users() throws(LedgerError) -> [DeskUser] {
        try database.rows("SELECT \(DeskUser.columns) FROM desk_users ORDER BY name", []) { DeskUser($0) }
    }

    public func setPassword(of name: String, hash: String, at: Int64, by actor: String) throws(LedgerError) -> Bool {
        try database.writing(keep: \.self) { () throws(LedgerError) -> Bool in
            let changed = try database.run(
                "UPDATE desk_users SET password_hash = ?1, password_set_at = ?2 WHERE name = ?3",
                [.text(hash), .int(at), .text(name)])
            guard changed == 1 else { return false }
            try database.run(#"DELETE FROM desk_sessions WHERE "user" = ?1"#, [.text(name)])
            try audit(AuditEntry(at: DeskTime.text(at), user: actor, action: .userPassword, detail: name))
            return true
        }
    }

    public func setDisabled(_ name: String, _ disabled: Bool, at: Int64, by actor: String) throws(LedgerError) -> Bool {
        try database.writing(keep: \.self) { () throws(LedgerError) -> Bool in
            let changed = try database.run(
                "UPDATE desk_users SET disabled = ?1 WHERE name = ?2", [.bool(disabled), .text(name)])
            guard changed == 1 else { return false }
            if disabled { try database.run(#"DELETE FROM desk_sessions WHERE "user" = ?1"#, [.text(name)]) }
            try audit(
                AuditEntry(
                    at: DeskTime.text(at), user: actor, action: disabled ? .userDisable : .userEnable, detail: name))
            return true
        }
    }

    public func unlock(_ name: String, at: Int64, by actor: String) throws(LedgerError) {
        try database.writing { () throws(LedgerError) in
            try database.run("DELETE FROM desk_login_failures WHERE name = ?1", [.text(name)])
            try audit(AuditEntry(at: DeskTime.text(at), user: actor, action: .userUnlock, detail: name))
        }
    }

    // MARK: Logins and sessions

    public func loginFailures(of name: String, since: Int64) throws(LedgerError) -> LoginFailures {
        try database.rows(
            "SELECT count(*), max(at) FROM desk_login_failures WHERE name = ?1 AND at >= ?2",
            [.text(name), .int(since)]
        ) { r in LoginFailures(count: Int(clamping: r.int(0) ?? 0), last: r.int(1)) }.first
            ?? LoginFailures(count: 0, last: nil)
    }

    public func recordLoginFailure(of name: String, at: Int64) throws(LedgerError) {
        try database.writing { () throws(LedgerError) in
            try database.run("INSERT INTO desk_login_failures(name, at) VALUES (?1, ?2)", [.text(name), .int(at)])
            try audit(AuditEntry(at: DeskTime.text(at), user: name, action: .loginFailed))
        }
    }

    public func startSession(idHash: String, user: String, csrf: String, at: Int64) throws(LedgerError) {
        try database.writing { () throws(LedgerError) in
            try database.run("DELETE FROM desk_login_failures WHERE name = ?1", [.text(user)])
            try database.run(
                #"INSERT INTO desk_sessions(id_hash, "user", csrf, created_at, seen_at) VALUES (?1, ?2, ?3, ?4, ?4)"#,
                [.text(idHash), .text(user), .text(csrf), .int(at)])
            try audit(AuditEntry(at: DeskTime.text(at), user: user, action: .login))
        }
    }

    public func session(idHash: String) throws(LedgerError) -> DeskSession? {
        try database.rows(
            "SELECT \(DeskUser.columns(of: "u")), s.id_hash, s.csrf, s.created_at, s.seen_at "
                + #"FROM desk_sessions s JOIN desk_users u ON u.name = s."user" WHERE s.id_hash = ?1"#,
            [.text(idHash)]
        ) { r -> DeskSession? in
            guard let user = DeskUser(r), let id = r.text(6), let csrf = r.text(7), let created = r.int(8),
                let seen = r.int(9)
            else { return nil }
            return DeskSession(idHash: id, user: user, csrf: csrf, createdAt: created, seenAt: seen)
        }.first
    }

    public func touchSession(idHash: String, at: Int64) throws(LedgerError) {
        try database.run(
            "UPDATE desk_sessions SET seen_at = ?1 WHERE id_hash = ?2 AND seen_at < ?1", [.int(at), .text(idHash)])
    }

    public func endSession(idHash: String, at: Int64, logout user: String?) throws(LedgerError) {
        try database.writing { () throws(LedgerError) in
            try database.run("DELETE FROM desk_sessions WHERE id_hash = ?1", [.text(idHash)])
            if let user { try audit(AuditEntry(at: DeskTime.text(at), user: user, action: .logout)) }
        }
    }

    public func audit(since: String?, afterID: Int64, limit: Int) throws(LedgerError) -> [AuditEntry] {
        try database.rows(
            "SELECT \(AuditEntry.columns) FROM desk_audit WHERE at >= ?1 AND id > ?2 ORDER BY id LIMIT ?3",
            [.text(since ?? ""), .int(afterID), .int(Int64(clamping: limit))]
        ) { AuditEntry($0) }
    }
}

/// The desk's times as people read them: §7 text, whole seconds.
public enum DeskTime {
    public static func text(_ millis: Int64) -> String {
        Timestamp(clampingMillis: millis - millis % 1000, hasMilliseconds: false).iso8601
    }
}
