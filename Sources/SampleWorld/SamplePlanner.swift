import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import Screening

/// Decides, deterministically from the seed, what each order of the demo world is: mostly
/// clean purchases, every kind of fraud docs/rules.md names, and their legitimate
/// look-alikes. Makes the plan only; `SampleWriter` signs and writes it.
struct SamplePlanner {
    var random: SeededRandom
    let start: Timestamp
    let mix: SampleStoreMix
    private var next = 0
    private var planted = 0
    private var txn: Int64 = 100_000_000_000_000

    init(seed: UInt64, start: Timestamp, mix: SampleStoreMix = .classic) {
        random = SeededRandom(seed: seed)
        self.start = start
        self.mix = mix
    }

    /// The cases planted besides clean orders; each appears about equally often.
    static let cases = [
        "replay", "item-mismatch", "sandbox", "reviewer-sandbox", "expired-subscription", "stale-consumable",
        "late-lost-order", "revoked", "txn-not-in-receipt", "account-mismatch", "pending", "foreign-app",
        "missing-receipt", "undecodable", "orphan-receipt", "malformed-row", "unsigned-google", "renewal",
        "restore", "family-sharing", "duplicate-row", "sandbox-order", "not-credited",
        "verify-receipt-json", "forged-json", "tampered-receipt", "xcode-receipt",
    ]

    /// The next group of orders (one order, or a pair for replays and look-alikes).
    mutating func nextGroup(plantRate: Double = 0.2) -> [PlannedOrder] {
        let store = mix.draw(&random)
        guard random.chance(plantRate) else { return [clean(store)] }
        // Round robin: a world with as many planted orders as cases has every case.
        planted += 1
        let name = SamplePlanner.cases[planted % SamplePlanner.cases.count]
        return plant(name, mix.store(for: name, drawn: store))
    }

    // MARK: Building blocks

    private mutating func orderID() -> String {
        next += 1
        return "ORD-" + String(1_000_000 + next)
    }

    private mutating func user() -> String { "user-" + String(10_000 + random.below(5_000)) }

    private mutating func transactionID() -> String {
        txn += Int64(1 + random.below(50))
        return String(txn)
    }

    /// A time during the night's day.
    private mutating func creditTime() -> Timestamp {
        Timestamp(clampingMillis: start.millis + Int64(random.below(86_000)) * 1000, hasMilliseconds: false)
    }

    private func at(_ t: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(clampingMillis: t.millis + seconds * 1000, hasMilliseconds: false)
    }

    private mutating func consumable() -> SampleCatalog.Item {
        SampleCatalog.items[random.below(3)]
    }

    private mutating func anyItem() -> SampleCatalog.Item {
        SampleCatalog.items[random.below(SampleCatalog.items.count)]
    }

    private func product(_ item: SampleCatalog.Item, _ store: PlannedOrder.Store) -> String {
        store == .google ? item.google : item.apple
    }

