import Decompression
import Dispatch
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Reporting

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the demo world: three orders dumps (CSV, mysqldump XML, mongoexport JSON Lines,
/// all gzipped), a receipts dump, a complete Rules directory whose trust anchors verify
/// every receipt, `expected.csv`, which says what screening must flag, the stores'
/// reports with `expected-reconciliation.csv` (see `SampleStoreSide`), and the store-event
/// log with `expected-store-events.json` (see `SampleStoreEvents`).
public struct SampleWriter {
    let directory: String
    let pki: TestPKI
    let jobs: Int

    public init(directory: String, pki: TestPKI, jobs: Int) {
        self.directory = directory
        self.pki = pki
        self.jobs = jobs
    }

    public struct Counts {
        public var orders = 0
        public var planted = 0
        public var plantedReconciliation = 0
        /// What the store-event log holds.
        public var events = SampleStoreEvents.Tally()
    }

    public func write(orders total: Int, seed: UInt64, start: Timestamp) throws -> Counts {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try writeRules(start: start)
        let appstore = try GzipFile(path(SampleFiles.appStoreOrders))
        let storekit = try GzipFile(path(SampleFiles.storeKitOrders))
        let play = try GzipFile(path(SampleFiles.playOrders))
        let receipts = try GzipFile(path(SampleFiles.receipts))
        try appstore.write(
            "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,environment,created_at,consumed,"
                + "consent\n")
        try receipts.write("order_id,receipt,received_at\n")
        try storekit.write(
            "<?xml version=\"1.0\"?>\n<mysqldump xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n<database name=\"shop\">\n<table_data name=\"storekit_orders\">\n"
        )
        var expected = "order_id,flagged,exempted,case\n"

        var planner = SamplePlanner(seed: seed, start: start)
        var stores = SampleStoreSide(seed: seed)
        var events = try SampleStoreEvents(directory: directory, pki: pki, seed: seed, start: start)
        var counts = Counts()
        while counts.orders < total {
            // Plan a batch serially (the seed decides everything), sign it on every core.
            var batch: [PlannedOrder] = []
            var groupStart: [Int] = []
            while batch.count < 512, counts.orders + batch.count < total {
                let group = planner.nextGroup()
                for _ in group { groupStart.append(batch.count) }
                batch += group
            }
            let payloads = try sign(batch, groupStart: groupStart)
            for (i, planned) in batch.enumerated() {
                var o = planned
                if o.caseName != "clean" { counts.planted += 1 }
                let twisted = stores.add(o)
                o.consent = SampleRefundRequests.consent(ofUser: o.userID)
                if SampleCatalog.items.first(where: { $0.id == o.itemID })?.type == .consumable {
                    o.consumed = SampleRefundRequests.consumed(ofOrder: o.orderID)
                }
                // After the stores' side, which draws on the case as planned: an event may change it.
                try events.add(&o, storeTwisted: twisted)
                expected += SpreadsheetCSV.row([
                    o.orderID, o.expected.joined(separator: ";"), o.exempted.joined(separator: ";"), o.caseName,
                ])
                let payload = payloads[i]
                for _ in 0..<(o.duplicated ? 2 : 1) {
                    switch o.store {
                    case .appReceipt:
                        if o.status != "orphan" { try appstore.write(csvRow(o)) }
                        if let payload {
                            let received = Timestamp(
                                clampingMillis: o.createdAt.millis + o.receiptDelaySeconds * 1000,
                                hasMilliseconds: false)
                            try receipts.write(SpreadsheetCSV.row([o.orderID, payload, received.iso8601]))
                        }
                    case .jws: try storekit.write(xmlRow(o, payload))
                    case .google: try play.write(jsonLine(o, payload))
                    }
                }
            }
            counts.orders += batch.count
        }
        try storekit.write("</table_data>\n</database>\n</mysqldump>\n")
        for f in [appstore, storekit, play, receipts] { try f.close() }
        try Data(expected.utf8).write(to: URL(fileURLWithPath: path(SampleFiles.expected)))
        try stores.write(into: directory)
        counts.plantedReconciliation = stores.planted
        counts.events = try events.finish(into: directory)
        try Data(try SampleExamples.text(pki: pki, at: start).utf8).write(
            to: URL(fileURLWithPath: path(SampleFiles.examples)))
        return counts
    }

    private func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    // MARK: Signing

    private func sign(_ batch: [PlannedOrder], groupStart: [Int]) throws -> [String?] {
        final class Box: @unchecked Sendable {
            // Each index written by one worker; read after all have finished.
            var items: UnsafeMutableBufferPointer<Result<String?, Error>>
            init(_ n: Int) {
                items = .allocate(capacity: n)
                items.initialize(repeating: .success(nil))
            }
            deinit {
                items.deinitialize()
                items.deallocate()
            }
        }
        let box = Box(batch.count)
        let pki = self.pki
        let proofs = batch.map(\.proof)
        let workers = max(1, min(jobs, batch.count))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var i = w
            while i < proofs.count {
                box.items[i] = Result { try SampleWriter.payload(proofs[i], pki: pki) }
                i += workers
            }
        }
        var out: [String?] = []
        for i in batch.indices {
            if case .sameAs(let k) = batch[i].proof {
                out.append(out[groupStart[i] + k])
            } else {
                out.append(try box.items[i].get())
            }
        }
        return out
    }

    static func payload(_ proof: PlannedOrder.Proof, pki: TestPKI) throws -> String? {
        switch proof {
        case .none, .sameAs: return nil
        case .garbage(let text): return text
        case .app(let spec): return Base64.encode(try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner))
        case .jws(let tx): return try JWSBuilder.transaction(tx, with: pki.jwsSigner)
        case .google(let data, let wrapper):
            return try GooglePurchaseBuilder.payload(data, with: pki.googleSigner, wrapper: wrapper)
        case .xcode(let spec): return Base64.encode(try AppReceiptBuilder.build(spec, signedBy: pki.xcodeReceiptSigner))
        case .tampered(let spec):
            var der = try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)
            // The app version's last character, inside the signed payload: still decodes, no longer verifies.
            if let i = firstIndex(of: Array(spec.appVersion.utf8), in: der) {
                der[i + spec.appVersion.utf8.count - 1] ^= 0x01
            }
            return Base64.encode(der)
        case .verifyReceipt(let spec, let forged):
            let der = try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)
            var response = VerifyReceiptBuilder.Response(
                bundleID: spec.bundleID, appItemID: spec.appItemID,
                receiptCreationDate: spec.creationDate)
            response.latestReceiptInfo = spec.purchases.suffix(1).map { p in
                var t = VerifyReceiptBuilder.Transaction(
                    productID: p.productID, transactionID: p.transactionID,
                    purchaseDate: p.purchaseDate)
                t.expiresDate = p.expiresDate
                return t
            }
            response.latestReceipt = Base64.encode(der)
            guard forged, let last = spec.purchases.last else { return response.text }
            let year2029 = Timestamp(clampingMillis: 1_861_920_000_000, hasMilliseconds: false)
            return response.rewritingClaims(of: last.transactionID) { $0.expiresDate = year2029 }.text
        }
    }

    /// The first place `needle` stands in `haystack` (the payload comes before the certificates).
    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<i + needle.count].elementsEqual(needle) {
            return i
        }
        return nil
    }

    // MARK: Rows

    private func createdText(_ o: PlannedOrder) -> String { o.brokenCreatedAt ? "yesterday" : o.createdAt.iso8601 }

    private func price(_ o: PlannedOrder) -> String {
        o.amount ?? SampleCatalog.items.first { $0.id == o.itemID }?.price ?? "0.99"
    }

    private func csvRow(_ o: PlannedOrder) -> String {
        SpreadsheetCSV.row([
            o.orderID, o.userID, o.itemID, o.statesPlatform ? "ios" : nil, o.transactionID, price(o), "USD", o.status,
            o.environment, createdText(o), o.consumed, o.consent,
        ])
    }

    private func xmlRow(_ o: PlannedOrder, _ payload: String?) -> String {
        func field(_ name: String, _ value: String?) -> String {
            guard let value else { return "\t\t<field name=\"\(name)\" xsi:nil=\"true\" />\n" }
            return "\t\t<field name=\"\(name)\">\(HTMLText.escape(value))</field>\n"
        }
        // mysqldump writes created_at as DATETIME without a zone.
        let created =
            o.brokenCreatedAt
            ? "yesterday" : String(o.createdAt.iso8601.dropLast()).replacingOccurrences(of: "T", with: " ")
        return "\t<row>\n" + field("id", String(o.orderID.dropFirst(4))) + field("order_no", o.orderID)
            + field("uid", o.userID)
            + field("sku", o.itemID) + field("store", o.statesPlatform ? "appstore" : nil)
            + field("txn_id", o.transactionID)
            + field("price", price(o)) + field("currency", "USD") + field("state", o.status)
            + field("env", o.environment)
            + field("credited_at", created) + field("used", o.consumed) + field("data_consent", o.consent)
            + field("receipt_data", payload) + "\t</row>\n"
    }

    private func jsonLine(_ o: PlannedOrder, _ payload: String?) -> String {
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

    // MARK: Rules directory

    private func writeRules(start: Timestamp) throws {
        let rules = path("Rules")
        try FileManager.default.createDirectory(atPath: rules, withIntermediateDirectories: true)
        let day = { (offset: Int64) in
            Timestamp(clampingMillis: start.millis + offset * 86_400_000, hasMilliseconds: false).day()
        }
        let files: [(String, String)] = [
            ("catalog.csv", SampleCatalog.catalogCSV),
            ("apps.csv", "platform,app_id\nios,\(SampleCatalog.bundleID)\nandroid,\(SampleCatalog.bundleID)\n"),
            (
                "reviewers.csv",
                "user_id,from,until,note\n"
                    + SampleCatalog.reviewers.map { "\($0),\(day(-1)),\(day(2)),App Review\n" }.joined()
            ),
            (
                "default.rules",
                """
                # The demo world's rules (written by `iapscreen samples`).
                rule expired-validity severity medium grace_days 1 max_proof_age_days 30
                exempt reviewers from sandbox-in-production
                # How refund requests are answered (these are the defaults, said aloud).
                consumption decline_after_refunds 2 decline_when_consumed 100 prorate no

                """
            ),
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: (rules as NSString).appendingPathComponent(name)))
        }
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: rules), googlePackageNames: [SampleCatalog.bundleID])
    }
}

