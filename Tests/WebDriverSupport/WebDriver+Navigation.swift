import Foundation

extension WebDriver {
    /// Loads `url` and waits until the page has loaded (W3C's "normal" page load strategy).
    public func navigate(to url: String) throws(WebDriverError) {
        try command("POST", "/url", ["url": url])
    }

    public func navigate(to url: URL) throws(WebDriverError) {
        try navigate(to: url.absoluteString)
    }

    public var currentURL: String {
        get throws(WebDriverError) { try command("GET", "/url", as: String.self) }
    }

    public var title: String {
        get throws(WebDriverError) { try command("GET", "/title", as: String.self) }
    }

    /// The DOM serialised as it stands now (after scripts ran), not the bytes the server sent.
    public var pageSource: String {
        get throws(WebDriverError) { try command("GET", "/source", as: String.self) }
    }

    public func back() throws(WebDriverError) {
        try command("POST", "/back", [:])
    }

    public func refresh() throws(WebDriverError) {
        try command("POST", "/refresh", [:])
    }
}
