import Foundation
import Synchronization

/// A page open in headless Chromium at a given window size, driven over the DevTools protocol
/// on a pipe (`--remote-debugging-pipe`: Chromium reads commands on fd 3 and answers on fd 4,
/// each message JSON ended by a NUL). It answers what `--dump-dom` cannot: the layout a reader
/// sees (what is clipped, what is in view), by evaluating a script in the page, and what the
/// page looks like (a screenshot). The page's own CSP does not apply to the protocol's scripts,
/// as it does not to a reader's developer tools: the page is tested as it ships.
final class ChromiumPage {
    private let process = Process()
    private let commands = Pipe()
    private let answers = Pipe()
    private let profile = NSTemporaryDirectory() + "iapscreen-chromium-" + UUID().uuidString
    private let watchdog: DispatchWorkItem
    private let hung = HungFlag()
    private var unread = Data()
    private var lastID = 0
    /// The protocol's events seen so far (their method names), for `wait(for:)`.
    private var events: [String] = []
    private var session = ""

    /// Opens `file#fragment` in a window of `width`×`height` CSS pixels, once it has loaded (its
    /// script has run).
    init(_ file: String, fragment: String = "", width: Int = 1280, height: Int = 800) throws {
        guard let executable = Chromium.executable else {
            throw Chromium.Failure(
                description: "CI is set but chromium is not installed: scripts/install-deps.sh --test-tools installs it"
            )
        }
        // The shell hands Chromium our two pipes as fds 3 and 4, and nothing on 0 and 1.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null", executable]
            + Chromium.options(profile: profile) + [
                "--remote-debugging-pipe", "--window-size=\(width),\(height)", "about:blank",
            ]
        process.standardInput = commands
        process.standardOutput = answers
        process.standardError = FileHandle.nullDevice
        // Only a Chromium that hangs is stopped, as `Chromium.run` does.
        let (p, flag) = (process, hung)
        watchdog = DispatchWorkItem {
            if p.isRunning {
                flag.value.withLock { $0 = true }
                p.terminate()
            }
        }
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
        do {
            let target = try send("Target.createTarget", ["url": "about:blank"])
            guard let id = target["targetId"] as? String else { throw failure("no target: \(target)") }
            let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true])
            guard let session = attached["sessionId"] as? String else { throw failure("no session: \(attached)") }
            self.session = session
            _ = try send("Page.enable")
            _ = try send(
                "Emulation.setDeviceMetricsOverride",
                ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
            _ = try send("Page.navigate", ["url": Chromium.url(file, fragment)])
            try wait(for: "Page.loadEventFired")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        watchdog.cancel()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// What `expression` gives, run in the page; it must give a string (`JSON.stringify` what is not).
    func evaluate(_ expression: String) throws -> String {
        let answer = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let thrown = answer["exceptionDetails"] { throw failure("the script threw: \(thrown)") }
        guard let result = answer["result"] as? [String: Any], let value = result["value"] as? String else {
            throw failure("the script gave no string: \(answer)")
        }
        return value
    }

    /// What the window shows now, as a PNG at `path`.
    func screenshot(to path: String) throws {
        let shot = try send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = shot["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw failure("no screenshot")
        }
        try png.write(to: URL(fileURLWithPath: path))
    }

    private func failure(_ what: String) -> Chromium.Failure {
        Chromium.Failure(description: hung.value.withLock { $0 } ? "chromium hung: stopped after 600 s" : what)
    }

    /// Sends a command (to the page once attached) and returns its result.
    private func send(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        lastID += 1
        var message: [String: Any] = ["id": lastID, "method": method, "params": params]
        if !session.isEmpty { message["sessionId"] = session }
        var bytes = try JSONSerialization.data(withJSONObject: message)
        bytes.append(0)
        try commands.fileHandleForWriting.write(contentsOf: bytes)
        while true {
            let m = try next()
            guard (m["id"] as? Int) == lastID else { continue }
            if let error = m["error"] { throw failure("\(method) failed: \(error)") }
            return m["result"] as? [String: Any] ?? [:]
        }
    }

    private func wait(for event: String) throws {
        while !events.contains(event) { _ = try next() }
    }

    /// The next message, noting the page's events as they pass.
    private func next() throws -> [String: Any] {
        while true {
            if let end = unread.firstIndex(of: 0) {
                let bytes = unread[unread.startIndex..<end]
                unread = Data(unread[(end + 1)...])
                guard let m = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else { continue }
                if let method = m["method"] as? String, (m["sessionId"] as? String) == session {
                    events.append(method)
                }
                return m
            }
            let more = answers.fileHandleForReading.availableData
            if more.isEmpty { throw failure("chromium closed the protocol's pipe") }
            unread.append(more)
        }
    }
}

/// Whether the watchdog stopped Chromium, shared with the watchdog's closure.
private final class HungFlag: Sendable {
    let value = Mutex(false)
}