    /// The purchase a store would put in the proof of `item` bought at `bought`.
    private mutating func proof(
        _ store: PlannedOrder.Store, item: SampleCatalog.Item, user: String, bought: Timestamp,
        txnID: String, environment: String = "Production", expires: Timestamp? = nil,
        cancelled: Timestamp? = nil, productOverride: String? = nil
    ) -> PlannedOrder.Proof {
        let productID = productOverride ?? product(item, store)
        switch store {
        case .appReceipt:
            var spec = AppReceiptBuilder.Spec(
                environment: environment, bundleID: SampleCatalog.bundleID, appVersion: "4.2",
                appItemID: environment == "Production" ? SampleCatalog.appItemID : 0,
                creationDate: at(bought, seconds: 2))
            // Real receipts carry the user's earlier non-consumables too: about ten entries
            // (products retired from today's catalog).
            var history: [AppReceiptBuilder.InAppPurchase] = []
            let earlier = 6 + random.below(6)
            var t = at(bought, seconds: -Int64(earlier) * 86_400 * 3)
            for k in 0..<earlier {
                var p = AppReceiptBuilder.InAppPurchase(
                    productID: "com.example.game.legacy.theme\(k + 1)",
                    transactionID: transactionID(), purchaseDate: t)
                p.productTypeCode = 0
                p.webOrderLineItemID = Int64(200_000_000 + random.below(1_000_000))
                history.append(p)
                t = at(t, seconds: 86_400 * 3)
            }
            var p = AppReceiptBuilder.InAppPurchase(productID: productID, transactionID: txnID, purchaseDate: bought)
            p.productTypeCode = item.type == .consumable ? 1 : (item.type == .autoRenewable ? 3 : 0)
            p.expiresDate = expires
            p.cancellationDate = cancelled
            spec.purchases = history + [p]
            return .app(spec)
        case .jws:
            var tx = JWSBuilder.Transaction(
                transactionID: txnID, bundleID: SampleCatalog.bundleID, productID: productID,
                type: SamplePlanner.jwsType(item.type), purchaseDate: bought, signedDate: at(bought, seconds: 1))
            tx.environment = environment
            tx.expiresDate = expires
            tx.revocationDate = cancelled
            tx.revocationReason = cancelled == nil ? nil : 1
            tx.price = Int64((Double(item.price) ?? 0) * 1000)
            tx.currency = "USD"
            return .jws(tx)
        case .google:
            let orderID: String? =
                environment == "Production"
                ? "GPA.\(3300 + random.below(600))-\(txnID.suffix(4))-\(txnID.dropLast(4).suffix(4))-\(txnID.suffix(5))"
                : nil
            var data = GooglePurchaseBuilder.PurchaseData(
                orderID: orderID, packageName: SampleCatalog.bundleID,
                productID: productID, purchaseTime: bought,
                purchaseToken: "tok." + txnID, obfuscatedAccountID: user)
            data.acknowledged = true
            if item.type == .autoRenewable { data.autoRenewing = true }
            return .google(data, random.pick([.dataAndSignature, .base64DataAndSignature, .unity]))
        }
    }

    /// The StoreKit 2 `type` of a catalog product type.
    static func jwsType(_ t: ProductType) -> String {
        switch t {
        case .consumable: return "Consumable"
        case .nonConsumable: return "Non-Consumable"
        case .autoRenewable: return "Auto-Renewable Subscription"
        default: return "Non-Renewing Subscription"
        }
    }

    /// The transaction id an order of this store records (Google: the orderId).
    private func recorded(_ proof: PlannedOrder.Proof) -> String? {
        switch proof {
        case .jws(let tx): return tx.transactionID
        case .google(let d, _): return d.orderID
        default: return nil
        }
    }

    // MARK: Cases

    private mutating func clean(_ store: PlannedOrder.Store) -> PlannedOrder {
        let item = anyItem()
        let u = user()
        let t = creditTime()
        let bought = at(t, seconds: -Int64(5 + random.below(120)))
        let expires = item.type == .autoRenewable ? at(bought, seconds: 86_400 * 30) : nil
        let p = proof(store, item: item, user: u, bought: bought, txnID: transactionID(), expires: expires)
        return PlannedOrder(
            orderID: orderID(), userID: u, createdAt: t, store: store, itemID: item.id,
            transactionID: recorded(p), proof: p, caseName: "clean")
    }

    private mutating func plant(_ name: String, _ store: PlannedOrder.Store) -> [PlannedOrder] {
        var o = clean(store)
        o.caseName = name
        let item = SampleCatalog.items.first { $0.id == o.itemID } ?? SampleCatalog.items[0]
        let bought = at(o.createdAt, seconds: -60)
        // Each case is planted by the group it belongs to; nil: the one order `o` became.
        let planted =
            Self.severalOrders.contains(name)
            ? plantSeveral(name, &o, item: item, bought: bought, store)
            : Self.receiptFaults.contains(name)
                ? plantReceiptFault(name, &o, item: item, bought: bought, store)
                : Self.accountFaults.contains(name)
                    ? plantAccountFault(name, &o, item: item, bought: bought, store)
                    : Self.cleanVariants.contains(name)
                        ? plantCleanVariant(name, &o, item: item, bought: bought, store)
                        : plantPurchaseFault(name, &o, item: item, bought: bought, store)
        return planted ?? [o]
    }

