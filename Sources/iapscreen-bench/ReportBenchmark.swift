import Foundation
import IAPBasics

#if canImport(Glibc)
    import Glibc
#endif

/// report.html at scale: a night with `findings` findings (written once, cached in /tmp),
/// screened by `iapscreen screen`; then the page's size, and how long headless Chromium
/// takes to open it, run its script and capture the first screen (wall time, beside the same
/// for an empty page, which is the browser's own start-up; and the page's own account of
/// when it was ready, from its console line).
///
/// The night needs no signatures: orders without a receipt (missing-receipt), with a payload
/// that is no receipt (receipt-undecodable), pairs crediting one unsigned Google purchase
/// (signature-invalid twice, replayed-transaction once), App Review test purchases (one
/// exempted finding each, one counted), unreadable rows (malformed-record), and Google
/// purchases older than the proof age (expired-validity) as it happens, spread over
/// 45 days, 8 products, 3 currencies and both platforms.
func runReportBenchmark(findings: Int) -> [String] {
    var lines: [String] = []
    guard let tool = iapscreenTool(&lines) else { return lines }
    let dir = NSTemporaryDirectory() + "iapscreen-bench-report-\(findings)"
    if !FileManager.default.fileExists(atPath: dir + "/orders.csv") {
        do {
            let planted = try writeReportNight(dir, findings: findings)
            lines.append(
                "night: \(planted.orders) orders planting at least \(planted.findings) findings (cached in \(dir))")
        } catch {
            return ["cannot write the night in \(dir): \(error)"]
        }
    }
    let t0 = SystemClock.monotonicSeconds()
    let r = spawn(
        tool,
        [
            "screen", "--rules", dir + "/Rules", "--orders", dir + "/orders.csv", "--out", dir + "/report",
            "--ledger", "none", "--quiet",
        ])
    let screenSeconds = SystemClock.monotonicSeconds() - t0
    let page = dir + "/report/report.html"
    let bytes = fileSize(page)
    let written =
        (try? String(contentsOfFile: dir + "/report/findings.jsonl", encoding: .utf8))?.split(separator: "\n").count
        ?? 0
    lines.append(
        "screen: exit \(r.status), \(written) findings in \(format2(screenSeconds)) s wall, \(format2(r.cpuSeconds)) CPU-s, "
            + "peak RSS \(r.maxRSSKiB / 1024) MiB")
    lines.append(
        "report.html: \(format2(Double(bytes) / 1_000_000)) MB (\(bytes) bytes, \(bytes / max(written, 1)) bytes a finding)"
    )

    guard
        let browser = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
        lines.append("chromium: not installed (scripts/install-deps.sh --test-tools); open time not measured")
        return lines
    }
    let blank = dir + "/blank.html"
    try? "<!DOCTYPE html><title>blank</title>".write(toFile: blank, atomically: true, encoding: .utf8)
    let empty = openInChromium(browser, blank, screenshot: dir + "/blank.png")
    let opened = openInChromium(browser, page, screenshot: dir + "/report.png")
    let said =
        opened.console.firstMatch(of: #/iapscreen report: ([^"]*)/#).map { String($0.output.1) }
        ?? "the page's script never said it was ready"
    lines.append(
        "chromium: report.html opened, drawn and captured in \(format2(opened.seconds)) s wall "
            + "(an empty page: \(format2(empty.seconds)) s, the browser's start-up); screenshot \(dir)/report.png")
    lines.append("  the page: \(said)")
    return lines
}

/// Headless Chromium opens a file and takes a screenshot once it has loaded (the page's
/// script has run by then): wall time, and what the page said on the console.
func openInChromium(_ browser: String, _ file: String, screenshot: String) -> (seconds: Double, console: String) {
    let profile = NSTemporaryDirectory() + "iapscreen-bench-chromium-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: browser)
    p.arguments = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-extensions", "--hide-scrollbars",
        "--enable-logging=stderr", "--user-data-dir=" + profile, "--window-size=1280,1000",
        "--screenshot=" + screenshot,
        URL(fileURLWithPath: file).absoluteString,
    ]
    let err = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = err
    let t0 = SystemClock.monotonicSeconds()
    do { try p.run() } catch { return (0, "") }
    let data = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (SystemClock.monotonicSeconds() - t0, String(decoding: data, as: UTF8.self))
}

