import ReceiptBuilder

/// Whole groups of planned orders (a replay's `.sameAs` points inside its own chunk): planned
/// in order on one thread, then signed, written as rows and compressed on any thread.
struct SampleChunk {
    var orders: [PlannedOrder] = []
    /// For each order, the index its group starts at.
    var groupStart: [Int] = []

    /// What a chunk adds to each dump (a gzip member each) and to expected.csv (plain text).
    struct Rendered {
        var appstore: [UInt8] = []
        var storekit: [UInt8] = []
        var play: [UInt8] = []
        var receipts: [UInt8] = []
        var expected = ""
    }

    func render(pki: TestPKI) throws -> Rendered {
        let payloads = try SamplePayloads.payloads(of: orders, groupStart: groupStart, pki: pki)
        var appstore = ""
        var storekit = ""
        var play = ""
        var receipts = ""
        var out = Rendered()
        for (o, payload) in zip(orders, payloads) {
            out.expected += SampleRows.expectedRow(o)
            // Overlapping exports write a row twice.
            for _ in 0..<(o.duplicated ? 2 : 1) {
                switch o.store {
                case .appReceipt:
                    if o.status != "orphan" { appstore += SampleRows.csvRow(o) }
                    if let payload { receipts += SampleRows.receiptRow(o, payload) }
                case .jws: SampleRows.appendXMLRow(o, payload, to: &storekit)
                case .google: play += SampleRows.jsonLine(o, payload)
                }
            }
        }
        out.appstore = try SampleText.gzipMember(appstore, for: SampleFiles.appStoreOrders)
        out.storekit = try SampleText.gzipMember(storekit, for: SampleFiles.storeKitOrders)
        out.play = try SampleText.gzipMember(play, for: SampleFiles.playOrders)
        out.receipts = try SampleText.gzipMember(receipts, for: SampleFiles.receipts)
        return out
    }
}