    /// Cases planted as more than one order (a replay and its original, a renewal, …).
    static let severalOrders: Set<String> = ["replay", "renewal", "restore", "family-sharing"]
    /// Cases whose receipt (or row) is what is wrong.
    static let receiptFaults: Set<String> = [
        "missing-receipt", "undecodable", "orphan-receipt", "malformed-row", "unsigned-google", "verify-receipt-json",
        "forged-json", "tampered-receipt", "xcode-receipt",
    ]
    /// Cases of another account's or app's purchase, a refund, a purchase not in its receipt, a pending one.
    static let accountFaults: Set<String> = [
        "revoked", "txn-not-in-receipt", "account-mismatch", "pending", "foreign-app",
    ]
    /// Cases with nothing to find.
    static let cleanVariants: Set<String> = ["duplicate-row", "sandbox-order", "not-credited"]

    /// Cases of several orders: a replay, a renewal, a restore, family sharing.
    private mutating func plantSeveral(
        _ name: String, _ o: inout PlannedOrder, item: SampleCatalog.Item, bought: Timestamp,
        _ store: PlannedOrder.Store
    ) -> [PlannedOrder]? {
        switch name {
        case "replay":
            // A second account credits the same proof later the same day.
            var copy = o
            copy.orderID = orderID()
            copy.userID = user() + "-x"
            copy.createdAt = at(o.createdAt, seconds: 600 + Int64(random.below(3_000)))
            copy.proof = .sameAs(0)
            copy.expected = [ReplayedTransaction.id.rawValue]
            if item.type == .nonConsumable || store == .google {
                // Bound to the first account: the copy also carries another user's binding.
                if store == .google { copy.expected.append(AccountMismatch.id.rawValue) }
            }
            copy.expected.sort()
            return [o, copy]
        case "renewal":
            return plantRenewal(o, store)
        case "restore":
            // The same user restores a non-consumable on a new device: not a replay.
            let noAds = SampleCatalog.items[4]
            o.itemID = noAds.id
            o.proof = proof(store, item: noAds, user: o.userID, bought: bought, txnID: transactionID())
            o.transactionID = recorded(o.proof)
            var again = o
            again.orderID = orderID()
            again.createdAt = at(o.createdAt, seconds: 3_600)
            again.proof = .sameAs(0)
            again.caseName = "restore"
            again.amount = "0.00"  // a restore is worth nothing: no store charges it
            return [o, again]
        case "family-sharing":
            guard store == .jws else { return plant("restore", store) }
            let noAds = SampleCatalog.items[4]
            o.itemID = noAds.id
            guard case .jws(var tx) = proof(.jws, item: noAds, user: o.userID, bought: bought, txnID: transactionID())
            else { return [o] }
            tx.inAppOwnershipType = "FAMILY_SHARED"
            o.proof = .jws(tx)
            o.transactionID = nil
            var member = o
            member.orderID = orderID()
            member.userID = user() + "-family"
            member.createdAt = at(o.createdAt, seconds: 900)
            member.proof = .sameAs(0)
            member.amount = "0.00"  // shared by the family organiser's purchase, not bought again
            return [o, member]
        default:
            break
        }
        return nil
    }

