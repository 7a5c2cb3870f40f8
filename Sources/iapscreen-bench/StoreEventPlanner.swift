import IAPBasics
import ReceiptBuilder
import ReceiptFormats

/// One line of a store-event log as a server writes it (docs/store-events.md), before it is signed.
enum PlannedEventLine {
    /// An App Store Server Notification's webhook body.
    case webhook(JWSBuilder.Notification)
    /// A page of Get Notification History.
    case notificationHistory([JWSBuilder.Notification], paginationToken: String?)
    /// A page of Get Refund History: revoked transactions.
    case refundHistory([JWSBuilder.Transaction], revision: String)
    /// One voided purchase a line.
    case voided(GoogleVoidedPurchaseBuilder.VoidedPurchase)
    /// A page of `voidedpurchases.list`.
    case voidedPage([GoogleVoidedPurchaseBuilder.VoidedPurchase], nextPageToken: String?)
    /// A Pub/Sub push body around a Real-time developer notification.
    case push(GoogleNotificationBuilder.PushBody)
    /// The same bytes as an earlier line (a webhook retried, a page fetched again): its index.
    case again(Int)
}

/// Decides, from a seed, the lines of a log of store events about a world's purchases: the
/// mix a server logs (mostly App Store webhooks — charges, renewals, refunds, revocations, a
/// test — then refund-history pages, Google voided purchases as pages and lines, RTDN push
/// bodies) and about 5% of lines logged again.
struct StoreEventPlanner {
    /// Lines (per mille) of each shape; the rest are App Store webhooks.
    enum Mix {
        static let again = 50, notificationHistory = 5, refundHistory = 25, voidedLine = 80, voidedPage = 10, push = 50
    }

    /// How far back a repeated line reaches.
    static let againWindow = 1000

    private var random: SeededRandom
    private let world: WorldPurchases
    private let oneTime: [WorldPurchases.Purchase]
    private let subscriptions: [WorldPurchases.Purchase]
    private let googleSubscriptions: [WorldPurchases.Purchase]
    private let bundleID: String
    private let packageName: String
    private var renewals = 0
    /// Lines planned so far, and the events of the last `againWindow` of them.
    private(set) var lines = 0
    private var recentEvents = [Int](repeating: 0, count: againWindow)

    init(seed: UInt64, world: WorldPurchases, bundleID: String, packageName: String) {
        random = SeededRandom(seed: seed)
        self.world = world
        oneTime = world.apple.filter { !$0.subscription }
        subscriptions = world.apple.filter(\.subscription)
        googleSubscriptions = world.google.filter(\.subscription)
        self.bundleID = bundleID
        self.packageName = packageName
    }

    /// The next line and how many events it holds, at most `remaining` (at least one).
    mutating func next(remaining: Int) -> (line: PlannedEventLine, events: Int) {
        let (line, events) = plan(remaining: max(remaining, 1))
        recentEvents[lines % Self.againWindow] = events
        lines += 1
        return (line, events)
    }

    private mutating func plan(remaining: Int) -> (PlannedEventLine, Int) {
        var r = random.below(1000)
        if r < Mix.again, lines > 0 {
            let back = 1 + random.below(min(lines, Self.againWindow - 1))
            let events = recentEvents[(lines - back) % Self.againWindow]
            if events <= remaining { return (.again(lines - back), events) }
        }
        r -= Mix.again
        let pageRoom = min(remaining, 10)
        if r >= 0, r < Mix.notificationHistory, pageRoom >= 2 {
            let n = 2 + random.below(pageRoom - 1)
            return (
                .notificationHistory(
                    (0..<n).map { _ in appleNotification() }, paginationToken: random.chance(0.5) ? token(24) : nil), n
            )
        }
        r -= Mix.notificationHistory
        if r >= 0, r < Mix.refundHistory, !world.apple.isEmpty {
            let n = 1 + random.below(min(remaining, 3))
            return (
                .refundHistory(
                    (0..<n).map { _ in revoked(pick(world.apple), family: false).transaction }, revision: token(32)), n
            )
        }
        r -= Mix.refundHistory
        if r >= 0, r < Mix.voidedLine, !world.google.isEmpty {
            return (.voided(voided(pick(world.google))), 1)
        }
        r -= Mix.voidedLine
        if r >= 0, r < Mix.voidedPage, !world.google.isEmpty, pageRoom >= 2 {
            let n = 2 + random.below(pageRoom - 1)
            let page = (0..<n).map { _ in voided(pick(world.google)) }
            return (.voidedPage(page, nextPageToken: random.chance(0.5) ? token(40) : nil), n)
        }
        r -= Mix.voidedPage
        if r >= 0, r < Mix.push, !world.google.isEmpty {
            return (.push(push()), 1)
        }
        return (.webhook(appleNotification()), 1)
    }

    // MARK: App Store

