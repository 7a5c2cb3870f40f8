import PostgresClient

#if canImport(Glibc)
    import Glibc
#endif

/// One run at a time per PostgreSQL ledger: a session advisory lock, held while the ledger's
/// connection lives and freed by the server when it ends, even if the process is killed.
/// Each session names its process in `application_name`, which is how the next run says who
/// holds the lock.
enum PostgresRunLock {
    /// "iaps" then 2 (1 is the migration's).
    static let key: Int64 = 0x6961_7073_0000_0002

    /// `iapscreen PID@HOST`: PostgreSQL keeps the first 63 bytes.
    static let applicationName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "iapscreen \(getpid())@?" }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "iapscreen \(getpid())@\(host)"
    }()

    /// Who holds the lock, as the server shows that session: its application name (for
    /// iapscreen, the pid and host) and its backend pid; nil when no visible session does.
    static func holder(_ db: PostgresConnection) throws(PostgresError) -> String? {
        let r = try db.query(
            """
            SELECT a.application_name, a.pid, host(a.client_addr),
                   to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              -- A bigint key is kept as its high and low 32 bits.
              AND l.classid::bigint = $1 AND l.objid::bigint = $2
            """, [.int64(key >> 32), .int64(key & 0xFFFF_FFFF)])
        guard r.rowCount > 0 else { return nil }
        let name = try r.text(0, 0).flatMap { $0.isEmpty ? nil : $0 } ?? "a session without a name"
        let pid = try r.int64(0, 1).map(String.init) ?? "?"
        let from = try r.text(0, 2).map { " from \($0)" } ?? ""
        let since = try r.text(0, 3).map { " since \($0)" } ?? ""
        return "\(name) (server process \(pid)\(from)\(since))"
    }
}

extension PostgresLedger {
    /// Takes the ledger for this run, or says which process has it (`.inUse`). Held until this
    /// ledger is released.
    public func lockForRun() throws(LedgerError) {
        let (taken, holder) = try onServer(target) { () throws(PostgresError) in
            try db.tryAdvisoryLock(PostgresRunLock.key) ? (true, nil) : (false, try PostgresRunLock.holder(db))
        }
        guard !taken else {
            // A sharded run holds no lock for all its length: its state says it is going on.
            if let sharded = try PostgresShardRun.runInProgress(self, abandonedAfter: PostgresShardRun.defaultTimeout) {
                _ = try? db.advisoryUnlock(PostgresRunLock.key)
                throw LedgerError("ledger \(target) is in use by \(sharded)", code: .inUse)
            }
            return
        }
        throw LedgerError(
            "ledger \(target) is in use by another run: \(holder ?? "a session this user cannot see")",
            code: .inUse)
    }
}