    /// Two monthly periods of one subscription credited to the same user a month apart.
    private mutating func plantRenewal(_ o: PlannedOrder, _ store: PlannedOrder.Store) -> [PlannedOrder] {
        let vip = SampleCatalog.items[3]
        let first = at(o.createdAt, seconds: -86_400 * 30)
        var a = o
        a.itemID = vip.id
        a.createdAt = at(first, seconds: 20)
        let txA = transactionID()
        let txB = transactionID()
        switch store {
        case .appReceipt:
            guard
                case .app(var spec) = proof(
                    .appReceipt, item: vip, user: o.userID, bought: first, txnID: txA,
                    expires: at(first, seconds: 86_400 * 30))
            else { return [o] }
            var renewal = AppReceiptBuilder.InAppPurchase(
                productID: vip.apple, transactionID: txB, originalTransactionID: txA,
                purchaseDate: at(first, seconds: 86_400 * 30), originalPurchaseDate: first)
            renewal.productTypeCode = 3
            renewal.expiresDate = at(first, seconds: 86_400 * 60)
            spec.purchases.append(renewal)
            spec.creationDate = at(first, seconds: 86_400 * 30 + 5)
            a.proof = .app(spec)
            var b = a
            b.orderID = orderID()
            b.createdAt = at(first, seconds: 86_400 * 30 + 20)
            b.proof = .sameAs(0)
            return [a, b]
        default:
            a.proof = proof(
                store, item: vip, user: o.userID, bought: first, txnID: txA,
                expires: at(first, seconds: 86_400 * 30))
            a.transactionID = recorded(a.proof)
            var b = a
            b.orderID = orderID()
            b.createdAt = at(first, seconds: 86_400 * 30 + 20)
            b.proof = proof(
                store, item: vip, user: o.userID, bought: at(first, seconds: 86_400 * 30), txnID: txB,
                expires: at(first, seconds: 86_400 * 60))
            // Google numbers a renewal after its first order: GPA.…..0.
            if case .google(var d, let w) = b.proof, let base = a.transactionID {
                d.orderID = base + "..0"
                b.proof = .google(d, w)
            }
            b.transactionID = recorded(b.proof)
            return [a, b]
        }
    }

    /// Cases whose receipt is missing, unreadable, orphaned, unsigned, forged or tampered, or whose row is broken.
    private mutating func plantReceiptFault(
        _ name: String, _ o: inout PlannedOrder, item: SampleCatalog.Item, bought: Timestamp,
        _ store: PlannedOrder.Store
    ) -> [PlannedOrder]? {
        switch name {
        case "missing-receipt":
            o.proof = .none
            o.transactionID = nil
            // App Store rows leave the platform out, as servers that learn it from the receipt
            // do; Google rows keep it, so finance still sees an unpaid credit.
            o.statesPlatform = store == .google
            o.expected = [MissingReceipt.id.rawValue]
        case "undecodable":
            o.proof = .garbage(
                random.pick(["not a receipt", "MIIBgarbage==", "{\"receipt\": \"lol\"}", "eyJhbGciOiJub25lIn0.e30."]))
            o.transactionID = nil
            o.expected = [ReceiptUndecodable.id.rawValue]
        case "orphan-receipt":
            // Its order is missing from the orders dump: a lost order.
            o.caseName = "orphan-receipt"
            o.store = .appReceipt
            o.proof = proof(.appReceipt, item: item, user: o.userID, bought: bought, txnID: transactionID())
            o.status = "orphan"
            o.expected = [OrphanReceipt.id.rawValue]
        case "malformed-row":
            o.brokenCreatedAt = true
            // An App Store order's receipt sits in the receipts dump: without its order, an orphan.
            o.expected =
                store == .appReceipt
                ? [MalformedRecord.id.rawValue, OrphanReceipt.id.rawValue] : [MalformedRecord.id.rawValue]
        case "unsigned-google":
            guard case .google(let d, _) = o.proof else { return plant("sandbox", store) }
            o.proof = .google(d, .unsigned)
            o.expected = [SignatureInvalid.id.rawValue]
        case "verify-receipt-json", "forged-json":
            // A server that stored Apple's verifyReceipt answer; a forger edits its expiry.
            let vip = SampleCatalog.items[3]
            o.store = .appReceipt
            o.itemID = vip.id
            guard
                case .app(let spec) = proof(
                    .appReceipt, item: vip, user: o.userID, bought: bought, txnID: transactionID(),
                    expires: at(bought, seconds: 86_400 * 30))
            else { return [o] }
            let forged = name == "forged-json"
            o.proof = .verifyReceipt(spec, forged: forged)
            o.transactionID = nil
            o.expected = forged ? [SignatureInvalid.id.rawValue] : []
        case "tampered-receipt":
            guard store == .appReceipt, case .app(let spec) = o.proof else { return plant("forged-json", store) }
            o.proof = .tampered(spec)
            o.expected = [SignatureInvalid.id.rawValue]
        case "xcode-receipt":
            guard store == .appReceipt, case .app(var spec) = o.proof else {
                return plant("tampered-receipt", .appReceipt)
            }
            spec.environment = "Xcode"
            spec.appItemID = 0
            spec.encoding = .xcodeBER
            o.proof = .xcode(spec)
            o.expected = [SandboxInProduction.id.rawValue, SignatureInvalid.id.rawValue]
        default:
            break
        }
        return nil
    }