    /// A webhook's notification: 42% ONE_TIME_CHARGE, 25% DID_RENEW, 26% REFUND, 5% REVOKE, 2% TEST.
    private mutating func appleNotification() -> JWSBuilder.Notification {
        let r = random.below(100)
        if world.apple.isEmpty || r >= 98 { return test() }
        if r >= 93 { return refundNotification("REVOKE", family: true) }
        if r >= 67 { return refundNotification("REFUND", family: false) }
        if r >= 42, !subscriptions.isEmpty { return renewal(pick(subscriptions)) }
        return charge(oneTime.isEmpty ? pick(world.apple) : pick(oneTime))
    }

    private mutating func notification(_ type: String, at: Timestamp, _ transaction: JWSBuilder.Transaction?)
        -> JWSBuilder.Notification
    {
        JWSBuilder.Notification(
            notificationType: type, notificationUUID: uuid(), bundleID: bundleID,
            signedDate: later(at, seconds: 1 + random.below(30)), transaction: transaction)
    }

    private func transaction(_ p: WorldPurchases.Purchase, signedAt: Timestamp) -> JWSBuilder.Transaction {
        var t = JWSBuilder.Transaction(
            transactionID: p.transactionID, originalTransactionID: p.original, bundleID: bundleID,
            productID: p.productID, type: p.appleType, purchaseDate: p.purchasedAt, signedDate: signedAt)
        t.price = 4990
        t.currency = "USD"
        return t
    }

    private mutating func charge(_ p: WorldPurchases.Purchase) -> JWSBuilder.Notification {
        notification("ONE_TIME_CHARGE", at: p.purchasedAt, transaction(p, signedAt: p.purchasedAt))
    }

    /// The subscription renewed one to three months after it was bought: a new transaction of
    /// the same original, with its renewal info.
    private mutating func renewal(_ p: WorldPurchases.Purchase) -> JWSBuilder.Notification {
        renewals += 1
        let at = later(p.purchasedAt, seconds: 30 * 86_400 * (1 + random.below(3)))
        let expires = later(at, seconds: 30 * 86_400)
        var t = transaction(p, signedAt: at)
        t.transactionID = "5" + digits(renewals, 14)
        t.purchaseDate = at
        t.originalPurchaseDate = p.purchasedAt
        t.expiresDate = expires
        t.transactionReason = "RENEWAL"
        t.webOrderLineItemID = "6" + digits(renewals, 14)
        var n = notification("DID_RENEW", at: at, t)
        n.renewalInfo = JWSBuilder.RenewalInfo(
            originalTransactionID: p.original, productID: p.productID,
            renewalDate: expires, signedDate: at)
        n.status = 1
        return n
    }

    private mutating func refundNotification(_ type: String, family: Bool) -> JWSBuilder.Notification {
        let (t, at) = revoked(pick(world.apple), family: family)
        return notification(type, at: at, t)
    }

    /// The transaction as Apple signs it once refunded (or, for family sharing, revoked), an
    /// hour to two weeks after the credit.
    private mutating func revoked(_ p: WorldPurchases.Purchase, family: Bool) -> (
        transaction: JWSBuilder.Transaction, at: Timestamp
    ) {
        let at = later(p.creditedAt, seconds: 3600 + random.below(14 * 86_400))
        var t = transaction(p, signedAt: at)
        t.revocationDate = at
        if family {
            t.inAppOwnershipType = "FAMILY_SHARED"
            t.revocationReason = 0
            t.revocationType = "FAMILY_REVOKE"
        } else {
            t.revocationReason = Int64(random.below(2))
            if p.subscription, random.chance(0.3) {
                t.revocationType = "REFUND_PRORATED"
                t.revocationPercentage = 50_000
            } else {
                t.revocationType = "REFUND_FULL"
            }
        }
        return (t, at)
    }

    private mutating func test() -> JWSBuilder.Notification {
        notification("TEST", at: later(StoreEventPlanner.night, seconds: random.below(86_400)), nil)
    }

    // MARK: Google Play

    private mutating func voided(_ p: WorldPurchases.Purchase) -> GoogleVoidedPurchaseBuilder.VoidedPurchase {
        var v = GoogleVoidedPurchaseBuilder.VoidedPurchase(
            purchaseToken: p.original, orderID: p.transactionID, purchaseTime: p.purchasedAt,
            voidedTime: later(p.creditedAt, seconds: 3600 + random.below(20 * 86_400)))
        v.voidedSource = Int64(random.below(3))
        v.voidedReason = Int64(random.below(9))
        return v
    }

