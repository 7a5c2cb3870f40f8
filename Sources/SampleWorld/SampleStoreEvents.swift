import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Screening

/// What the stores told the server about the demo world after the credit (docs/store-events.md):
/// `store-events.jsonl.gz`, one logged event a line, and `expected-store-events.json`, what
/// summary.json's `store_events` must say of it when the world is screened with it.
///
/// Refunds are planted on orders planned clean whose store reports show nothing odd (and on
/// every order the dump marks `refunded` that names its transaction), drawn from a random
/// stream of their own, never adding or changing an order: the orders, receipts and store reports of a seed
/// are the same as without the log, and screening without `--store-events` says what it
/// always said. A planted order's case and expected rules change in expected.csv:
///
/// | case | event | expected |
/// |---|---|---|
/// | `event-refund-notification` | App Store `REFUND` webhook body, after the credit | `refunded-after-credit` |
/// | `event-refund-reversed` | the first of those, and Apple's `REFUND_REVERSED` of it days later | `refunded-after-credit`, `refund-reversed` |
/// | `event-refund-notification-history` | `REFUND` in a notification-history page | `refunded-after-credit` |
/// | `event-refund-history` | a transaction with `revocationDate` in a refund-history page | `refunded-after-credit` |
/// | `event-refund-before-credit` | `REFUND` webhook body, revoked before the credit | `revoked` |
/// | `event-forged-refund-notification` | `REFUND` signed by keys outside Rules/trust | `store-event-invalid` (believed not, flags nothing) |
/// | `event-voided-purchase-page` | Google voided purchase in a `voidedpurchases.list` page | `refunded-after-credit` |
/// | `event-voided-purchase` | one voided purchase a line | `refunded-after-credit` |
/// | `event-rtdn-voided` | RTDN push, `voidedPurchaseNotification` | `refunded-after-credit` |
/// | `event-rtdn-subscription-revoked` | RTDN push, `SUBSCRIPTION_REVOKED` naming only the token | `refunded-after-credit` |
/// | `event-refund-of-refunded-order` | a refund of an order the dump marks `refunded` | nothing (it took no transaction; matched when its row names it) |
///
/// Besides: Apple's `TEST` notification (the first line), a `DID_RENEW`, refunds of
/// transactions no order took (unmatched), some events logged twice (counted once), and one
/// line that is no event (`malformed-record`).
public struct SampleStoreEvents {
    static let file = "store-events.jsonl.gz"
    static let expectedFile = "expected-store-events.json"

    /// What a planted order becomes; its raw value is its case in expected.csv.
    enum Role: String {
        case refundNotification = "event-refund-notification"
        case refundReversed = "event-refund-reversed"
        case refundInHistory = "event-refund-notification-history"
        case refundHistory = "event-refund-history"
        case refundBeforeCredit = "event-refund-before-credit"
        case forgedRefund = "event-forged-refund-notification"
        case voidedInPage = "event-voided-purchase-page"
        case voided = "event-voided-purchase"
        case rtdnVoided = "event-rtdn-voided"
        case rtdnRevoked = "event-rtdn-subscription-revoked"
        case refundOfRefunded = "event-refund-of-refunded-order"

        var expected: [String] {
            switch self {
            case .refundBeforeCredit: return [Revoked.id.rawValue]
            case .forgedRefund: return [StoreEventInvalid.id.rawValue]
            case .refundOfRefunded: return []
            case .refundReversed: return [RefundedAfterCredit.id.rawValue, RefundReversed.id.rawValue]
            default: return [RefundedAfterCredit.id.rawValue]
            }
        }
    }

    /// Whose turn it is among the roles of one kind of order, in turn: one candidate in two
    /// takes a role until each has been taken once (so a small world has them all), then
    /// about one in 25.
    private struct Turns {
        let roles: [Role]
        var taken = 0

        var chance: Double { taken < roles.count ? 0.5 : 0.04 }

