import Foundation
import Synchronization
import Testing

/// Headless Chromium (Debian's `chromium`), to read report.html as a reviewer's browser
/// shows it: the DOM after the page's script ran. Tests that need it run when it is
/// installed, and always on CI (`CI` set), where its absence is a failure: `.ci/run`
/// installs it through scripts/install-deps.sh.
enum Chromium {
    static let executable: String? = {
        let env = ProcessInfo.processInfo.environment
        if let given = env["IAPSCREEN_CHROMIUM"], !given.isEmpty { return given }
        let dirs = (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
                return dir + "/" + name
            }
        }
        return nil
    }()

    static var onCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// Whether Chromium tests run: Chromium is here, or this is CI (where it must be).
    static var usable: Bool { executable != nil || onCI }

    static let skipReason: Comment =
        "chromium is not installed (scripts/install-deps.sh --test-tools, or apt-get install -y chromium); not on CI, so skipped"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The page's DOM, serialised after its scripts ran, opened at `#fragment`.
    static func dumpDOM(_ file: String, fragment: String = "") throws -> String {
        try run(["--dump-dom", url(file, fragment)])
    }

    static func url(_ file: String, _ fragment: String) -> String {
        URL(fileURLWithPath: file).absoluteString + (fragment.isEmpty ? "" : "#" + fragment)
    }

    /// `key=value&…` with every value percent-encoded.
    static func fragment(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(
            separator: "&")
    }

    /// How every test starts it: headless, in a profile of its own, without what a test does not need.
    static func options(profile: String) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-extensions", "--user-data-dir=" + profile,
        ]
    }

    static func run(_ args: [String]) throws -> String {
        guard let executable else {
            throw Failure(
                description: "CI is set but chromium is not installed: scripts/install-deps.sh --test-tools installs it"
            )
        }
        let profile = NSTemporaryDirectory() + "iapscreen-chromium-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = options(profile: profile) + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Only a Chromium that hangs is stopped: ten minutes are far past a slow hour's page.
        let hung = Mutex(false)
        let watchdog = DispatchWorkItem {
            if p.isRunning {
                hung.withLock { $0 = true }
                p.terminate()
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        watchdog.cancel()
        if hung.withLock({ $0 }) { throw Failure(description: "chromium hung: stopped after 600 s") }
        guard p.terminationStatus == 0 else { throw Failure(description: "chromium exited \(p.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A dumped DOM, read the crude way: by ids and rows the page writes.
struct DumpedPage {
    let html: String

    /// How a text node with `s` reads in a serialised DOM.
    static func shown(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The text between `id="…">` and the next tag.
    func text(id: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\">") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }

    /// The markup from the element with this id to the end of its table (or the next `</…>` named).
    func section(id: String, until end: String = "</table>") -> String {
        guard let start = html.range(of: "id=\"\(id)\"") else { return "" }
        let rest = html[start.lowerBound...]
        guard let stop = rest.range(of: end) else { return String(rest) }
        return String(rest[..<stop.upperBound])
    }

    /// The rows a grid shows: each row's markup, its evidence row (when open) included.
    func rows(table: String) -> [String] {
        section(id: table, until: "<div class=\"pager\"").components(separatedBy: "<tr data-row=").dropFirst().map {
            String($0)
        }
    }

    var body: String {
        guard let start = html.range(of: "<body") else { return "" }
        return String(html[start.lowerBound...].prefix { $0 != ">" })
    }

    var title: String? {
        guard let start = html.range(of: "<title>") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }
}
