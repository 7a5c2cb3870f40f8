import Foundation
import Testing

@testable import WebDriverSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "A browser driven over WebDriver", .serialized,
    .enabled(if: BrowserTools.usable, Comment(rawValue: BrowserTools.skipReason)))
struct WebDriverTests {
    /// A browser on the test page, quit (and the page removed) when `body` ends.
    func onTestPage(_ body: (WebDriver, TestPage) throws -> Void) throws {
        let page = try TestPage()
        defer { page.remove() }
        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.navigate(to: page.url)
        try body(browser, page)
    }

    @Test("typing into a field and clicking a button runs the page's script; its text is read back")
    func typeAndClick() throws {
        try onTestPage { browser, page in
            #expect(try browser.title == "WebDriver test page")
            #expect(try browser.currentURL == page.url.absoluteString)
            let name = try browser.findElement(css: "#name")
            try name.sendKeys("Ada <b>")
            #expect(try name.property("value") as? String == "Ada <b>")
            try browser.findElement(css: "#greet").click()
            let greeting = try browser.findElement(css: "#greeting")
            #expect(try greeting.text == "Hello, Ada <b>!")
            #expect(try greeting.attribute("data-greeted") == "yes")
            #expect(try greeting.attribute("title") == nil)
            #expect(try greeting.tagName == "p")
            #expect(try browser.pageSource.contains("Hello, Ada &lt;b&gt;!"))
            try name.clear()
            #expect(try name.property("value") as? String == "")
        }
    }

    @Test("keys pressed on the page reach its keydown listener, Enter included")
    func keyboardShortcuts() throws {
        try onTestPage { browser, _ in
            try browser.sendKeys("jk")
            try browser.sendKeys(WebDriver.Key.enter)
            #expect(try browser.findElement(css: "#keys").text == "jk[Enter]")
        }
    }

    @Test("a script gets elements and values as arguments and returns values and elements")
    func scripts() throws {
        try onTestPage { browser, _ in
            let button = try browser.findElement(css: "#greet")
            let echoed = try browser.executeScript(
                "return [arguments[0].id, arguments[1] + 1, null]", args: [button, 41])
            let list = try #require(echoed as? [Any])
            #expect(list.count == 3)
            #expect(list.first as? String == "greet")
            #expect(list.dropFirst().first as? Int == 42)
            #expect(list.last is NSNull)
            let found = try #require(try browser.executeScript("return document.querySelector('#name')") as? WebElement)
            try found.sendKeys("x")
            #expect(try browser.findElement(css: "#name").property("value") as? String == "x")
            #expect(try browser.executeScript("return undefined") == nil)
        }
    }

    @Test("elements are found by CSS: every match, none, and an error naming what is missing")
    func finding() throws {
        try onTestPage { (browser: WebDriver, _: TestPage) throws in
            #expect(try browser.findElements(css: "p.line").count == 2)
            #expect(try browser.findElements(css: "table").isEmpty)
            let missing = #expect(throws: WebDriverError.self) { try browser.findElement(css: "#absent") }
            #expect(missing?.error == "no such element")
            #expect(missing?.status == 404)
            let thrown = #expect(throws: WebDriverError.self) { try browser.executeScript("throw new Error('boom')") }
            #expect(thrown?.error == "javascript error")
            #expect(thrown?.message.contains("boom") == true)
        }
    }

    @Test("a screenshot is a PNG of the page, written where asked")
    func screenshot() throws {
        try onTestPage { browser, page in
            let png = try browser.screenshot()
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(png.count > 2000)
            let path = page.directory + "/shot.png"
            try browser.screenshot(to: path)
            #expect(FileManager.default.contents(atPath: path)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        }
    }

    @Test("quit ends the session and stops chromedriver with every browser process it started")
    func quitStopsEverything() throws {
        let browser = try WebDriver()
        let group = browser.processGroup
        #expect(kill(-group, 0) == 0)
        browser.quit()
        // The browser's helpers, orphaned by the group's SIGKILL, are gone once init reaps them.
        let cap = Date().addingTimeInterval(WebDriver.hangCap)
        while kill(-group, 0) == 0 && Date() < cap { usleep(20_000) }
        #expect(kill(-group, 0) == -1 && errno == ESRCH)
        browser.quit()
    }
}
