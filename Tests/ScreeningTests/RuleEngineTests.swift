import IAPBasics
import ReceiptFormats
import Screening
import Testing

/// Builds orders and decoded receipts directly in the normalised model.
enum World {
    static func time(_ s: String) -> Timestamp {
        Timestamp.parse(s) ?? Timestamp(millis: 0)!
    }

    static func order(
        _ id: String, user: String = "u1", at: String = "2024-03-01T12:00:00Z", product: String = "gems",
        type: ProductType? = .consumable, txn: String? = nil, production: Bool = true,
        index: Int = 0
    ) -> ScreenOrder {
        ScreenOrder(
            index: index, orderID: id, userID: user, createdAt: time(at), platform: .ios, itemID: nil,
            expectedProductID: product, catalogType: type, transactionID: txn, amount: "4.99", currency: "USD",
            production: production, location: SourceLocation(file: "orders.csv", line: index + 2))
    }

    static func purchase(
        _ product: String, txn: String?, at: String = "2024-03-01T11:59:00Z", expires: String? = nil,
        cancelled: String? = nil, type: ProductType? = nil, ownership: String? = nil,
        token: String? = nil, state: Int64? = nil
    ) -> Purchase {
        var p = Purchase()
        p.productID = product
        p.transactionID = txn
        p.originalTransactionID = txn
        p.purchaseDate = time(at)
        p.expiresDate = expires.map(time)
        p.cancellationDate = cancelled.map(time)
        p.productType = type
        p.ownership = ownership
        p.accountToken = token
        p.purchaseState = state
        return p
    }

    static func receipt(
        _ purchases: [Purchase], platform: Platform = .ios, env: String = "Production",
        app: String = "com.x.app", signature: SignatureStatus.Verdict = .valid
    ) -> Receipt {
        var r = Receipt(kind: platform == .ios ? .appleAppReceipt : .googlePurchase, platform: platform, signed: .none)
        r.environment = env
        r.appID = app
        r.purchases = purchases
        _ = signature
        return r
    }

    static func digest(_ r: Receipt, for o: ScreenOrder, signature: SignatureStatus.Verdict = .valid) -> ReceiptDigest {
        ReceiptDigest(receipt: r, signature: SignatureStatus(signature, "test"), for: o)
    }
}

/// Runs the engine the way `screen` does: claims in (created_at, order_id) order, then rules.
struct Night {
    var rules: RulesDirectory
    var ledger: [String: Claim] = [:]
    /// What the signature check says of each receipt (by default: it verifies).
    var signature: (Receipt) -> SignatureStatus = { _ in SignatureStatus(.valid, "test") }

    init(_ rulesText: String = "", reviewers: String? = nil, apps: Bool = true) throws {
        var files = ["x.rules": rulesText]
        if apps { files["apps.csv"] = "platform,app_id\nios,com.x.app\nandroid,com.x.app\n" }
        if let reviewers { files["reviewers.csv"] = "user_id,from,until,note\n" + reviewers }
        rules = try TempRules(files).load().get()
    }

    /// Findings per order id, as rule ids sorted.
    func run(_ cases: [(ScreenOrder, Receipt?)]) -> [String: [String]] {
        findings(cases).mapValues { $0.map(\.rule).sorted() }
    }

    func findings(_ cases: [(ScreenOrder, Receipt?)]) -> [String: [Finding]] {
        var book = ClaimBook()
        let states: [ReceiptState] = cases.map { o, r in
            r.map { .decoded(ReceiptDigest(receipt: $0, signature: signature($0), for: o)) } ?? .missing
        }
        let keys = states.flatMap { s -> [String] in
            if case .decoded(let d) = s { return ClaimBook.keys(of: d) }
            return []
        }
        book.remember(ledger.filter { keys.contains($0.key) })
        let order = cases.indices.sorted { ScreenOrder.claimOrder(cases[$0].0, cases[$1].0) }
        var selections = [Selection](repeating: .none, count: cases.count)
        for i in order {
            if case .decoded(let d) = states[i] { selections[i] = book.select(for: cases[i].0, digest: d) }
        }
        let evaluator = RuleEvaluator(rules: rules)
        var out: [String: [Finding]] = [:]
        for i in cases.indices {
            out[cases[i].0.orderID] = evaluator.findings(
                order: cases[i].0, receipt: states[i], selection: selections[i])
        }
        return out
    }
}

@Suite("Named rules and how they combine")
struct RuleEngineTests {
    @Test("a clean order raises nothing")
    func clean() throws {
        let o = World.order("o1")
        #expect(try Night().run([(o, World.receipt([World.purchase("gems", txn: "100")]))]) == ["o1": []])
    }

