import DumpFormats
import IAPBasics

/// Text that repeats across a night (products, items, prices, currencies, file names),
/// kept once and referred to by number. Used from the reading thread only.
final class StringPool {
    // `@exclusivity(unchecked)`: only this object's own methods touch it, never two accesses
    // at once; the run-time check was a thread-local lookup at every use (swift_beginAccess).
    @exclusivity(unchecked) private var ids: [String: UInt32] = [:]
    @exclusivity(unchecked) private var strings: [String] = []
    /// The last string asked for in each lane (a field of `StoredOrder`) and its id: a dump
    /// repeats its file, currency and often its price row after row, and comparing with
    /// the last is cheaper than hashing.
    @exclusivity(unchecked) private var lastInLane: [(string: String, id: UInt32)] = Array(
        repeating: ("", 0), count: Lane.count)

    enum Lane: Int {
        case item, product, amount, currency, file
        static let count = 5
    }

    /// 0 stands for nil.
    func id(_ s: String?) -> UInt32 {
        guard let s else { return 0 }
        if let id = ids[s] { return id }
        strings.append(s)
        let id = UInt32(truncatingIfNeeded: strings.count)
        ids[s] = id
        return id
    }

    func id(_ s: String?, lane: Lane) -> UInt32 {
        guard let s else { return 0 }
        let last = lastInLane[lane.rawValue]
        if last.id != 0, last.string == s { return last.id }
        let found = id(s)
        lastInLane[lane.rawValue] = (s, found)
        return found
    }

    func string(_ id: UInt32) -> String? {
        id == 0 ? nil : strings[Int(id) - 1]
    }
}

/// An order row as the night keeps it: its own text (ids) inline, repeated text pooled,
/// no payload. About a hundred bytes instead of the row's several hundred.
struct StoredOrder {
    var orderID: String
    var userID: String
    var transactionID: String?
    private var createdAtMillis: Int64
    var itemID: UInt32
    var productID: UInt32
    var amount: UInt32
    var currency: UInt32
    var file: UInt32
    /// The line (or XML row) it was read at.
    var place: Int32
    var placeIsRow: Bool
    private var createdAtHasMilliseconds: Bool
    var platform: OrderPlatform?
    var status: OrderStatus
    var environment: OrderEnvironment?
    /// `consent` and `consumed`, packed into the three bytes the layout had spare (88 bytes
    /// an order either way): bits 0–1 the consent (0 unknown, 1 yes, 2 no), bit 2 whether
    /// `consumed` is known, bit 3 its milliunits' bit 16, `consumedLow` the rest.
    private var consumption: UInt8
    private var consumedLow: UInt16

    init(_ row: borrowing OrderRow, pool: StringPool) {
        orderID = row.orderID
        userID = row.userID
        transactionID = row.transactionID
        createdAtMillis = row.createdAt.millis
        createdAtHasMilliseconds = row.createdAt.hasMilliseconds
        itemID = pool.id(row.itemID, lane: .item)
        productID = pool.id(row.productID, lane: .product)
        amount = pool.id(row.amount, lane: .amount)
        currency = pool.id(row.currency, lane: .currency)
        file = pool.id(row.location.file, lane: .file)
        switch row.location.position {
        case .line(let n):
            place = Int32(clamping: n)
            placeIsRow = false
        case .row(let n):
            place = Int32(clamping: n)
            placeIsRow = true
        }
        platform = row.platform
        status = row.status
        environment = row.environment
        var bits: UInt8
        switch row.consent {
        case nil: bits = 0
        case .yes: bits = 1
        case .no: bits = 2
        }
        consumedLow = 0
        if let c = row.consumed {
            bits |= 4 | UInt8(truncatingIfNeeded: (c.milliunits >> 16) & 1) << 3
            consumedLow = UInt16(truncatingIfNeeded: c.milliunits)
        }
        consumption = bits
    }

    var consent: OrderConsent? {
        switch consumption & 3 {
        case 1: .yes
        case 2: .no
        default: nil
        }
    }

    var consumed: ConsumedShare? {
        guard consumption & 4 != 0 else { return nil }
        return ConsumedShare(milliunits: Int32(consumption >> 3 & 1) << 16 | Int32(consumedLow))
    }

    var createdAt: Timestamp { Timestamp(clampingMillis: createdAtMillis, hasMilliseconds: createdAtHasMilliseconds) }

    func row(pool: StringPool) -> OrderRow {
        let file = pool.string(self.file) ?? ""
        let location =
            placeIsRow ? SourceLocation(file: file, row: Int(place)) : SourceLocation(file: file, line: Int(place))
        return OrderRow(
            orderID: orderID, userID: userID, createdAt: createdAt, platform: platform,
            itemID: pool.string(itemID), productID: pool.string(productID), transactionID: transactionID,
            amount: pool.string(amount), currency: pool.string(currency), status: status,
            environment: environment, receipt: nil, consumed: consumed, consent: consent, location: location)
    }
}

extension StoredOrder {
    /// As a pass file keeps it (`NightPasses`); the pool's ids stay valid, the pool is the night's.
    func write(to f: PassFile) throws(PassFile.Failure) {
        try f.put(orderID)
        try f.put(userID)
        try f.put(transactionID)
        try f.put(createdAtMillis)
        for id in [itemID, productID, amount, currency, file] { try f.put(id) }
        try f.put(place)
        try f.put(placeIsRow)
        try f.put(createdAtHasMilliseconds)
        try f.put(platform?.rawValue)
        try f.put(status.rawValue)
        try f.put(environment?.rawValue)
        try f.put(consumption)
        try f.put(UInt32(consumedLow))
    }

    init(from f: PassFile) throws(PassFile.Failure) {
        orderID = try f.string()
        userID = try f.string()
        transactionID = try f.optionalString()
        createdAtMillis = try f.int64()
        itemID = try f.uint32()
        productID = try f.uint32()
        amount = try f.uint32()
        currency = try f.uint32()
        file = try f.uint32()
        place = try f.int32()
        placeIsRow = try f.bool()
        createdAtHasMilliseconds = try f.bool()
        platform = try f.optionalRawValue(OrderPlatform.self)
        status = try f.rawValue(OrderStatus.self)
        environment = try f.optionalRawValue(OrderEnvironment.self)
        consumption = try f.uint8()
        let low = try f.uint32()
        guard let low16 = UInt16(exactly: low) else {
            throw PassFile.Failure(description: "a pass file holds \(low) for 16 bits")
        }
        consumedLow = low16
    }
}
