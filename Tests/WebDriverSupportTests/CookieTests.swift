import Foundation
import Testing
import WebDriverSupport

@Suite(
    "Cookies as the browser keeps them", .serialized,
    .enabled(if: BrowserTools.usable, Comment(rawValue: BrowserTools.skipReason)))
struct CookieTests {
    /// A browser on a page of a server that sets `setCookie`, both stopped when `body` ends.
    func onServer(setting setCookie: String, _ body: (WebDriver) throws -> Void) throws {
        let server = try CookiePageServer(setCookie: setCookie)
        defer { server.stop() }
        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.navigate(to: server.url)
        try body(browser)
    }

    @Test("a __Host- cookie set Secure, HttpOnly and SameSite=Strict over http://127.0.0.1 is kept as set")
    func keptAsSet() throws {
        try onServer(setting: "__Host-probe=42; Path=/; Secure; HttpOnly; SameSite=Strict") { browser in
            let cookie = try #require(try browser.cookies.first { $0.name == "__Host-probe" })
            #expect(cookie.value == "42")
            #expect(cookie.path == "/")
            #expect(cookie.secure)
            #expect(cookie.httpOnly)
            #expect(cookie.sameSite == "Strict")
            #expect(cookie.expiry == nil)
            // HttpOnly: the page's scripts do not see it.
            #expect(try browser.executeScript("return document.cookie") as? String == "")
        }
    }

    @Test("a cookie a test plants is sent with the next request; deleting them all sends none")
    func planted() throws {
        try onServer(setting: "seen=1; Path=/") { browser in
            try browser.addCookie(WebDriver.Cookie(name: "planted", value: "x", path: "/"))
            try browser.refresh()
            let sent = try browser.findElement(css: "#cookie").text
            #expect(sent.contains("planted=x"))
            #expect(sent.contains("seen=1"))
            try browser.deleteAllCookies()
            #expect(try browser.cookies.isEmpty)
        }
    }
}
