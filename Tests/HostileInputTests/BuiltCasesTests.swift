import Decompression
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import ReceiptFormats
import ReceiptVerification
import Screening
import StoreEvents
import Testing

/// Hostile cases too big to commit: built here, each read within its caps.
@Suite("Hostile input built at test time")
struct BuiltCasesTests {
    static let million = 1_000_000

    // MARK: nesting 10⁶ deep

    @Test("JSON nested 10⁶ deep stops at the depth cap")
    func jsonDeep() {
        let arrays = [UInt8](repeating: UInt8(ascii: "["), count: Self.million)
        #expect(outcome { () throws(DecodeError) in try JSONParser.parse(arrays) } == "too-deep")
        let objects = Array(String(repeating: "{\"a\":", count: Self.million).utf8)
        // 5 MB of text: the payload cap or the depth cap, whichever the parser meets first.
        let code = outcome { () throws(DecodeError) in try JSONParser.parse(objects) }
        #expect(code == "too-deep" || code == "too-large", "\(code)")
        var roomy = Limits()
        roomy.maxPayloadBytes = 8 << 20
        #expect(outcome { () throws(DecodeError) in try JSONParser.parse(objects, limits: roomy) } == "too-deep")
    }

    @Test("DER nested 10⁶ deep, raw and base64, stops at the depth cap")
    func derDeep() {
        var der = [UInt8]()
        der.reserveCapacity(2 * Self.million)
        for _ in 0..<Self.million { der += [0x30, 0x80] }
        #expect(outcome { () throws(DecodeError) in try ReceiptDecoder.decode(der) } == "too-deep")
        #expect(outcome { () throws(DecodeError) in try PKCS7.parse(der) } == "too-deep")
        let text = Array(Base64.encode(der).utf8)
        #expect(outcome { () throws(DecodeError) in try ReceiptDecoder.decode(text) } == "too-deep")
    }

    @Test("an old-style plist nested 10⁶ deep stops at the depth cap")
    func plistDeep() {
        let arrays = [UInt8](repeating: UInt8(ascii: "("), count: Self.million)
        #expect(outcome { () throws(DecodeError) in try OldStylePlist.parse(arrays) } == "too-deep")
        let dicts = Array(String(repeating: "{\"a\"=", count: Self.million / 4).utf8)
        #expect(outcome { () throws(DecodeError) in try OldStylePlist.parse(dicts) } == "too-deep")
    }

    @Test("a JSON Lines record nested 10⁶ deep is malformed and reading goes on")
    func jsonLinesDeep() throws {
        let scratch = try ScratchDirectory()
        let line =
            "{\"orderId\":\"ORD-1\",\"userId\":\"u\",\"itemId\":\"gems_100\",\"store\":\"googleplay\",\"price\":\"0.99\",\"currency\":\"USD\",\"status\":\"credited\",\"createdAt\":\"2024-03-01T00:00:00Z\"}\n"
        let bytes =
            Array("{\"a\":".utf8) + [UInt8](repeating: UInt8(ascii: "["), count: Self.million) + [0x0A]
            + Array(line.utf8)
        let result = readDump(try scratch.write("deep.jsonl", bytes))
        #expect(result.errorCode == nil)
        #expect(result.malformed.count == 1)
        #expect(result.records == 1)
    }

    @Test("XML nested 10⁶ deep is refused, not followed")
    func xmlDeep() throws {
        let scratch = try ScratchDirectory()
        let open = String(repeating: "<a>", count: Self.million)
        let text = "<?xml version=\"1.0\"?>\n<mysqldump><database name=\"s\"><table_data name=\"t\"><row>\(open)"
        let result = readDump(try scratch.write("deep.xml", Array(text.utf8)))
        #expect(result.errorCode != nil || !result.malformed.isEmpty, "\(result)")
    }

    // MARK: huge counts

