import IAPBasics
import JSONText
import Reporting

/// The rows a planned order is written as in each orders dump, and its line in expected.csv.
enum SampleRows {
    /// The App Store orders dump's header; `csvRow` writes its rows.
    static let csvHeader =
        "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,environment,created_at,consumed,"
        + "consent\n"
    static let receiptsHeader = "order_id,receipt,received_at\n"
    static let xmlHeader =
        "<?xml version=\"1.0\"?>\n<mysqldump xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n"
        + "<database name=\"shop\">\n<table_data name=\"storekit_orders\">\n"
    static let xmlFooter = "</table_data>\n</database>\n</mysqldump>\n"
    static let expectedHeader = "order_id,flagged,exempted,case\n"

    static func expectedRow(_ o: PlannedOrder) -> String {
        SpreadsheetCSV.row([
            o.orderID, o.expected.joined(separator: ";"), o.exempted.joined(separator: ";"), o.caseName,
        ])
    }

    /// The receipts dump's row of an App Store order, received a little after its credit.
    static func receiptRow(_ o: PlannedOrder, _ payload: String) -> String {
        let received = Timestamp(
            clampingMillis: o.createdAt.millis + o.receiptDelaySeconds * 1000, hasMilliseconds: false)
        return SpreadsheetCSV.row([o.orderID, payload, received.iso8601])
    }

    private static func createdText(_ o: PlannedOrder) -> String {
        o.brokenCreatedAt ? "yesterday" : o.createdAt.iso8601
    }

    private static func price(_ o: PlannedOrder) -> String {
        o.amount ?? SampleCatalog.items.first { $0.id == o.itemID }?.price ?? "0.99"
    }

    static func csvRow(_ o: PlannedOrder) -> String {
        SpreadsheetCSV.row([
            o.orderID, o.userID, o.itemID, o.statesPlatform ? "ios" : nil, o.transactionID, price(o), "USD", o.status,
            o.environment, createdText(o), o.consumed, o.consent,
        ])
    }

    /// Appends the order's `<row>` to `out` (appended in place: a row is mostly its payload,
    /// which is copied once).
    static func appendXMLRow(_ o: PlannedOrder, _ payload: String?, to out: inout String) {
        func field(_ name: String, _ value: String?) {
            out += "\t\t<field name=\""
            out += name
            guard let value else {
                out += "\" xsi:nil=\"true\" />\n"
                return
            }
            out += "\">"
            out += HTMLEscaping.escape(value)
            out += "</field>\n"
        }
        // mysqldump writes created_at as DATETIME without a zone.
        let created =
            o.brokenCreatedAt
            ? "yesterday"
            : String(decoding: o.createdAt.iso8601.utf8.dropLast().map { $0 == 0x54 ? 0x20 : $0 }, as: UTF8.self)
        out += "\t<row>\n"
        field("id", String(o.orderID.dropFirst(4)))
        field("order_no", o.orderID)
        field("uid", o.userID)
        field("sku", o.itemID)
        field("store", o.statesPlatform ? "appstore" : nil)
        field("txn_id", o.transactionID)
        field("price", price(o))
        field("currency", "USD")
        field("state", o.status)
        field("env", o.environment)
        field("credited_at", created)
        field("used", o.consumed)
        field("data_consent", o.consent)
        field("receipt_data", payload)
        out += "\t</row>\n"
    }

    static func jsonLine(_ o: PlannedOrder, _ payload: String?) -> String {
        var obj = JSONObject([
            (
                "_id",
                .object(
                    JSONObject([("$oid", .string("65e1c2f0a1b2" + String(o.orderID.filter(\.isNumber)).padding(12)))]))
            ),
            ("orderId", .string(o.orderID)), ("userId", .string(o.userID)), ("itemId", .string(o.itemID)),
        ])
        if o.statesPlatform { obj.members.append(("store", .string("googleplay"))) }
        if let t = o.transactionID { obj.members.append(("transactionId", .string(t))) }
        obj.members.append(("price", .object(JSONObject([("$numberDecimal", .string(price(o)))]))))
        obj.members.append(("currency", .string("USD")))
        obj.members.append(("status", .string(o.status)))
        if let e = o.environment { obj.members.append(("env", .string(e))) }
        if o.brokenCreatedAt {
            obj.members.append(("createdAt", .string("yesterday")))
        } else {
            obj.members.append(
                (
                    "createdAt",
                    .object(
                        JSONObject([
                            ("$date", .object(JSONObject([("$numberLong", .string(String(o.createdAt.millis)))])))
                        ]))
                ))
        }
        if let c = o.consumed { obj.members.append(("consumed", .string(c))) }
        if let c = o.consent { obj.members.append(("consent", .string(c))) }
        if let payload { obj.members.append(("payload", .string(payload))) }
        return JSONValue.object(obj).jsonText + "\n"
    }

}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? String(suffix(width)) : String(repeating: "0", count: width - count) + self
    }
}
