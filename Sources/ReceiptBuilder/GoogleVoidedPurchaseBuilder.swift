import IAPBasics
import JSONText

/// Writes Google Play's voided purchases (refunds, chargebacks, cancellations) as the Play
/// Developer API returns them and a server that polls it logs them (docs/store-events.md). Unsigned:
/// our own server fetched them from Google.
///
/// Shapes [developers.google.com/android-publisher/api-ref/rest/v3/purchases.voidedpurchases
/// and its `list` method]; int64 fields are JSON strings, as Google's REST API writes them:
///
///   VoidedPurchase  {"kind": "androidpublisher#voidedPurchase", "purchaseToken": "…",
///                    "purchaseTimeMillis": "1717236000000", "voidedTimeMillis": "1717401600000",
///                    "orderId": "GPA.…", "voidedSource": 0, "voidedReason": 1, "voidedQuantity": 1}
///   list page       {"pageInfo": {"totalResults": 2, "resultPerPage": 2, "startIndex": 0},
///                    "tokenPagination": {"nextPageToken": "…"}, "voidedPurchases": [VoidedPurchase, …]}
public enum GoogleVoidedPurchaseBuilder {
    /// One voided purchase.
    public struct VoidedPurchase: Sendable {
        public var purchaseToken: String
        /// nil leaves it out, as for a purchase Google gave no order id (a test purchase).
        public var orderID: String?
        public var purchaseTime: Timestamp
        public var voidedTime: Timestamp
        /// Who voided it: 0 user, 1 developer, 2 Google.
        public var voidedSource: Int64 = 0
        /// Why: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud,
        /// 6 friendly fraud, 7 chargeback, 8 unacknowledged purchase.
        public var voidedReason: Int64 = 0
        /// Units refunded of a multi-quantity purchase (quantity-based partial refunds); nil leaves it out.
        public var voidedQuantity: Int64?

        public init(purchaseToken: String, orderID: String?, purchaseTime: Timestamp, voidedTime: Timestamp) {
            self.purchaseToken = purchaseToken
            self.orderID = orderID
            self.purchaseTime = purchaseTime
            self.voidedTime = voidedTime
        }

        /// In the order of Google's JSON representation.
        public var json: JSONObject {
            var o = JSONObject([
                ("kind", .string("androidpublisher#voidedPurchase")),
                ("purchaseToken", .string(purchaseToken)),
                ("purchaseTimeMillis", .string(String(purchaseTime.millis))),
                ("voidedTimeMillis", .string(String(voidedTime.millis))),
            ])
            if let orderID { o.members.append(("orderId", .string(orderID))) }
            o.members.append(("voidedSource", .integer(voidedSource)))
            o.members.append(("voidedReason", .integer(voidedReason)))
            if let voidedQuantity { o.members.append(("voidedQuantity", .integer(voidedQuantity))) }
            return o
        }

        /// Compact JSON: one line of a store-event log.
        public var text: String { JSONValue.object(json).jsonText }
    }

    /// One page of `voidedpurchases.list`, as a server that polls it stores the response.
    public struct ListPage: Sendable {
        public var voidedPurchases: [VoidedPurchase]
        /// nil: the last page, and `tokenPagination` is left out.
        public var nextPageToken: String?

        public init(voidedPurchases: [VoidedPurchase], nextPageToken: String? = nil) {
            self.voidedPurchases = voidedPurchases
            self.nextPageToken = nextPageToken
        }

        public var json: JSONObject {
            let count = JSONValue.integer(voidedPurchases.count)
            var o = JSONObject([
                (
                    "pageInfo",
                    .object(
                        JSONObject([("totalResults", count), ("resultPerPage", count), ("startIndex", .integer(0))]))
                )
            ])
            if let nextPageToken {
                o.members.append(("tokenPagination", .object(JSONObject([("nextPageToken", .string(nextPageToken))]))))
            }
            o.members.append(("voidedPurchases", .array(voidedPurchases.map { .object($0.json) })))
            return o
        }

        /// Compact JSON: one line of a store-event log.
        public var text: String { JSONValue.object(json).jsonText }
    }
}
