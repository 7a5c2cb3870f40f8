// What the desk keeps in the ledger beside the runs (CONTRACT §14): its users and sessions,
// the state of each order it works (claim, verdict, version), notes and the audit trail.
// Times are milliseconds since 1970 where the desk compares them, §7 text where people read them.

/// What a desk user may do; each role may do all the one before it may.
public enum DeskRole: String, Sendable, CaseIterable, Comparable {
    /// Reads the queue, the orders and the notes.
    case viewer
    /// Also claims, releases its own claim, adds notes and gives verdicts.
    case reviewer
    /// Also gives bulk verdicts, releases anyone's claim, reads the audit trail, manages users.
    case lead

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .reviewer: 1
        case .lead: 2
        }
    }

    public static func < (a: DeskRole, b: DeskRole) -> Bool { a.rank < b.rank }
}

public struct DeskUser: Sendable, Equatable {
    public var name: String
    public var role: DeskRole
    /// The memory-hard hash (`$argon2id$…`); never the password.
    public var passwordHash: String
    public var disabled: Bool
    /// When the password was last set (ms): a session started before it has ended.
    public var passwordSetAt: Int64
    public var createdAt: Int64

    public init(
        name: String, role: DeskRole, passwordHash: String, disabled: Bool = false, passwordSetAt: Int64,
        createdAt: Int64
    ) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.disabled = disabled
        self.passwordSetAt = passwordSetAt
        self.createdAt = createdAt
    }
}

/// A live login, found by the hash of its cookie (the cookie itself is never kept).
public struct DeskSession: Sendable, Equatable {
    public var idHash: String
    public var user: DeskUser
    public var csrf: String
    public var createdAt: Int64
    public var seenAt: Int64

    public init(idHash: String, user: DeskUser, csrf: String, createdAt: Int64, seenAt: Int64) {
        self.idHash = idHash
        self.user = user
        self.csrf = csrf
        self.createdAt = createdAt
        self.seenAt = seenAt
    }
}

/// One entry of the audit trail, which nothing of iapscreen changes or deletes.
public struct AuditEntry: Sendable, Equatable {
    /// Its place in the trail (0 before it is written).
    public var id: Int64
    /// §7 time text.
    public var at: String
    /// Who did it (for `login-failed`, the name as typed).
    public var user: String
    public var action: Action
    public var orderID: String?
    public var detail: String?

    public enum Action: String, Sendable, CaseIterable {
        case login
        case loginFailed = "login-failed"
        case logout, claim, release, note, verdict
        case bulkVerdict = "bulk-verdict"
        case review
        case userAdd = "user-add"
        case userPassword = "user-password"
        case userDisable = "user-disable"
        case userEnable = "user-enable"
        case userUnlock = "user-unlock"
    }

    public init(id: Int64 = 0, at: String, user: String, action: Action, orderID: String? = nil, detail: String? = nil)
    {
        self.id = id
        self.at = at
        self.user = user
        self.action = action
        self.orderID = orderID
        self.detail = detail
    }
}

/// Which orders of the queue a reader wants (`GET /api/v1/queue`).
public struct QueueFilter: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        /// No verdict and no live claim.
        case open
        /// A live claim, no verdict.
        case claimed
        /// A verdict.
        case decided
        case all
    }

    public var status: Status
    public var rule: String?
    /// At least this severity (`Severity.rawValue`).
    public var minimumSeverity: Int?
    /// Orders whose live claim this user holds.
    public var assignee: String?
    /// An order id, user id or store transaction id, matched exactly.
    public var query: String?
    public var limit: Int
    /// Orders after this place in the queue's order.
    public var after: QueuePlace?

    public init(
        status: Status = .open, rule: String? = nil, minimumSeverity: Int? = nil, assignee: String? = nil,
        query: String? = nil, limit: Int = 50, after: QueuePlace? = nil
    ) {
        self.status = status
        self.rule = rule
        self.minimumSeverity = minimumSeverity
        self.assignee = assignee
        self.query = query
        self.limit = limit
        self.after = after
    }
}

/// Where an order stands in the queue's order: highest severity first, then the earliest
/// first flagged, then order id as text.
public struct QueuePlace: Sendable, Equatable {
    public var severity: Int
    public var firstFlaggedAt: String
    public var orderID: String

    public init(severity: Int, firstFlaggedAt: String, orderID: String) {
        self.severity = severity
        self.firstFlaggedAt = firstFlaggedAt
        self.orderID = orderID
    }
}

/// An order of the queue with where the desk stands on it.
public struct QueueOrder: Sendable, Equatable {
    public var flagged: FlaggedOrderSummary
    /// The live claim's holder and end (ms); nil when there is none or it lapsed.
    public var claimedBy: String?
    public var claimedUntil: Int64?
    public var verdict: String?
    public var verdictBy: String?

    public init(
        flagged: FlaggedOrderSummary, claimedBy: String? = nil, claimedUntil: Int64? = nil, verdict: String? = nil,
        verdictBy: String? = nil
    ) {
        self.flagged = flagged
        self.claimedBy = claimedBy
        self.claimedUntil = claimedUntil
        self.verdict = verdict
        self.verdictBy = verdictBy
    }

    public var place: QueuePlace {
        QueuePlace(severity: flagged.severity, firstFlaggedAt: flagged.firstFlaggedAt, orderID: flagged.orderID)
    }
}

/// A flagged order as the latest run that flagged it saw it.
public struct FlaggedOrderSummary: Sendable, Equatable {
    public var orderID: String
    public var userID: String?
    public var platform: String?
    public var productID: String?
    public var amount: String?
    public var currency: String?
    public var createdAt: String?
    public var severity: Int
    public var rules: [String]
    public var firstFlaggedAt: String
    public var lastFlaggedAt: String