    /// Cases whose purchase is not what the order says: another product, sandbox, expired, stale, lost.
    private mutating func plantPurchaseFault(
        _ name: String, _ o: inout PlannedOrder, item: SampleCatalog.Item, bought: Timestamp,
        _ store: PlannedOrder.Store
    ) -> [PlannedOrder]? {
        switch name {
        case "item-mismatch":
            let cheap = SampleCatalog.items[0]
            let dear = SampleCatalog.items[2]
            o.itemID = dear.id
            o.proof = proof(store, item: cheap, user: o.userID, bought: bought, txnID: transactionID())
            o.transactionID = recorded(o.proof)
            o.expected = [ItemIDMismatch.id.rawValue]
        case "sandbox":
            o.proof = sandboxProof(store, item: item, user: o.userID, bought: bought)
            o.transactionID = recorded(o.proof)
            o.expected = [SandboxInProduction.id.rawValue]
        case "reviewer-sandbox":
            o.userID = random.pick(SampleCatalog.reviewers)
            o.proof = sandboxProof(store, item: item, user: o.userID, bought: bought)
            o.transactionID = recorded(o.proof)
            o.exempted = [SandboxInProduction.id.rawValue]
        case "expired-subscription":
            // Google's proof carries no expiry: only Apple's can show this.
            guard store != .google else { return plant("stale-consumable", store) }
            let vip = SampleCatalog.items[3]
            o.itemID = vip.id
            let start = at(o.createdAt, seconds: -86_400 * 40)
            o.proof = proof(
                store, item: vip, user: o.userID, bought: start, txnID: transactionID(),
                expires: at(start, seconds: 86_400 * 30))
            o.transactionID = recorded(o.proof)
            o.expected = [ExpiredValidity.id.rawValue]
        case "stale-consumable":
            consumable(boughtDaysBefore: 45, &o, store)
            o.expected = [ExpiredValidity.id.rawValue]
        case "late-lost-order":
            // The client retried a week later: within the maximum proof age.
            consumable(boughtDaysBefore: 7, &o, store)
            o.receiptDelaySeconds = 3_600
        default:
            break
        }
        return nil
    }