    @Test("one transaction credited twice: only the later order (by created_at, then order id) is a replay")
    func replayOrder() throws {
        let r = World.receipt([World.purchase("gems", txn: "100", at: "2024-03-01T09:00:00Z")])
        let early = World.order("o9", user: "u1", at: "2024-03-01T10:00:00Z")
        let late = World.order("o1", user: "u2", at: "2024-03-01T11:00:00Z")
        let night = try Night()
        #expect(night.run([(late, r), (early, r)]) == ["o1": ["replayed-transaction"], "o9": []])
        let f = try #require(night.findings([(late, r), (early, r)])["o1"]?.first)
        #expect(f.evidence.extra.first?.value == .string("o9"))
        // Same time: the smaller order id is the original.
        let a = World.order("a", user: "u1")
        let b = World.order("b", user: "u2")
        #expect(night.run([(b, r), (a, r)]) == ["a": [], "b": ["replayed-transaction"]])
    }

    @Test("renewals are new transactions, not replays; each order takes the newest unclaimed period")
    func renewals() throws {
        let periods = [
            World.purchase(
                "vip", txn: "201", at: "2024-01-01T00:00:00Z", expires: "2024-02-01T00:00:00Z", type: .autoRenewable),
            World.purchase(
                "vip", txn: "202", at: "2024-02-01T00:00:00Z", expires: "2024-03-01T00:00:00Z", type: .autoRenewable),
        ]
        let r = World.receipt(periods)
        let jan = World.order("jan", at: "2024-01-01T00:01:00Z", product: "vip", type: .autoRenewable)
        let feb = World.order("feb", at: "2024-02-01T00:01:00Z", product: "vip", type: .autoRenewable)
        #expect(try Night().run([(jan, r), (feb, r)]) == ["jan": [], "feb": []])
    }

