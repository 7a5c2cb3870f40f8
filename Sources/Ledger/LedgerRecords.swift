import IAPBasics
import Screening

// What both ledgers keep and hand back, whichever backend: reviews, claims with what they
// bought, a run's record, and the runs completed.

/// A reviewer's verdict on an order, as the ledger keeps it.
public struct Review: Sendable, Equatable {
    public var verdict: String
    public var note: String?
    public var by: String?
    /// `YYYY-MM-DDTHH:MM:SSZ`
    public var at: String

    public init(verdict: String, note: String?, by: String?, at: String) {
        self.verdict = verdict
        self.note = note
        self.by = by
        self.at = at
    }
}

/// What the ledger keeps of a claim beside its order, user and time, so a finding on an
/// order credited on an earlier night can name its product and money (docs/store-events.md), and a
/// Google refund that names only a purchase token finds its claim. nil: not known (every
/// claim from a schema-0 ledger).
public struct ClaimDetails: Sendable, Equatable {
    public var productID: String?
    /// The order's amount as its dump wrote it (decimal text, e.g. `4.99`).
    public var amount: String?
    public var currency: String?
    /// Google's purchase token.
    public var purchaseToken: String?
    /// `ios` or `android`.
    public var platform: String?

    public init(
        productID: String? = nil, amount: String? = nil, currency: String? = nil, purchaseToken: String? = nil,
        platform: String? = nil
    ) {
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.purchaseToken = purchaseToken
        self.platform = platform
    }

    public static let unknown = ClaimDetails()
}

/// A store transaction taken first tonight, with what the order bought.
public struct NewClaim: Sendable {
    public var key: String
    public var claim: Claim
    public var details: ClaimDetails

    public init(key: String, claim: Claim, details: ClaimDetails = .unknown) {
        self.key = key
        self.claim = claim
        self.details = details
    }
}

/// What a completed run leaves in the ledger, written in one transaction after the reports.
public struct RunRecord: Sendable {
    public var startedAt: Timestamp
    public var finishedAt: Timestamp
    public var orders: Int
    public var flagged: Int
    /// Claims to remember, smallest key first; a key the ledger has keeps its first taker.
    public var newClaims: RunRows<NewClaim>
    /// Every finding reported, so the next run can say `seen`.
    public var reported: RunRows<ReportedFinding>
    /// Refunds read tonight. A key the ledger already has keeps the earlier refund.
    public var refunds: [RememberedRefund]
    /// Apple's reversals of refunds: sets the refund's `reversedAt` (the earliest stays).
    public var reversals: [(key: String, at: Timestamp)]
    /// Every distinct store event read tonight; one the ledger knows keeps its first run.
    public var events: [(identity: String, type: String)]
    /// Each user's latest consent stated in tonight's dumps (one per user, in user order);
    /// the ledger keeps the later of its own and this one.
    public var consents: RunRows<RememberedConsent>
    /// The orders it flagged with their counting findings, for the desk (§14).
    public var flaggedOrders: FlaggedNight

    public init(
        startedAt: Timestamp, finishedAt: Timestamp, orders: Int, flagged: Int,
        newClaims: RunRows<NewClaim>, reported: RunRows<ReportedFinding>, refunds: [RememberedRefund] = [],
        reversals: [(key: String, at: Timestamp)] = [], events: [(identity: String, type: String)] = [],
        consents: RunRows<RememberedConsent> = .none, flaggedOrders: FlaggedNight = .none
    ) {
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.orders = orders
        self.flagged = flagged
        self.newClaims = newClaims
        self.reported = reported
        self.refunds = refunds
        self.reversals = reversals
        self.events = events
        self.consents = consents
        self.flaggedOrders = flaggedOrders
    }

    /// The same from rows in memory, in any order (tests, benchmarks).
    public init(
        startedAt: Timestamp, finishedAt: Timestamp, orders: Int, flagged: Int,
        newClaims: [NewClaim], reported: [(orderID: String, rule: String)], refunds: [RememberedRefund] = [],
        reversals: [(key: String, at: Timestamp)] = [], events: [(identity: String, type: String)] = [],
        consents: [RememberedConsent] = [], flaggedOrders: [FlaggedOrderRecord] = []
    ) {
        self.init(
            startedAt: startedAt, finishedAt: finishedAt, orders: orders, flagged: flagged,
            newClaims: .inKeyOrder(newClaims),
            reported: RunRows(reported.map { ReportedFinding(orderID: $0, rule: $1) }),
            refunds: refunds, reversals: reversals, events: events, consents: .inUserOrder(consents),
            flaggedOrders: FlaggedNight(flaggedOrders))
    }
}

/// A completed run as the ledger keeps it.
public struct RecordedRun: Sendable, Equatable {
    /// What `RememberedEvent.firstRun` names.
    public var id: Int64
    /// `YYYY-MM-DDTHH:MM:SSZ`
    public var startedAt: String
    public var finishedAt: String
    public var orders: Int
    public var flagged: Int
    /// A sharded run's `--run-id` and its number of shards (PostgreSQL); nil for an unsharded run.
    public var sharded: ShardedRun?

    public struct ShardedRun: Sendable, Equatable {
        public var runID: String
        public var shards: Int
    }

    public init(id: Int64, startedAt: String, finishedAt: String, orders: Int, flagged: Int) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.orders = orders
        self.flagged = flagged
    }
}