        mutating func next() -> Role {
            defer { taken += 1 }
            return roles[taken % roles.count]
        }
    }

    /// What one logged event does, as summary.json counts it.
    fileprivate struct Logged {
        enum Outcome { case matched, unmatched, notBelieved, other, reversal }
        /// The same identity is the same event, however often it is logged.
        var identity: String
        var type: String
        var outcome: Outcome
    }

    /// What summary.json's `store_events` must say.
    public struct Tally {
        public var read = 0, distinct = 0, refunds = 0, reversals = 0, matched = 0, unmatched = 0, invalid = 0
        public var byType: [String: Int] = [:]
        public var malformedLines = 0
        /// What summary.json's `consumption_requests` must say at `consumptionNow`.
        var consumption = SampleRefundRequests.Tally()
        var consumptionNow: Timestamp?
        /// Orders planted with an event.
        public var orders = 0
        fileprivate var identities: Set<String> = []

        fileprivate mutating func count(_ e: Logged) {
            read += 1
            guard identities.insert(e.identity).inserted else { return }
            distinct += 1
            byType[e.type, default: 0] += 1
            switch e.outcome {
            case .matched:
                refunds += 1
                matched += 1
            case .unmatched:
                refunds += 1
                unmatched += 1
            case .notBelieved: invalid += 1
            case .reversal:
                reversals += 1
                matched += 1
            case .other: break
            }
        }

