import Decompression
import Foundation
import IAPBasics
import StoreReports
import Testing

/// Everything in one report path: its events, skipped rows, ignored count, kinds and container.
struct ReadBack: Equatable {
    var events: [StoreReportRow] = []
    var skipped: [SkippedRow] = []
    var ignored = 0
    var kinds: [ReportKind] = []
    var container = StoreReportFile.Container.plain
    var dataRows = 0

    init(_ path: String, limits: Limits = .standard) throws {
        container = try StoreReportFile.read(path, limits: limits) { reader throws(InputError) in try self.add(reader) }
    }

    /// The same file, read from memory as `name`.
    init(bytes: [UInt8], name: String, limits: Limits = .standard, buffers: ReadBuffers = .standard) throws {
        container = try StoreReportFile.read(bytes: bytes, name: name, limits: limits, buffers: buffers) {
            reader throws(InputError) in
            try self.add(reader)
        }
    }

    private mutating func add(_ reader: StoreReportReader) throws(InputError) {
        kinds.append(reader.kind)
        while let item = try reader.next() {
            switch item {
            case .event(let e): events.append(e)
            case .skipped(let s): skipped.append(s)
            case .ignored: ignored += 1
            }
        }
        dataRows += reader.dataRows
    }
}

@Suite("Reading store reports")
struct StoreReportReadingTests {
    let march1 = CalendarDay.from(year: 2024, month: 3, day: 1) ?? 0