/// Writes Rules and orders.csv planting at least `findings` findings; returns what it planted.
func writeReportNight(_ dir: String, findings: Int) throws -> (orders: Int, findings: Int) {
    try FileManager.default.createDirectory(atPath: dir + "/Rules", withIntermediateDirectories: true)
    let products = [
        ("gems_100", "0.99"), ("gems_550", "4.99"), ("gems_1200", "9.99"), ("vip_monthly", "9.99"),
        ("noads", "2.99"), ("starter_pack", "1.99"), ("gold_chest", "19.99"), ("season_pass", "14.99"),
    ]
    var catalog = "item_id,platform,product_id,type,price,currency\n"
    for (p, price) in products {
        catalog += "\(p),ios,com.example.game.\(p),consumable,\(price),USD\n\(p),android,\(p),consumable,\(price),USD\n"
    }
    try catalog.write(toFile: dir + "/Rules/catalog.csv", atomically: true, encoding: .utf8)
    try "platform,app_id\nios,com.example.game\nandroid,com.example.game\n".write(
        toFile: dir + "/Rules/apps.csv", atomically: true, encoding: .utf8)
    try "user_id,from,until,note\nappreview-01,2024-01-01,2024-12-31,App Review\n"
        .write(toFile: dir + "/Rules/reviewers.csv", atomically: true, encoding: .utf8)

    let currencies = ["USD", "EUR", "JPY"]
    var out = "order_id,user_id,platform,item_id,amount,currency,created_at,status,receipt\n"
    out.reserveCapacity(findings * 160)
    var planted = 0
    var orders = 0
    var k = 0
    func day(_ i: Int) -> String {
        let d = 1 + (i * 7919) % 45
        return String(
            format: "2024-%02d-%02dT%02d:%02d:%02dZ", d <= 31 ? 1 : 2, d <= 31 ? d : d - 31, i % 24, (i / 24) % 60,
            i % 60)
    }
    func google(_ order: String?, _ product: String) -> String {
        let id = order.map { "\"\"orderId\"\":\"\"\($0)\"\"," } ?? ""
        return
            "\"{\(id)\"\"packageName\"\":\"\"com.example.game\"\",\"\"productId\"\":\"\"\(product)\"\",\"\"purchaseTime\"\":1704067200000,"
            + "\"\"purchaseState\"\":0,\"\"purchaseToken\"\":\"\"tok-\(order ?? "test")\"\"}\""
    }
    while planted < findings {
        k += 1
        let (product, price) = products[k % products.count]
        let currency = currencies[k % 7 == 0 ? 1 : (k % 11 == 0 ? 2 : 0)]
        let amount = currency == "JPY" ? "\(Int(Double(price) ?? 1) * 150 + 150)" : price
        let user = "user-\(100_000 + (k * 31) % 90_000)"
        switch k % 20 {
        case 0..<13:  // no receipt
            out += "ORD-\(k),\(user),ios,\(product),\(amount),\(currency),\(day(k)),credited,\n"
            orders += 1
            planted += 1
        case 13..<17:  // a payload that is no receipt
            out += "ORD-\(k),\(user),ios,\(product),\(amount),\(currency),\(day(k)),credited,not-a-receipt-\(k)\n"
            orders += 1
            planted += 1
        case 17, 18:  // two orders credit one unsigned Google purchase
            out +=
                "ORD-\(k),\(user),android,\(product),\(amount),\(currency),\(day(k)),credited,\(google("GPA.\(k)", product))\n"
            out +=
                "ORD-\(k)-again,\(user)-b,android,\(product),\(amount),\(currency),\(day(k + 1)),credited,\(google("GPA.\(k)", product))\n"
            orders += 2
            planted += 3
        default:
            if k % 40 == 19 {  // an App Review test purchase: exempted sandbox finding, counted unsigned finding
                out +=
                    "ORD-\(k),appreview-01,android,\(product),\(amount),\(currency),\(day(k)),credited,\(google(nil, product))\n"
                orders += 1
                planted += 2
            } else {  // an unreadable row
                out += "ORD-\(k),\(user),ios,\(product),\(amount),\(currency),\(day(k)),in-limbo,\n"
                planted += 1
            }
        }
    }
    try out.write(toFile: dir + "/orders.csv", atomically: true, encoding: .utf8)
    return (orders, planted)
}