    public init(
        orderID: String, userID: String?, platform: String?, productID: String?, amount: String?, currency: String?,
        createdAt: String?, severity: Int, rules: [String], firstFlaggedAt: String, lastFlaggedAt: String
    ) {
        self.orderID = orderID
        self.userID = userID
        self.platform = platform
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.createdAt = createdAt
        self.severity = severity
        self.rules = rules
        self.firstFlaggedAt = firstFlaggedAt
        self.lastFlaggedAt = lastFlaggedAt
    }
}

public struct QueuePage: Sendable, Equatable {
    public var orders: [QueueOrder]
    /// Every order the filter keeps (not only this page's).
    public var total: Int
    /// Where the next page starts; nil on the last.
    public var next: QueuePlace?

    public init(orders: [QueueOrder], total: Int, next: QueuePlace?) {
        self.orders = orders
        self.total = total
        self.next = next
    }
}

public struct DeskVerdict: Sendable, Equatable {
    public var verdict: String
    public var by: String
    public var at: String
    public var note: String?

    public init(verdict: String, by: String, at: String, note: String?) {
        self.verdict = verdict
        self.by = by
        self.at = at
        self.note = note
    }
}

public struct DeskNote: Sendable, Equatable {
    public var by: String
    public var at: String
    public var text: String

    public init(by: String, at: String, text: String) {
        self.by = by
        self.at = at
        self.text = text
    }
}

/// Everything the order page and `GET /api/v1/orders/{id}` show of one order.
public struct OrderDossier: Sendable, Equatable {
    public var order: QueueOrder
    /// The latest run's findings.jsonl lines of the order.
    public var findings: [String]
    /// The receipt's key fields as the latest run kept them (a JSON array of pairs), if any.
    public var receipt: String?
    /// Each run that flagged it, oldest first.
    public var history: [(run: Int64, at: String, rules: [String])]
    public var transactions: [TransactionTaker]
    public var storeEvents: [(type: String, at: String, reason: String?)]
    public var user: UserFacts
    public var verdict: DeskVerdict?
    public var notes: [DeskNote]
    public var version: Int64

    public init(
        order: QueueOrder, findings: [String], receipt: String?, history: [(run: Int64, at: String, rules: [String])],
        transactions: [TransactionTaker], storeEvents: [(type: String, at: String, reason: String?)], user: UserFacts,
        verdict: DeskVerdict?, notes: [DeskNote], version: Int64
    ) {
        self.order = order
        self.findings = findings
        self.receipt = receipt
        self.history = history
        self.transactions = transactions
        self.storeEvents = storeEvents
        self.user = user
        self.verdict = verdict
        self.notes = notes
        self.version = version
    }

    public static func == (a: OrderDossier, b: OrderDossier) -> Bool {
        a.order == b.order && a.findings == b.findings && a.receipt == b.receipt
            && a.history.map(\.run) == b.history.map(\.run) && a.history.map(\.at) == b.history.map(\.at)
            && a.history.map(\.rules) == b.history.map(\.rules) && a.transactions == b.transactions
            && a.storeEvents.map(\.type) == b.storeEvents.map(\.type)
            && a.storeEvents.map(\.at) == b.storeEvents.map(\.at)
            && a.storeEvents.map(\.reason) == b.storeEvents.map(\.reason) && a.user == b.user
            && a.verdict == b.verdict && a.notes == b.notes && a.version == b.version
    }
}

/// A store transaction the order's receipt named: which order took it first (the claims),
/// and the other flagged orders that named it too.
public struct TransactionTaker: Sendable, Equatable {
    public var key: String
    public var takenBy: String?
    /// §7 time text of the first credit.
    public var takenAt: String?
    public var alsoCreditedTo: [String]

    public init(key: String, takenBy: String?, takenAt: String?, alsoCreditedTo: [String]) {
        self.key = key
        self.takenBy = takenBy
        self.takenAt = takenAt
        self.alsoCreditedTo = alsoCreditedTo
    }
}

/// What the ledger knows of the order's user.
public struct UserFacts: Sendable, Equatable {
    /// The user's flagged orders (this one among them), in queue order.
    public var orders: [String]
    /// Refunds the ledger remembers of the user's credited purchases.
    public var refunds: Int
    /// The user's latest consent (§13), nil when none was stated.
    public var consent: Bool?

    public init(orders: [String], refunds: Int, consent: Bool?) {
        self.orders = orders
        self.refunds = refunds
        self.consent = consent
    }
}

/// What a claim came to.
public enum ClaimOutcome: Sendable, Equatable {
    case claimed(until: Int64, version: Int64)
    /// Another user's claim is live.
    case heldBy(String, until: Int64)
    case unknownOrder
}

/// What a release came to.
public enum ReleaseOutcome: Sendable, Equatable {
    case released
    /// There was no live claim to release.
    case notClaimed
    /// Another user's claim, which only a lead may release.
    case heldBy(String)
    case unknownOrder
}

/// What a verdict came to.
public enum VerdictOutcome: Sendable, Equatable {
    /// Recorded; `replaced` is the verdict it replaced.
    case recorded(replaced: String?, version: Int64)
    /// Another user's claim is live.
    case heldBy(String)
    /// The order changed since the version given was read: its version now, and who made the
    /// last change.
    case staleVersion(current: Int64, lastBy: String?)
    case unknownOrder
}

/// What the lockout knows of a user name's failed logins.
public struct LoginFailures: Sendable, Equatable {
    public var count: Int
    public var last: Int64?

    public init(count: Int, last: Int64?) {
        self.count = count
        self.last = last
    }
}
