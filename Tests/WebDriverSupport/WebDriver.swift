import Foundation

/// A headless Chromium driven over W3C WebDriver by a chromedriver of its own: for tests that
/// use a page as a person does (type, click, press keys) and read back what it shows.
///
///     let browser = try WebDriver()
///     defer { browser.quit() }
///     try browser.navigate(to: "http://127.0.0.1:8080/login")
///     try browser.findElement(css: "#username").sendKeys("ada")
///
/// One session, used from one thread at a time. `quit()` (or deinit) ends the session and stops
/// chromedriver with every chromium process it started, and removes the temporary profile.
public final class WebDriver {
    /// How long a request may take before it is taken for a hang: ten minutes, far past what a
    /// slow machine takes, so that no test measures the machine's speed.
    public static let hangCap: TimeInterval = 600

    /// The browser's arguments: headless, in a profile of its own, without what tests do not need.
    public static func chromiumArguments(profile: String) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
            "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
        ]
    }

    private let driver: ChromeDriverProcess
    let http: WebDriverHTTP
    /// WebDriver's session id: every command's path starts with `/session/<id>`.
    public let sessionID: String
    private let directory: String
    private var ended = false

    /// chromedriver's process group: it, the browser and the browser's helpers.
    var processGroup: pid_t { driver.pid }

    /// Starts chromedriver and a browser session. Throws when chromium or chromedriver is not
    /// installed (see `BrowserTools.usable` to skip instead) or does not start.
    public init() throws(WebDriverError) {
        guard let chromium = BrowserTools.chromium, let chromedriver = BrowserTools.chromedriver else {
            throw WebDriverError(
                "chromedriver did not start",
                "chromium or chromedriver is not installed: scripts/install-deps.sh --test-tools installs them")
        }
        directory = NSTemporaryDirectory() + "iapscreen-webdriver-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WebDriverError("chromedriver did not start", "cannot create \(directory): \(error)")
        }
        do throws(WebDriverError) {
            driver = try ChromeDriverProcess.start(executable: chromedriver, directory: directory)
            http = WebDriverHTTP(port: driver.port, timeout: Self.hangCap)
            let options: [String: Any] = [
                "binary": chromium, "args": Self.chromiumArguments(profile: directory + "/profile"),
            ]
            let capabilities = ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]
            let created = try http.send("POST", "/session", ["capabilities": capabilities]) as? [String: Any]
            guard let id = created?["sessionId"] as? String else { throw .badResponse("POST /session: no sessionId") }
            sessionID = id
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit { quit() }

    /// Ends the session (the browser closes), stops chromedriver's process group and removes the
    /// temporary profile. Safe to call more than once.
    public func quit() {
        guard !ended else { return }
        ended = true
        try? deleteSession()
        driver.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `DELETE /session/{id}`: the browser closes; chromedriver keeps running until `quit()`.
    public func deleteSession() throws(WebDriverError) {
        _ = try http.send("DELETE", "/session/\(sessionID)")
    }

    /// Sends a command of this session: `path` is what follows `/session/{id}`.
    @discardableResult
    func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws(WebDriverError) -> Any {
        try http.send(method, "/session/\(sessionID)" + path, body)
    }

    /// The command's value as a `T`, or a `bad response` error saying what came instead.
    func command<T>(_ method: String, _ path: String, _ body: [String: Any]? = nil, as type: T.Type)
        throws(WebDriverError) -> T
    {
        let value = try command(method, path, body)
        guard let typed = value as? T else { throw .badResponse("\(method) \(path): \(value) is no \(T.self)") }
        return typed
    }
}
