import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats

/// The demo world's refund requests (docs/consumption.md): Apple's `CONSUMPTION_REQUEST`s for
/// App Store purchases of orders planned clean, and what `consumption.jsonl` and summary.json's
/// `consumption_requests` must say of them at `now`. Drawn from a random stream of their own, so
/// the rest of the store-event log is what it would be without them.
///
/// | case | the request | answer |
/// |---|---|---|
/// | `request-answered` | on a consumable its user (consent yes) used 35 % of; logged twice | `answer`, `DELIVERED`, 35000, no preference |
/// | `request-declined` | on a consumable its user (consent yes) used up | `answer`, `DELIVERED`, 100000, `DECLINE` |
/// | `request-no-consent` | on an order whose user said no | `no-consent`, no body |
/// | `request-late` | signed an hour after the credit: past its 12 hours at `now` | counted `late`, not listed |
/// | `request-forged` | signed by keys outside Rules/trust | counted `invalid`, never answered; `store-event-invalid` |
///
/// Besides: a request on the first App Store order the dump marks `refunded` whose user said
/// yes (`UNDELIVERED_OTHER`, `GRANT_FULL`: the customer paid and got nothing), its case left as it
/// was; without one, a request for a purchase no order took whose account token is a consenting
/// user's id (the same answer). Every order's `consent` comes from its user's id (one user, one consent), and a
/// consumable's `consumed` from its order id, unless a request's case sets it.
struct SampleRefundRequests {
    enum Role: String, CaseIterable {
        case answered = "request-answered"
        case declined = "request-declined"
        case noConsent = "request-no-consent"
        case late = "request-late"
        case forged = "request-forged"
    }

    /// The moment the shipped world's answers are judged at (`--now`): a day and 13 hours after
    /// the night starts, when the requests signed at `start` + 30 h are still open.
    static func now(start: Timestamp) -> Timestamp { later(start, seconds: 37 * 3_600) }

    /// What summary.json's `consumption_requests` must say at `now`.
    struct Tally {
        var read = 0, answered = 0, noConsent = 0, late = 0, invalid = 0
        var decline = 0, grantFull = 0, grantProrated = 0, noPreference = 0

        var json: JSONObject {
            JSONObject([
                ("read", .integer(read)), ("answered", .integer(answered)), ("no_consent", .integer(noConsent)),
                ("late", .integer(late)), ("invalid", .integer(invalid)), ("decline", .integer(decline)),
                ("grant_full", .integer(grantFull)), ("grant_prorated", .integer(grantProrated)),
                ("no_preference", .integer(noPreference)),
            ])
        }
    }

    /// A request's log line and what the log's tally makes of it.
    struct Line {
        var text: String
        var uuid: String
        var believed: Bool
        /// Logged again at the end, as Apple retries a delivery.
        var again: Bool
    }

    private let start: Timestamp
    private var random: SeededRandom
    private var taken: Set<Role> = []
    private var notCreditedDone = false
    private var minutes: Int64 = 0
    /// A user of the world who consents, for the lost order's account token.
    private var consentingUser: String?
    private(set) var tally = Tally()

    init(seed: UInt64, start: Timestamp) {
        self.start = start
        random = SeededRandom(seed: seed &+ 0x5EC0_0004)
    }

    /// Whether the user consents to share their data (`consent`): yes for seven users in ten,
    /// no for two, unsaid for one; the same for every order of theirs.
    static func consent(ofUser user: String) -> String? {
        switch fnv(user) % 10 {
        case 0..<7: return "yes"
        case 7, 8: return "no"
        default: return nil
        }
    }

    /// How much of a consumable the customer used (`consumed`), from its order id.
    static func consumed(ofOrder order: String) -> String { "\(fnv("consumed:" + order) % 101)%" }

