/// The fields of docs/inputs.md that orders and receipts dumps carry, and the names each is
/// known by. Names are compared normalised: lower case, without `_`, `-` and spaces, so
/// `orderId`, `order_id`, `Order-ID` and `ORDER ID` are one name.
enum DumpColumn: Int, CaseIterable {
    case orderID, userID, createdAt, platform, itemID, productID, transactionID
    case amount, currency, status, environment, receipt, receivedAt, consumed, consent

    /// The field's name as docs/inputs.md writes it, used in reasons (`missing order_id`).
    var contractName: String {
        switch self {
        case .orderID: return "order_id"
        case .userID: return "user_id"
        case .createdAt: return "created_at"
        case .platform: return "platform"
        case .itemID: return "item_id"
        case .productID: return "product_id"
        case .transactionID: return "transaction_id"
        case .amount: return "amount"
        case .currency: return "currency"
        case .status: return "status"
        case .environment: return "environment"
        case .receipt: return "receipt"
        case .receivedAt: return "received_at"
        case .consumed: return "consumed"
        case .consent: return "consent"
        }
    }

    /// Normalised names, the field's own first (docs/inputs.md's table).
    var aliases: [String] {
        switch self {
        case .orderID: return ["orderid", "orderno", "ordernumber"]
        case .userID: return ["userid", "uid", "user", "accountid"]
        case .createdAt: return ["createdat", "creditedat"]
        case .platform: return ["platform", "store"]
        case .itemID: return ["itemid", "sku"]
        case .productID: return ["productid"]
        case .transactionID: return ["transactionid", "txnid", "storeorderid"]
        case .amount: return ["amount", "price"]
        case .currency: return ["currency"]
        case .status: return ["status", "state"]
        case .environment: return ["environment", "env"]
        case .receipt: return ["receipt", "receiptdata", "payload"]
        case .receivedAt: return ["receivedat"]
        case .consumed: return ["consumed", "consumption", "used"]
        case .consent: return ["consent", "consumptionconsent", "dataconsent"]
        }
    }

    /// The names a field may have, as people write them (for an error that says what was expected).
    var spellings: String {
        let others = aliases.dropFirst().map { "`\($0)`" }
        return "`\(contractName)`" + (others.isEmpty ? "" : " or " + others.joined(separator: ", "))
            + " (in any case, with or without `_`, `-` and spaces)"
    }

    private static let byAlias: [String: DumpColumn] = {
        var table: [String: DumpColumn] = [:]
        for column in DumpColumn.allCases {
            for alias in column.aliases { table[alias] = column }
        }
        return table
    }()

    /// The column a field name stands for, or nil for a field we do not read.
    static func matching(_ name: String) -> DumpColumn? {
        byAlias[normalised(name)]
    }

    /// Lower case, `_`, `-` and spaces removed: how names and enumerated values compare.
    static func normalised(_ text: String) -> String {
        // Most names and values are written normalised already (`credited`, `ios`): no copy.
        if text.utf8.allSatisfy({ $0 > 0x2D && $0 < 0x80 && !(0x41...0x5A).contains($0) && $0 != 0x5F }) {
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var ascii = true
        for byte in text.utf8 {
            switch byte {
            case 0x5F, 0x2D, 0x20: continue
            case 0x41...0x5A: out.append(byte + 0x20)
            default:
                if byte >= 0x80 { ascii = false }
                out.append(byte)
            }
        }
        let folded = String(decoding: out, as: UTF8.self)
        return ascii ? folded : folded.lowercased()
    }
}
