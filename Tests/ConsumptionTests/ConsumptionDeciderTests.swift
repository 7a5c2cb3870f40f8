import Consumption
import DumpFormats
import IAPBasics
import JSONText
import ReceiptFormats
import Screening
import Testing

@Suite("Answering a refund request: every field of the body, and Apple's constraints on it")
struct ConsumptionDeciderTests {
    static let bought = Timestamp(clampingMillis: 1_709_294_400_000)  // 2024-03-01T12:00:00Z
    static let day: Int64 = 86_400_000

    static func request(type: ProductType? = .consumable, daysAfter: Int64 = 3, expires: Timestamp? = nil)
        -> ConsumptionRequest
    {
        ConsumptionRequest(
            notificationUUID: "uuid-1", transactionID: "2000000000000301",
            requestedAt: Timestamp(clampingMillis: bought.millis + daysAfter * day, hasMilliseconds: false),
            productID: "gems_550", productType: type, reason: "UNINTENDED_PURCHASE", expiresDate: expires)
    }

    static func order(
        status: OrderStatus = .credited, consumed: Int32? = nil, type: ProductType? = nil, sample: Bool = false,
        periodDays: Int? = nil, receiptExpiry: Timestamp? = nil
    ) -> ConsumptionFacts.TakingOrder {
        ConsumptionFacts.TakingOrder(
            orderID: "ORD-1", userID: "user-1", status: status, source: "tonight's dump",
            consumed: consumed.flatMap(ConsumedShare.init(milliunits:)), purchasedAt: bought, catalogType: type,
            sampleContent: sample, periodDays: periodDays, receiptExpiry: receiptExpiry)
    }

    static func facts(
        _ order: ConsumptionFacts.TakingOrder?, consent: OrderConsent? = .yes, refunds: Int = 0,
        verdict: String? = nil
    ) -> ConsumptionFacts {
        ConsumptionFacts(
            order: order, userID: order?.userID ?? "user-1", userSource: "the order's user", consent: consent,
            consentSource: "tonight's dump", refunds: refunds, verdict: verdict)
    }

    static func decide(
        _ request: ConsumptionRequest, _ facts: ConsumptionFacts,
        _ settings: ConsumptionSettings = ConsumptionSettings()
    ) -> ConsumptionAnswer {
        let answer = ConsumptionDecider(settings: settings).answer(request, facts)
        if let body = answer.body { checkApplesConstraints(body, request: request, facts: facts) }
        return answer
    }

