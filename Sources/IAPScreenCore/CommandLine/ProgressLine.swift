import Foundation
import IAPBasics
import Night

#if canImport(Glibc)
    import Glibc
#endif

/// The one line on stderr that a person watching a run reads (docs/monitoring.md): how much of
/// the inputs' bytes is read, how many orders so far, how fast, and how long is left. It
/// is drawn only on a terminal and never with `--quiet`, at most ten times a second;
/// every draw overwrites the last one, and `clear` leaves the line empty for the summary.
final class ProgressLine: NightProgress {
    let enabled: Bool
    private let console: Console
    /// The inputs' sizes on disk, summed (what `bytes` counts up to).
    private let totalBytes: Int
    private let unit: String
    let bytes = ByteCounter()
    private let started: Double
    private var lastDrawn = -Double.infinity
    private var shown = false

    /// `unit` names what `count` counts in the line ("orders").
    init(enabled: Bool, console: Console, totalBytes: Int, unit: String = "orders") {
        self.enabled = enabled
        self.console = console
        self.totalBytes = totalBytes
        self.unit = unit
        started = SystemClock.monotonicSeconds()
    }

    /// Whether stderr is a terminal a person may be watching.
    static func wanted(quiet: Bool) -> Bool { !quiet && isatty(2) == 1 }

    /// The sum of the files' sizes; a file that cannot be sized counts 0 (it is read anyway,
    /// and its failure reported there).
    static func totalSize(of paths: [String]) -> Int {
        var total = 0
        for path in paths {
            var st = stat()
            if stat(path, &st) == 0, st.st_size > 0 { total &+= Int(st.st_size) }
        }
        return total
    }

    /// Called as often as the caller likes; draws when a tenth of a second has passed.
    func tick(count: Int) {
        guard enabled else { return }
        let now = SystemClock.monotonicSeconds()
        guard now - lastDrawn >= 0.1 else { return }
        lastDrawn = now
        draw(ProgressLine.text(done: bytes.count, total: totalBytes, count: count, unit: unit, elapsed: now - started))
    }

    /// A step after the reading (claims, reports): the counts so far and what is going on.
    func phase(_ what: String, count: Int) {
        guard enabled else { return }
        lastDrawn = SystemClock.monotonicSeconds()
        let rate = Double(count) / max(lastDrawn - started, 1e-3)
        draw("100% · \(ProgressLine.grouped(count)) \(unit) · \(ProgressLine.grouped(Int(rate))) \(unit)/s · \(what)")
    }

    func clear() {
        guard enabled, shown else { return }
        console.err.write("\r\u{1B}[K")
        console.err.flush()
        shown = false
    }

    private func draw(_ text: String) {
        console.err.write("\r\u{1B}[K" + text)
        console.err.flush()
        shown = true
    }

    /// `42.1% of 812 MB · 412,345 orders · 23,410 orders/s · 0:35 left`. The time left is the
    /// bytes still to read at the rate bytes have been read so far.
    static func text(done: Int, total: Int, count: Int, unit: String, elapsed: Double) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let rate = Double(count) / max(elapsed, 1e-3)
        var out = String(format: "%.1f%%", fraction * 100) + " of " + size(total)
        out += " · \(grouped(count)) \(unit) · \(grouped(Int(rate))) \(unit)/s"
        if fraction > 0.005, elapsed > 0.5 {
            out += " · " + duration(elapsed * (1 - fraction) / fraction) + " left"
        }
        return out
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func size(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var k = 0
        while value >= 1000, k < units.count - 1 {
            value /= 1000
            k += 1
        }
        return k == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f " : "%.0f ", value) + units[k]
    }

    /// `0:35`, `12:04`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(min(max(seconds, 0), 359_999).rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
