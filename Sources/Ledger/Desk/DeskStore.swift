/// What the desk asks of a ledger (CONTRACT §14), whichever backend keeps it. Every change
/// of state writes its audit entries in the same transaction, so a decision and its entry
/// are kept together or not at all. `now` and `at` are milliseconds since 1970.
///
/// One store is one connection: the desk gives each of its threads its own.
public protocol DeskStore: AnyObject {
    // Users (the command line and the login).
    /// Adds a user; false when the name is taken (nothing written).
    func addUser(_ user: DeskUser, by actor: String) throws(LedgerError) -> Bool
    func user(named name: String) throws(LedgerError) -> DeskUser?
    func users() throws(LedgerError) -> [DeskUser]
    /// Sets a new password hash and ends the user's sessions; false for an unknown user.
    func setPassword(of name: String, hash: String, at: Int64, by actor: String) throws(LedgerError) -> Bool
    /// Disables or enables a user (disabling ends its sessions); false for an unknown user.
    func setDisabled(_ name: String, _ disabled: Bool, at: Int64, by actor: String) throws(LedgerError) -> Bool
    /// Forgets a name's failed logins (a lead's `unlock`).
    func unlock(_ name: String, at: Int64, by actor: String) throws(LedgerError)

    // Logins and sessions.
    /// Failed logins of the name as typed since `since`.
    func loginFailures(of name: String, since: Int64) throws(LedgerError) -> LoginFailures
    /// A failed login, with its `login-failed` entry.
    func recordLoginFailure(of name: String, at: Int64) throws(LedgerError)
    /// A new session for a user who logged in: its failures forgotten, a `login` entry.
    func startSession(idHash: String, user: String, csrf: String, at: Int64) throws(LedgerError)
    /// The session of this cookie hash with its user as the ledger has it now; nil when unknown.
    func session(idHash: String) throws(LedgerError) -> DeskSession?
    /// Marks the session used at `at`.
    func touchSession(idHash: String, at: Int64) throws(LedgerError)
    /// Ends a session; `logout` writes its entry (a lapsed session ends without one).
    func endSession(idHash: String, at: Int64, logout: String?) throws(LedgerError)

    // The queue and its orders.
    func queue(_ filter: QueueFilter, now: Int64) throws(LedgerError) -> QueuePage
    /// nil for an order no run flagged.
    func dossier(of orderID: String, now: Int64) throws(LedgerError) -> OrderDossier?
    /// Claims (or extends one's own claim on) an order until `until`.
    func claim(_ orderID: String, by user: String, until: Int64, now: Int64) throws(LedgerError) -> ClaimOutcome
    /// Claims the first open order of the queue; nil when none is open.
    func claimNext(by user: String, until: Int64, now: Int64) throws(LedgerError) -> (
        orderID: String, outcome: ClaimOutcome
    )?
    /// Releases the order's live claim: one's own, or anyone's when `asLead`.
    func release(_ orderID: String, by user: String, asLead: Bool, now: Int64) throws(LedgerError) -> ReleaseOutcome
    /// Adds a note; the order's new version, nil for an order no run flagged.
    func addNote(_ orderID: String, by user: String, text: String, at: Int64) throws(LedgerError) -> Int64?
    /// Records a verdict (kept until the next `screen` applies it to the order's findings).
    /// `version`: the order's version the reviewer read; nil skips the check (bulk verdicts).
    func giveVerdict(
        _ orderID: String, verdict: String, note: String?, by user: String, version: Int64?, bulk: Bool, at: Int64
    ) throws(LedgerError) -> VerdictOutcome

    /// The audit trail from `since` (§7 text, inclusive) and after entry `afterID`, oldest
    /// first, at most `limit` entries.
    func audit(since: String?, afterID: Int64, limit: Int) throws(LedgerError) -> [AuditEntry]
}
