import Decompression
import Foundation
import IAPBasics
import Reporting

/// The stores' side of the demo world: the Google Play sales and earnings reports and the
/// Apple Sales Summary reports its purchases would appear in, with reconciliation
/// differences planted on some clean orders (a charge missing, refunded, at another price,
/// a day early, a charge with no order at all), and `expected-reconciliation.csv`: every
/// row `reconcile` must report for the world, and nothing else.
///
/// What the stores took follows from each planned order's proof: a production purchase of
/// our app is charged at its purchase time; sandbox, test, pending, cancelled, forged
/// (unsigned, Xcode) and other apps' purchases are not; a copied proof (replay, restore,
/// family sharing) was charged once, for the order it came from.
struct SampleStoreSide {
    struct Sale {
        var number: String?
        var product: String
        var time: Timestamp
        var amount: String
        var currency = "USD"
        var refunded: Timestamp?
        var caseName: String
    }

    struct Credit {
        var orderID: String
        var number: String?
        var product: String
        var time: Timestamp
        var amount: String
        var refunded: Bool
        var caseName: String
    }

    static let directory = "store-reports"
    static let expectedFile = "expected-reconciliation.csv"
    static let googleTwists = ["store-missing", "store-refund", "store-amount", "late-credit", "store-only"]
    static let appleTwists = ["store-missing", "late-credit", "store-only"]

    private var googleSales: [Sale] = []
    private var appleSales: [Sale] = []
    private var googleCredits: [Credit] = []
    private var appleCredits: [Credit] = []
    private var random: SeededRandom
    private var extra = 0
    private var turn = 0
    private(set) var planted = 0

    init(seed: UInt64) {
        random = SeededRandom(seed: seed &+ 0x5EC0_0001)
    }

    private static func price(ofProduct product: String) -> String {
        SampleCatalog.items.first { $0.google == product || $0.apple == product }?.price ?? "0.99"
    }

    private static func later(_ t: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(clampingMillis: t.millis + seconds * 1000, hasMilliseconds: false)
    }

    /// What the store charged for this order, if anything.
    private static func sale(of o: PlannedOrder) -> Sale? {
        guard o.status == "credited" || o.status == "orphan" else { return nil }
        guard !["unsigned-google", "xcode-receipt", "foreign-app"].contains(o.caseName) else { return nil }
        if o.caseName == "renewal", o.store == .appReceipt {
            // Both periods sit in one receipt; each order was bought 20 s before its credit.
            let vip = SampleCatalog.items[3]
            return Sale(
                number: nil, product: vip.apple, time: later(o.createdAt, seconds: -20), amount: vip.price,
                caseName: o.caseName)
        }
        var sale: Sale
        switch o.proof {
        case .google(let d, _):
            guard d.purchaseState == 0, let number = d.orderID, d.packageName == SampleCatalog.bundleID else {
                return nil
            }
            sale = Sale(number: number, product: d.productID, time: d.purchaseTime, amount: "", caseName: o.caseName)
        case .app(let spec), .verifyReceipt(let spec, _), .tampered(let spec):
            guard spec.environment == "Production", let p = spec.purchases.last else { return nil }
            sale = Sale(
                number: nil, product: p.productID, time: p.purchaseDate, amount: "", refunded: p.cancellationDate,
                caseName: o.caseName)
        case .jws(let tx):
            guard tx.environment == "Production" else { return nil }
            sale = Sale(
                number: nil, product: tx.productID, time: tx.purchaseDate, amount: "", refunded: tx.revocationDate,
                caseName: o.caseName)
        default:
            return nil
        }
        sale.amount = price(ofProduct: sale.product)
        return sale
    }

