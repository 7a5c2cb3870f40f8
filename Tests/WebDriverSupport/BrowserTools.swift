import Foundation

/// Where Debian's `chromium` and its `chromedriver` (package chromium-driver, the same version)
/// are, and whether the tests that drive them run: they do when both are installed, and always
/// on CI (`CI` set), where their absence is a failure (`.ci/run` installs them through
/// scripts/install-deps.sh --test-tools). Mirrors IAPScreenCoreTests' `Chromium`.
public enum BrowserTools {
    public static let chromium = executable(override: "IAPSCREEN_CHROMIUM", names: ["chromium", "chromium-browser"])
    public static let chromedriver = executable(override: "IAPSCREEN_CHROMEDRIVER", names: ["chromedriver"])

    public static var onCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// Whether WebDriver tests run: both programs are here, or this is CI (where they must be).
    public static var usable: Bool { (chromium != nil && chromedriver != nil) || onCI }

    public static let skipReason =
        "chromium or chromedriver is not installed (scripts/install-deps.sh --test-tools, or apt-get install -y "
        + "chromium chromium-driver); not on CI, so skipped"

    /// The program the environment variable names, else the first of `names` on PATH.
    private static func executable(override variable: String, names: [String]) -> String? {
        let env = ProcessInfo.processInfo.environment
        if let given = env[variable], !given.isEmpty { return given }
        let dirs = (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in names {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
                return dir + "/" + name
            }
        }
        return nil
    }
}