    /// Cases of another account's or app's purchase, a refunded one credited, a purchase not in its receipt, a pending one.
    private mutating func plantAccountFault(
        _ name: String, _ o: inout PlannedOrder, item: SampleCatalog.Item, bought: Timestamp,
        _ store: PlannedOrder.Store
    ) -> [PlannedOrder]? {
        switch name {
        case "revoked":
            if store == .google, case .google(var d, let w) = o.proof {
                // Google's proof carries no refund; a cancelled purchase is its nearest kin.
                d.purchaseState = 1
                o.proof = .google(d, w)
                o.expected = [PurchaseNotCompleted.id.rawValue]
                return [o]
            }
            o.proof = proof(
                store, item: item, user: o.userID, bought: bought, txnID: transactionID(),
                expires: item.type == .autoRenewable ? at(bought, seconds: 86_400 * 30) : nil,
                cancelled: at(bought, seconds: 30))
            o.transactionID = recorded(o.proof)
            o.expected = [Revoked.id.rawValue]
        case "txn-not-in-receipt":
            o.transactionID = store == .google ? "GPA.0000-0000-0000-00000" : "999" + transactionID()
            o.expected = [TransactionNotInReceipt.id.rawValue]
        case "account-mismatch":
            guard store != .appReceipt else { return plant("revoked", store) }
            let other = user() + "-other"
            if case .google(var d, let w) = o.proof {
                d.obfuscatedAccountID = other
                o.proof = .google(d, w)
            } else if case .jws(var tx) = o.proof {
                o.userID = uuid()
                tx.appAccountToken = uuid()
                o.proof = .jws(tx)
            }
            o.expected = [AccountMismatch.id.rawValue]
        case "pending":
            guard store == .google, case .google(var d, let w) = o.proof else { return plant("item-mismatch", store) }
            d.purchaseState = 4
            o.proof = .google(d, w)
            o.expected = [PurchaseNotCompleted.id.rawValue]
        case "foreign-app":
            switch o.proof {
            case .app(var spec):
                spec.bundleID = "com.cheap.clone"
                o.proof = .app(spec)
            case .jws(var tx):
                tx.bundleID = "com.cheap.clone"
                o.proof = .jws(tx)
            case .google(var d, let w):
                d.packageName = "com.cheap.clone"
                o.proof = .google(d, w)
            default: break
            }
            o.expected = [BundleIDMismatch.id.rawValue]
        default:
            break
        }
        return nil
    }

    /// The clean variants: duplicate rows, sandbox orders, orders not credited.
    private mutating func plantCleanVariant(
        _ name: String, _ o: inout PlannedOrder, item: SampleCatalog.Item, bought: Timestamp,
        _ store: PlannedOrder.Store
    ) -> [PlannedOrder]? {
        switch name {
        case "duplicate-row":
            o.duplicated = true
        case "sandbox-order":
            // A sandbox order (QA) with a sandbox receipt: nothing to say.
            o.environment = "sandbox"
            o.proof = sandboxProof(store, item: item, user: o.userID, bought: bought)
            o.transactionID = recorded(o.proof)
        case "not-credited":
            o.status = random.pick(["pending", "failed", "refunded"])
            o.proof = .garbage("whatever")
        default:
            break
        }
        return nil
    }

    /// A sandbox purchase of `item` (a month's subscription when it renews).
    private mutating func sandboxProof(
        _ store: PlannedOrder.Store, item: SampleCatalog.Item, user: String, bought: Timestamp
    ) -> PlannedOrder.Proof {
        proof(
            store, item: item, user: user, bought: bought, txnID: transactionID(),
            environment: store == .appReceipt ? "ProductionSandbox" : "Sandbox",
            expires: item.type == .autoRenewable ? at(bought, seconds: 86_400 * 30) : nil)
    }

    /// Turns `o` into a consumable bought `days` before its credit.
    private mutating func consumable(boughtDaysBefore days: Int64, _ o: inout PlannedOrder, _ store: PlannedOrder.Store)
    {
        let gems = consumable()
        o.itemID = gems.id
        o.proof = proof(
            store, item: gems, user: o.userID, bought: at(o.createdAt, seconds: -86_400 * days),
            txnID: transactionID())
        o.transactionID = recorded(o.proof)
    }

    private mutating func uuid() -> String { random.uuid() }
}
