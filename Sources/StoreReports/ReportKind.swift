/// The store reports `reconcile` reads, recognised by their header (docs/reconcile.md,
/// reference/store-reports.md §4.1 and §4.4).
public enum ReportKind: String, Sendable, CaseIterable {
    /// Google Play sales report (`salesreport_YYYYMM.zip`): one row per order event.
    case googleSales = "google-sales"
    /// Google Play earnings report (`PlayApps_YYYYMM.zip`): charges, fees, taxes, refunds.
    case googleEarnings = "google-earnings"
    /// Apple Sales Summary report (`S_D_…txt.gz`, tab-separated): units per SKU and day.
    case appleSalesSummary = "apple-sales-summary"

    public var store: StoreName {
        self == .appleSalesSummary ? .apple : .google
    }

    /// The columns a header must have to be this kind; `anyOf` groups need one member each.
    var required: [[ReportColumn]] {
        switch self {
        case .googleSales:
            return [
                [.orderNumber], [.financialStatus], [.skuID], [.currencyOfSale], [.chargedAmount],
                [.chargedTimestamp, .chargedDate],
            ]
        case .googleEarnings:
            return [[.description], [.transactionType], [.transactionDate], [.skuID], [.buyerCurrency], [.buyerAmount]]
        case .appleSalesSummary:
            return [[.sku], [.productTypeIdentifier], [.units], [.beginDate], [.customerCurrency], [.customerPrice]]
        }
    }

    /// The kind a header row names, with where each column is; nil for any other row.
    static func recognise(_ normalisedHeader: [String]) -> (ReportKind, [ReportColumn: Int])? {
        for kind in ReportKind.allCases {
            var columns: [ReportColumn: Int] = [:]
            for (i, name) in normalisedHeader.enumerated() {
                if let column = ReportColumn.matching(name, in: kind), columns[column] == nil { columns[column] = i }
            }
            if kind.required.allSatisfy({ group in group.contains { columns[$0] != nil } }) { return (kind, columns) }
        }
        return nil
    }
}

/// The two stores.
public enum StoreName: String, Sendable, CaseIterable, Hashable, Comparable {
    case google
    case apple

    public static func < (a: StoreName, b: StoreName) -> Bool {
        a == .google && b == .apple
    }
}

/// A column `reconcile` reads, and the names each report version gives it. Names compare
/// normalised: ASCII letters and digits only, lower case (`Amount (Buyer Currency)` is
/// `amountbuyercurrency`), so case, spaces, `_`, `-` and brackets never matter.
enum ReportColumn: Sendable, Hashable {
    // Google sales
    case orderNumber, chargedTimestamp, chargedDate, financialStatus, packageName, skuID, currencyOfSale, chargedAmount
    // Google earnings
    case description, transactionDate, transactionTime, transactionType, buyerCurrency, buyerAmount
    // Apple Sales Summary
    case sku, productTypeIdentifier, units, beginDate, endDate, customerCurrency, customerPrice

    /// Normalised aliases per report kind (reference/store-reports.md §4.1, §4.4: `Package ID`
    /// for `Product ID`, trimmed and reordered headers across versions).
    private static func aliases(_ kind: ReportKind) -> [String: ReportColumn] {
        switch kind {
        case .googleSales:
            return [
                "ordernumber": .orderNumber, "orderid": .orderNumber,
                "orderchargedtimestamp": .chargedTimestamp, "chargedtimestamp": .chargedTimestamp,
                "orderchargeddate": .chargedDate, "chargeddate": .chargedDate,
                "financialstatus": .financialStatus,
                "productid": .packageName, "packageid": .packageName, "packagename": .packageName,
                "skuid": .skuID, "sku": .skuID,
                "currencyofsale": .currencyOfSale, "salecurrency": .currencyOfSale,
                "chargedamount": .chargedAmount,
            ]
        case .googleEarnings:
            return [
                "description": .description, "orderid": .description, "ordernumber": .description,
                "transactiondate": .transactionDate, "transactiontime": .transactionTime,
                "transactiontype": .transactionType,
                "productid": .packageName, "packageid": .packageName, "packagename": .packageName,
                "skuid": .skuID, "sku": .skuID,
                "buyercurrency": .buyerCurrency, "amountbuyercurrency": .buyerAmount,
            ]
        case .appleSalesSummary:
            return [
                "sku": .sku, "producttypeidentifier": .productTypeIdentifier, "producttype": .productTypeIdentifier,
                "units": .units, "unit": .units, "quantity": .units,
                "begindate": .beginDate, "startdate": .beginDate, "enddate": .endDate,
                "customercurrency": .customerCurrency, "customerprice": .customerPrice,
            ]
        }
    }

    private static let tables: [ReportKind: [String: ReportColumn]] = {
        var out: [ReportKind: [String: ReportColumn]] = [:]
        for kind in ReportKind.allCases { out[kind] = aliases(kind) }
        return out
    }()

    static func matching(_ normalisedName: String, in kind: ReportKind) -> ReportColumn? {
        tables[kind]?[normalisedName]
    }

    /// ASCII letters and digits, lower case; everything else dropped.
    static func normalised(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A: out.append(byte + 0x20)
            case 0x61...0x7A, 0x30...0x39: out.append(byte)
            default: continue
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