    @Test("10⁶ elements in one JSON array or object stop at the element cap")
    func jsonHugeCounts() {
        var array = [UInt8(ascii: "[")]
        array.reserveCapacity(2 * Self.million + 2)
        for _ in 0..<Self.million { array += [UInt8(ascii: "0"), UInt8(ascii: ",")] }
        array[array.count - 1] = UInt8(ascii: "]")
        #expect(outcome { () throws(DecodeError) in try JSONParser.parse(array) } == "too-many")
        let members = "{" + (0..<200_000).map { "\"k\($0)\":0" }.joined(separator: ",") + "}"
        #expect(outcome { () throws(DecodeError) in try JSONParser.parse(Array(members.utf8)) } == "too-many")
    }

    @Test("a verifyReceipt JSON with more purchases than the cap is refused")
    func tooManyPurchases() {
        let purchase =
            "{\"product_id\":\"p\",\"transaction_id\":\"1\",\"purchase_date_ms\":\"1709297880000\",\"quantity\":\"1\"}"
        let json =
            "{\"status\":0,\"environment\":\"Production\",\"receipt\":{\"bundle_id\":\"com.example.game\",\"in_app\":["
            + Array(repeating: purchase, count: 10_001).joined(separator: ",") + "]}}"
        let code = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(Array(json.utf8)) }
        #expect(code == "too-many-purchases")
    }

    @Test("a CSV row of 10⁵ fields and a 2 MB record are malformed; the next row still reads")
    func csvHugeRecords() throws {
        let scratch = try ScratchDirectory()
        let header = "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,environment,created_at\n"
        let good = "ORD-1,user-1,gems_100,ios,,0.99,USD,credited,,2024-03-01T12:47:28Z\n"
        let wide = "ORD-2" + String(repeating: ",x", count: 100_000) + "\n"
        var limits = Limits()
        limits.maxRecordBytes = 1 << 20
        let long =
            "ORD-3,\"" + String(repeating: "u", count: 2 << 20)
            + "\",gems_100,ios,,0.99,USD,credited,,2024-03-01T12:47:28Z\n"
        let result = readDump(try scratch.write("huge.csv", Array((header + wide + long + good).utf8)), limits: limits)
        #expect(result.errorCode == nil, "\(result)")
        #expect(result.malformed.count == 2, "\(result)")
        #expect(result.records == 1, "\(result)")
    }

    @Test("an unclosed quote does not swallow a 4 MB file into one record")
    func csvUnclosedQuote() throws {
        let scratch = try ScratchDirectory()
        let header = "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,environment,created_at\n"
        let rows = String(
            repeating: "ORD-1,user-1,gems_100,ios,,0.99,USD,credited,,2024-03-01T12:47:28Z\n", count: 60_000)
        var limits = Limits()
        limits.maxRecordBytes = 64 << 10
        let result = readDump(
            try scratch.write("quote.csv", Array((header + "ORD-0,\"user-0\n" + rows).utf8)), limits: limits)
        #expect(result.errorCode == nil, "\(result)")
        #expect(!result.malformed.isEmpty, "\(result)")
    }

    // MARK: gzip bombs

    /// `count` bytes of `byte`, gzipped in 1 MB steps (the whole never sits in memory).
    func bomb(_ count: Int, of byte: UInt8 = 0x0A, members: Int = 1, header: String = "order_id,user_id\n") throws
        -> [UInt8]
    {
        var out = [UInt8]()
        let chunk = [UInt8](repeating: byte, count: 1 << 20)
        for m in 0..<members {
            let encoder = try #require(GzipEncoder(level: 9))
            if m == 0 { encoder.append(Array(header.utf8), to: &out) }
            var left = count / members
            while left > 0 {
                let n = min(left, chunk.count)
                chunk.withUnsafeBytes { encoder.append(UnsafeRawBufferPointer(rebasing: $0[..<n]), to: &out) }
                left -= n
            }
            encoder.finish(to: &out)
        }
        return out
    }

    @Test("a gzip bomb past the size cap stops at the cap")
    func gzipSizeBomb() throws {
        let scratch = try ScratchDirectory()
        var limits = Limits()
        limits.maxDecompressedBytes = 8 << 20
        limits.maxCompressionRatio = Int64.max
        let path = try scratch.write("size-bomb.csv.gz", try bomb(64 << 20))
        let result = readDump(path, limits: limits)
        #expect(result.errorCode == "decompression-limit", "\(result)")
    }

    @Test("a gzip bomb past the ratio cap stops once past the grace size, also spread over members")
    func gzipRatioBomb() throws {
        let scratch = try ScratchDirectory()
        var limits = Limits()
        limits.ratioGraceBytes = 1 << 20
        limits.maxCompressionRatio = 100
        let one = readDump(try scratch.write("ratio.csv.gz", try bomb(32 << 20)), limits: limits)
        #expect(one.errorCode == "decompression-limit", "\(one)")
        let many = readDump(try scratch.write("ratio-members.csv.gz", try bomb(32 << 20, members: 64)), limits: limits)
        #expect(many.errorCode == "decompression-limit", "\(many)")
    }

    @Test("standard limits stop a 40 MB run of one byte (ratio above 1000:1) past the 16 MB grace")
    func gzipStandardRatio() throws {
        let scratch = try ScratchDirectory()
        let result = readDump(try scratch.write("standard.csv.gz", try bomb(40 << 20)))
        #expect(result.errorCode == "decompression-limit", "\(result)")
    }

    @Test("10⁵ empty gzip members are read through in bounded time")
    func gzipManyMembers() throws {
        let scratch = try ScratchDirectory()
        let empty = try #require(GzipEncoder.compress([]))
        var bytes = try #require(GzipEncoder.compress(Array("order_id,user_id\n".utf8)))
        for _ in 0..<100_000 { bytes += empty }
        bytes += try #require(GzipEncoder.compress(Array("ORD-1,user-1\n".utf8)))
        let result = readDump(try scratch.write("members.csv.gz", bytes))
        #expect(result.errorCode == nil, "\(result)")
        #expect(result.records + result.malformed.count == 1, "\(result)")
    }

    // MARK: XML entities

    @Test("an XML external entity never brings a file's content into a record")
    func xmlExternalEntity() throws {
        let scratch = try ScratchDirectory()
        let secret = try scratch.write("secret.txt", Array("TOP-SECRET-42".utf8))
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE d [<!ENTITY xxe SYSTEM "file://\(secret)">]>
            <mysqldump><database name="s"><table_data name="t"><row><field name="order_id">&xxe;</field></row></table_data></database></mysqldump>
            """
        let path = try scratch.write("xxe.xml", Array(xml.utf8))
        var seen: [String] = []
        do {
            let reader = try DumpReader(path: path)
            while let item = try reader.next() {
                if case .record(let r) = item { seen += r.fields.map { "\($0.value)" } }
                if case .malformed(let m) = item { seen.append(m.reason) }
            }
        } catch {
            seen.append(error.reason)
        }
        #expect(!seen.contains { $0.contains("TOP-SECRET") }, "\(seen)")
        #expect(readDump(path).errorCode != nil)
    }

    // MARK: truncations and flipped bytes

    @Test("every truncation of the sample app receipt is an error, never a receipt")
    func derTruncations() throws {
        let der = try Base64.decode(try #require(sampleReceipts().first))
        for n in 0..<der.count {
            let code = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(Array(der[..<n])) }
            #expect(code != "ok", "prefix of \(n) bytes decoded")
            if code == "ok" { break }
        }
    }

    @Test("truncations of every sample payload decode or throw, never crash")
    func sampleTruncations() throws {
        for sample in try sampleReceipts() {
            let step = max(1, sample.count / 300)
            for n in stride(from: 0, to: sample.count, by: step) {
                _ = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(Array(sample[..<n])) }
            }
        }
    }

    /// What screening believes of a receipt, less the claims in `ignoring` (those no
    /// signature covers, tested on their own below). If a tampered copy still verifies, none
    /// of it may change (bytes outside the signature's cover, such as a wrapper's unsigned
    /// fields or a carried copy of a root we do not use, may change freely).
    static func claims(_ r: Receipt, ignoring: Set<String> = []) -> String {
        func keep(_ name: String, _ value: String?) -> String { ignoring.contains(name) ? "*" : value ?? "-" }
        let purchases = r.purchases.map { p in
            [
                keep("product", p.productID), keep("transaction", p.transactionID),
                keep("original-transaction", p.originalTransactionID),
                keep("purchased", p.purchaseDate.map { "\($0.millis)" }),
                keep("expires", p.expiresDate.map { "\($0.millis)" }),
                keep("cancelled", p.cancellationDate.map { "\($0.millis)" }),
                keep("quantity", String(p.quantity)), keep("token", p.purchaseToken),
            ].joined(separator: "|")
        }
        return
            ([
                keep("app", r.appID), keep("environment", r.environment),
                keep("created", r.creationDate.map { "\($0.millis)" }),
            ]
            + purchases).joined(separator: "\n")
    }

    /// Claims no signature covers, by the format's design: an iOS 6 receipt's environment,
    /// which screening never believes (`Receipt.environmentIsSigned`; tested below).
    static func unsignedClaims(_ r: Receipt) -> Set<String> {
        r.environmentIsSigned ? [] : ["environment"]
    }

    /// A tampered copy may claim less than the original (a JSON may leave purchases out),
    /// never something else.
    static func claimsNothingNew(_ tampered: Receipt, comparedWith original: Receipt) -> Bool {
        let unsigned = unsignedClaims(original)
        let head = { (r: Receipt) in claims(Receipt.withPurchases(r, []), ignoring: unsigned) }
        let before = Set(original.purchases.map { claims(Receipt.withPurchases(original, [$0]), ignoring: unsigned) })
        return head(tampered) == head(original)
            && tampered.purchases.allSatisfy {
                before.contains(claims(Receipt.withPurchases(tampered, [$0]), ignoring: unsigned))
            }
    }

    @Test("a flipped byte in a sample receipt that verifies never changes what it claims and still verifies")
    func flippedBytes() throws {
        let verifier = try #require(sampleVerifier)
        var checked = 0
        for sample in try sampleReceipts() {
            let bytes = (try? Base64.decode(sample)).flatMap { $0.first == 0x30 ? $0 : nil } ?? sample
            guard let receipt = try? ReceiptDecoder.decode(bytes), verifier.verify(receipt).status.verdict == .valid
            else { continue }
            checked += 1
            let original = Self.claims(receipt)
            let step = max(1, bytes.count / 200)
            for i in stride(from: 0, to: bytes.count, by: step) {
                var tampered = bytes
                tampered[i] ^= 0x01
                guard let r = try? ReceiptDecoder.decode(tampered), verifier.verify(r).status.verdict == .valid else {
                    continue
                }
                #expect(
                    Self.claimsNothingNew(r, comparedWith: receipt),
                    "byte \(i) of a \(receipt.kind) flipped: it verifies and now claims \(Self.claims(r)) instead of \(original)"
                )
            }
        }
        #expect(checked > 0, "no sample verifies against the sample trust")
    }

    // MARK: forged verifyReceipt JSON

    struct Forgery: Sendable, CustomTestStringConvertible {
        let what: String
        let from: String
        let to: String
        var testDescription: String { what }
    }

    static let forgeries = [
        Forgery(
            what: "an extended expiry", from: "\"expires_date_ms\":\"1711843200000\"",
            to: "\"expires_date_ms\":\"1893456000000\""),
        Forgery(
            what: "another product", from: "\"product_id\":\"com.example.game.vip.monthly\"",
            to: "\"product_id\":\"com.example.game.vip.yearly\""),
        Forgery(what: "a quantity of 50", from: "\"quantity\":\"1\"", to: "\"quantity\":\"50\""),
        Forgery(
            what: "another original transaction", from: "\"original_transaction_id\":\"160000123456790\"",
            to: "\"original_transaction_id\":\"160000999999999\""),
        // The JSON says Sandbox where its signed receipt says Production (and the reverse, a
        // free Sandbox receipt claimed as Production, the same way).
        Forgery(what: "another environment", from: "\"environment\":\"Production\"", to: "\"environment\":\"Sandbox\""),
    ]

    @Test(
        "an iOS 6 Sandbox receipt stripped of its unsigned environment key still verifies, and is sandbox-in-production when credited in production"
    )
    func legacyEnvironmentStripped() throws {
        let verifier = try #require(sampleVerifier)
        let sample = try #require(try sampleReceipts().first { (try? Base64.decode($0))?.first == UInt8(ascii: "{") })
        let plist = String(decoding: try Base64.decode(sample), as: UTF8.self)
        let line = try #require(
            plist.split(separator: "\n").first { $0.contains("\"environment\"") }, "no environment key")
        let stripped = Array(Base64.encode(Array(plist.replacingOccurrences(of: String(line), with: "").utf8)).utf8)
        let original = try ReceiptDecoder.decode(sample)
        try #require(original.environment == "Sandbox")
        try #require(verifier.verify(original).status.verdict == .valid)
        let forged = try ReceiptDecoder.decode(stripped)
        // The signature covers purchase-info only: the stripped copy verifies, and says nothing.
        #expect(verifier.verify(forged).status.verdict == .valid)
        #expect(forged.environment == nil)
        #expect(!forged.environmentIsSigned)

        // Credited in production, both are sandbox-in-production; only the unsigned word,
        // accepted by the Rules, would let the stripped one pass.
        func sandboxFindings(_ receipt: Receipt, rules: String = "") throws -> [Finding] {
            let scratch = try ScratchDirectory()
            let evaluator = RuleEvaluator(rules: try loadRules(Array(rules.utf8), in: scratch).get())
            let purchase = try #require(receipt.purchases.first)
            let bought = try #require(purchase.purchaseDate)
            let product = try #require(purchase.productID)
            let order = ScreenOrder(
                index: 0, orderID: "ORD-1", userID: "user-1", createdAt: bought, platform: .ios,
                itemID: nil, expectedProductID: product, catalogType: nil,
                transactionID: nil, amount: "0.99", currency: "USD", production: true,
                location: SourceLocation(file: "orders.csv", line: 2))
            let digest = ReceiptDigest(receipt: receipt, signature: verifier.verify(receipt).status, for: order)
            return evaluator.findings(order: order, receipt: .decoded(digest), selection: .picked(0))
                .filter { $0.rule == "sandbox-in-production" }
        }
        let strippedFinding = try #require(try sandboxFindings(forged).first)
        #expect(strippedFinding.message.contains("the iOS 6 environment is not signed"))
        #expect(strippedFinding.evidence.expected == "a signed Production environment")
        #expect(strippedFinding.evidence.actual == "absent (unsigned)")
        #expect(try sandboxFindings(original).first?.evidence.actual == "Sandbox")
        #expect(try sandboxFindings(forged, rules: "rule sandbox-in-production trust_legacy_environment yes").isEmpty)
        #expect(
            try sandboxFindings(original, rules: "rule sandbox-in-production trust_legacy_environment yes").count == 1)
    }

    @Test("a verifyReceipt JSON edited against its own signed latest_receipt is forged", arguments: forgeries)
    func forgedVerifyReceipt(_ forgery: Forgery) throws {
        let verifier = try #require(sampleVerifier)
        let genuine = try #require(try sampleReceipts().first { $0.starts(with: Array("{\"receipt\"".utf8)) })
        let text = String(decoding: genuine, as: UTF8.self)
        try #require(text.contains(forgery.from), "the sample has no \(forgery.from)")
        let original = try ReceiptDecoder.decode(genuine)
        try #require(verifier.verify(original).status.verdict == .valid, "the genuine sample does not verify")
        let forged = try ReceiptDecoder.decode(
            Array(text.replacingOccurrences(of: forgery.from, with: forgery.to).utf8))
        try #require(Self.claims(forged) != Self.claims(original))
        let verdict = verifier.verify(forged)
        #expect(verdict.status.verdict != .valid, "\(forgery.what) verifies: \(verdict)")
        #expect(verdict.forgery != nil)
    }

    // MARK: money

    @Test("a 19-digit amount is refused, not a trap")
    func decimalAmountOverflow() {
        #expect(DecimalAmount("9999999999999.999999") == nil)
        #expect(DecimalAmount("-999999999999999.999999") == nil)
    }

    @Test("summing and printing large amounts does not trap")
    func decimalAmountSum() throws {
        let big = try #require(DecimalAmount("999999999999.999999"))
        var total = big
        for _ in 0..<100 { total = total + big }
        #expect(total.description == "overflow")
    }

    // MARK: numbers and times

    @Test("timestamps from numbers out of range are nil, never a trap")
    func timestampNumbers() {
        // Epoch numbers: seconds below 10¹¹ in magnitude, milliseconds from there on.
        for n: Int64 in [.max, .min, Timestamp.maxMillis + 1, Timestamp.minMillis - 1, 99_999_999_999_999_999] {
            #expect(Timestamp.fromEpochNumber(n) == nil, "\(n)")
        }
        #expect(Timestamp(seconds: .max) == nil)
        #expect(Timestamp(millis: .min) == nil)
        let t = Timestamp(clampingMillis: .max)
        #expect(t.adding(days: .max) == nil)
        #expect(t.adding(days: 1) == nil)
        #expect(Timestamp(clampingMillis: .min).adding(days: -1) == nil)
        #expect(Timestamp.parse(String(repeating: "9", count: 10_000)) == nil)
        #expect(Timestamp.parse("-" + String(repeating: "9", count: 10_000)) == nil)
    }

    @Test("JSON integers that overflow keep their text and read as no Int64")
    func jsonIntegerOverflow() throws {
        let value = try JSONParser.parse(
            Array("[9223372036854775808,-9223372036854775809,1e400,99999999999999999999999]".utf8))
        for element in try #require(value.array) { #expect(element.int64 == nil, "\(element)") }
    }

    // MARK: base64 cap

    @Test("base64 decoding never returns more bytes than its cap")
    func base64Cap() {
        // A fuzz finding: a short last group once went up to 2 bytes past the cap.
        for (text, cap) in [("t11", 1), ("QUJDRA", 3), ("QUJDREU", 4)] {
            let code = outcome { () throws(DecodeError) in try Base64.decode(text, maxBytes: cap) }
            #expect(code == "too-large", "\(text) with a cap of \(cap) bytes")
        }
    }

    // MARK: rules

    @Test("a condition of 10⁵ `not`s is a problem, not a stack overflow")
    func rulesNotChain() throws {
        let scratch = try ScratchDirectory()
        let text = "flag high nots if " + String(repeating: "not ", count: 100_000) + "order.amount > 1\n"
        let loaded = try loadRules(Array(text.utf8), in: scratch)
        guard case .failure(let problems) = loaded else {
            Issue.record("10⁵ nested `not`s were accepted")
            return
        }
        #expect(!problems.list.isEmpty)
    }

    @Test("a condition of 2·10⁵ `and`s is a problem, not a stack overflow")
    func rulesAndChain() throws {
        let scratch = try ScratchDirectory()
        let text =
            "flag high ands if " + String(repeating: "order.amount > 1 and ", count: 200_000) + "order.amount > 1\n"
        let loaded = try loadRules(Array(text.utf8), in: scratch)
        guard case .failure(let problems) = loaded else {
            Issue.record("a 2·10⁵-term condition was accepted")
            return
        }
        #expect(!problems.list.isEmpty)
    }

    // MARK: store events

    /// A JWS signed by no one: header, payload and a zero signature, base64url.
    func unsignedJWS(_ payload: String) -> String {
        let segment = { (text: String) in Base64.encode(Array(text.utf8), alphabet: .url) }
        return segment(#"{"alg":"ES256","x5c":[]}"#) + "." + segment(payload) + "."
            + Base64.encode([UInt8](repeating: 0, count: 64), alphabet: .url)
    }

    @Test(
        "a 1 MB orderId, purchaseToken or transactionId within the record cap is kept whole in every shape that carries it"
    )
    func storeEventHugeIDs() throws {
        let scratch = try ScratchDirectory()
        let order = "GPA." + String(repeating: "7", count: 1 << 20)
        let token = String(repeating: "t", count: 1 << 20)
        let voided = #"{"purchaseToken":"tok","orderId":"\#(order)","voidedTimeMillis":"1709553600000"}"#
        let byToken = #"{"purchaseToken":"\#(token)","voidedTimeMillis":"1709553600000"}"#
        let rtdn =
            #"{"packageName":"com.example.game","eventTimeMillis":"1709553600000","voidedPurchaseNotification":{"purchaseToken":"tok","orderId":"\#(order)"}}"#
        let push = #"{"message":{"data":"\#(Base64.encode(Array(rtdn.utf8)))","messageId":"1"}}"#
        let txn = "2" + String(repeating: "0", count: 1 << 20)
        let transaction = unsignedJWS(
            #"{"transactionId":"\#(txn)","originalTransactionId":"1","bundleId":"com.example.game","productId":"gems_550","purchaseDate":1709294400000,"type":"Consumable","signedDate":1709553600000,"revocationDate":1709553600000,"environment":"Production"}"#
        )
        let notification = unsignedJWS(
            #"{"notificationType":"REFUND","notificationUUID":"u-1","data":{"bundleId":"com.example.game","environment":"Production","signedTransactionInfo":"\#(transaction)"},"version":"2.0","signedDate":1709553600000}"#
        )
        let noEvent = #"{"\#(token)":1}"#
        let lines = [
            voided, #"{"voidedPurchases":[\#(voided),\#(byToken)]}"#, rtdn, push, notification,
            #"{"signedPayload":"\#(notification)"}"#, noEvent, voided,
        ]
        let path = try scratch.write("huge-ids.jsonl", Array(lines.joined(separator: "\n").utf8))
        let file = try StoreEventFile(.path(path, observer: nil))
        var events: [StoreEvent] = []
        var problems: [UnreadableRecord] = []
        while let parsed = try file.next() {
            events += parsed.events
            problems += parsed.problems
        }
        #expect(
            events.map(\.type) == [
                "voided", "voided", "voided", "rtdn-voided", "rtdn-voided", "REFUND", "REFUND", "voided",
            ])
        #expect(
            events.map { $0.transactionID?.utf8.count ?? $0.purchaseToken?.utf8.count ?? 0 }
                == [order, order, token, order, order, txn, txn, order].map(\.utf8.count))
        #expect(problems.map(\.location.position) == [.line(7)])
        #expect(problems.first?.reason.hasPrefix("a JSON object that is no store event") == true)
    }

    @Test("a store-event line or document nested 10⁶ deep is a problem at its line, and the next line still reads")
    func storeEventDeep() throws {
        let scratch = try ScratchDirectory()
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: Self.million)
        let voided = Array(#"{"purchaseToken":"tok","orderId":"GPA.1","voidedTimeMillis":"1709553600000"}"#.utf8)
        let payloads = Array(String(repeating: #"{"payload":"#, count: 100_000).utf8)
        let lines = Array(#"{"voidedPurchases":"#.utf8) + deep + [0x0A] + payloads + [0x0A] + voided + [0x0A]
        let document = Array("{\n  \"voidedPurchases\": [\n".utf8) + deep
        // The document is no JSON value (too deep), so it reads as lines: `{`, a key, the deep array.
        for (name, bytes, at, events) in [
            ("deep.jsonl", lines, ["1", "2"], 1), ("deep.json", document, ["1", "2", "3"], 0),
        ] {
            let result = readStoreEvents(try scratch.write(name, bytes))
            #expect(result.problems.map { String($0.prefix { $0 != ":" }) } == at, "\(name): \(result)")
            #expect(
                result.problems.last?.contains("not JSON: JSON nesting deeper than 64") == true, "\(name): \(result)")
            #expect(result.events == events, "\(name): \(result)")
        }
    }
}