    /// What Apple refuses: asked of every body every test makes.
    static func checkApplesConstraints(
        _ b: ConsumptionAnswer.Body, request: ConsumptionRequest, facts: ConsumptionFacts
    ) {
        #expect(b.customerConsented)
        if b.deliveryStatus != .delivered { #expect(b.consumptionPercentage == nil || b.consumptionPercentage == 0) }
        if b.refundPreference == .grantProrated {
            #expect((b.consumptionPercentage ?? 0) > 0 && (b.consumptionPercentage ?? 0) < 100_000)
        }
        if (request.productType ?? facts.order?.catalogType) == .autoRenewable {
            #expect(b.consumptionPercentage == nil)
        }
        if let p = b.consumptionPercentage { #expect((0...100_000).contains(p)) }
    }

    @Test("no consent, or none known, or no user: no body, status no-consent, and why says so")
    func noConsent() {
        for (consent, words) in [(OrderConsent.no, "latest consent is no"), (nil, "never said whether they consent")] {
            let a = Self.decide(Self.request(), Self.facts(Self.order(), consent: consent))
            #expect(a.status == .noConsent)
            #expect(a.body == nil)
            #expect(a.why.contains { $0.contains(words) }, "\(a.why)")
        }
        let nobody = ConsumptionFacts(order: nil, userID: nil, consent: nil)
        let a = Self.decide(Self.request(), nobody)
        #expect(a.status == .noConsent)
        #expect(a.why.contains { $0.contains("no user is known") })
    }

    @Test("a lost order (no order took the transaction): UNDELIVERED_OTHER, 0, GRANT_FULL")
    func lostOrder() throws {
        let facts = ConsumptionFacts(order: nil, userID: "user-1", userSource: "the account token", consent: .yes)
        let body = try #require(Self.decide(Self.request(), facts).body)
        #expect(body.deliveryStatus == .undeliveredOther)
        #expect(body.consumptionPercentage == 0)
        #expect(body.refundPreference == .grantFull)
        #expect(!body.sampleContentProvided)
    }

    @Test(
        "an order not credited (refunded, failed, pending): undelivered, whatever its consumed says",
        arguments: [
            OrderStatus.refunded, .failed, .pending,
        ])
    func notCredited(status: OrderStatus) throws {
        let a = Self.decide(Self.request(), Self.facts(Self.order(status: status, consumed: 80_000)))
        let body = try #require(a.body)
        #expect(body.deliveryStatus == .undeliveredOther)
        #expect(body.consumptionPercentage == 0)
        #expect(body.refundPreference == .grantFull)
        #expect(a.why.contains { $0.contains("is \(status.rawValue), not credited") })
    }

    @Test("delivered, with the dump's consumed: that share; decline at decline_when_consumed")
    func consumed() throws {
        let half = try #require(Self.decide(Self.request(), Self.facts(Self.order(consumed: 50_000))).body)
        #expect(half.deliveryStatus == .delivered)
        #expect(half.consumptionPercentage == 50_000)
        #expect(half.refundPreference == nil)
        let all = try #require(Self.decide(Self.request(), Self.facts(Self.order(consumed: 100_000))).body)
        #expect(all.refundPreference == .decline)
        var settings = ConsumptionSettings()
        settings.declineWhenConsumed = 50
        let atHalf = try #require(Self.decide(Self.request(), Self.facts(Self.order(consumed: 50_000)), settings).body)
        #expect(atHalf.refundPreference == .decline)
        let under = try #require(Self.decide(Self.request(), Self.facts(Self.order(consumed: 49_999)), settings).body)
        #expect(under.refundPreference == nil)
    }

    @Test("delivered without consumed: left out for a consumable, and nothing decides a preference")
    func consumedUnknown() throws {
        let a = Self.decide(Self.request(), Self.facts(Self.order()))
        let body = try #require(a.body)
        #expect(body.consumptionPercentage == nil)
        #expect(body.refundPreference == nil)
        #expect(a.why.contains { $0.contains("does not say how much of it is used") })
    }

    @Test("an auto-renewable subscription never carries a percentage, delivered or not, consumed or not")
    func autoRenewable() throws {
        for order in [Self.order(consumed: 70_000), Self.order(status: .refunded)] {
            let body = try #require(Self.decide(Self.request(type: .autoRenewable), Self.facts(order)).body)
            #expect(body.consumptionPercentage == nil)
        }
        // Apple's type missing: the catalog's decides.
        let body = try #require(
            Self.decide(Self.request(type: nil), Self.facts(Self.order(consumed: 70_000, type: .autoRenewable))).body)
        #expect(body.consumptionPercentage == nil)
        // Prorating needs a percentage: none here.
        var settings = ConsumptionSettings()
        settings.prorate = true
        let prorated = try #require(
            Self.decide(Self.request(type: .autoRenewable), Self.facts(Self.order(consumed: 70_000)), settings).body)
        #expect(prorated.refundPreference == nil)
    }