        var json: JSONValue {
            let types = byType.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.integer($0.value)) }
            let events = JSONObject([
                ("read", .integer(read)), ("distinct", .integer(distinct)), ("by_type", .object(JSONObject(types))),
                ("refunds", .integer(refunds)), ("reversals", .integer(reversals)), ("matched", .integer(matched)),
                ("unmatched", .integer(unmatched)), ("invalid", .integer(invalid)),
            ])
            return .object(
                JSONObject([
                    ("store_events", .object(events)), ("malformed_lines", .integer(malformedLines)),
                    ("consumption_requests", .object(consumption.json)),
                    ("consumption_now", consumptionNow.map { .string($0.iso8601) } ?? .null),
                ]))
        }
    }

    /// The purchase an order took, as its store knows it.
    private struct Purchase {
        /// Apple transaction id, or Google order id.
        var transactionID: String
        var token: String?
        var productID: String
        var type: ProductType
        var purchased: Timestamp
        /// The App Store transaction a refund of it carries (nil for Google).
        var apple: JWSBuilder.Transaction?
    }

    private static let pageSize = 4
    private static let bundle = SampleCatalog.bundleID

    private let pki: TestPKI
    private let start: Timestamp
    private let log: GzipFile
    private var random: SeededRandom
    /// Keys outside the world's trust, made when the first forgery needs them.
    private var forger: TestPKI?
    private var apple = Turns(roles: [
        .refundNotification, .refundInHistory, .refundHistory, .refundBeforeCredit, .forgedRefund,
    ])
    private var google = Turns(roles: [.voidedInPage, .voided, .rtdnVoided])
    private var subscriptions = Turns(roles: [.rtdnRevoked])
    private var historyPage: [(AppStoreEventBuilder.HistoryEntry, Logged)] = []
    private var voidedPage: [(GoogleVoidedPurchaseBuilder.VoidedPurchase, Logged)] = []
    /// Lines logged again at the end, as retried deliveries are: the first of each role
    /// in `Self.loggedTwice`.
    private var again: [(String, Logged)] = []
    private var repeated: Set<Role> = []
    private static let loggedTwice: Set<Role> = [.refundReversed, .refundNotification, .voided, .rtdnVoided]
    /// The refund Apple reverses at the end of the log: its purchase and when it was refunded.
    private var reversed: (purchase: Purchase, refunded: Timestamp)?
    /// An App Store subscription of the world, which the `DID_RENEW` renews.
    private var subscription: Purchase?
    private var voidings = 0
    private var requests: SampleRefundRequests
    /// The lost order's transaction id: a stream of its own, the rest of the log unchanged.
    private var requestIDs: SeededRandom
    private(set) var tally = Tally()

    init(directory: String, pki: TestPKI, seed: UInt64, start: Timestamp) throws {
        self.pki = pki
        self.start = start
        random = SeededRandom(seed: seed &+ 0x5EC0_0002)
        requests = SampleRefundRequests(seed: seed, start: start)
        requestIDs = SeededRandom(seed: seed &+ 0x5EC0_0005)
        log = try GzipFile((directory as NSString).appendingPathComponent(Self.file))
        // What App Store Connect sends when the notification URL is set up: the log's first line.
        var test = JWSBuilder.Notification(
            notificationType: "TEST", notificationUUID: uuid(), bundleID: Self.bundle,
            signedDate: Self.later(start, seconds: -86_400 * 40), transaction: nil)
        test.appAppleID = SampleCatalog.appItemID
        try write(
            AppStoreEventBuilder.webhookBody(test, with: pki.jwsSigner),
            Logged(identity: "n:" + test.notificationUUID, type: "TEST", outcome: .other))
    }

    private static func later(_ t: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(clampingMillis: t.millis + seconds * 1000, hasMilliseconds: false)
    }

    // MARK: Planting

    /// Takes one planned order (once, however often its row is written): plants an event
    /// on it when its turn comes, and says so in its case and expected rules.
    mutating func add(_ o: inout PlannedOrder, storeTwisted: Bool) throws {
        guard let p = Self.purchase(of: o) else { return }
        let role: Role
        if o.status == "refunded" {
            role = .refundOfRefunded
        } else {
            // Only clean orders the stores' reports tell nothing odd of.
            guard o.caseName == "clean", o.status == "credited", !storeTwisted else { return }
            let isSubscription = p.type == .autoRenewable
            if p.apple == nil, isSubscription, random.chance(subscriptions.chance) {
                role = subscriptions.next()
            } else if p.apple != nil, random.chance(apple.chance) {
                let next = apple.next()
                role = next == .refundNotification && reversed == nil ? .refundReversed : next
            } else if p.apple == nil, !isSubscription, random.chance(google.chance) {
                role = google.next()
            } else {
                if p.apple != nil, isSubscription, subscription == nil { subscription = p }
                if let tx = p.apple { try plantRequest(&o, tx, type: p.type) }
                return
            }
        }
        // A refund of an order the dump marks refunded is matched when the dump names its transaction.
        try plant(role, p, createdAt: o.createdAt, namedByDump: o.transactionID == p.transactionID)
        if role == .refundOfRefunded, let tx = p.apple,
            let line = try requests.plantOnRefunded(o, transaction: tx, signer: pki.jwsSigner)
        {
            try write(line)
        }
        o.caseName = role.rawValue
        o.expected = role.expected
        tally.orders += 1
    }

    /// A refund request on a clean App Store order when its turn comes (`SampleRefundRequests`).
    private mutating func plantRequest(_ o: inout PlannedOrder, _ tx: JWSBuilder.Transaction, type: ProductType)
        throws
    {
        var forger = self.forger
        defer { self.forger = forger }
        let made = try requests.plant(&o, transaction: tx, type: type, signer: pki.jwsSigner) {
            if let forger { return forger.jwsSigner }
            let keys = try TestPKI()
            forger = keys
            return keys.jwsSigner
        }
        guard let (role, line) = made else { return }
        try write(line)
        o.caseName = role.rawValue
        o.expected = role == .forged ? [StoreEventInvalid.id.rawValue] : []
        tally.orders += 1
    }

    /// A request's line, logged again at the end when it says so.
    private mutating func write(_ line: SampleRefundRequests.Line) throws {
        let logged = Logged(
            identity: "n:" + line.uuid, type: "CONSUMPTION_REQUEST", outcome: line.believed ? .other : .notBelieved)
        try write(line.text, logged)
        if line.again { again.append((line.text, logged)) }
    }

    private mutating func plant(_ role: Role, _ p: Purchase, createdAt: Timestamp, namedByDump: Bool) throws {
        // Refunds come hours to a fortnight after the credit; one before it, between the
        // purchase and a credit that came late.
        let after = Self.later(createdAt, seconds: 3_600 + Int64(random.below(13 * 86_400)))
        switch role {
        case .refundNotification, .refundReversed, .refundInHistory, .refundBeforeCredit, .forgedRefund:
            let revoked =
                role == .refundBeforeCredit
                ? Timestamp(
                    clampingMillis: p.purchased.millis + (createdAt.millis - p.purchased.millis) / 2,
                    hasMilliseconds: false)
                : after
            let n = refundNotification(p, revoked: revoked)
            if role == .refundReversed { reversed = (p, revoked) }
            let logged = Logged(
                identity: "n:" + n.notificationUUID, type: "REFUND",
                outcome: role == .forgedRefund ? .notBelieved : .matched)
            if role == .refundInHistory {
                try addToHistoryPage(try AppStoreEventBuilder.HistoryEntry(n, signedBy: pki.jwsSigner), logged)
                return
            }
            let jws = try JWSBuilder.notification(n, with: role == .forgedRefund ? try forgerSigner() : pki.jwsSigner)
            if try write(AppStoreEventBuilder.webhookBody(signedPayload: jws), logged, role) {
                // The first one timed out, was delivered again, and is in the notification history too.
                try addToHistoryPage(
                    AppStoreEventBuilder.HistoryEntry(
                        signedPayload: jws,
                        sendAttempts: [
                            .init(attemptDate: n.signedDate, result: "TIMED_OUT"),
                            .init(attemptDate: Self.later(n.signedDate, seconds: 3_600)),
                        ]), logged)
            }
        case .refundHistory:
            // Get Refund History answers for one customer: a page of its own.
            var tx = refundedTransaction(p, revoked: after)
            tx.signedDate = Self.later(after, seconds: 86_400)
            let page = AppStoreEventBuilder.RefundHistoryPage(
                signedTransactions: [try JWSBuilder.transaction(tx, with: pki.jwsSigner)],
                revision: String(1_000_000 + random.below(9_000_000)))
            try write(
                page.text,
                Logged(identity: "r:\(p.transactionID):\(after.millis)", type: "refund-history", outcome: .matched))
        case .voidedInPage, .voided:
            let v = voided(p, at: after)
            let logged = Logged(identity: "v:\(p.transactionID):\(after.millis)", type: "voided", outcome: .matched)
            if role == .voidedInPage {
                voidedPage.append((v, logged))
                try flushVoidedPage(whenFull: true)
            } else {
                try write(v.text, logged, role)
            }
        case .rtdnVoided, .rtdnRevoked:
            let content: GoogleNotificationBuilder.Content =
                role == .rtdnVoided
                ? .voidedPurchase(
                    purchaseToken: p.token ?? "", orderID: p.transactionID,
                    productType: p.type == .autoRenewable ? 1 : 2, refundType: 1)
                : .subscription(notificationType: 12, purchaseToken: p.token ?? "", subscriptionID: p.productID)
            let push = pushBody(content, at: after)
            let logged = Logged(
                identity: "m:" + push.messageID, type: role == .rtdnVoided ? "rtdn-voided" : "rtdn-revoked",
                outcome: .matched)
            try write(push.text, logged, role)
        case .refundOfRefunded:
            if p.apple != nil {
                let n = refundNotification(p, revoked: after)
                try write(
                    try AppStoreEventBuilder.webhookBody(n, with: pki.jwsSigner),
                    Logged(
                        identity: "n:" + n.notificationUUID, type: "REFUND",
                        outcome: namedByDump ? .matched : .unmatched))
            } else {
                let v = voided(p, at: after)
                try write(
                    v.text,
                    Logged(
                        identity: "v:\(p.transactionID):\(after.millis)", type: "voided",
                        outcome: namedByDump ? .matched : .unmatched))
            }
        }
    }

    /// The purchase the order's proof holds, or (for an order the dump marks refunded, whose
    /// proof was never kept) the one its row names; nil when neither names a transaction.
    private static func purchase(of o: PlannedOrder) -> Purchase? {
        let item = SampleCatalog.items.first { $0.id == o.itemID } ?? SampleCatalog.items[0]
        switch o.proof {
        case .app(let spec):
            guard let last = spec.purchases.last else { return nil }
            var tx = JWSBuilder.Transaction(
                transactionID: last.transactionID, bundleID: bundle, productID: last.productID,
                type: SamplePlanner.jwsType(item.type), purchaseDate: last.purchaseDate,
                signedDate: last.purchaseDate)
            tx.expiresDate = last.expiresDate
            return Purchase(
                transactionID: last.transactionID, productID: last.productID, type: item.type,
                purchased: last.purchaseDate, apple: tx)
        case .jws(let tx):
            return Purchase(
                transactionID: tx.transactionID, productID: tx.productID, type: item.type,
                purchased: tx.purchaseDate, apple: tx)
        case .google(let d, _):
            guard let orderID = d.orderID else { return nil }
            return Purchase(
                transactionID: orderID, token: d.purchaseToken, productID: d.productID, type: item.type,
                purchased: d.purchaseTime)
        default:
            guard o.status == "refunded", let txn = o.transactionID, o.store != .appReceipt else { return nil }
            let bought = later(o.createdAt, seconds: -60)
            guard o.store == .jws else {
                return Purchase(
                    transactionID: txn, token: "tok.refunded." + txn, productID: item.google, type: item.type,
                    purchased: bought)
            }
            let tx = JWSBuilder.Transaction(
                transactionID: txn, bundleID: bundle, productID: item.apple,
                type: SamplePlanner.jwsType(item.type), purchaseDate: bought, signedDate: bought)
            return Purchase(transactionID: txn, productID: item.apple, type: item.type, purchased: bought, apple: tx)
        }
    }

    // MARK: Events

    private mutating func refundedTransaction(_ p: Purchase, revoked: Timestamp) -> JWSBuilder.Transaction {
        var tx =
            p.apple
            ?? JWSBuilder.Transaction(
                transactionID: p.transactionID, bundleID: Self.bundle, productID: p.productID,
                purchaseDate: p.purchased, signedDate: p.purchased)
        tx.signedDate = revoked
        tx.revocationDate = revoked
        tx.revocationReason = Int64(random.below(2))
        // Now and then a subscription is refunded for the part of its period not used.
        if p.type == .autoRenewable, random.chance(0.5) {
            tx.revocationType = "REFUND_PRORATED"
            tx.revocationPercentage = Int64(20_000 + random.below(60) * 1_000)
        } else {
            tx.revocationType = "REFUND_FULL"
        }
        return tx
    }

    private mutating func refundNotification(_ p: Purchase, revoked: Timestamp) -> JWSBuilder.Notification {
        var n = JWSBuilder.Notification(
            notificationType: "REFUND", notificationUUID: uuid(), bundleID: Self.bundle,
            signedDate: Self.later(revoked, seconds: 5), transaction: refundedTransaction(p, revoked: revoked))
        n.appAppleID = SampleCatalog.appItemID
        n.bundleVersion = "4.2"
        return n
    }

    /// Why Google voided it and who asked, in turn: `voidedReason` and `voidedSource`.
    private static let voidingsInTurn: [(reason: Int64, source: Int64)] = [
        (6, 0), (7, 2), (1, 0), (5, 2), (4, 1), (2, 1),
    ]

    private mutating func voided(_ p: Purchase, at t: Timestamp) -> GoogleVoidedPurchaseBuilder.VoidedPurchase {
        var v = GoogleVoidedPurchaseBuilder.VoidedPurchase(
            purchaseToken: p.token ?? "", orderID: p.transactionID,
            purchaseTime: p.purchased, voidedTime: t)
        let why = Self.voidingsInTurn[voidings % Self.voidingsInTurn.count]
        voidings += 1
        v.voidedReason = why.reason
        v.voidedSource = why.source
        return v
    }

    private mutating func pushBody(_ content: GoogleNotificationBuilder.Content, at t: Timestamp)
        -> GoogleNotificationBuilder.PushBody
    {
        let n = GoogleNotificationBuilder.DeveloperNotification(
            packageName: Self.bundle, eventTime: t, content: content)
        return GoogleNotificationBuilder.PushBody(
            notification: n, messageID: String(10_000_000_000_000 + random.below(1 << 40)),
            publishTime: Self.later(t, seconds: 2))
    }

    /// `REFUND_REVERSED` of a refund, days after it; its UUID comes from a stream of its own,
    /// so the rest of the log is what it would be without it.
    private mutating func logReversal(of p: Purchase, refunded: Timestamp) throws {
        var ids = SeededRandom(seed: UInt64(bitPattern: refunded.millis) &+ 0x5EC0_0003)
        var tx =
            p.apple
            ?? JWSBuilder.Transaction(
                transactionID: p.transactionID, bundleID: Self.bundle, productID: p.productID,
                purchaseDate: p.purchased, signedDate: p.purchased)
        let at = Self.later(refunded, seconds: 3 * 86_400)
        tx.signedDate = at
        var n = JWSBuilder.Notification(
            notificationType: "REFUND_REVERSED", notificationUUID: ids.uuid(), bundleID: Self.bundle,
            signedDate: at, transaction: tx)
        n.appAppleID = SampleCatalog.appItemID
        n.bundleVersion = "4.2"
        try write(
            try AppStoreEventBuilder.webhookBody(n, with: pki.jwsSigner),
            Logged(identity: "n:" + n.notificationUUID, type: "REFUND_REVERSED", outcome: .reversal))
    }

    private mutating func forgerSigner() throws -> SigningIdentity {
        if let forger { return forger.jwsSigner }
        let made = try TestPKI()
        forger = made
        return made.jwsSigner
    }

    private mutating func uuid() -> String { random.uuid() }

    // MARK: Writing

    /// One line; the first line of a role in `loggedTwice` is logged again at the end (then true).
    @discardableResult
    private mutating func write(_ line: String, _ logged: Logged, _ role: Role? = nil) throws -> Bool {
        try log.write(line + "\n")
        tally.count(logged)
        guard let role, Self.loggedTwice.contains(role), repeated.insert(role).inserted else { return false }
        again.append((line, logged))
        return true
    }

    private mutating func addToHistoryPage(_ entry: AppStoreEventBuilder.HistoryEntry, _ logged: Logged) throws {
        historyPage.append((entry, logged))
        try flushHistoryPage(whenFull: true)
    }

    private mutating func flushHistoryPage(whenFull: Bool) throws {
        guard !historyPage.isEmpty, !whenFull || historyPage.count >= Self.pageSize else { return }
        var page = AppStoreEventBuilder.NotificationHistoryPage(entries: historyPage.map(\.0))
        page.paginationToken = uuid()
        try log.write(page.text + "\n")
        for (_, logged) in historyPage { tally.count(logged) }
        historyPage = []
    }

    private mutating func flushVoidedPage(whenFull: Bool) throws {
        guard !voidedPage.isEmpty, !whenFull || voidedPage.count >= Self.pageSize else { return }
        try log.write(GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: voidedPage.map(\.0)).text + "\n")
        for (_, logged) in voidedPage { tally.count(logged) }
        voidedPage = []
    }

    /// The last pages, a renewal, refunds no order took, a line that is no event, and the
    /// events logged twice; then `expected-store-events.json`.
    mutating func finish(into directory: String) throws -> Tally {
        try flushHistoryPage(whenFull: false)
        try flushVoidedPage(whenFull: false)

        // A renewal of an App Store subscription: read, counted by type, nothing to judge.
        let vip = SampleCatalog.items[3]
        let base =
            subscription
            ?? Purchase(
                transactionID: "900000000000000", productID: vip.apple, type: .autoRenewable,
                purchased: Self.later(start, seconds: -86_400 * 20))
        let renewed = Self.later(base.purchased, seconds: 86_400 * 30)
        var renewal = JWSBuilder.Transaction(
            transactionID: "9" + String(10_000_000_000_000 + random.below(1 << 40)),
            originalTransactionID: base.transactionID, bundleID: Self.bundle,
            productID: vip.apple, type: SamplePlanner.jwsType(.autoRenewable),
            purchaseDate: renewed, originalPurchaseDate: base.purchased,
            signedDate: renewed)
        renewal.expiresDate = Self.later(renewed, seconds: 86_400 * 30)
        var renew = JWSBuilder.Notification(
            notificationType: "DID_RENEW", notificationUUID: uuid(), bundleID: Self.bundle,
            signedDate: Self.later(renewed, seconds: 5), transaction: renewal)
        renew.appAppleID = SampleCatalog.appItemID
        try write(
            try AppStoreEventBuilder.webhookBody(renew, with: pki.jwsSigner),
            Logged(identity: "n:" + renew.notificationUUID, type: "DID_RENEW", outcome: .other))

        // Refunds of purchases no order took: the server never heard of them.
        let refundDay = Self.later(start, seconds: 86_400 * 2)
        let stranger = Purchase(
            transactionID: "9" + String(10_000_000_000_000 + random.below(1 << 40)),
            productID: SampleCatalog.items[1].apple, type: .consumable,
            purchased: Self.later(start, seconds: -86_400))
        let n = refundNotification(stranger, revoked: refundDay)
        try write(
            try AppStoreEventBuilder.webhookBody(n, with: pki.jwsSigner),
            Logged(identity: "n:" + n.notificationUUID, type: "REFUND", outcome: .unmatched))
        let digits = String(10_000 + random.below(90_000))
        let lost = Purchase(
            transactionID: "GPA.7\(digits.prefix(3))-\(digits)-0000-\(digits)", token: "tok.unknown." + digits,
            productID: SampleCatalog.items[2].google, type: .consumable, purchased: Self.later(start, seconds: -86_400))
        let v = voided(lost, at: refundDay)
        try write(
            v.text, Logged(identity: "v:\(lost.transactionID):\(refundDay.millis)", type: "voided", outcome: .unmatched)
        )
        let push = pushBody(
            .voidedPurchase(purchaseToken: "tok.unknown.\(digits).2", orderID: nil, productType: 2, refundType: 1),
            at: refundDay)
        try write(push.text, Logged(identity: "m:" + push.messageID, type: "rtdn-voided", outcome: .unmatched))

        // A purchase of a consenting user's that no order took: a lost order, found by its token.
        if let line = try requests.plantLost(
            transactionID: "9" + String(10_000_000_000_000 + requestIDs.below(1 << 40)),
            productID: SampleCatalog.items[1].apple, purchased: Self.later(start, seconds: 3_600), signer: pki.jwsSigner
        ) {
            try write(line)
        }

        // Apple gave one refund back: the reversal comes last, so its refund is read before it.
        if let (p, refunded) = reversed { try logReversal(of: p, refunded: refunded) }

        // A line a logging bug left: a malformed record, and the run goes on.
        try log.write("refund webhook: connection reset by peer\n")
        tally.malformedLines += 1
        for (line, logged) in again { try write(line, logged) }
        try log.close()

        tally.consumption = requests.tally
        tally.consumptionNow = SampleRefundRequests.now(start: start)
        let path = (directory as NSString).appendingPathComponent(Self.expectedFile)
        try Data((tally.json.jsonText + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return tally
    }
}
