import Screening

/// What the commands ask of a ledger, whichever backend keeps it: `SQLiteLedger` (a file)
/// or `PostgresLedger` (schema `iapscreen` of a database). Both keep the same tables at the
/// same schema version and answer alike; every failure is a `LedgerError`.
public protocol LedgerStore: ClaimLedger, AnyObject {
    /// The schema version the ledger says it has (after opening, the one this build writes).
    func storedSchemaVersion() throws(LedgerError) -> Int

    /// Earlier claims of these keys with what the ledger knows of each.
    func claimsWithDetails(of keys: [String]) throws(LedgerError) -> [String: (claim: Claim, details: ClaimDetails)]
    /// The claim key of each purchase token (token -> key); renewals sharing a token give the
    /// first: earliest created, then key.
    func claimKeys(forTokens tokens: [String]) throws(LedgerError) -> [String: String]
    /// Whether an earlier completed run reported this finding.
    func wasReported(orderID: String, rule: String) throws(LedgerError) -> Bool
    /// Whether a completed run reported a finding on this order or saw it take a transaction.
    func knows(orderID: String) throws(LedgerError) -> Bool
    /// The last `count` completed runs, newest first.
    func recentRuns(_ count: Int) throws(LedgerError) -> [RecordedRun]

    func review(of orderID: String) throws(LedgerError) -> Review?
    /// The verdicts on these orders, by order id: a night's reports ask once a chunk, not
    /// once a finding (a round trip each, on a server).
    func reviews(of orderIDs: [String]) throws(LedgerError) -> [String: Review]
    /// Which of these findings an earlier completed run reported.
    func reported(_ findings: [ReportedFinding]) throws(LedgerError) -> Set<ReportedFinding>
    /// Records (or replaces) a reviewer's verdict (`review`): in the reviews, as the desk's
    /// verdict on the order and in the audit trail, in one transaction.
    func recordReview(orderID: String, _ review: Review) throws(LedgerError)
    /// Moves the verdicts the desk gave since the last run into the reviews (a run holding
    /// the ledger, before it reads anything); how many.
    func applyDeskVerdicts() throws(LedgerError) -> Int
    /// Records a completed run in one transaction: new claims (the first taker stays), what it
    /// reported, the run, its store events, refunds (the earliest stays), reversals, the
    /// users' consents (the latest stated stays) and the orders it flagged. `commitIf` is
    /// asked once everything is written, before COMMIT: false rolls it all back
    /// (`.notCommitted`), so a run can write its ledger while its reports are being prepared
    /// and keep neither when the reports fail.
    func record(_ run: RunRecord, commitIf: () -> Bool) throws(LedgerError)

    /// The remembered refunds of these claim keys, by key.
    func refunds(of keys: [String]) throws(LedgerError) -> [String: RememberedRefund]
    /// Every remembered refund, by key.
    func allRefunds() throws(LedgerError) -> [String: RememberedRefund]
    /// How many refunds completed runs left.
    func refundCount() throws(LedgerError) -> Int
    /// Remembered refunds per user whose claim they refund.
    func refundsPerUser() throws(LedgerError) -> [String: Int]
    /// Which of these store event identities an earlier completed run read.
    func knownEvents(_ identities: [String]) throws(LedgerError) -> Set<String>
    /// The store events of these identities that earlier completed runs read, by identity.
    func events(_ identities: [String]) throws(LedgerError) -> [String: RememberedEvent]

    /// The remembered consents of these users, by user id.
    func consents(of users: [String]) throws(LedgerError) -> [String: RememberedConsent]
    /// The remembered consent of the user whose id is each account token, compared
    /// case-insensitively: by folded token (`RememberedConsent.folded`).
    func consents(ofAccountTokens tokens: [String]) throws(LedgerError) -> [String: RememberedConsent]

    /// How many rows each table holds (`ledger status`).
    func counts() throws(LedgerError) -> LedgerCounts
    /// Who holds the ledger for a run right now, as far as can be seen without taking any
    /// lock (SQLite: the kernel's list of file locks; PostgreSQL: the server's); nil: no one.
    func runHolder() throws(LedgerError) -> String?
    /// Every row, table by table (runs first), at most `batch` rows at a time, all from one
    /// snapshot: a run that completes meanwhile is in it whole or not at all. A row this
    /// build cannot read (a time out of range) stops the export, naming it.
    func exportRows(batch: Int, _ body: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError)
    /// In one transaction: refuses a ledger that holds anything (`.notEmpty`), else lets
    /// `fill` write rows through its argument, and commits when it returns (`copy(from:)`).
    func load(_ fill: (_ write: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError) -> Void)
        throws(LedgerError)
}

extension LedgerStore {
    /// Records a completed run in one transaction (`record(_:commitIf:)`, committed).
    public func record(_ run: RunRecord) throws(LedgerError) {
        try record(run, commitIf: { true })
    }
}

/// A finding as the ledger remembers it reported: its order and rule.
public struct ReportedFinding: Hashable, Sendable {
    public var orderID: String
    /// A named rule's id or a custom rule's.
    public var rule: String

    public init(orderID: String, rule: String) { (self.orderID, self.rule) = (orderID, rule) }
}

extension SQLiteLedger: LedgerStore {}