    /// Takes one planned order (once, however often its row is written); true when a
    /// reconciliation difference was planted on it.
    @discardableResult
    mutating func add(_ o: PlannedOrder) -> Bool {
        let google = o.store == .google
        let item = SampleCatalog.items.first { $0.id == o.itemID } ?? SampleCatalog.items[0]
        let amount = o.amount ?? item.price
        var caseName = o.caseName
        var sale = SampleStoreSide.sale(of: o)
        let twisted = o.caseName == "clean" && random.chance(0.12)
        if twisted {
            let twists = google ? SampleStoreSide.googleTwists : SampleStoreSide.appleTwists
            let twist = twists[turn % twists.count]
            turn += 1
            planted += 1
            caseName = "reconcile-" + twist
            sale?.caseName = caseName
            switch twist {
            case "store-missing": sale = nil
            case "store-refund": sale?.refunded = SampleStoreSide.later(o.createdAt, seconds: 86_400)
            case "store-amount": sale?.amount = item.price == "0.99" ? "1.09" : "0.99"
            case "late-credit": sale?.time = SampleStoreSide.later(o.createdAt, seconds: -86_400)
            default:
                // The store charged someone who never reached our server, and never retried.
                extra += 1
                let other = SampleCatalog.items[random.below(3)]
                let lost = Sale(
                    number: google ? "GPA.9\(String(1000 + extra))-0000-0000-\(String(10_000 + extra))" : nil,
                    product: google ? other.google : other.apple, time: o.createdAt, amount: other.price,
                    caseName: caseName)
                if google { googleSales.append(lost) } else { appleSales.append(lost) }
            }
        }
        if let sale {
            if google { googleSales.append(sale) } else { appleSales.append(sale) }
        }
        // Our side, as reconcile compares it.
        // An order that names no platform and has no receipt cannot be given to either store.
        guard o.status == "credited" || o.status == "refunded", o.environment != "sandbox", !o.brokenCreatedAt,
            o.statesPlatform, DecimalAmount(amount).map({ !$0.isZero }) ?? true
        else { return twisted }
        var number = o.transactionID
        if number == nil, case .google(let d, _) = o.proof { number = d.orderID }
        let credit = Credit(
            orderID: o.orderID, number: google ? number : nil, product: google ? item.google : item.apple,
            time: o.createdAt, amount: amount, refunded: o.status == "refunded", caseName: caseName)
        if google { googleCredits.append(credit) } else { appleCredits.append(credit) }
        return twisted
    }

    // MARK: Writing

    func write(into root: String) throws {
        let dir = (root as NSString).appendingPathComponent(SampleStoreSide.directory)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try writeGoogle(dir)
        try writeApple(dir)
        var csv = "store,bucket,order_id,store_order_id,product_id,day,currency,case\n"
        for row in expectedRows().sorted() { csv += row }
        try Data(csv.utf8).write(
            to: URL(fileURLWithPath: (root as NSString).appendingPathComponent(SampleStoreSide.expectedFile)))
    }

    private static func month(_ t: Timestamp) -> String {
        String(CalendarDay.text(CalendarDay.utc(t)).prefix(7).filter { $0 != "-" })
    }

    private func writeGoogle(_ dir: String) throws {
        var sales: [String: [(Timestamp, String)]] = [:]
        var earnings: [String: [(Timestamp, String)]] = [:]
        for s in googleSales {
            guard let number = s.number else { continue }
            let m = SampleStoreSide.month(s.time)
            sales[m, default: []].append(
                (s.time, SampleStoreSide.salesRow(number, s, status: "Charged", at: s.time, amount: s.amount)))
            let fee = (-(DecimalAmount(s.amount) ?? .zero).share(15, of: 100)).description
            earnings[m, default: []].append(
                (s.time, SampleStoreSide.earningsRow(number, s, type: "Charge", at: s.time, amount: s.amount)))
            earnings[m, default: []].append(
                (s.time, SampleStoreSide.earningsRow(number, s, type: "Google fee", at: s.time, amount: fee)))
            if let refunded = s.refunded {
                let r = SampleStoreSide.month(refunded)
                sales[r, default: []].append(
                    (
                        refunded,
                        SampleStoreSide.salesRow(number, s, status: "Refund", at: refunded, amount: "-" + s.amount)
                    ))
                earnings[r, default: []].append(
                    (
                        refunded,
                        SampleStoreSide.earningsRow(
                            number, s, type: "Charge refund", at: refunded,
                            amount: "-" + s.amount)
                    ))
            }
        }
        for (m, rows) in sales {
            let zip = ZipWriter()
            zip.add(
                "salesreport_\(m).csv",
                Array((SampleStoreSide.salesHeader + rows.sorted { $0.0 < $1.0 }.map(\.1).joined()).utf8))
            try Data(zip.finish()).write(to: URL(fileURLWithPath: "\(dir)/salesreport_\(m).zip"))
        }
        for (m, rows) in earnings {
            // Earnings files come as UTF-16 with a byte order mark, in a stored entry.
            let text = SampleStoreSide.earningsHeader + rows.sorted { $0.0 < $1.0 }.map(\.1).joined()
            var utf16: [UInt8] = [0xFF, 0xFE]
            for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            let zip = ZipWriter()
            zip.add("PlayApps_\(m).csv", utf16, method: .stored)
            try Data(zip.finish()).write(to: URL(fileURLWithPath: "\(dir)/PlayApps_\(m).zip"))
        }
    }

