import Decompression
import Foundation
import IAPBasics

#if canImport(Glibc)
    import Glibc
#endif

/// A month of Google Play sales rows for `orders` orders against the orders dump that
/// credited them (generated once, cached in /tmp by size): `iapscreen reconcile` is timed
/// with its peak RSS, then timed again with the same report given twice (twice the rows,
/// the same orders), which shows memory does not grow with the report.
func runReconcileBenchmark(orders: Int) -> [String] {
    var lines: [String] = []
    guard let tool = iapscreenTool(&lines) else { return lines }
    let dir = NSTemporaryDirectory() + "iapscreen-bench-reconcile-\(orders)"
    let sales = dir + "/salesreport_202403.zip"
    let dump = dir + "/orders.csv.gz"
    if !FileManager.default.fileExists(atPath: sales) {
        let t0 = SystemClock.monotonicSeconds()
        do {
            try writeReconcileMonth(orders: orders, directory: dir)
        } catch {
            return ["cannot write the month in \(dir): \(error)"]
        }
        lines.append(
            "month: \(orders) orders and their sales rows generated in \(format2(SystemClock.monotonicSeconds() - t0)) s (cached in \(dir))"
        )
    }
    // Rows: one charge per order, a refund for every 50th, and a lost order for every 1000th.
    let rows = orders + orders / 50 + orders / 1000
    for copies in [1, 2] {
        let args =
            ["reconcile", "--rules", dir + "/Rules", "--orders", dump, "--store-report"]
            + Array(repeating: sales, count: copies) + ["--out", dir + "/report"]
        let t0 = SystemClock.monotonicSeconds()
        let r = spawn(tool, args)
        let seconds = SystemClock.monotonicSeconds() - t0
        lines.append(
            "reconcile: \(orders) orders, \(rows * copies) sales rows (\(copies == 1 ? "" : "the report twice, ")"
                + "\(fileSize(sales) * copies / 1_000_000) MB zipped), exit \(r.status)")
        lines.append(
            "  \(format2(seconds)) s wall, \(format2(r.cpuSeconds)) CPU-s, \(Int(Double(rows * copies) / seconds)) rows/s, "
                + "peak RSS \(r.maxRSSKiB / 1024) MiB")
    }
    return lines
}

private func writeReconcileMonth(orders: Int, directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory + "/Rules", withIntermediateDirectories: true)
    try Data(
        """
        item_id,platform,product_id,type,price,currency
        gems_100,android,gems_100,consumable,0.99,USD
        gems_550,android,gems_550,consumable,4.99,USD
        vip_month,android,vip_monthly,auto_renewable,9.99,USD

        """.utf8
    ).write(to: URL(fileURLWithPath: directory + "/Rules/catalog.csv"))
    try Data("platform,app_id\nandroid,com.example.game\n".utf8).write(
        to: URL(fileURLWithPath: directory + "/Rules/apps.csv"))
    let items = [
        ("gems_100", "gems_100", "0.99"), ("gems_550", "gems_550", "4.99"), ("vip_month", "vip_monthly", "9.99"),
    ]
    let march1: Int64 = 1_709_251_200
    let month: Int64 = 31 * 86_400
    guard let encoder = GzipEncoder(level: 6) else { throw CocoaError(.fileWriteUnknown) }
    var gz: [UInt8] = []
    let zip = ZipWriter()
    zip.startEntry("salesreport_202403.csv")
    zip.write(
        "Order Number,Order Charged Date,Order Charged Timestamp,Financial Status,Device Model,Product Title,Product ID,"
            + "Product Type,SKU ID,Currency of Sale,Item Price,Taxes Collected,Charged Amount,City of Buyer,State of Buyer,"
            + "Postal Code of Buyer,Country of Buyer,Base Plan ID,Offer ID,Group ID,First USD 1M Eligible\n")
    encoder.append(
        Array("order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at\n".utf8), to: &gz)
    var orderText = ""
    var salesText = ""
    func sale(_ number: String, _ at: Int64, _ status: String, _ product: String, _ amount: String) {
        let day = "2024-03-" + String(format: "%02d", min(31, (at - march1) / 86_400 + 1))
        salesText +=
            "\(number),\(day),\(at),\(status),d2q,Gems,com.example.game,inapp,\(product),USD,\(amount),0.00,\(amount),,,,US,,,,No\n"
    }
    for i in 0..<orders {
        let (item, product, price) = items[i % 3]
        let number =
            "GPA.33\(String(format: "%02d", i % 97))-\(String(format: "%04d", i / 10_000 % 10_000))-\(String(format: "%04d", i % 10_000))-\(String(format: "%05d", i % 99_991))"
        let charged = march1 + Int64(i) * month / Int64(max(orders, 1))
        orderText += "ORD-\(i),user-\(i % 50_000),\(item),android,\(number),\(price),USD,credited,\(charged + 30)\n"
        sale(number, charged, "Charged", product, price)
        if i % 50 == 49 { sale(number, charged + 86_400, "Refund", product, "-" + price) }
        if i % 1000 == 999 {
            sale("GPA.9999-0000-\(String(format: "%04d", i / 1000 % 10_000))-00000", charged, "Charged", product, price)
        }
        if orderText.utf8.count > 1 << 20 {
            encoder.append(Array(orderText.utf8), to: &gz)
            zip.write(salesText)
            orderText = ""
            salesText = ""
        }
    }
    encoder.append(Array(orderText.utf8), to: &gz)
    encoder.finish(to: &gz)
    zip.write(salesText)
    try Data(gz).write(to: URL(fileURLWithPath: directory + "/orders.csv.gz"))
    try Data(zip.finish()).write(to: URL(fileURLWithPath: directory + "/salesreport_202403.zip"))
}
