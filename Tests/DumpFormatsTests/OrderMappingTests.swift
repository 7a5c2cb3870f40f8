import DumpFormats
import IAPBasics
import Testing

@Suite("Reading dump rows as orders")
struct OrderMappingTests {
    private func orders(_ name: String, _ text: String) throws -> [Result<OrderRow, UnreadableRecord>] {
        try readOrders(name, text)
    }

    private func reason(_ result: Result<OrderRow, UnreadableRecord>?) -> String? {
        if case .failure(let m) = result { return m.reason }
        return nil
    }

    @Test("a complete CSV row becomes a typed order")
    func fullRow() throws {
        let text = """
            order_id,user_id,created_at,platform,item_id,product_id,transaction_id,amount,currency,status,environment,receipt
            1001,u1,2024-03-01 12:00:00+00,Apple,gems_100,com.app.gems100,2000000796570433,4.99,usd,Paid,PROD,MIIT
            """
        let order = try #require(try orders("o.csv", text).first?.get())
        #expect(order.orderID == "1001")
        #expect(order.userID == "u1")
        #expect(order.createdAt == Timestamp.parse("2024-03-01T12:00:00Z"))
        #expect(order.platform == .ios)
        #expect(order.itemID == "gems_100")
        #expect(order.productID == "com.app.gems100")
        #expect(order.transactionID == "2000000796570433")
        #expect(order.amount == "4.99")
        #expect(order.currency == "USD")
        #expect(order.status == .credited)
        #expect(order.environment == .production)
        #expect(order.receipt == "MIIT")
        #expect(order.location.position == .line(2))
    }

    @Test("field names match their aliases whatever the case, underscores, dashes or spaces")
    func aliases() throws {
        let text = """
            Order-No,uid,credited_at,store,sku,txn_id,price,Currency,state,env,receipt_data
            A-1,7,1709294400,google_play,coins,GPA.1,0.99,EUR,cancelled,Sandbox,{}
            """
        let order = try #require(try orders("a.csv", text).first?.get())
        #expect(order.orderID == "A-1")
        #expect(order.userID == "7")
        #expect(order.createdAt == Timestamp(seconds: 1_709_294_400))
        #expect(order.platform == .android)
        #expect(order.itemID == "coins")
        #expect(order.transactionID == "GPA.1")
        #expect(order.amount == "0.99")
        #expect(order.status == .failed)
        #expect(order.environment == .sandbox)
        #expect(order.receipt == "{}")
    }

    @Test("more aliases: camelCase JSON keys, payload, store_order_id, account_id, orderNumber")
    func camelCaseAliases() throws {
        let text =
            #"{"orderNumber":"9","account_id":"a","createdAt":{"$date":"2024-03-01T12:00:00.250Z"},"productId":"p","store_order_id":"GPA.2","payload":"x","userId":"ignored later alias"}"#
        let order = try #require(try orders("c.jsonl", text).first?.get())
        #expect(order.orderID == "9")
        #expect(order.userID == "a")
        #expect(order.createdAt.millis == 1_709_294_400_250)
        #expect(order.productID == "p")
        #expect(order.transactionID == "GPA.2")
        #expect(order.receipt == "x")
    }

