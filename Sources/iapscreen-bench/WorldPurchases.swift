import Dispatch
import DumpFormats
import Foundation
import IAPBasics
import ReceiptFormats

/// The purchases of a benchmark world that store events can name: the App Store
/// transactions of its StoreKit orders (their JWS decoded) and the Google Play purchases of
/// its Play orders (order id and token), each with when the order was credited. Only
/// production purchases; each transaction once, however many orders took it.
struct WorldPurchases {
    struct Purchase {
        /// Apple `transactionId`; Google `orderId`.
        var transactionID: String
        /// Apple `originalTransactionId`; Google `purchaseToken`.
        var original: String
        var productID: String
        var subscription: Bool
        /// As the receipt says it (Google's say nothing).
        var productType: ProductType?
        var purchasedAt: Timestamp
        var creditedAt: Timestamp
    }

    var apple: [Purchase] = []
    var google: [Purchase] = []
    /// Rows that named no purchase to use (no receipt, undecodable, sandbox, Xcode, …).
    var skipped = 0

    /// Reads `storekit` (App Store JWS orders) and `play` (Google Play orders), decoding the
    /// receipts on every core.
    static func read(storekit: String, play: String) throws -> WorldPurchases {
        var out = WorldPurchases()
        var seen: Set<String> = []
        for (path, store) in [(storekit, Platform.ios), (play, Platform.android)] {
            let reader = try DumpReader(path: path)
            var batch: [OrderRow] = []
            func flush() {
                for p in decode(batch, store) {
                    guard let p else {
                        out.skipped += 1
                        continue
                    }
                    guard seen.insert((store == .ios ? "a:" : "g:") + p.transactionID).inserted else { continue }
                    if store == .ios { out.apple.append(p) } else { out.google.append(p) }
                }
                batch.removeAll(keepingCapacity: true)
            }
            while let next = try reader.nextOrder() {
                guard case .success(let row) = next else {
                    out.skipped += 1
                    continue
                }
                batch.append(row)
                if batch.count == 4096 { flush() }
            }
            flush()
        }
        return out
    }

    private static func decode(_ rows: [OrderRow], _ store: Platform) -> [Purchase?] {
        nonisolated(unsafe) var out = [Purchase?](repeating: nil, count: rows.count)
        let workers = max(1, min(rows.count, ProcessInfo.processInfo.activeProcessorCount))
        out.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < rows.count {
                    slots[i] = purchase(rows[i], store)
                    i += workers
                }
            }
        }
        return out
    }

    /// The purchase an order took, if its receipt is a production one of `store`.
    private static func purchase(_ row: OrderRow, _ store: Platform) -> Purchase? {
        guard row.status == .credited, row.environment != .sandbox, let payload = row.receipt,
            let receipt = try? ReceiptDecoder.decode(Array(payload.utf8)), receipt.platform == store,
            receipt.environment.map({ $0 == "Production" }) ?? true,
            let p = receipt.purchases.first, let product = p.productID
        else { return nil }
        // Apple says its type; Google only that it renews.
        let subscription =
            p.productType == .autoRenewable || p.expiresDate != nil
            || p.extras.contains { $0.key == "auto_renewing" && $0.value.scalarText == "true" }
        switch store {
        case .ios:
            guard let txn = row.transactionID ?? p.transactionID else { return nil }
            return Purchase(
                transactionID: txn, original: p.originalTransactionID ?? txn, productID: product,
                subscription: subscription, productType: p.productType, purchasedAt: p.purchaseDate ?? row.createdAt,
                creditedAt: row.createdAt)
        case .android:
            guard let order = p.transactionID ?? row.transactionID, let token = p.purchaseToken else { return nil }
            return Purchase(
                transactionID: order, original: token, productID: product,
                subscription: subscription, productType: p.productType, purchasedAt: p.purchaseDate ?? row.createdAt,
                creditedAt: row.createdAt)
        }
    }
}

extension WorldPurchases {
    /// This world, or made-up purchases of the sample catalog's apps for a store it has none of
    /// (the events then name nobody's order).
    var orFallback: WorldPurchases {
        var out = self
        let night = StoreEventPlanner.night
        if out.apple.isEmpty {
            out.apple = (0..<1000).map { i in
                Purchase(
                    transactionID: "9" + String(i).leftPadded(14), original: "9" + String(i).leftPadded(14),
                    productID: "com.example.game.gems100", subscription: false, productType: .consumable,
                    purchasedAt: night, creditedAt: night)
            }
        }
        if out.google.isEmpty {
            out.google = (0..<1000).map { i in
                Purchase(
                    transactionID: "GPA.9999-0000-0000-" + String(i).leftPadded(5),
                    original: "tok.fallback." + String(i),
                    productID: "gems_100", subscription: false, productType: nil, purchasedAt: night, creditedAt: night)
            }
        }
        return out
    }
}