    @Test("a Google sales report in a zip (deflated), with a charge, its refund and renewals ..0 and ..1")
    func googleSalesZip() throws {
        let files = try ReportFiles()
        let csv = ReportFixtures.lines([
            ReportFixtures.salesHeader,
            ReportFixtures.sale("GPA.1111-2222-3333-44444"),
            ReportFixtures.sale("GPA.1111-2222-3333-44444", status: "Refund", amount: "-0.99"),
            ReportFixtures.sale("GPA.5555-6666-7777-88888..0", sku: "vip_monthly", amount: "9.99"),
            ReportFixtures.sale(
                "GPA.5555-6666-7777-88888..1", seconds: 1_709_337_600, sku: "vip_monthly", amount: "9.99"),
        ])
        let zip = ZipWriter()
        zip.add("salesreport_202403.csv", csv)
        let r = try ReadBack(try files.write("salesreport_202403.zip", zip.finish()))
        #expect(r.container == .zip)
        #expect(r.kinds == [.googleSales])
        #expect(r.skipped.isEmpty)
        #expect(r.events.map(\.action) == [.charge, .refund, .charge, .charge])
        #expect(
            r.events.map { $0.orderID ?? "" } == [
                "GPA.1111-2222-3333-44444", "GPA.1111-2222-3333-44444",
                "GPA.5555-6666-7777-88888..0", "GPA.5555-6666-7777-88888..1",
            ])
        #expect(r.events[0].day == march1)
        #expect(r.events[3].day == march1 + 1)
        #expect(r.events[2].productID == "vip_monthly")
        #expect(r.events[2].appID == "com.example.game")
        #expect(r.events[2].amount == DecimalAmount("9.99"))
        #expect(r.events[0].location.description.hasSuffix("salesreport_202403.zip/salesreport_202403.csv:2"))
    }

    @Test("UTF-16LE with a BOM and CRLF, stored in a zip beside an earnings report: both read")
    func utf16AndStoredEntries() throws {
        let files = try ReportFiles()
        let sales =
            ReportFixtures.salesHeader + "\n" + ReportFixtures.sale("GPA.1", currency: "EUR", amount: "1.09") + "\n"
        let earnings =
            ReportFixtures.earningsHeader + "\n" + ReportFixtures.earning("GPA.1") + "\n"
            + ReportFixtures.earning("GPA.1", type: "Google fee", amount: "-0.15") + "\n"
            + ReportFixtures.earning(
                "GPA.1", type: "Charge refund", date: "\"Mar 2, 2024\"", time: "23:30:00 PST", amount: "-0.99") + "\n"
        let zip = ZipWriter()
        zip.add("salesreport_202403.csv", ReportFixtures.utf16LE(sales), method: .stored)
        zip.add("PlayApps_202403.csv", ReportFixtures.utf16BE(earnings), method: .deflated)
        let r = try ReadBack(try files.write("reports.zip", zip.finish()))
        #expect(r.kinds == [.googleSales, .googleEarnings])
        #expect(r.skipped.isEmpty)
        #expect(r.ignored == 1)  // the fee line
        #expect(r.events.count == 3)
        #expect(r.events[0].currency == "EUR")
        #expect(r.events[0].amount == DecimalAmount("1.09"))
        // 04:00 PST on March 1 is 12:00 UTC the same day; 23:30 PST on March 2 is March 3 in UTC.
        #expect(r.events[1].day == march1)
        #expect(r.events[2].day == march1 + 2)
        #expect(r.events[2].action == .refund)
    }

    @Test("header aliases and another column order: Package ID, Order ID, a trimmed set of columns")
    func aliases() throws {
        let files = try ReportFiles()
        let text = ReportFixtures.lines([
            "sku_id,CHARGED AMOUNT,currency of sale,package id,financial-status,order_charged_timestamp,order id",
            "gems_550,4.99,usd,com.example.game,CHARGED,2024-03-01T10:00:00Z,GPA.9",
            "gems_550,4.99,USD,com.example.game,refunded,2024-03-02 10:00:00,GPA.9",
        ])
        let r = try ReadBack(try files.write("sales.csv", text))
        #expect(r.kinds == [.googleSales])
        #expect(r.events.map(\.action) == [.charge, .refund])
        #expect(r.events.map(\.currency) == ["USD", "USD"])
        #expect(r.events[0].appID == "com.example.game")
    }

    @Test("Apple Sales Summary: tab-separated, gzip, app rows ignored, refunds negative, Total_ footers skipped")
    func appleSummary() throws {
        let files = try ReportFiles()
        let text = ReportFixtures.lines([
            ReportFixtures.appleHeader,
            ReportFixtures.appleRow(sku: "com.example.game.gems100", units: "3"),
            ReportFixtures.appleRow(sku: "com.example.game", type: "1F", units: "40", price: "0"),
            ReportFixtures.appleRow(sku: "com.example.game.vip.monthly", type: "IAY", units: "-1", price: "9.99"),
            ReportFixtures.appleRow(
                sku: "com.example.game.noads", type: "IA1-M", units: "1", currency: "EUR", price: "2.99"),
            "Total_Rows\t4",
            "Total_Units\t43",
        ])
        let r = try ReadBack(try files.write("S_D_80012345_20240301.txt.gz", try #require(GzipEncoder.compress(text))))
        #expect(r.container == .gzip)
        #expect(r.kinds == [.appleSalesSummary])
        #expect(r.skipped.isEmpty)
        #expect(r.ignored == 1)
        #expect(r.dataRows == 4)
        #expect(r.events.map(\.units) == [3, -1, 1])
        #expect(r.events[0].amount == DecimalAmount("2.97"))
        #expect(r.events[1].action == .refund)
        #expect(r.events[2].currency == "EUR")
        #expect(r.events.allSatisfy { $0.day == march1 })
    }

    @Test("a preamble before the header is skipped, and lines are counted from the top of the file")
    func preamble() throws {
        let files = try ReportFiles()
        let text = ReportFixtures.lines([
            "Start Date\t03/01/2024", "End Date\t03/01/2024", "", ReportFixtures.appleHeader,
            ReportFixtures.appleRow(sku: "com.example.game.gems100"),
        ])
        let r = try ReadBack(try files.write("S_D.txt", text))
        #expect(r.events.count == 1)
        #expect(r.events[0].location.position == .line(5))
    }

    @Test("a broken row is skipped with its file, line and reason; the rows around it are read")
    func brokenRows() throws {
        let files = try ReportFiles()
        let text = ReportFixtures.lines([
            ReportFixtures.salesHeader,
            ReportFixtures.sale("GPA.1"),
            ReportFixtures.sale("GPA.2", amount: "lots"),
            "GPA.3,2024-03-01,oops",
            ReportFixtures.sale("GPA.4", status: "Pending review"),
            ReportFixtures.sale("GPA.5", seconds: 0).replacingOccurrences(of: ",0,", with: ",yesterday,"),
            ReportFixtures.sale("GPA.6", currency: "US Dollar"),
            "\"GPA.7,unclosed",
        ])
        let path = try files.write("sales.csv", text)
        let r = try ReadBack(path)
        #expect(r.events.map { $0.orderID ?? "" } == ["GPA.1"])
        #expect(r.skipped.map(\.line) == [3, 4, 5, 6, 7, 8])
        #expect(r.skipped.allSatisfy { $0.file == path })
        #expect(r.skipped[0].reason.contains("Charged Amount 'lots'"))
        #expect(r.skipped[1].reason.contains("cells"))
        #expect(r.skipped[2].reason.contains("Financial Status"))
        #expect(r.skipped[3].reason.contains("Timestamp"))
        #expect(r.skipped[4].reason.contains("currency"))
        #expect(r.skipped[5].reason.contains("unclosed quote"))
    }

    @Test("a file that is no store report, or an empty one, cannot be read at all")
    func notAReport() throws {
        let files = try ReportFiles()
        for (name, bytes) in [("orders.csv", Array("order_id,user_id\n1,2\n".utf8)), ("empty.csv", [])] {
            do {
                _ = try ReadBack(try files.write(name, bytes))
                Issue.record("\(name) should not read as a store report")
            } catch let error as InputError {
                #expect(error.code == "not-a-store-report")
            }
        }
        let emptyZip = ZipWriter()
        emptyZip.startEntry("folder/", method: .stored)
        #expect(throws: InputError.self) { try ReadBack(try files.write("empty.zip", emptyZip.finish())) }
    }

    @Test("a report in memory reads as the same file does, through any buffers: zip, gzip, UTF-16, plain, a broken row")
    func fromMemory() throws {
        let files = try ReportFiles()
        let zip = ZipWriter()
        zip.add(
            "salesreport_202403.csv",
            ReportFixtures.utf16LE(ReportFixtures.salesHeader + "\n" + ReportFixtures.sale("GPA.1") + "\n"))
        zip.add(
            "PlayApps_202403.csv",
            ReportFixtures.lines([ReportFixtures.earningsHeader, ReportFixtures.earning("GPA.1")]),
            method: .stored)
        let apple = ReportFixtures.lines([
            ReportFixtures.appleHeader, ReportFixtures.appleRow(sku: "com.example.game.gems100"),
            ReportFixtures.appleRow(sku: "x", units: "many"), "Total_Rows\t2",
        ])
        let reports: [(String, [UInt8])] = [
            ("reports.zip", zip.finish()),
            ("S_D_80012345_20240301.txt.gz", try #require(GzipEncoder.compress(apple))),
            ("S_D_80012345_20240302.txt", apple),
        ]
        for (name, bytes) in reports {
            let path = try files.write(name, bytes)
            let expected = try ReadBack(path)
            #expect(try ReadBack(bytes: bytes, name: path) == expected, "\(name)")
            #expect(try ReadBack(bytes: bytes, name: path, buffers: .small) == expected, "\(name), small buffers")
            let tiny = ReadBuffers(chunkBytes: 64, gzipInputBytes: 64, prefetchChunks: 0)
            #expect(try ReadBack(bytes: bytes, name: path, buffers: tiny) == expected, "\(name), 64-byte buffers")
        }
        let notAReport = Array("just,some\ncsv,text\n".utf8)
        let error = try #require(throws: InputError.self) { _ = try ReadBack(bytes: notAReport, name: "x.csv") }
        #expect(error.code == "not-a-store-report")
        #expect(error.path == "x.csv")
    }
}
