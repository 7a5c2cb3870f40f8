import IAPBasics
import JSONText

/// Writes verifyReceipt responses as Apple's server did (formats.md §3): scalars as
/// strings, each date as `X` (`2020-07-14 19:36:40 Etc/GMT`) and `X_ms`, numeric ids as
/// numbers. Unsigned by nature; `latest_receipt` is whatever base64 the caller gives.
public enum VerifyReceiptBuilder {
    /// One `in_app` / `latest_receipt_info` entry.
    public struct Transaction: Sendable {
        public var productID: String
        public var transactionID: String
        public var originalTransactionID: String
        public var quantity: Int64 = 1
        public var purchaseDate: Timestamp
        public var originalPurchaseDate: Timestamp
        public var expiresDate: Timestamp?
        public var cancellationDate: Timestamp?
        public var cancellationReason: String?
        public var webOrderLineItemID: String?
        public var isTrialPeriod: Bool = false
        public var isInIntroOfferPeriod: Bool?
        public var inAppOwnershipType: String?
        public var appAccountToken: String?
        public var subscriptionGroupIdentifier: String?

        public init(
            productID: String, transactionID: String, originalTransactionID: String? = nil,
            purchaseDate: Timestamp, originalPurchaseDate: Timestamp? = nil
        ) {
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        }

        func json(millisecondDates: Bool) -> JSONObject {
            var o = JSONObject()
            func put(_ key: String, _ value: String?) { if let value { o.members.append((key, .string(value))) } }
            func date(_ key: String, _ t: Timestamp?) {
                guard let t else { return }
                put(key, VerifyReceiptBuilder.gmt(t))
                if millisecondDates { put(key + "_ms", String(t.millis)) }
            }
            put("quantity", String(quantity))
            put("product_id", productID)
            put("transaction_id", transactionID)
            put("original_transaction_id", originalTransactionID)
            date("purchase_date", purchaseDate)
            date("original_purchase_date", originalPurchaseDate)
            date("expires_date", expiresDate)
            date("cancellation_date", cancellationDate)
            put("cancellation_reason", cancellationReason)
            put("web_order_line_item_id", webOrderLineItemID)
            put("is_trial_period", String(isTrialPeriod))
            put("is_in_intro_offer_period", isInIntroOfferPeriod.map { String($0) })
            put("in_app_ownership_type", inAppOwnershipType)
            put("app_account_token", appAccountToken)
            put("subscription_group_identifier", subscriptionGroupIdentifier)
            return o
        }
    }

    /// A whole response.
    public struct Response: Sendable {
        public var status: Int64 = 0
        /// `Production` or `Sandbox`.
        public var environment: String = "Production"
        /// `Production` or `ProductionSandbox`.
        public var receiptType: String = "Production"
        public var bundleID: String
        public var applicationVersion: String = "1"
        public var originalApplicationVersion: String = "1.0"
        /// 0 in sandbox.
        public var appItemID: Int64
        public var receiptCreationDate: Timestamp
        public var inApp: [Transaction] = []
        public var latestReceiptInfo: [Transaction] = []
        /// Base64 app receipt, as the caller built it (e.g. with `AppReceiptBuilder`).
        public var latestReceipt: String?
        /// false: dates only as `… Etc/GMT`, without their `_ms` twins.
        public var millisecondDates = true

        public init(bundleID: String, appItemID: Int64, receiptCreationDate: Timestamp) {
            self.bundleID = bundleID
            self.appItemID = appItemID
            self.receiptCreationDate = receiptCreationDate
        }

        /// The response with one transaction's claims rewritten in both lists, everything
        /// else (`latest_receipt` included) untouched — as MITM scripts forge a response.
        public func rewritingClaims(of transactionID: String, _ change: (inout Transaction) -> Void) -> Response {
            var forged = self
            for i in forged.inApp.indices where forged.inApp[i].transactionID == transactionID {
                change(&forged.inApp[i])
            }
            for i in forged.latestReceiptInfo.indices where forged.latestReceiptInfo[i].transactionID == transactionID {
                change(&forged.latestReceiptInfo[i])
            }
            return forged
        }

        public var json: JSONObject {
            var receipt = JSONObject([
                ("receipt_type", .string(receiptType)),
                ("adam_id", .integer(appItemID)),
                ("app_item_id", .integer(appItemID)),
                ("bundle_id", .string(bundleID)),
                ("application_version", .string(applicationVersion)),
                ("download_id", .integer(0)),
                ("version_external_identifier", .integer(0)),
                ("receipt_creation_date", .string(VerifyReceiptBuilder.gmt(receiptCreationDate))),
            ])
            if millisecondDates {
                receipt.members.append(("receipt_creation_date_ms", .string(String(receiptCreationDate.millis))))
            }
            receipt.members.append(("original_application_version", .string(originalApplicationVersion)))
            receipt.members.append(
                ("in_app", .array(inApp.map { .object($0.json(millisecondDates: millisecondDates)) })))
            var o = JSONObject([("receipt", .object(receipt)), ("environment", .string(environment))])
            if !latestReceiptInfo.isEmpty {
                o.members.append(
                    (
                        "latest_receipt_info",
                        .array(latestReceiptInfo.map { .object($0.json(millisecondDates: millisecondDates)) })
                    ))
            }
            if let latestReceipt { o.members.append(("latest_receipt", .string(latestReceipt))) }
            o.members.append(("status", .integer(status)))
            return o
        }

        public var text: String { JSONValue.object(json).jsonText }
    }

    /// `2020-07-14 19:36:40 Etc/GMT`.
    static func gmt(_ t: Timestamp) -> String {
        var seconds = t
        seconds.hasMilliseconds = false
        let iso = seconds.iso8601  // 2020-07-14T19:36:40Z
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).dropLast()) + " Etc/GMT"
    }
}
