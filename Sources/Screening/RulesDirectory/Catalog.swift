import ReceiptFormats

/// `catalog.csv`: `item_id,platform,product_id,type,price,currency[,sample_content][,period_days]`
/// — the app's items and the store product each maps to on each platform.
public struct Catalog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var itemID: String
        public var platform: Platform
        public var productID: String
        public var type: ProductType
        /// Decimal text in major units, as written (`4.99`).
        public var price: String
        public var currency: String
        /// A free sample or trial of the item was offered before it was bought (what a refund
        /// request's answer says as `sampleContentProvided`).
        public var sampleContent = false
        /// A non-renewing subscription's length in days, when its receipt states no expiry.
        public var periodDays: Int?
    }

    public private(set) var entries: [Entry] = []
    private var byItem: [String: [Int]] = [:]
    private var byProduct: [String: Int] = [:]

    public init(_ entries: [Entry] = []) {
        for e in entries { add(e) }
    }

    mutating func add(_ e: Entry) {
        byItem[e.itemID, default: []].append(entries.count)
        if byProduct[key(e.platform, e.productID)] == nil { byProduct[key(e.platform, e.productID)] = entries.count }
        entries.append(e)
    }

    private func key(_ p: Platform, _ product: String) -> String { p.rawValue + "\u{1F}" + product }

    public var isEmpty: Bool { entries.isEmpty }

    /// The item's entry for a platform; with no platform, the item's only entry if it has one.
    public func item(_ itemID: String, platform: Platform?) -> Entry? {
        guard let idx = byItem[itemID] else { return nil }
        if let platform { return idx.lazy.map { entries[$0] }.first { $0.platform == platform } }
        return idx.count == 1 ? entries[idx[0]] : nil
    }

    /// All platforms' entries of an item.
    public func entries(ofItem itemID: String) -> [Entry] {
        (byItem[itemID] ?? []).map { entries[$0] }
    }

    public func product(_ productID: String, platform: Platform) -> Entry? {
        byProduct[key(platform, productID)].map { entries[$0] }
    }
}

/// Platform names as dumps and Rules files write them.
public func platform(named name: String) -> Platform? {
    switch name.lowercased() {
    case "ios", "apple", "appstore", "app_store", "app store": return .ios
    case "android", "google", "googleplay", "google_play", "google play", "play": return .android
    default: return nil
    }
}