    /// Plants a request on a clean credited App Store order when its turn comes (one in two
    /// until each case is taken once, then about one in 40); returns its case, with the line.
    mutating func plant(
        _ o: inout PlannedOrder, transaction tx: JWSBuilder.Transaction, type: ProductType, signer: SigningIdentity,
        forger: () throws -> SigningIdentity
    ) throws -> (role: Role, line: Line)? {
        let chance = taken.count < Role.allCases.count ? 0.5 : 0.025
        guard random.chance(chance) else { return nil }
        let consent = o.consent
        let fits = Role.allCases.filter { role in
            switch role {
            case .answered, .declined: return consent == "yes" && type == .consumable
            case .noConsent: return consent == "no"
            case .late, .forged: return true
            }
        }
        if consent == "yes" { consentingUser = o.userID }
        // The cases not yet taken first, so that a small world has them all; then mostly answers.
        guard let role = fits.first(where: { !taken.contains($0) }) ?? weightedPick(fits) else { return nil }
        taken.insert(role)
        switch role {
        case .answered: o.consumed = "35%"
        case .declined: o.consumed = "100%"
        default: break
        }
        let signed = role == .late ? Self.later(o.createdAt, seconds: 3_600) : nextOpenTime()
        var line = try request(
            tx, at: signed, signer: role == .forged ? try forger() : signer, again: role == .answered)
        line.believed = role != .forged
        switch role {
        case .answered:
            tally.answered += 1
            tally.noPreference += 1
        case .declined:
            tally.answered += 1
            tally.decline += 1
        case .noConsent: tally.noConsent += 1
        case .late: tally.late += 1
        case .forged: tally.invalid += 1
        }
        tally.read += 1
        return (role, line)
    }

    /// A request on an order the dump marks refunded (the first whose user said yes): the
    /// customer is owed it.
    mutating func plantOnRefunded(_ o: PlannedOrder, transaction tx: JWSBuilder.Transaction, signer: SigningIdentity)
        throws -> Line?
    {
        guard !notCreditedDone, o.consent == "yes", o.transactionID == tx.transactionID else { return nil }
        notCreditedDone = true
        tally.read += 1
        tally.answered += 1
        tally.grantFull += 1
        return try request(tx, at: nextOpenTime(), signer: signer, again: false)
    }

    /// A request the server can tie to no order but by its account token, for a purchase no
    /// order took (a lost order, when no refunded order has had its request): the token is
    /// a consenting user's id in capitals (Apple's spelling of a UUID token). nil when done.
    mutating func plantLost(transactionID: String, productID: String, purchased: Timestamp, signer: SigningIdentity)
        throws -> Line?
    {
        guard !notCreditedDone, let user = consentingUser else { return nil }
        notCreditedDone = true
        var tx = JWSBuilder.Transaction(
            transactionID: transactionID, bundleID: SampleCatalog.bundleID, productID: productID, type: "Consumable",
            purchaseDate: purchased, signedDate: purchased)
        tx.appAccountToken = user.uppercased()
        tally.read += 1
        tally.answered += 1
        tally.grantFull += 1
        return try request(tx, at: nextOpenTime(), signer: signer, again: false)
    }

    /// Of the cases that fit, answers four times as often as the others, declines twice.
    private mutating func weightedPick(_ fits: [Role]) -> Role? {
        let weighted = fits.flatMap { role -> [Role] in
            switch role {
            case .answered: return [role, role, role, role]
            case .declined, .noConsent: return [role, role]
            case .late, .forged: return [role]
            }
        }
        return weighted.isEmpty ? nil : random.pick(weighted)
    }

    private mutating func nextOpenTime() -> Timestamp {
        minutes += 1 + Int64(random.below(20))
        return Self.later(start, seconds: 30 * 3_600 + minutes * 60)
    }

    private mutating func request(
        _ purchase: JWSBuilder.Transaction, at signed: Timestamp, signer: SigningIdentity, again: Bool
    ) throws -> Line {
        var tx = purchase
        tx.signedDate = signed
        var n = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: random.uuid(),
            bundleID: SampleCatalog.bundleID, signedDate: signed, transaction: tx)
        n.appAppleID = SampleCatalog.appItemID
        n.bundleVersion = "4.2"
        n.consumptionRequestReason = random.pick([
            "UNSATISFIED_WITH_PURCHASE", "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "OTHER",
        ])
        return Line(
            text: AppStoreEventBuilder.webhookBody(signedPayload: try JWSBuilder.notification(n, with: signer)),
            uuid: n.notificationUUID, believed: true, again: again)
    }

    private static func later(_ t: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(clampingMillis: t.millis + seconds * 1000, hasMilliseconds: false)
    }

    /// FNV-1a: the same id, the same draw, on every platform.
    private static func fnv(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}
