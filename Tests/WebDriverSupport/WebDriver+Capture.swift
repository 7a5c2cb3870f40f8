import Foundation

extension WebDriver {
    /// The viewport as a PNG.
    public func screenshot() throws(WebDriverError) -> Data {
        let encoded = try command("GET", "/screenshot", as: String.self)
        guard let png = Data(base64Encoded: encoded) else { throw .badResponse("screenshot: not base64") }
        return png
    }

    /// Writes the viewport as a PNG to `path` (for a look at what a failing test saw).
    public func screenshot(to path: String) throws(WebDriverError) {
        let png = try screenshot()
        do {
            try png.write(to: URL(fileURLWithPath: path))
        } catch {
            throw WebDriverError("screenshot", "cannot write \(path): \(error)")
        }
    }
}
