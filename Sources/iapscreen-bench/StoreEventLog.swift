import Decompression
import Dispatch
import Foundation
import IAPBasics
import ReceiptBuilder

/// A gzipped JSON Lines log of store events about a benchmark world's purchases, signed by
/// the world's own keys (its `pki/`, which its Rules trust), cached in /tmp by the number of
/// events and the world's size. A world generated again has new keys: the log notices (it
/// keeps a copy of the JWS-signing certificate it was signed with) and is written again.
struct StoreEventLog {
    let events: Int
    let world: BenchWorld
    let directory: String

    init(events: Int, world: BenchWorld) {
        self.events = events
        self.world = world
        directory = NSTemporaryDirectory() + "iapscreen-bench-events-\(events)-of-\(world.orders)"
    }

    var path: String { directory + "/events.jsonl.gz" }
    /// What the log holds, as `describe` printed it when it was written.
    private var tallyPath: String { directory + "/events.txt" }
    private var signerPath: String { directory + "/jws-signing.cer" }
    private var worldSignerPath: String { world.directory + "/pki/certificates/jws-signing.cer" }

    /// Lines in a batch: planned serially, signed on every core, each worker's share a gzip member.
    static let batch = 2048

    /// The log's description when it is cached and signed by the world's current keys.
    func cached() -> [String]? {
        guard FileManager.default.fileExists(atPath: path),
            let signer = FileManager.default.contents(atPath: signerPath),
            signer == FileManager.default.contents(atPath: worldSignerPath),
            let tally = try? String(contentsOfFile: tallyPath, encoding: .utf8)
        else { return nil }
        return tally.split(separator: "\n").map(String.init)
    }

    /// Writes the log (under a temporary name, then renamed) and returns its description.
    func write(seed: UInt64 = 20_240_301) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let t0 = SystemClock.monotonicSeconds()
        let pki = try TestPKI.load(from: URL(fileURLWithPath: world.directory + "/pki"))
        let purchases = try WorldPurchases.read(
            storekit: world.directory + "/orders-storekit.xml.gz",
            play: world.directory + "/orders-play.jsonl.gz")
        let apps = try WorldApps(rules: world.directory + "/Rules")
        let t1 = SystemClock.monotonicSeconds()
        var planner = StoreEventPlanner(
            seed: seed, world: purchases.orFallback, bundleID: apps.bundleID, packageName: apps.packageName)
        var tally = StoreEventTally()
        let partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
            let file = FileHandle(forWritingAtPath: partial)
        else { throw BenchError("cannot create \(partial)") }
        defer { try? file.close() }
        let signer = pki.jwsSigner
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var recent = [String](repeating: "", count: StoreEventPlanner.againWindow)
        var planned = 0
        var plain = 0
        var stored = 0
        while planned < events {
            var batch: [PlannedEventLine] = []
            while batch.count < Self.batch, planned < events {
                let (line, n) = planner.next(remaining: events - planned)
                tally.add(line, events: n)
                batch.append(line)
                planned += n
            }
            let first = planner.lines - batch.count
            var texts = try Self.sign(batch, with: signer, workers: workers)
            for (k, line) in batch.enumerated() {
                if case .again(let earlier) = line { texts[k] = recent[earlier % recent.count] }
                recent[(first + k) % recent.count] = texts[k]
            }
            for member in Self.compress(texts, parts: workers) {
                try file.write(contentsOf: member.gzip)
                plain += member.plain
                stored += member.gzip.count
            }
        }
        try file.close()
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        try FileManager.default.copyItem(atPath: worldSignerPath, toPath: signerPath + ".new")
        if FileManager.default.fileExists(atPath: signerPath) { try FileManager.default.removeItem(atPath: signerPath) }
        try FileManager.default.moveItem(atPath: signerPath + ".new", toPath: signerPath)
        let t2 = SystemClock.monotonicSeconds()
        var lines = [
            "log: \(events) store events in \(planner.lines) lines, \(format2(Double(stored) / 1e6)) MB gzipped "
                + "(\(format2(Double(plain) / 1e6)) MB plain, \(plain / max(planner.lines, 1)) bytes a line), \(path)"
        ]
        lines += tally.describe(purchases: purchases)
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: tallyPath))
        return lines + [
            "  written in \(format2(t2 - t0)) s (world's purchases read in \(format2(t1 - t0)) s; "
                + "signed on \(workers) cores; cached in \(directory))"
        ]
    }

    /// Each line's text, signed on `workers` threads; nil-free except `.again` lines (empty).
    private static func sign(_ batch: [PlannedEventLine], with signer: SigningIdentity, workers: Int) throws -> [String]
    {
        nonisolated(unsafe) var out = [Result<String, Error>](repeating: .success(""), count: batch.count)
        let parts = min(workers, batch.count)
        out.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: parts) { w in
                var i = w
                while i < batch.count {
                    slots[i] = Result { try text(batch[i], signer) }
                    i += parts
                }
            }
        }
        return try out.map { try $0.get() }
    }

    static func text(_ line: PlannedEventLine, _ signer: SigningIdentity) throws -> String {
        switch line {
        case .webhook(let n):
            return try AppStoreEventBuilder.webhookBody(n, with: signer)
        case .notificationHistory(let ns, let token):
            let entries = try ns.map { try AppStoreEventBuilder.HistoryEntry($0, signedBy: signer) }
            return AppStoreEventBuilder.NotificationHistoryPage(entries: entries, paginationToken: token).text
        case .refundHistory(let ts, let revision):
            return try AppStoreEventBuilder.RefundHistoryPage(transactions: ts, signedBy: signer, revision: revision)
                .text
        case .voided(let v):
            return v.text
        case .voidedPage(let vs, let token):
            return GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: vs, nextPageToken: token).text
        case .push(let p):
            return p.text
        case .again:
            return ""
        }
    }

    /// The lines in `parts` contiguous runs, each one gzip member (a gzip file may hold many, RFC 1952 §2.2).
    private static func compress(_ texts: [String], parts: Int) -> [(gzip: [UInt8], plain: Int)] {
        let parts = max(1, min(parts, texts.count))
        nonisolated(unsafe) var out = [(gzip: [UInt8], plain: Int)](repeating: ([], 0), count: parts)
        out.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let range = (texts.count * p / parts)..<(texts.count * (p + 1) / parts)
                var bytes: [UInt8] = []
                bytes.reserveCapacity(texts[range].reduce(0) { $0 + $1.utf8.count + 1 })
                for t in texts[range] {
                    bytes.append(contentsOf: t.utf8)
                    bytes.append(0x0A)
                }
                slots[p] = (GzipEncoder.compress(bytes, level: 6) ?? [], bytes.count)
            }
        }
        return out
    }
}

/// Our apps as the world's `Rules/apps.csv` names them: the bundle id and the package name.
struct WorldApps {
    var bundleID = "com.example.game"
    var packageName = "com.example.game"

    init(rules: String) throws {
        let text = try String(contentsOfFile: rules + "/apps.csv", encoding: .utf8)
        for row in text.split(separator: "\n").dropFirst() {
            let cells = row.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            if cells[0] == "ios" { bundleID = cells[1] }
            if cells[0] == "android" { packageName = cells[1] }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
