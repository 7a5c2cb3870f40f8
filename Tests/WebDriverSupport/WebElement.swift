import Foundation

/// An element of the page, as WebDriver names it. It goes stale when the page replaces it:
/// its commands then throw `stale element reference`.
public struct WebElement {
    /// The key W3C WebDriver wraps an element's id in, in JSON.
    static let key = "element-6066-11e4-a52e-4f735466cecf"

    let driver: WebDriver
    public let id: String

    init?(_ value: Any, driver: WebDriver) {
        guard let id = (value as? [String: Any])?[Self.key] as? String else { return nil }
        self.driver = driver
        self.id = id
    }

    /// How an element travels as a script argument.
    var reference: [String: String] { [Self.key: id] }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws(WebDriverError)
        -> Any
    {
        try driver.command(method, "/element/\(id)" + path, body)
    }

    /// Scrolls it into view and clicks its centre; fails when something else would get the click.
    public func click() throws(WebDriverError) {
        _ = try command("POST", "/click", [:])
    }

    /// Types `text` into it as keystrokes (it takes the focus first). `WebDriver.Key` names keys.
    public func sendKeys(_ text: String) throws(WebDriverError) {
        _ = try command("POST", "/value", ["text": text])
    }

    /// Empties an input or textarea.
    public func clear() throws(WebDriverError) {
        _ = try command("POST", "/clear", [:])
    }

    /// Its rendered text, as a person sees it (hidden text left out).
    public var text: String {
        get throws(WebDriverError) { try string(command("GET", "/text"), "text") }
    }

    public var tagName: String {
        get throws(WebDriverError) { try string(command("GET", "/name"), "name") }
    }

    /// The attribute as written in the markup (nil when absent); an input's current value is the
    /// `property("value")`.
    public func attribute(_ name: String) throws(WebDriverError) -> String? {
        try command("GET", "/attribute/\(name)") as? String
    }

    /// The DOM property (`value`, `checked`, …): nil when it is null or undefined.
    public func property(_ name: String) throws(WebDriverError) -> Any? {
        let value = try command("GET", "/property/\(name)")
        return value is NSNull ? nil : value
    }

    public var isDisplayed: Bool {
        get throws(WebDriverError) { try command("GET", "/displayed") as? Bool == true }
    }

    public func findElement(css selector: String) throws(WebDriverError) -> WebElement {
        try driver.element(from: command("POST", "/element", ["using": "css selector", "value": selector]))
    }

    public func findElements(css selector: String) throws(WebDriverError) -> [WebElement] {
        try driver.elements(from: command("POST", "/elements", ["using": "css selector", "value": selector]))
    }

    private func string(_ value: Any, _ what: String) throws(WebDriverError) -> String {
        guard let text = value as? String else { throw .badResponse("element \(what): \(value) is no string") }
        return text
    }
}