    /// 40% voided purchase, 25% subscription renewed, 10% subscription revoked, 20% one-time
    /// product bought, 5% test.
    private mutating func push() -> GoogleNotificationBuilder.PushBody {
        let r = random.below(100)
        let content: GoogleNotificationBuilder.Content
        let at: Timestamp
        if r < 40 {
            let p = pick(world.google)
            content = .voidedPurchase(
                purchaseToken: p.original, orderID: p.transactionID, productType: p.subscription ? 1 : 2, refundType: 1)
            at = later(p.creditedAt, seconds: 3600 + random.below(20 * 86_400))
        } else if r < 75, !googleSubscriptions.isEmpty {
            let p = pick(googleSubscriptions)
            let revoked = r >= 65
            content = .subscription(
                notificationType: revoked ? 12 : 2, purchaseToken: p.original, subscriptionID: p.productID)
            at = later(
                revoked ? p.creditedAt : p.purchasedAt,
                seconds: revoked ? 3600 + random.below(14 * 86_400) : 30 * 86_400)
        } else if r < 95 {
            let p = pick(world.google)
            content = .oneTimeProduct(notificationType: 1, purchaseToken: p.original, sku: p.productID)
            at = later(p.purchasedAt, seconds: 1 + random.below(10))
        } else {
            content = .test
            at = later(StoreEventPlanner.night, seconds: random.below(86_400))
        }
        let notification = GoogleNotificationBuilder.DeveloperNotification(
            packageName: packageName, eventTime: at, content: content)
        return GoogleNotificationBuilder.PushBody(
            notification: notification, messageID: String(1_000_000_000_000_000 + random.below(1 << 52)),
            publishTime: later(at, seconds: 1 + random.below(5)))
    }

    // MARK: Values

    /// The night `iapscreen samples` credits its world's orders (2024-03-01).
    static let night = Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false)

    private mutating func pick(_ purchases: [WorldPurchases.Purchase]) -> WorldPurchases.Purchase {
        purchases[random.below(purchases.count)]
    }

    private func later(_ t: Timestamp, seconds: Int) -> Timestamp {
        Timestamp(clampingMillis: t.millis + Int64(seconds) * 1000, hasMilliseconds: false)
    }

    private mutating func uuid() -> String {
        let a = random.next()
        let b = random.next()
        let hex = String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
        let c = Array(hex)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }

    private mutating func token(_ length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<length).map { _ in alphabet[random.below(alphabet.count)] })
    }

    private func digits(_ n: Int, _ width: Int) -> String { String(n).leftPadded(width, with: "0") }
}

extension WorldPurchases.Purchase {
    /// The JWS `type` of an App Store purchase.
    var appleType: String {
        switch productType {
        case .nonConsumable?: return "Non-Consumable"
        case .nonRenewing?: return "Non-Renewing Subscription"
        case .autoRenewable?: return "Auto-Renewable Subscription"
        default: return subscription ? "Auto-Renewable Subscription" : "Consumable"
        }
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// What a planned log holds: lines and events by shape, events by type (as summary.json's
/// `store_events.by_type` names them, duplicates included).
struct StoreEventTally {
    private(set) var shapes: [(name: String, lines: Int, events: Int)] = []
    private(set) var types: [String: Int] = [:]

    mutating func add(_ line: PlannedEventLine, events: Int) {
        let shape: String
        switch line {
        case .webhook(let n):
            shape = "App Store webhook bodies"
            types[n.notificationType, default: 0] += 1
        case .notificationHistory(let ns, _):
            shape = "App Store notification-history pages"
            for n in ns { types[n.notificationType, default: 0] += 1 }
        case .refundHistory:
            shape = "App Store refund-history pages"
            types["refund-history", default: 0] += events
        case .voided:
            shape = "Google voided-purchase lines"
            types["voided", default: 0] += 1
        case .voidedPage:
            shape = "Google voided-purchases pages"
            types["voided", default: 0] += events
        case .push(let p):
            shape = "Google RTDN push bodies"
            types[Self.type(p.notification.content), default: 0] += 1
        case .again:
            shape = "lines logged again (duplicates)"
        }
        if let i = shapes.firstIndex(where: { $0.name == shape }) {
            shapes[i].lines += 1
            shapes[i].events += events
        } else {
            shapes.append((shape, 1, events))
        }
    }

    private static func type(_ content: GoogleNotificationBuilder.Content) -> String {
        switch content {
        case .voidedPurchase: return "rtdn-voided"
        case .subscription(let type, _, _): return type == 12 ? "rtdn-revoked" : "rtdn-subscription"
        case .oneTimeProduct: return "rtdn-one-time-product"
        case .test: return "rtdn-test"
        }
    }

    func describe(purchases: WorldPurchases) -> [String] {
        var lines = shapes.map { "  \($0.name): \($0.lines) lines, \($0.events) events" }
        lines.append(
            "  by type (first copies): "
                + types.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        lines.append(
            "  naming the world's \(purchases.apple.count) App Store transactions (StoreKit orders) and "
                + "\(purchases.google.count) Play orders (\(purchases.skipped) orders name none: no receipt, sandbox, test, unreadable)"
        )
        return lines
    }
}
