import Foundation
import IAPBasics
import Ledger
import Testing
import WebDriverSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The desk as a reviewer works it, in a real Chromium driven through WebDriver at 1280×800:
/// the login form, the queue by keyboard, a verdict, and orders whose data is markup and
/// script that must show as text and never run.
@Suite("desk in Chromium", .serialized, .enabled(if: BrowserTools.usable, Comment(rawValue: BrowserTools.skipReason)))
struct DeskBrowserTests {
    static let payload =
        #"<img src=x onerror="document.body.dataset.pwned='img'"><script>document.body.dataset.pwned='script'</script>"#

    /// A ledger with a run that flagged three orders, one of them hostile through and through.
    static func ledger(_ s: Scratch) throws -> String {
        let path = s.file("ledger.sqlite")
        let ledger = try SQLiteLedger(path: path)
        func order(_ id: String, _ severity: Int, _ rule: String, user: String = "u1", text: String = "plain")
            -> FlaggedOrderRecord
        {
            let line =
                #"{"rule":"\#(rule)","severity":"high","order_id":"ORD","message":"\#(text.replacingOccurrences(of: "\"", with: "\\\""))","evidence":{"note":"\#(text.replacingOccurrences(of: "\"", with: "\\\""))"}}"#
            return FlaggedOrderRecord(
                orderID: id, userID: user, platform: "ios", productID: text, amount: "4.99", currency: "USD",
                createdAt: "2026-11-30T10:00:00Z", severity: severity, rules: [rule], transactions: ["2000\(severity)"],
                receipt: #"[["kind","storekit2"],["note","\#(text.replacingOccurrences(of: "\"", with: "\\\""))"]]"#,
                findings: [(rule, line)])
        }
        try ledger.record(
            RunRecord(
                startedAt: SystemClock.now(), finishedAt: SystemClock.now(), orders: 3, flagged: 3, newClaims: [],
                reported: [],
                flaggedOrders: [
                    order("ORD-1", 4, "forged-receipt"), order("ORD-2", 3, "replayed-transaction"),
                    order("ORD-X" + payload, 2, "sandbox-receipt", user: payload, text: payload),
                ]))
        return "sqlite:" + path
    }

    /// Whether the page's text comes to hold `text` within 10 s (a form's POST and its 303 take
    /// a moment after the click returns).
    static func shows(_ text: String, _ driver: WebDriver) -> Bool {
        for _ in 0..<100 {
            if (try? driver.findElement(css: "body").text.contains(text)) == true { return true }
            usleep(100_000)
        }
        return false
    }

    /// Whether the browser comes to be at a URL ending in `suffix` within 10 s (after a key or
    /// a click that navigates).
    static func arrives(_ suffix: String, _ driver: WebDriver) -> Bool {
        for _ in 0..<100 {
            if (try? driver.currentURL.hasSuffix(suffix)) == true,
                (try? driver.executeScript("return document.readyState")) as? String == "complete"
            {
                return true
            }
            usleep(100_000)
        }
        return false
    }

    static func pwned(_ driver: WebDriver) throws -> Any? {
        try driver.executeScript("return document.body.dataset.pwned || null;")
    }

    @Test("log in through the form, work the queue with the keyboard, give a verdict")
    func reviewerFlow() throws {
        let s = try Scratch()
        let ledger = try Self.ledger(s)
        try DeskProcess.addUser("ann", "reviewer", ledger: ledger)
        let desk = try DeskProcess(ledger: ledger)
        let driver = try WebDriver()
        defer { driver.quit() }
        let base = "http://127.0.0.1:\(desk.port)"
        try driver.navigate(to: base + "/queue")
        #expect(Self.arrives("/login", driver))
        try driver.findElement(css: "input[name=username]").sendKeys("ann")
        try driver.findElement(css: "input[name=password]").sendKeys(DeskProcess.password + "\n")
        #expect(Self.arrives("/queue", driver))
        let rows = try driver.findElements(css: "tr[data-order-id]")
        #expect(rows.count == 3)
        try FileManager.default.createDirectory(atPath: "/tmp/desk-shots", withIntermediateDirectories: true)
        try driver.screenshot(to: "/tmp/desk-shots/queue.png")
        // j selects the first row, j again the second, o opens it.
        try driver.sendKeys("jjo")
        #expect(Self.arrives("/orders/ORD-2", driver))
        try driver.screenshot(to: "/tmp/desk-shots/order.png")
        // n claims the top open order (ORD-1) and opens it; f gives it the verdict fraud.
        try driver.sendKeys("n")
        #expect(Self.arrives("/orders/ORD-1", driver))
        try driver.sendKeys("f")
        // The verdict is the ledger's once the form's POST is answered.
        let api = desk.client()
        _ = try DeskProcess.login(api, "ann")
        var decided = false
        for _ in 0..<100 where !decided {
            let order = try api.request("GET", "/api/v1/orders/ORD-1")
            decided = order.text.contains(#""verdict":{"verdict":"fraud","by":"ann""#)
            if !decided { usleep(100_000) }
        }
        #expect(decided)
        #expect(Self.arrives("/orders/ORD-1", driver))
        #expect(Self.shows("by ann", driver))
        // A note typed after c, sent with the form's button.
        try driver.sendKeys("c")
        try driver.activeElement.sendKeys("asked the player team")
        try driver.findElement(css: "#note-form button[type=submit], #note-form input[type=submit]").click()
        #expect(Self.shows("asked the player team", driver))
        #expect(desk.stop().status == 0)
    }

    @Test("markup and script from a dump show as text on every page and never run")
    func hostileData() throws {
        let s = try Scratch()
        let ledger = try Self.ledger(s)
        try DeskProcess.addUser("lea", "lead", ledger: ledger)
        let desk = try DeskProcess(ledger: ledger)
        let driver = try WebDriver()
        defer { driver.quit() }
        let base = "http://127.0.0.1:\(desk.port)"
        try driver.navigate(to: base + "/login")
        try driver.findElement(css: "input[name=username]").sendKeys("lea")
        try driver.findElement(css: "input[name=password]").sendKeys(DeskProcess.password + "\n")
        #expect(Self.arrives("/queue", driver))
        #expect(try Self.pwned(driver) == nil)
        #expect(try driver.findElement(css: "#queue").text.contains("ORD-X<img"))
        // Open the hostile order from its link, as a reviewer does.
        let link = try driver.findElements(css: "a.order-link").first { (try? $0.text.contains("ORD-X")) == true }
        try #require(link).click()
        #expect(Self.shows("Findings", driver))
        #expect(try Self.pwned(driver) == nil)
        let body = try driver.findElement(css: "body").text
        #expect(body.contains("<script>document.body.dataset.pwned='script'</script>"))
        try driver.screenshot(to: "/tmp/desk-shots/order-hostile.png")
        // A note that is markup, written through the page, stays text.
        try driver.sendKeys("c")
        try driver.activeElement.sendKeys(Self.payload)
        try driver.findElement(css: "#note-form button[type=submit], #note-form input[type=submit]").click()
        #expect(try Self.pwned(driver) == nil)
        #expect(Self.shows("<img src=x onerror=", driver))
        try driver.navigate(to: base + "/audit")
        #expect(try Self.pwned(driver) == nil)
        #expect(try driver.findElement(css: "body").text.contains("ORD-X<img"))
        try driver.navigate(
            to: base + "/queue?q=" + (Self.payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect(try Self.pwned(driver) == nil)
        #expect(desk.stop().status == 0)
    }
}
