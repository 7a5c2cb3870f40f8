extension WebDriver {
    /// The first element `selector` matches; `no such element` when none does.
    public func findElement(css selector: String) throws(WebDriverError) -> WebElement {
        try element(from: command("POST", "/element", ["using": "css selector", "value": selector]))
    }

    /// Every element `selector` matches, in document order (none: empty).
    public func findElements(css selector: String) throws(WebDriverError) -> [WebElement] {
        try elements(from: command("POST", "/elements", ["using": "css selector", "value": selector]))
    }

    /// The element that has the focus (the body when none has).
    public var activeElement: WebElement {
        get throws(WebDriverError) { try element(from: command("GET", "/element/active")) }
    }

    func element(from value: Any) throws(WebDriverError) -> WebElement {
        guard let element = WebElement(value, driver: self) else { throw .badResponse("\(value) is no element") }
        return element
    }

    func elements(from value: Any) throws(WebDriverError) -> [WebElement] {
        guard let list = value as? [Any] else { throw .badResponse("\(value) is no list of elements") }
        var found: [WebElement] = []
        for item in list { found.append(try element(from: item)) }
        return found
    }
}
