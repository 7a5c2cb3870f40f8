import Decompression
import Dispatch
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Reporting

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the demo world: three orders dumps (CSV, mysqldump XML, mongoexport JSON Lines,
/// all gzipped), a receipts dump, a complete Rules directory whose trust anchors verify
/// every receipt, `expected.csv`, which says what screening must flag, the stores'
/// reports with `expected-reconciliation.csv` (see `SampleStoreSide`), and the store-event
/// log with `expected-store-events.json` (see `SampleStoreEvents`).
public struct SampleWriter {
    let directory: String
    let pki: TestPKI
    let jobs: Int

    public init(directory: String, pki: TestPKI, jobs: Int) {
        self.directory = directory
        self.pki = pki
        self.jobs = jobs
    }

    public struct Counts {
        public var orders = 0
        public var planted = 0
        public var plantedReconciliation = 0
        /// What the store-event log holds.
        public var events = SampleStoreEvents.Tally()
    }

    public func write(orders total: Int, seed: UInt64, start: Timestamp, mix: SampleStoreMix = .classic) throws
        -> Counts
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try writeRules(start: start)
        let appstore = try GzipMembersFile(path(SampleFiles.appStoreOrders))
        let storekit = try GzipMembersFile(path(SampleFiles.storeKitOrders))
        let play = try GzipMembersFile(path(SampleFiles.playOrders))
        let receipts = try GzipMembersFile(path(SampleFiles.receipts))
        let expected = try OutputFile(path(SampleFiles.expected))
        try appstore.write(SampleRows.csvHeader)
        try receipts.write(SampleRows.receiptsHeader)
        try storekit.write(SampleRows.xmlHeader)
        try expected.write(SampleRows.expectedHeader)

        var planner = SamplePlanner(seed: seed, start: start, mix: mix)
        var stores = SampleStoreSide(seed: seed)
        var events = try SampleStoreEvents(directory: directory, pki: pki, seed: seed, start: start)
        var counts = Counts()
        // The seed decides everything, so planning (and what the stores and their events say
        // of each order, which may change its case) goes in order on this thread; signing,
        // rows and compression of each chunk go on every core, written back in order.
        let pki = self.pki
        let workers = OrderedWorkers<SampleChunk, SampleChunk.Rendered>(
            threads: jobs, limit: 4 * jobs, work: { try $0.render(pki: pki) },
            deliver: { r in
                try appstore.writeMember(r.appstore)
                try storekit.writeMember(r.storekit)
                try play.writeMember(r.play)
                try receipts.writeMember(r.receipts)
                try expected.write(r.expected)
            })
        while counts.orders < total {
            var chunk = SampleChunk()
            while chunk.orders.count < Self.chunkOrders, counts.orders + chunk.orders.count < total {
                let group = planner.nextGroup()
                let first = chunk.orders.count
                for planned in group {
                    var o = planned
                    if o.caseName != "clean" { counts.planted += 1 }
                    let twisted = stores.add(o)
                    o.consent = SampleRefundRequests.consent(ofUser: o.userID)
                    if SampleCatalog.items.first(where: { $0.id == o.itemID })?.type == .consumable {
                        o.consumed = SampleRefundRequests.consumed(ofOrder: o.orderID)
                    }
                    // After the stores' side, which draws on the case as planned: an event may change it.
                    try events.add(&o, storeTwisted: twisted)
                    chunk.orders.append(o)
                    chunk.groupStart.append(first)
                }
            }
            counts.orders += chunk.orders.count
            try workers.submit(chunk)
        }
        try workers.finish()
        try storekit.write(SampleRows.xmlFooter)
        for f in [appstore, storekit, play, receipts] { try f.close() }
        try expected.flush()
        try stores.write(into: directory)
        counts.plantedReconciliation = stores.planted
        counts.events = try events.finish(into: directory)
        try Data(try SampleExamples.text(pki: pki, at: start).utf8).write(
            to: URL(fileURLWithPath: path(SampleFiles.examples)))
        return counts
    }

    /// Orders a chunk holds at least (whole groups): big enough that its gzip members compress
    /// well and a worker's hand-over is rare, small enough that every core has several.
    static let chunkOrders = 256

    private func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    // MARK: Rules directory

    private func writeRules(start: Timestamp) throws {
        let rules = path("Rules")
        try FileManager.default.createDirectory(atPath: rules, withIntermediateDirectories: true)
        let day = { (offset: Int64) in
            Timestamp(clampingMillis: start.millis + offset * 86_400_000, hasMilliseconds: false).day()
        }
        let files: [(String, String)] = [
            ("catalog.csv", SampleCatalog.catalogCSV),
            ("apps.csv", "platform,app_id\nios,\(SampleCatalog.bundleID)\nandroid,\(SampleCatalog.bundleID)\n"),
            (
                "reviewers.csv",
                "user_id,from,until,note\n"
                    + SampleCatalog.reviewers.map { "\($0),\(day(-1)),\(day(2)),App Review\n" }.joined()
            ),
            (
                "default.rules",
                """
                # The demo world's rules (written by `iapscreen samples`).
                rule expired-validity severity medium grace_days 1 max_proof_age_days 30
                exempt reviewers from sandbox-in-production
                # How refund requests are answered (these are the defaults, said aloud).
                consumption decline_after_refunds 2 decline_when_consumed 100 prorate no

                """
            ),
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: (rules as NSString).appendingPathComponent(name)))
        }
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: rules), googlePackageNames: [SampleCatalog.bundleID])
    }
}

/// The files of a demo world.
enum SampleFiles {
    static let appStoreOrders = "orders-appstore.csv.gz"
    static let storeKitOrders = "orders-storekit.xml.gz"
    static let playOrders = "orders-play.jsonl.gz"
    static let receipts = "receipts-appstore.csv.gz"
    static let expected = "expected.csv"
    static let storeEvents = SampleStoreEvents.file
    static let examples = "receipt-examples.txt"
    static let orders = [appStoreOrders, storeKitOrders, playOrders]
}

/// A sample file that could not be written, with the system's reason.
struct SampleWriteError: Error, CustomStringConvertible {
    var description: String
}
