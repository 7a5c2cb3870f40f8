import JSONText
import Ledger
import Reporting
import Screening

/// The orders a night flags, for the desk (`FlaggedNight`), kept on disk as the reports are
/// written. Each order's receipt and findings.jsonl lines are packed into compressed blocks
/// as they come (`FlaggedBlockPacker`), written to a file of their own; what the queue lists
/// of it (`FlaggedOrderHead`) is handed to the ledger in order id order: in runs of `runSize`
/// sorted in memory, merged at the end (`KeyedMerge`). The ledger's B-trees take them in key
/// order at less than half the cost of input order, and memory stays one run whatever the
/// night.
final class FlaggedOrderSpill {
    static let runSize = 16_384
    private var runs: [PassFile] = []
    private var pending: [FlaggedOrderHead] = []
    private var packer = FlaggedBlockPacker()
    private let blocks: PassFile
    private var blockCount = 0

    init() throws(PassFile.Failure) {
        pending.reserveCapacity(Self.runSize)
        blocks = try PassFile()
    }

    /// Keeps a flagged order of tonight's dump, from its report and its findings.jsonl lines
    /// (one per finding, in order); does nothing for what the desk does not queue (an order
    /// not flagged, a report that is not an order's).
    func put(_ r: OrderReport, jsonl: ArraySlice<UInt8>) throws(PassFile.Failure) {
        guard r.isFlagged, let orderID = r.orderID else { return }
        var counting: [ArraySlice<UInt8>] = []
        var rules: [String] = []
        var worst = Severity.info
        // The writer escapes every newline inside a line: line i is finding i's.
        var lineStart = jsonl.startIndex
        for f in r.findings {
            let lineEnd = jsonl[lineStart...].firstIndex(of: 0x0A) ?? jsonl.endIndex
            defer { lineStart = lineEnd < jsonl.endIndex ? lineEnd + 1 : lineEnd }
            guard f.counts else { continue }
            worst = max(worst, f.severity)
            if !rules.contains(f.rule) { rules.append(f.rule) }
            if lineStart < lineEnd { counting.append(jsonl[lineStart..<lineEnd]) }
        }
        rules.sort()
        pending.append(
            FlaggedOrderHead(
                orderID: orderID, userID: r.userID, platform: r.platform, productID: r.productID, amount: r.amount,
                currency: r.currency, createdAt: r.createdAt?.iso8601, severity: worst.rawValue,
                rules: FlaggedOrderHead.rulesColumn(rules), transactions: Self.transactions(r),
                block: packer.block))
        if let full = packer.add(orderID: orderID, receipt: Self.receipt(r.receiptFields), lines: counting) {
            try write(full)
        }
        if pending.count == Self.runSize { try spillRun() }
    }

    /// The claim keys of the purchase the receipt's key fields name.
    static func transactions(_ r: OrderReport) -> [String] {
        func field(_ name: String) -> String? { r.receiptFields.first { $0.key == name }?.value }
        let key =
            r.platform == "android"
            ? ClaimKey.google(orderID: field("transaction"), token: field("purchase token"))
            : ClaimKey.apple(transactionID: field("transaction"))
        return key.map { [$0] } ?? []
    }

    /// The receipt's key fields as a JSON array of `[name, value]` pairs; nil when none.
    static func receipt(_ fields: [(key: String, value: String)]) -> [UInt8]? {
        guard !fields.isEmpty else { return nil }
        let writer = JSONWriter()
        var out: [UInt8] = [0x5B]
        out.reserveCapacity(512)
        for (i, field) in fields.enumerated() {
            out.append(contentsOf: i == 0 ? [0x5B] : [0x2C, 0x5B])
            writer.writeString(field.key, to: &out)
            out.append(0x2C)
            writer.writeString(field.value, to: &out)
            out.append(0x5D)
        }
        out.append(0x5D)
        return out
    }

    private func write(_ block: FlaggedBlock) throws(PassFile.Failure) {
        try blocks.put(block.n)
        try blocks.put(block.data)
        blockCount += 1
    }

    /// The heads in memory, sorted, into a file of their own.
    private func spillRun() throws(PassFile.Failure) {
        guard !pending.isEmpty else { return }
        pending.sort { $0.orderID < $1.orderID }
        let file = try PassFile()
        for f in pending { try Self.write(f, to: file) }
        runs.append(file)
        pending.removeAll(keepingCapacity: true)
    }

    private static func write(_ f: FlaggedOrderHead, to file: PassFile) throws(PassFile.Failure) {
        try file.put(f.orderID)
        for s in [f.userID, f.platform, f.productID, f.amount, f.currency, f.createdAt] { try file.put(s) }
        try file.put(f.severity)
        try file.put(f.rules)
        try file.put(f.transactions.count)
        for t in f.transactions { try file.put(t) }
        try file.put(f.block)
    }

    /// Every order put, heads smallest order id first (of equal ids, the first put), and
    /// every block, for the ledger.
    var night: FlaggedNight {
        do {
            if let last = packer.finish() { try write(last) }
            try spillRun()
        } catch {
            let failure = LedgerError("tonight's flagged orders cannot be kept: \(error)", code: .unreadableRows)
            return FlaggedNight(
                heads: RunRows { (_) throws(LedgerError) in throw failure },
                blocks: RunRows { (_) throws(LedgerError) in throw failure })
        }
        let runs = self.runs
        let heads = SpooledRows.rows { () throws(PassFile.Failure) in
            for file in runs { try file.rewind() }
            var merge = try KeyedMerge<FlaggedOrderHead, String, PassFile.Failure>(
                runs: runs.count, key: \.orderID,
                next: { (k) throws(PassFile.Failure) in runs[k].atEnd ? nil : try FlaggedOrderSpill.read(runs[k]) })
            return { () throws(PassFile.Failure) in try merge.pop() }
        }
        let blocks = self.blocks
        let count = blockCount
        let packed = SpooledRows.rows { () throws(PassFile.Failure) in
            try blocks.rewind()
            var left = count
            return { () throws(PassFile.Failure) -> FlaggedBlock? in
                guard left > 0 else { return nil }
                left -= 1
                return FlaggedBlock(n: try blocks.int64(), data: try blocks.string())
            }
        }
        return FlaggedNight(heads: heads, blocks: packed)
    }

    private static func read(_ file: PassFile) throws(PassFile.Failure) -> FlaggedOrderHead {
        let id = try file.string()
        var texts: [String?] = []
        for _ in 0..<6 { texts.append(try file.optionalString()) }
        let severity = try file.int()
        let rules = try file.string()
        var transactions: [String] = []
        for _ in 0..<(try file.count()) { transactions.append(try file.string()) }
        return FlaggedOrderHead(
            orderID: id, userID: texts[0], platform: texts[1], productID: texts[2], amount: texts[3],
            currency: texts[4], createdAt: texts[5], severity: severity, rules: rules, transactions: transactions,
            block: try file.int64())
    }
}
