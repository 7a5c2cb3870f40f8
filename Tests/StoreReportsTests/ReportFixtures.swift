import Decompression
import Foundation

/// Store report files written by the tests themselves, in the layouts the stores ship.
enum ReportFixtures {
    static let salesHeader =
        "Order Number,Order Charged Date,Order Charged Timestamp,Financial Status,Device Model,Product Title,"
        + "Product ID,Product Type,SKU ID,Currency of Sale,Item Price,Taxes Collected,Charged Amount,City of Buyer,"
        + "State of Buyer,Postal Code of Buyer,Country of Buyer"

    /// One sales row: 1709294400 is 2024-03-01T12:00:00Z.
    static func sale(
        _ order: String, status: String = "Charged", seconds: Int = 1_709_294_400, sku: String = "gems_100",
        currency: String = "USD", amount: String = "0.99", package: String = "com.example.game"
    ) -> String {
        "\(order),2024-03-01,\(seconds),\(status),d2x,Gems,\(package),inapp,\(sku),\(currency),\(amount),0.00,\(amount),,,,US"
    }

    static let earningsHeader =
        "Description,Transaction Date,Transaction Time,Tax Type,Transaction Type,Refund Type,Product Title,"
        + "Product id,Product Type,Sku Id,Hardware,Buyer Country,Buyer State,Buyer Postal Code,Buyer Currency,"
        + "Amount (Buyer Currency),Currency Conversion Rate,Merchant Currency,Amount (Merchant Currency)"

    static func earning(
        _ order: String, type: String = "Charge", date: String = "\"Mar 1, 2024\"", time: String = "04:00:00 PST",
        sku: String = "gems_100", amount: String = "0.99"
    ) -> String {
        "\(order),\(date),\(time),,\(type),,Gems,com.example.game,inapp,\(sku),d2x,US,,,USD,\(amount),1,USD,\(amount)"
    }

    static let appleHeader = [
        "Provider", "Provider Country", "SKU", "Developer", "Title", "Version", "Product Type Identifier",
        "Units", "Developer Proceeds", "Begin Date", "End Date", "Customer Currency", "Country Code",
        "Currency of Proceeds", "Apple Identifier", "Customer Price",
    ].joined(separator: "\t")

    static func appleRow(
        sku: String, type: String = "IA1", units: String = "1", date: String = "03/01/2024",
        currency: String = "USD", price: String = "0.99"
    ) -> String {
        [
            "APPLE", "US", sku, "Example", "Gems", "", type, units, "0.70", date, date, currency, "US", currency, "123",
            price,
        ]
        .joined(separator: "\t")
    }

    static func lines(_ rows: [String]) -> [UInt8] { Array((rows.joined(separator: "\n") + "\n").utf8) }

    /// UTF-16LE with its byte order mark, CRLF line ends (as a Windows export writes it).
    static func utf16LE(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xFE]
        for unit in text.replacingOccurrences(of: "\n", with: "\r\n").utf16 {
            out.append(UInt8(unit & 0xFF))
            out.append(UInt8(unit >> 8))
        }
        return out
    }

    static func utf16BE(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            out.append(UInt8(unit >> 8))
            out.append(UInt8(unit & 0xFF))
        }
        return out
    }
}

/// A directory of fixture files, removed with the test.
final class ReportFiles {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "iapscreen-reports-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
