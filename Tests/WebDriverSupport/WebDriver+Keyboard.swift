extension WebDriver {
    /// Keys that are not characters, as W3C WebDriver writes them (a code point each, §17.4.2).
    public enum Key {
        public static let backspace = "\u{E003}"
        public static let tab = "\u{E004}"
        public static let enter = "\u{E007}"
        public static let escape = "\u{E00C}"
        public static let arrowLeft = "\u{E012}"
        public static let arrowUp = "\u{E013}"
        public static let arrowRight = "\u{E014}"
        public static let arrowDown = "\u{E015}"
    }

    /// Presses and releases each key of `keys` in turn, sent to whatever has the focus (the page's
    /// keydown listeners see them): keyboard shortcuts such as `j`, `k` or `Key.enter`. Through
    /// the actions API, so no element needs to take the focus first.
    public func sendKeys(_ keys: String) throws(WebDriverError) {
        var actions: [[String: String]] = []
        for key in keys {
            actions.append(["type": "keyDown", "value": String(key)])
            actions.append(["type": "keyUp", "value": String(key)])
        }
        let keyboard: [String: Any] = ["type": "key", "id": "keyboard", "actions": actions]
        try command("POST", "/actions", ["actions": [keyboard]])
        try command("DELETE", "/actions")
    }
}
