import JSONText
import Ledger
import Reporting
import Screening

/// The orders a night flags, for the desk (`FlaggedOrderRecord`), kept on disk as the reports
/// are written and handed to the ledger in order id order: in runs of `runSize` sorted in
/// memory, merged at the end (`KeyedMerge`). The ledger's B-trees take them in key order at
/// less than half the cost of input order (10⁵ orders on SQLite: 1.5 s sorted, 3.4 s not),
/// and memory stays one run whatever the night.
final class FlaggedOrderSpill {
    static let runSize = 16_384
    private var runs: [PassFile] = []
    private var pending: [FlaggedOrderRecord] = []

    init() throws(PassFile.Failure) {
        pending.reserveCapacity(Self.runSize)
    }

    /// The record of a flagged order of tonight's dump, from its report and its findings.jsonl
    /// lines (one per finding, in order); nil for what the desk does not queue (an order not
    /// flagged, a report that is not an order's).
    static func record(_ r: OrderReport, jsonl: ArraySlice<UInt8>) -> FlaggedOrderRecord? {
        guard r.isFlagged, let orderID = r.orderID else { return nil }
        let lines = jsonl.split(separator: 0x0A, omittingEmptySubsequences: false)
        var findings: [(rule: String, line: String)] = []
        var rules: [String] = []
        var worst = Severity.info
        for (i, f) in r.findings.enumerated() where f.counts {
            worst = max(worst, f.severity)
            rules.append(f.rule)
            // The writer escapes every newline inside a line: line i is finding i's.
            if lines.indices.contains(i) { findings.append((f.rule, String(decoding: lines[i], as: UTF8.self))) }
        }
        rules = Array(Set(rules)).sorted()
        return FlaggedOrderRecord(
            orderID: orderID, userID: r.userID, platform: r.platform, productID: r.productID, amount: r.amount,
            currency: r.currency, createdAt: r.createdAt?.iso8601, severity: worst.rawValue, rules: rules,
            transactions: transactions(r), receipt: receipt(r.receiptFields), findings: findings)
    }

    /// The claim keys of the purchase the receipt's key fields name.
    static func transactions(_ r: OrderReport) -> [String] {
        let fields = Dictionary(r.receiptFields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let keys: [String?]
        if r.platform == "android" {
            keys = [ClaimKey.google(orderID: fields["transaction"], token: fields["purchase token"])]
        } else {
            keys = [ClaimKey.apple(transactionID: fields["transaction"])]
        }
        return keys.compactMap { $0 }
    }

    static func receipt(_ fields: [(key: String, value: String)]) -> String? {
        guard !fields.isEmpty else { return nil }
        return JSONWriter().string(.array(fields.map { .array([.string($0.key), .string($0.value)]) }))
    }

    func put(_ f: FlaggedOrderRecord) throws(PassFile.Failure) {
        pending.append(f)
        if pending.count == Self.runSize { try spillRun() }
    }

    /// The records in memory, sorted, into a file of their own.
    private func spillRun() throws(PassFile.Failure) {
        guard !pending.isEmpty else { return }
        pending.sort { $0.orderID < $1.orderID }
        let file = try PassFile()
        for f in pending { try Self.write(f, to: file) }
        runs.append(file)
        pending.removeAll(keepingCapacity: true)
    }

    private static func write(_ f: FlaggedOrderRecord, to file: PassFile) throws(PassFile.Failure) {
        try file.put(f.orderID)
        for s in [f.userID, f.platform, f.productID, f.amount, f.currency, f.createdAt, f.receipt] { try file.put(s) }
        try file.put(f.severity)
        try file.put(f.rules.count)
        for r in f.rules { try file.put(r) }
        try file.put(f.transactions.count)
        for t in f.transactions { try file.put(t) }
        try file.put(f.findings.count)
        for (rule, line) in f.findings {
            try file.put(rule)
            try file.put(line)
        }
    }

    /// Every record put, smallest order id first (of equal ids, the first put), for the ledger.
    var rows: RunRows<FlaggedOrderRecord> {
        do {
            try spillRun()
        } catch {
            let failure = LedgerError("tonight's flagged orders cannot be kept: \(error)", code: .unreadableRows)
            return RunRows { (_) throws(LedgerError) in throw failure }
        }
        let runs = self.runs
        return SpooledRows.rows { () throws(PassFile.Failure) in
            for file in runs { try file.rewind() }
            var merge = try KeyedMerge<FlaggedOrderRecord, String, PassFile.Failure>(
                runs: runs.count, key: \.orderID,
                next: { (k) throws(PassFile.Failure) in runs[k].atEnd ? nil : try FlaggedOrderSpill.read(runs[k]) })
            return { () throws(PassFile.Failure) in try merge.pop() }
        }
    }

    private static func read(_ file: PassFile) throws(PassFile.Failure) -> FlaggedOrderRecord {
        let id = try file.string()
        var texts: [String?] = []
        for _ in 0..<7 { texts.append(try file.optionalString()) }
        let severity = try file.int()
        var rules: [String] = []
        for _ in 0..<(try file.count()) { rules.append(try file.string()) }
        var transactions: [String] = []
        for _ in 0..<(try file.count()) { transactions.append(try file.string()) }
        var findings: [(rule: String, line: String)] = []
        for _ in 0..<(try file.count()) { findings.append((try file.string(), try file.string())) }
        return FlaggedOrderRecord(
            orderID: id, userID: texts[0], platform: texts[1], productID: texts[2], amount: texts[3],
            currency: texts[4],
            createdAt: texts[5], severity: severity, rules: rules, transactions: transactions, receipt: texts[6],
            findings: findings)
    }
}