    static let salesHeader =
        "Order Number,Order Charged Date,Order Charged Timestamp,Financial Status,Device Model,Product Title,"
        + "Product ID,Product Type,SKU ID,Currency of Sale,Item Price,Taxes Collected,Charged Amount,City of Buyer,State of Buyer,"
        + "Postal Code of Buyer,Country of Buyer\n"

    static func salesRow(_ number: String, _ s: Sale, status: String, at t: Timestamp, amount: String) -> String {
        csvLine([
            number, CalendarDay.text(CalendarDay.utc(t)), String(t.millis / 1000), status, "d2q", "Gems",
            SampleCatalog.bundleID, "inapp", s.product, s.currency, amount, "0.00", amount, "", "", "", "US",
        ])
    }

    static let earningsHeader =
        "Description,Transaction Date,Transaction Time,Tax Type,Transaction Type,Refund Type,Product Title,"
        + "Product id,Product Type,Sku Id,Hardware,Buyer Country,Buyer State,Buyer Postal Code,Buyer Currency,"
        + "Amount (Buyer Currency),Currency Conversion Rate,Merchant Currency,Amount (Merchant Currency)\r\n"

    /// Dates as Google writes them: `Mar 1, 2024` and `04:00:30 PST`.
    static func earningsRow(_ number: String, _ s: Sale, type: String, at t: Timestamp, amount: String) -> String {
        let offset = CalendarDay.pacificOffsetMinutes(t)
        let local = Timestamp(clampingMillis: t.millis + Int64(offset) * 60_000, hasMilliseconds: false).iso8601
        let (y, m, d) = CalendarDay.civil(CalendarDay.pacific(t))
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let date = "\(months[(m - 1) % 12]) \(d), \(y)"
        let time = String(local.dropFirst(11).prefix(8)) + (offset == -420 ? " PDT" : " PST")
        return csvLine([
            number, date, time, "", type, type.hasSuffix("refund") ? "Full" : "", "Gems", SampleCatalog.bundleID,
            "inapp", s.product, "d2q", "US", "", "", s.currency, amount, "1.000000", s.currency, amount,
        ])
        .replacingOccurrences(of: "\n", with: "\r\n")
    }

    private func writeApple(_ dir: String) throws {
        // Units per Pacific day and SKU: sales, and refunds on the day of the refund.
        var units: [Int: [String: Int64]] = [:]
        for s in appleSales {
            units[CalendarDay.pacific(s.time), default: [:]][s.product, default: 0] += 1
            if let r = s.refunded {
                units[CalendarDay.pacific(r), default: [:]][s.product + "\u{1F}refund", default: 0] -= 1
            }
        }
        let header =
            [
                "Provider", "Provider Country", "SKU", "Developer", "Title", "Version", "Product Type Identifier",
                "Units",
                "Developer Proceeds", "Begin Date", "End Date", "Customer Currency", "Country Code",
                "Currency of Proceeds",
                "Apple Identifier", "Customer Price", "Promo Code", "Parent Identifier",
            ].joined(separator: "\t") + "\n"
        for (day, bySKU) in units {
            let (y, m, d) = CalendarDay.civil(day)
            let us = String(format: "%02d/%02d/%04d", m, d, y)
            var text = header
            // An app download row, which reconcile ignores.
            text +=
                [
                    "APPLE", "US", SampleCatalog.bundleID, "Example", "Game", "4.2", "1F", "12", "0", us, us, "USD",
                    "US", "USD",
                    "1234567890", "0", "", "",
                ].joined(separator: "\t") + "\n"
            for (key, n) in bySKU.sorted(by: { $0.key < $1.key }) {
                let sku = String(key.split(separator: "\u{1F}").first ?? "")
                let type = sku.contains(".vip.") ? "IAY" : "IA1"
                let price = SampleStoreSide.price(ofProduct: sku)
                text +=
                    [
                        "APPLE", "US", sku, "Example", "Gems", "", type, String(n), "0.70", us, us, "USD", "US", "USD",
                        "1234567891", price, "", SampleCatalog.bundleID,
                    ].joined(separator: "\t") + "\n"
            }
            let name = "S_D_80012345_" + String(format: "%04d%02d%02d", y, m, d) + ".txt.gz"
            try Data(GzipEncoder.compress(Array(text.utf8)) ?? []).write(to: URL(fileURLWithPath: "\(dir)/\(name)"))
        }
    }

