import Decompression
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import ReceiptFormats
import ReceiptVerification
import Screening

/// The repository root, found from this file (samples/ and its trust live there).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A scratch directory, removed when the value goes away.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "hostile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to `name` inside the directory and returns the full path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let full = (path as NSString).appendingPathComponent(name)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// What reading a whole dump came to: the records and malformed records it gave, or
/// the `InputError` code that stopped it.
struct DumpOutcome: Equatable, CustomStringConvertible {
    var records = 0
    var malformed: [String] = []
    var errorCode: String?
    var errorReason: String?

    /// `ok` (no malformed record), `malformed`, or the error code.
    var summary: String { errorCode ?? (malformed.isEmpty ? "ok" : "malformed") }

    var description: String {
        "\(records) records, \(malformed.count) malformed \(malformed.prefix(3)), error \(errorCode ?? "none") \(errorReason ?? "")"
    }
}

/// Reads the dump at `path` to its end as orders (every record mapped, so mapping errors
/// count as malformed).
func readDump(_ path: String, limits: Limits = .standard, maxItems: Int = 1_000_000) -> DumpOutcome {
    var outcome = DumpOutcome()
    do {
        let reader = try DumpReader(path: path, limits: limits)
        while let item = try reader.nextOrder() {
            switch item {
            case .success: outcome.records += 1
            case .failure(let m): outcome.malformed.append(m.reason)
            }
            if outcome.records + outcome.malformed.count > maxItems { break }
        }
    } catch {
        outcome.errorCode = error.code
        outcome.errorReason = error.reason
    }
    return outcome
}

/// Reads the dump at `path` as the `count` workers of a sharded run do, in step with an
/// unsharded reader; nil when every record is kept by exactly one worker as the unsharded
/// reader read it (what a worker leaves unread is another's), else what went wrong.
func shardedReadDisagreement(_ path: String, count: Int, limits: Limits = .standard, maxItems: Int = 1_000_000)
    -> String?
{
    let shards = (1...count).compactMap { ShardSpec(index: $0, count: count) }
    guard let whole = try? DumpReader(path: path, limits: limits) else { return nil }
    let workers = shards.compactMap { _ in try? DumpReader(path: path, limits: limits) }
    guard workers.count == count else { return "a worker's reader did not open" }
    for n in 1...maxItems {
        let item = try? whole.nextOrder()
        let parts = shards.indices.map { try? workers[$0].nextOrder(in: shards[$0]) }
        guard let item = item ?? nil else {
            return parts.allSatisfy({ $0 == nil })
                ? nil : "record \(n): a worker reads on past the unsharded reader's end"
        }
        var keepers = 0
        for (k, part) in parts.enumerated() {
            switch (part, item) {
            case (.elsewhere?, _): continue
            case (.row(let row)?, .success(let expected)):
                guard row == expected else { return "record \(n): worker \(k + 1) read another row" }
                if shards[k].owns(row.orderID) { keepers += 1 }
            case (.malformed(let m, let ownID)?, .failure(let expected)):
                guard m == expected else { return "record \(n): worker \(k + 1) gave another reason" }
                if ownID || shards[k].index == 1 { keepers += 1 }
            default:
                return "record \(n): worker \(k + 1) read it as the unsharded reader did not"
            }
        }
        if keepers != 1 { return "record \(n): kept by \(keepers) workers of \(count)" }
    }
    return nil
}

/// Writes a Rules directory from `@@ <name>` sections (text before the first marker is
/// `default.rules`) and loads it.
func loadRules(_ bytes: [UInt8], in scratch: ScratchDirectory) throws -> Result<RulesDirectory, RulesProblems> {
    var files: [String: [UInt8]] = [:]
    var current = "default.rules"
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        if line.starts(with: [0x40, 0x40]) {
            current = String(decoding: line.dropFirst(2), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        } else {
            files[current, default: []] += Array(line) + [0x0A]
        }
    }
    for (name, content) in files { try scratch.write(name, content) }
    return RulesDirectory.load(scratch.path)
}

/// The sample trust (Apple roots, the demo Google key): hostile certificates carried by
/// receipts meet a real chain check.
let sampleVerifier: ReceiptVerifier? = {
    let trust = repositoryRoot.appendingPathComponent("samples/Rules/trust").path
    let apple = ["apple-root-ca-g3.cer", "apple-root-ca.cer", "itunes-store-ca.cer"].map { "\(trust)/apple/\($0)" }
    return try? ReceiptVerifier(
        appleAnchorFiles: apple,
        googleKeyFiles: ["com.example.game": "\(trust)/google/com.example.game.pem"])
}()

/// The sample payloads, one a line.
func sampleReceipts() throws -> [[UInt8]] {
    let text = try String(
        contentsOf: repositoryRoot.appendingPathComponent("samples/receipt-examples.txt"), encoding: .utf8)
    return text.split(separator: "\n").map { Array($0.utf8) }.filter { !$0.isEmpty && $0.first != UInt8(ascii: "#") }
}

/// Runs `body` and returns the DecodeError code it throws, or "ok".
func outcome<T>(_ body: () throws(DecodeError) -> T) -> String {
    do {
        _ = try body()
        return "ok"
    } catch {
        return error.code
    }
}

extension Receipt {
    /// The same receipt with other purchases (to compare claims purchase by purchase).
    static func withPurchases(_ receipt: Receipt, _ purchases: [Purchase]) -> Receipt {
        var copy = receipt
        copy.purchases = purchases
        return copy
    }
}