    @Test(
        "every status spelling of the contract is understood, in any case",
        arguments: [
            ("", OrderStatus.credited), ("credited", .credited), ("PAID", .credited), ("Success", .credited),
            ("completed", .credited), ("granted", .credited), ("pending", .pending), ("Refunded", .refunded),
            ("failed", .failed), ("cancelled", .failed), ("CANCELED", .failed),
        ])
    func statuses(text: String, status: OrderStatus) throws {
        let order = try #require(
            try orders("s.csv", "order_id,user_id,created_at,sku,status\n1,u,2024-01-01 00:00:00,x,\(text)\n").first?
                .get())
        #expect(order.status == status)
    }

    @Test(
        "every platform spelling of the contract is understood",
        arguments: [
            ("ios", OrderPlatform.ios), ("Apple", .ios), ("AppStore", .ios), ("App Store", .ios),
            ("android", .android), ("GOOGLE", .android), ("GooglePlay", .android), ("play", .android),
        ])
    func platforms(text: String, platform: OrderPlatform) throws {
        let order = try #require(
            try orders("p.csv", "order_id,user_id,created_at,sku,platform\n1,u,2024-01-01 00:00:00,x,\(text)\n").first?
                .get())
        #expect(order.platform == platform)
    }

    @Test("absent optional fields are nil and the status defaults to credited")
    func defaults() throws {
        let order = try #require(
            try orders("d.csv", "order_id,user_id,created_at,product_id,platform,env\n1,u,2024-01-01 00:00:00,p,,\n")
                .first?.get())
        #expect(order.platform == nil)
        #expect(order.environment == nil)
        #expect(order.status == .credited)
        #expect(order.amount == nil)
        #expect(order.receipt == nil)
    }

    @Test(
        "a row that cannot be an order is malformed, and the reason names the field and value",
        arguments: [
            ("order_id,user_id,created_at,sku\n,u,2024-01-01 00:00:00,x\n", "missing order_id"),
            ("order_id,user_id,created_at,sku\n1,,2024-01-01 00:00:00,x\n", "missing user_id"),
            ("order_id,user_id,sku\n1,u,x\n", "missing created_at"),
            ("order_id,user_id,created_at,sku\n1,u,yesterday,x\n", #"created_at "yesterday" is not a timestamp"#),
            (
                "order_id,user_id,created_at,sku,status\n1,u,2024-01-01 00:00:00,x,weird\n",
                #"status "weird" is not credited, pending, refunded or failed"#
            ),
            (
                "order_id,user_id,created_at,sku,platform\n1,u,2024-01-01 00:00:00,x,windows\n",
                #"platform "windows" is not ios or android"#
            ),
            (
                "order_id,user_id,created_at,sku,environment\n1,u,2024-01-01 00:00:00,x,staging\n",
                #"environment "staging" is not production or sandbox"#
            ),
            (
                "order_id,user_id,created_at,sku,amount\n1,u,2024-01-01 00:00:00,x,\"4,99\"\n",
                #"amount "4,99" is not a decimal number"#
            ),
            (
                "order_id,user_id,created_at,sku,currency\n1,u,2024-01-01 00:00:00,x,US Dollar\n",
                #"currency "US Dollar" is not a three-letter code"#
            ),
        ])
    func malformed(text: String, expected: String) throws {
        let result = try orders("m.csv", text).first
        #expect(reason(result) == expected)
        if case .failure(let m) = result { #expect(m.location.position == .line(2)) }
    }

    @Test("an order that names neither item nor product is still an order: its receipt decides what it is")
    func orderWithoutProduct() throws {
        let order = try #require(
            try orders("n.csv", "order_id,user_id,created_at\n1,u,2024-01-01 00:00:00\n").first?.get())
        #expect(order.itemID == nil)
        #expect(order.productID == nil)
    }

    @Test("a malformed record keeps its place among good ones")
    func malformedInSequence() throws {
        let text =
            "order_id,user_id,created_at,sku,status\n1,u,2024-01-01 00:00:00,x,paid\n2,u,2024-01-01 00:00:00,x,lost\n3,u,2024-01-01 00:00:00,x,\n"
        let results = try orders("seq.csv", text)
        #expect(results.count == 3)
        #expect((try? results[0].get())?.orderID == "1")
        #expect(reason(results[1]) == #"status "lost" is not credited, pending, refunded or failed"#)
        #expect((try? results[2].get())?.orderID == "3")
    }

    @Test("a value in a reason is cut short and escaped")
    func longValueInReason() throws {
        let junk = String(repeating: "x", count: 100) + "\u{1}"
        let text = "order_id,user_id,created_at,sku\n1,u,\(junk),x\n"
        let r = try #require(reason(try orders("j.csv", text).first))
        #expect(r == "created_at \"\(String(repeating: "x", count: 40))…\" is not a timestamp")
    }

    @Test("an XML dump maps like the others, with its row as location")
    func xmlOrders() throws {
        let text = """
            <mysqldump xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><database name="shop"><table_data name="orders">
            <row><field name="order_id">1</field><field name="user_id">u</field><field name="created_at">2024-03-01 12:00:00</field>
            <field name="item_id">gems</field><field name="status" xsi:nil="true"/></row>
            </table_data></database></mysqldump>
            """
        let order = try #require(try orders("x.xml", text).first?.get())
        #expect(order.status == .credited)
        #expect(order.location.position == .row(1))
    }
}

@Suite("Reading dump rows as receipts")
struct ReceiptMappingTests {
    private func receipts(_ name: String, _ text: String) throws -> [Result<ReceiptRow, UnreadableRecord>] {
        let files = try DumpFixtures()
        let reader = try DumpReader(path: try files.write(name, text))
        var out: [Result<ReceiptRow, UnreadableRecord>] = []
        while let next = try reader.nextReceipt() { out.append(next) }
        return out
    }

    @Test("a receipts dump row carries the order id, the payload and when it was received")
    func receiptRows() throws {
        let text = "order_id,payload,received_at\n1,MIIT,2024-03-01T12:00:05Z\n2,eyJ,\n"
        let rows = try receipts("r.csv", text).map { try $0.get() }
        #expect(rows.map(\.orderID) == ["1", "2"])
        #expect(rows.map(\.receipt) == ["MIIT", "eyJ"])
        #expect(rows[0].receivedAt == Timestamp.parse("2024-03-01T12:00:05Z"))
        #expect(rows[1].receivedAt == nil)
    }

    @Test("a receipts row without a receipt or with an unreadable time is malformed")
    func badReceiptRows() throws {
        let text = "order_id,receipt,received_at\n1,,\n2,x,soon\n,x,\n"
        let reasons = try receipts("b.csv", text).map { result -> String? in
            if case .failure(let m) = result { return m.reason }
            return nil
        }
        #expect(reasons == ["missing receipt", #"received_at "soon" is not a timestamp"#, "missing order_id"])
    }
}