    /// A CSV line as the stores write it: quoted only where a cell holds a comma or a quote,
    /// and never prefixed for spreadsheets (a refund is `-0.99`).
    static func csvLine(_ cells: [String]) -> String {
        cells.map { cell in
            cell.contains(",") || cell.contains("\"")
                ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
        }.joined(separator: ",") + "\n"
    }

    // MARK: What reconcile must say

    /// Rows of expected-reconciliation.csv, with the default tolerance of one day.
    func expectedRows() -> [String] {
        var out: [String] = []
        func row(
            _ store: String, _ bucket: String, _ order: String?, _ number: String?, _ product: String, _ day: Int,
            _ caseName: String
        ) {
            out.append(
                SpreadsheetCSV.row([store, bucket, order, number, product, CalendarDay.text(day), "USD", caseName]))
        }
        // Google, order by order.
        var credited: [String: [Credit]] = [:]
        for c in googleCredits {
            guard let n = c.number else {
                if !c.refunded {
                    row("google", "unpaid-credit", c.orderID, nil, c.product, CalendarDay.utc(c.time), c.caseName)
                }
                continue
            }
            credited[n, default: []].append(c)
        }
        var sold: [String: Sale] = [:]
        for s in googleSales { if let n = s.number { sold[n] = s } }
        for (n, group) in credited {
            let sorted = group.sorted { ($0.time, $0.orderID) < ($1.time, $1.orderID) }
            guard let s = sold[n], let first = sorted.first else {
                for c in sorted where !c.refunded {
                    row("google", "unpaid-credit", c.orderID, n, c.product, CalendarDay.utc(c.time), c.caseName)
                }
                continue
            }
            let saleDay = CalendarDay.utc(s.time)
            let creditDay = CalendarDay.utc(first.time)
            for c in sorted.dropFirst() where !c.refunded {
                row("google", "unpaid-credit", c.orderID, n, s.product, saleDay, c.caseName)
            }
            let bucket: String?
            if s.refunded != nil {
                bucket = first.refunded ? nil : "refunded-still-credited"
            } else if first.refunded {
                bucket = "lost-order"
            } else if s.amount != first.amount || s.product != first.product {
                bucket = "amount-mismatch"
            } else if creditDay == saleDay {
                bucket = nil
            } else if abs(creditDay - saleDay) <= 1 {
                bucket = "timing-difference"
            } else {
                bucket = creditDay > saleDay ? "lost-order" : "unpaid-credit"
            }
            if let bucket { row("google", bucket, first.orderID, n, s.product, saleDay, first.caseName) }
        }
        for (n, s) in sold where credited[n] == nil && s.refunded == nil {
            row("google", "lost-order", nil, n, s.product, CalendarDay.utc(s.time), s.caseName)
        }
        // Apple, units per product and Pacific day.
        var units: [String: [Int: (sold: Int, credited: Int, cases: [String])]] = [:]
        for s in appleSales {
            units[s.product, default: [:]][CalendarDay.pacific(s.time), default: (0, 0, [])].sold += 1
        }
        for c in appleCredits {
            units[c.product, default: [:]][CalendarDay.pacific(c.time), default: (0, 0, [])].credited += 1
        }
        for (product, days) in units {
            var soldLeft: [Int: Int] = [:]
            var creditedLeft: [Int: Int] = [:]
            for (day, t) in days {
                soldLeft[day] = t.sold - min(t.sold, t.credited)
                creditedLeft[day] = t.credited - min(t.sold, t.credited)
            }
            for day in days.keys.sorted() where (soldLeft[day] ?? 0) > 0 && (creditedLeft[day + 1] ?? 0) > 0 {
                let paired = min(soldLeft[day] ?? 0, creditedLeft[day + 1] ?? 0)
                soldLeft[day, default: 0] -= paired
                creditedLeft[day + 1, default: 0] -= paired
                row("apple", "timing-difference", nil, nil, product, day, "")
            }
            for day in days.keys.sorted() where soldLeft[day] != 0 || creditedLeft[day] != 0 {
                row("apple", "unit-difference", nil, nil, product, day, "")
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