    @Test("a non-renewing subscription: the share of its period elapsed, to its expiry, else for period_days")
    func nonRenewing() throws {
        let expiry = Timestamp(clampingMillis: Self.bought.millis + 30 * Self.day, hasMilliseconds: false)
        let byExpiry = try #require(
            Self.decide(Self.request(type: .nonRenewing, daysAfter: 3, expires: expiry), Self.facts(Self.order())).body)
        #expect(byExpiry.consumptionPercentage == 10_000)
        let byReceipt = try #require(
            Self.decide(Self.request(type: .nonRenewing, daysAfter: 6), Self.facts(Self.order(receiptExpiry: expiry)))
                .body)
        #expect(byReceipt.consumptionPercentage == 20_000)
        let byCatalog = Self.decide(
            Self.request(type: .nonRenewing, daysAfter: 15), Self.facts(Self.order(periodDays: 60)))
        #expect(byCatalog.body?.consumptionPercentage == 25_000)
        #expect(byCatalog.why.contains { $0.contains("period_days 60") })
        let over = try #require(
            Self.decide(Self.request(type: .nonRenewing, daysAfter: 90), Self.facts(Self.order(periodDays: 30))).body)
        #expect(over.consumptionPercentage == 100_000)
        #expect(over.refundPreference == .decline)
        let unknown = try #require(
            Self.decide(Self.request(type: .nonRenewing), Self.facts(Self.order())).body)
        #expect(unknown.consumptionPercentage == nil)
        // The dump's consumed wins over the period.
        let told = try #require(
            Self.decide(Self.request(type: .nonRenewing), Self.facts(Self.order(consumed: 5_000, periodDays: 30))).body)
        #expect(told.consumptionPercentage == 5_000)
    }

    @Test("DECLINE for a reviewed fraud, and for a user with decline_after_refunds refunds or more")
    func decline() throws {
        let fraud = Self.decide(Self.request(), Self.facts(Self.order(consumed: 10_000), verdict: "fraud"))
        #expect(fraud.body?.refundPreference == .decline)
        #expect(fraud.why.contains { $0.contains("marked order ORD-1 fraud") })
        let legit = Self.decide(Self.request(), Self.facts(Self.order(consumed: 10_000), verdict: "legit"))
        #expect(legit.body?.refundPreference == nil)
        #expect(Self.decide(Self.request(), Self.facts(Self.order(), refunds: 1)).body?.refundPreference == nil)
        #expect(Self.decide(Self.request(), Self.facts(Self.order(), refunds: 2)).body?.refundPreference == .decline)
        var settings = ConsumptionSettings()
        settings.declineAfterRefunds = 3
        #expect(
            Self.decide(Self.request(), Self.facts(Self.order(), refunds: 2), settings).body?.refundPreference == nil)
        // Undelivered wins over everything: the customer is owed it.
        let lost = Self.decide(Self.request(), Self.facts(Self.order(status: .failed), refunds: 9, verdict: "fraud"))
        #expect(lost.body?.refundPreference == .grantFull)
    }

    @Test("GRANT_PRORATED only with prorate yes and a share strictly between 0 and 100 %")
    func prorated() throws {
        var settings = ConsumptionSettings()
        settings.prorate = true
        #expect(
            Self.decide(Self.request(), Self.facts(Self.order(consumed: 30_000)), settings).body?.refundPreference
                == .grantProrated)
        #expect(
            Self.decide(Self.request(), Self.facts(Self.order(consumed: 0)), settings).body?.refundPreference == nil)
        #expect(
            Self.decide(Self.request(), Self.facts(Self.order(consumed: 100_000)), settings).body?.refundPreference
                == .decline)
        #expect(Self.decide(Self.request(), Self.facts(Self.order()), settings).body?.refundPreference == nil)
        #expect(
            Self.decide(Self.request(), Self.facts(Self.order(consumed: 30_000))).body?.refundPreference == nil,
            "prorate defaults to no")
    }

    @Test("sampleContentProvided is the catalog's sample_content for the order's item")
    func sample() {
        #expect(Self.decide(Self.request(), Self.facts(Self.order(sample: true))).body?.sampleContentProvided == true)
        #expect(Self.decide(Self.request(), Self.facts(Self.order())).body?.sampleContentProvided == false)
    }

    @Test("the body as JSON: Apple's field names, the fields left out absent, why a line for every field")
    func json() throws {
        var settings = ConsumptionSettings()
        settings.prorate = true
        let a = Self.decide(Self.request(), Self.facts(Self.order(consumed: 25_000, sample: true)), settings)
        let body = try #require(a.body)
        #expect(
            JSONWriter().string(.object(body.json))
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","consumptionPercentage":25000,"refundPreference":"GRANT_PRORATED","sampleContentProvided":true}"#
        )
        let bare = try #require(Self.decide(Self.request(), Self.facts(Self.order())).body)
        #expect(
            JSONWriter().string(.object(bare.json))
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
        #expect(a.why.count == 6, "the order, then one line per field: \(a.why)")
        #expect(a.why[0] == "order ORD-1 of user user-1 took transaction 2000000000000301 first (tonight's dump)")
        #expect(Self.request().path == "/inApps/v2/transactions/consumption/2000000000000301")
        #expect(Self.request().answerBy.iso8601 == "2024-03-05T00:00:00Z")
    }
}
