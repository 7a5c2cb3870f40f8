/// What a run hands the ledger of the orders it flagged (CONTRACT §14): for each order its
/// queue columns and the block its entry is in (`heads`, in order id order), and the blocks
/// (`FlaggedBlock`, in the order packed).
public struct FlaggedNight: Sendable {
    public var heads: RunRows<FlaggedOrderHead>
    public var blocks: RunRows<FlaggedBlock>

    public init(heads: RunRows<FlaggedOrderHead>, blocks: RunRows<FlaggedBlock>) {
        self.heads = heads
        self.blocks = blocks
    }

    public static var none: FlaggedNight { FlaggedNight(heads: .none, blocks: .none) }

    /// Whole records in memory, packed as a run packs them (tests, benchmarks); the heads
    /// sorted by order id, of equal ids the first given first.
    public init(_ records: [FlaggedOrderRecord]) {
        var packer = FlaggedBlockPacker()
        var heads: [FlaggedOrderHead] = []
        var blocks: [FlaggedBlock] = []
        for r in records {
            heads.append(FlaggedOrderHead(r, block: packer.block))
            if let full = packer.add(
                orderID: r.orderID, receipt: r.receipt.map { Array($0.utf8) },
                lines: r.findings.map { Array($0.line.utf8) })
            {
                blocks.append(full)
            }
        }
        if let last = packer.finish() { blocks.append(last) }
        let sorted = heads.enumerated().sorted { ($0.element.orderID, $0.offset) < ($1.element.orderID, $1.offset) }
        self.init(heads: RunRows(sorted.map(\.element)), blocks: RunRows(blocks))
    }
}

/// A flagged order as the queue lists it: its flagged.csv columns, the claim keys its receipt
/// named, and the block (of this run's) that holds its receipt and findings.jsonl lines.
public struct FlaggedOrderHead: Sendable, Equatable {
    public var orderID: String
    public var userID: String?
    public var platform: String?
    public var productID: String?
    public var amount: String?
    public var currency: String?
    /// §7 time text, as the reports print it.
    public var createdAt: String?
    /// `Severity.rawValue` of its most severe counting finding.
    public var severity: Int
    /// `rulesColumn(_:)` of the rules of its counting findings.
    public var rules: String
    /// `FlaggedOrderRecord.transactions`.
    public var transactions: [String]
    /// `FlaggedBlock.n`.
    public var block: Int64

    public init(
        orderID: String, userID: String?, platform: String?, productID: String?, amount: String?,
        currency: String?, createdAt: String?, severity: Int, rules: String, transactions: [String], block: Int64
    ) {
        self.orderID = orderID
        self.userID = userID
        self.platform = platform
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.createdAt = createdAt
        self.severity = severity
        self.rules = rules
        self.transactions = transactions
        self.block = block
    }

    public init(_ r: FlaggedOrderRecord, block: Int64) {
        self.init(
            orderID: r.orderID, userID: r.userID, platform: r.platform, productID: r.productID, amount: r.amount,
            currency: r.currency, createdAt: r.createdAt, severity: r.severity, rules: Self.rulesColumn(r.rules),
            transactions: r.transactions, block: block)
    }

    /// Rules (sorted, once each) as the ledger keeps them: space-separated with a space at
    /// each end, so a rule is found by `' ' || id || ' '` and never by a part of another id.
    public static func rulesColumn(_ rules: [String]) -> String { " " + rules.joined(separator: " ") + " " }

    /// `rulesColumn(_:)` read back.
    public static func rules(fromColumn text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