    @Test("a non-consumable restored by the same user is not a replay; by another user it is")
    func restores() throws {
        let r = World.receipt([World.purchase("noads", txn: "300", type: .nonConsumable)])
        let first = World.order("o1", user: "u1", at: "2024-03-01T12:00:00Z", product: "noads", type: .nonConsumable)
        let restore = World.order("o2", user: "u1", at: "2024-03-02T12:00:00Z", product: "noads", type: .nonConsumable)
        let other = World.order("o3", user: "u3", at: "2024-03-03T12:00:00Z", product: "noads", type: .nonConsumable)
        #expect(
            try Night().run([(first, r), (restore, r), (other, r)]) == [
                "o1": [], "o2": [], "o3": ["replayed-transaction"],
            ])
    }

    @Test("family-shared purchases are not replays")
    func familySharing() throws {
        let r = World.receipt([World.purchase("noads", txn: "400", ownership: "FAMILY_SHARED")])
        let a = World.order("o1", user: "u1", product: "noads", type: .nonConsumable)
        let b = World.order("o2", user: "u2", at: "2024-03-02T00:00:00Z", product: "noads", type: .nonConsumable)
        #expect(try Night().run([(a, r), (b, r)]) == ["o1": [], "o2": []])
    }

    @Test("the ledger's first taker is the original, even against an earlier order tonight")
    func ledger() throws {
        var night = try Night()
        night.ledger = [
            "100": Claim(orderID: "yesterday-1", userID: "u0", createdAt: World.time("2024-03-05T00:00:00Z"))
        ]
        let r = World.receipt([World.purchase("gems", txn: "100")])
        let found = night.findings([(World.order("o1"), r)])
        #expect(found["o1"]?.map(\.rule) == ["replayed-transaction"])
        #expect(found["o1"]?.first?.evidence.extra.first?.value == .string("yesterday-1"))
        // The same order seen again is not a replay of itself.
        night.ledger = ["100": Claim(orderID: "o1", userID: "u1", createdAt: World.time("2024-03-01T12:00:00Z"))]
        #expect(night.run([(World.order("o1"), r)]) == ["o1": []])
    }

    @Test("a receipt without the order's product is an item-id mismatch with both products as evidence")
    func itemMismatch() throws {
        let r = World.receipt([World.purchase("gems50", txn: "500")])
        let f = try Night().findings([(World.order("o1", product: "gems500"), r)])["o1"]
        #expect(f?.map(\.rule) == ["item-id-mismatch"])
        #expect(f?.first?.message == "expected product gems500, receipt has gems50")
        #expect(f?.first?.evidence.expected == "gems500")
        #expect(f?.first?.evidence.actual == "gems50")
    }

    @Test("an order naming a transaction its receipt lacks gets transaction-not-in-receipt instead of item-id-mismatch")
    func transactionNotInReceipt() throws {
        let r = World.receipt([World.purchase("gems50", txn: "500")])
        #expect(
            try Night().run([(World.order("o1", product: "gems500", txn: "999"), r)]) == [
                "o1": ["transaction-not-in-receipt"]
            ])
        #expect(
            try Night().run([(World.order("o2", product: "gems500", txn: "500"), r)]) == ["o2": ["item-id-mismatch"]])
    }

    @Test("expired subscriptions respect the grace period; old consumable proofs exceed the maximum age")
    func expiry() throws {
        let sub = World.receipt([
            World.purchase(
                "vip", txn: "600", at: "2024-01-01T00:00:00Z",
                expires: "2024-02-01T00:00:00Z", type: .autoRenewable)
        ])
        let inGrace = World.order("o1", at: "2024-02-01T20:00:00Z", product: "vip", type: .autoRenewable)
        let late = World.order("o2", at: "2024-02-03T00:00:00Z", product: "vip", type: .autoRenewable)
        #expect(try Night().run([(inGrace, sub)]) == ["o1": []])
        #expect(try Night().run([(late, sub)]) == ["o2": ["expired-validity"]])
        let stale = World.receipt([World.purchase("gems", txn: "601", at: "2024-01-01T00:00:00Z")])
        #expect(try Night().run([(World.order("o3"), stale)]) == ["o3": ["expired-validity"]])
        #expect(
            try Night("rule expired-validity max_proof_age_days 90").run([(World.order("o3"), stale)]) == ["o3": []])
    }

    @Test("sandbox in production is flagged, exempted for a reviewer inside the window only, and not in sandbox")
    func sandbox() throws {
        let r = World.receipt([World.purchase("gems", txn: "700")], env: "Sandbox")
        let night = try Night(reviewers: "rev,2024-03-01,2024-03-01,App Review\n")
        let reviewer = try #require(night.findings([(World.order("o1", user: "rev"), r)])["o1"])
        #expect(reviewer.map(\.rule) == ["sandbox-in-production"])
        #expect(reviewer.first?.exempted == "reviewer")
        let outside = night.findings([(World.order("o2", user: "rev", at: "2024-03-02T00:00:00Z"), r)])["o2"]
        #expect(outside?.first?.exempted == nil)
        #expect(night.run([(World.order("o3", production: false), r)]) == ["o3": []])
        // A reviewer's replay is still fraud.
        let replay = night.findings([
            (World.order("a", user: "x"), r), (World.order("b", user: "rev", at: "2024-03-01T13:00:00Z"), r),
        ])
        #expect(replay["b"]?.first { $0.rule == "replayed-transaction" }?.exempted == nil)
    }

    @Test(
        "an iOS 6 receipt credited in production is sandbox-in-production whatever its unsigned environment says, unless trust_legacy_environment is yes"
    )
    func legacyEnvironment() throws {
        func legacy(_ env: String?) -> Receipt {
            var r = World.receipt([World.purchase("gems", txn: "1000000012345678")])
            r.kind = .appleLegacyReceipt
            r.environment = env
            return r
        }
        let night = try Night()
        for env in [nil, "Production", "production", "Foo"] as [String?] {
            let f = try #require(night.findings([(World.order("o1"), legacy(env))])["o1"])
            #expect(f.map(\.rule) == ["sandbox-in-production"], "\(env ?? "absent")")
            let finding = try #require(f.first)
            #expect(finding.message.contains("the iOS 6 environment is not signed"))
            #expect(finding.message.contains("a Sandbox receipt stripped of its environment"))
            #expect(finding.evidence.expected == "a signed Production environment")
            #expect(finding.evidence.actual == env ?? "absent (unsigned)")
        }
        let sandbox = try #require(night.findings([(World.order("o2"), legacy("Sandbox"))])["o2"]?.first)
        #expect(sandbox.message == "a Sandbox receipt was credited in production")
        #expect(night.run([(World.order("o3", production: false), legacy(nil))]) == ["o3": []])

        let trusting = try Night("rule sandbox-in-production trust_legacy_environment yes")
        #expect(trusting.run([(World.order("o4"), legacy(nil))]) == ["o4": []])
        #expect(trusting.run([(World.order("o5"), legacy("Production"))]) == ["o5": []])
        #expect(trusting.run([(World.order("o6"), legacy("Sandbox"))]) == ["o6": ["sandbox-in-production"]])
        // Beside a flagged order, a reviewer reads that the environment is not signed.
        let fields = World.digest(legacy(nil), for: World.order("o1")).keyFields(picked: nil)
        #expect(fields.first { $0.key == "environment" }?.value == "absent (not signed)")
        // Other receipts keep their signed environment.
        #expect(night.run([(World.order("o7"), World.receipt([World.purchase("gems", txn: "1")]))]) == ["o7": []])
    }

    @Test("revoked, account-bound to another user, and pending Google purchases are flagged")
    func purchaseRules() throws {
        let refunded = World.receipt([World.purchase("gems", txn: "800", cancelled: "2024-03-01T11:59:30Z")])
        #expect(try Night().run([(World.order("o1"), refunded)]) == ["o1": ["revoked"]])
        var g = World.purchase("gems", txn: "GPA.1", token: "someone-else", state: 0)
        let google = World.receipt([g], platform: .android)
        #expect(try Night().run([(World.order("o2"), google)]) == ["o2": ["account-mismatch"]])
        g.accountToken = "u1"
        g.purchaseState = 2
        #expect(
            try Night().run([(World.order("o3"), World.receipt([g], platform: .android))])["o3"]?.contains(
                "purchase-not-completed") == true)
        let uuid = "6f1c2a5e-8b7d-4c3e-9a1f-0e2d3c4b5a69"
        let bound = World.receipt([World.purchase("gems", txn: "801", token: uuid.uppercased())])
        #expect(try Night().run([(World.order("o4", user: uuid), bound)]) == ["o4": []])
        #expect(try Night().run([(World.order("o5", user: "not-a-uuid"), bound)]) == ["o5": []])
    }

    @Test("a receipt of another app is a bundle-id mismatch; a missing receipt stands alone")
    func appAndMissing() throws {
        let foreign = World.receipt([World.purchase("gems", txn: "900")], app: "com.evil.app")
        #expect(try Night().run([(World.order("o1"), foreign)]) == ["o1": ["bundle-id-mismatch"]])
        #expect(try Night().run([(World.order("o2"), nil)]) == ["o2": ["missing-receipt"]])
    }

    @Test(
        "a transaction's decoded JSON is screened on its claims; flag_unsigned_decoded_payload yes also flags it unsigned"
    )
    func decodedTransactionJSON() throws {
        var r = World.receipt([World.purchase("gems", txn: "2000000123")], env: "Sandbox")
        r.kind = .appleJWSTransaction
        r.jwsType = .transaction
        r.signed = .decodedJWSPayload
        var night = try Night()
        night.signature = { SignatureStatus.withoutTrust($0) }
        #expect(night.run([(World.order("o1"), r)]) == ["o1": ["sandbox-in-production"]])
        #expect(
            night.run([(World.order("o2", product: "gems500"), r)]) == [
                "o2": ["item-id-mismatch", "sandbox-in-production"]
            ])

        var flagging = try Night("rule signature-invalid flag_unsigned_decoded_payload yes")
        flagging.signature = night.signature
        let f = try #require(flagging.findings([(World.order("o3"), r)])["o3"])
        #expect(f.map(\.rule).sorted() == ["sandbox-in-production", "signature-invalid"])
        let unsigned = try #require(f.first { $0.rule == "signature-invalid" })
        #expect(unsigned.message == "the decoded transaction JSON carries no JWS to check it against")
        #expect(unsigned.evidence.expected == "a signed JWS")
        #expect(unsigned.evidence.actual == "unsigned")
        #expect(unsigned.evidence.extra.first?.value == .string("decoded transaction JSON, no JWS"))

        // The verifyReceipt parameter is another one.
        var other = try Night("rule signature-invalid flag_unsigned_verify_receipt yes")
        other.signature = night.signature
        #expect(other.run([(World.order("o4"), r)]) == ["o4": ["sandbox-in-production"]])
    }

    @Test("custom rules fire with their message and the values they compared as evidence")
    func custom() throws {
        let night = try Night(
            "flag high big-sandbox if receipt.environment = \"Sandbox\" and order.amount > 2 say \"big sandbox\"")
        let r = World.receipt([World.purchase("gems", txn: "901")], env: "Sandbox")
        let f = try #require(night.findings([(World.order("o1", production: false), r)])["o1"]?.first)
        #expect(f.rule == "big-sandbox")
        #expect(f.severity == .high)
        #expect(f.message == "big sandbox")
        #expect(f.evidence.extra.map(\.key) == ["receipt.environment", "order.amount"])
    }
}
