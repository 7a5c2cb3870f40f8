/// What went wrong talking to the browser: WebDriver's own `error` code and `message` when
/// chromedriver answered with one (`no such element`, `javascript error`, …), else ours for
/// what happened before or around it (`chromedriver did not start`, `transport`, `bad response`).
public struct WebDriverError: Error, CustomStringConvertible {
    public var error: String
    public var message: String
    /// The HTTP status chromedriver answered with, when it answered.
    public var status: Int?

    public init(_ error: String, _ message: String, status: Int? = nil) {
        self.error = error
        self.message = message
        self.status = status
    }

    public var description: String { "WebDriver \(error): \(message)" }

    static func badResponse(_ what: String) -> WebDriverError { WebDriverError("bad response", what) }
}
