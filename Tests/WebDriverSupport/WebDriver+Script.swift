import Foundation

extension WebDriver {
    /// Runs `script` as the body of a function in the page (`return …` gives its value) with
    /// `args` as `arguments[0]`, …: JSON values or `WebElement`s. Its value comes back as JSON
    /// values (`[String: Any]`, `[Any]`, `String`, `NSNumber`/`Bool`/`Int`/`Double`), elements
    /// as `WebElement`, null and undefined as nil. A script that throws is `javascript error`.
    @discardableResult
    public func executeScript(_ script: String, args: [Any] = []) throws(WebDriverError) -> Any? {
        let value = try command("POST", "/execute/sync", ["script": script, "args": args.map(encoded)])
        return decoded(value)
    }

    private func encoded(_ argument: Any) -> Any {
        switch argument {
        case let element as WebElement: element.reference
        case let list as [Any]: list.map(encoded)
        case let object as [String: Any]: object.mapValues(encoded)
        default: argument
        }
    }

    private func decoded(_ value: Any) -> Any? {
        switch value {
        case is NSNull: return nil
        case let list as [Any]: return list.map { decoded($0) ?? NSNull() }
        case let object as [String: Any]:
            if let element = WebElement(object, driver: self) { return element }
            return object.mapValues { decoded($0) ?? NSNull() }
        default: return value
        }
    }
}
