import Foundation
import IAPBasics
import JSONText
import Synchronization
import Testing

/// Worlds to remove when the test process ends (a shared world outlives every test).
private let worldsToRemove = Mutex<[String]>([])
private let removeWorldsAtExit: Void = {
    atexit { for path in worldsToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) } }
}()

/// A demo world written once per test run by `iapscreen samples`, and what screening it says.
final class SampleWorld: Sendable {
    let path: String

    static let shared = Result { try SampleWorld(orders: 600, seed: 11) }

    init(orders: Int, seed: Int, mix: String? = nil) throws {
        path = NSTemporaryDirectory() + "iapscreen-world-\(seed)-" + UUID().uuidString
        removeWorldsAtExit
        worldsToRemove.withLock { $0.append(path) }
        let r = try Tool.run(
            ["samples", "--out", path, "--orders", String(orders), "--seed", String(seed)]
                + (mix.map { ["--mix", $0] } ?? []))
        guard r.status == 0 else { throw WorldError(message: "samples failed: \(r.stderr)") }
    }

    struct WorldError: Error {
        var message: String
    }

    /// A copy of the world's Rules in `s`/Rules with a rule on `user.orders` added
    /// (`many-orders`, medium, at 3 orders); its path.
    func rulesCountingUserOrders(in s: Scratch) throws -> String {
        try FileManager.default.copyItem(atPath: path + "/Rules", toPath: s.file("Rules"))
        let rules = try s.read("Rules/default.rules") + "flag medium many-orders if user.orders >= 3\n"
        _ = try s.write("Rules/default.rules", rules)
        return s.file("Rules")
    }

    var orders: [String] {
        ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz"].map { path + "/" + $0 }
    }

    var receipts: String { path + "/receipts-appstore.csv.gz" }

    /// What the stores said after the credit (the world's refunds, forgeries, duplicates, …).
    var storeEvents: String { path + "/store-events.jsonl.gz" }

    func screenArguments(out: String, ledger: String = "none", storeEvents withEvents: Bool = false) -> [String] {
        // The world's refund requests are judged at the moment it says.
        ["screen", "--rules", path + "/Rules", "--orders"] + orders + ["--receipts", receipts]
            + (withEvents ? ["--store-events", storeEvents, "--now", (try? consumptionNow()) ?? ""] : [])
            + ["--out", out, "--ledger", ledger]
    }

    /// expected-store-events.json: summary.json's `store_events` and `consumption_requests` for
    /// the world screened with its log (at `consumptionNow`), and how many of the log's lines
    /// are no event.
    func storeEventExpectations() throws -> (
        storeEvents: JSONValue, consumptionRequests: JSONValue, malformedLines: Int
    ) {
        let o = try expectedStoreEvents()
        return (
            try #require(o["store_events"]), try #require(o["consumption_requests"]),
            Int(try #require(o["malformed_lines"]?.int64))
        )
    }

    /// The moment the world's refund requests are judged at (`--now`).
    func consumptionNow() throws -> String { try #require(try expectedStoreEvents()["consumption_now"]?.string) }

    private func expectedStoreEvents() throws -> JSONObject {
        let text = try String(contentsOfFile: path + "/expected-store-events.json", encoding: .utf8)
        return try #require(try JSONParser.parse(text).object)
    }

    /// The cases expected.csv gives orders an event was planted on.
    static let eventCases = [
        "event-refund-notification", "event-refund-reversed", "event-refund-notification-history",
        "event-refund-history",
        "event-refund-before-credit", "event-forged-refund-notification", "event-voided-purchase-page",
        "event-voided-purchase", "event-rtdn-voided", "event-rtdn-subscription-revoked",
        "event-refund-of-refunded-order", "request-answered", "request-declined", "request-no-consent",
        "request-late", "request-forged",
    ]

    /// expected.csv: order id -> (flagged rules, exempted rules, case).
    func expectations() throws -> [String: (flagged: Set<String>, exempted: Set<String>, name: String)] {
        var out: [String: (Set<String>, Set<String>, String)] = [:]
        let text = try String(contentsOfFile: path + "/expected.csv", encoding: .utf8)
        for line in text.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 4 else { continue }
            func set(_ s: String) -> Set<String> { Set(s.split(separator: ";").map(String.init)) }
            out[cells[0]] = (set(cells[1]), set(cells[2]), cells[3])
        }
        return out
    }
}

/// findings.jsonl, read back.
struct FindingLine {
    var orderID: String?
    var rule: String
    var severity: String
    var exempted: String?
    var review: JSONObject?
    var object: JSONObject

    static func read(_ file: String) throws -> [FindingLine] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let obj = try #require(try JSONParser.parse(String(line)).object)
            return FindingLine(
                orderID: obj["order_id"]?.string, rule: obj["rule"]?.string ?? "",
                severity: obj["severity"]?.string ?? "", exempted: obj["exempted"]?.string,
                review: obj["review"]?.object, object: obj)
        }
    }
}