/// The files of a demo world.
enum SampleFiles {
    static let appStoreOrders = "orders-appstore.csv.gz"
    static let storeKitOrders = "orders-storekit.xml.gz"
    static let playOrders = "orders-play.jsonl.gz"
    static let receipts = "receipts-appstore.csv.gz"
    static let expected = "expected.csv"
    static let storeEvents = SampleStoreEvents.file
    static let examples = "receipt-examples.txt"
    static let orders = [appStoreOrders, storeKitOrders, playOrders]
}

/// A sample file that could not be written, with the system's reason.
struct SampleWriteError: Error, CustomStringConvertible {
    var description: String
}

/// A gzip file written as it goes (memory stays flat for a world of millions).
final class GzipFile {
    private let fd: Int32
    private let encoder: GzipEncoder
    private var buffer: [UInt8] = []
    let path: String

    init(_ path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, let encoder = GzipEncoder(level: 6) else {
            throw SampleWriteError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        self.encoder = encoder
    }

    deinit { Glibc.close(fd) }

    func write(_ text: String) throws {
        var t = text
        t.withUTF8 { encoder.append(UnsafeRawBufferPointer($0), to: &buffer) }
        if buffer.count > 1 << 20 { try flush() }
    }

    func close() throws {
        encoder.finish(to: &buffer)
        try flush()
    }

    private func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes {
                Glibc.write(fd, $0.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            guard n > 0 else {
                throw SampleWriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? String(suffix(width)) : String(repeating: "0", count: width - count) + self
    }

    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
