import Foundation
import Synchronization
import IAPBasics
import JSONText
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

    init(orders: Int, seed: Int) throws {
        path = NSTemporaryDirectory() + "iapscreen-world-\(seed)-" + UUID().uuidString
        removeWorldsAtExit
        worldsToRemove.withLock { $0.append(path) }
        let r = try Tool.run(["samples", "--out", path, "--orders", String(orders), "--seed", String(seed)])
        guard r.status == 0 else { throw WorldError(message: "samples failed: \(r.stderr)") }
    }

    struct WorldError: Error {
        var message: String
    }

    var orders: [String] {
        ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz"].map { path + "/" + $0 }
    }

    var receipts: String { path + "/receipts-appstore.csv.gz" }

    func screenArguments(out: String, ledger: String = "none") -> [String] {
        ["screen", "--rules", path + "/Rules", "--orders"] + orders + ["--receipts", receipts, "--out", out, "--ledger", ledger]
    }

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
            return FindingLine(orderID: obj["order_id"]?.string, rule: obj["rule"]?.string ?? "",
                               severity: obj["severity"]?.string ?? "", exempted: obj["exempted"]?.string,
                               review: obj["review"]?.object, object: obj)
        }
    }
}
