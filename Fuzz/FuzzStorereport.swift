// Store reports: the bytes are read as a file by StoreReportFile to the end,
// whatever they are (a zip archive when they start with PK, gzip with 1f 8b, else text in
// any encoding); anything that is not a zip is also wrapped in a zip here (stored when the
// first byte is even, deflated when odd) so entry reading and CRC checks run on every
// input. Small limits on odd last bytes.
import Decompression
import IAPBasics
import StoreReports

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStorereport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lim = limits(for: data, size)
    let bytes = inputBytes(data, size)
    readReport(bytes, name: "report", limits: lim)
    if !ZipArchive.isZip(Array(bytes.prefix(4))) {
        let zip = ZipWriter()
        zip.add("report.csv", bytes, method: size > 0 && data[0] & 1 == 1 ? .deflated : .stored)
        readReport(zip.finish(), name: "report.zip", limits: lim)
    }
    return 0
}

func readReport(_ bytes: [UInt8], name: String, limits: Limits) {
    var items = 0
    do {
        try StoreReportFile.read(bytes: bytes, name: name, limits: limits, buffers: .small) {
            reader throws(InputError) in
            while let item = try reader.next() {
                if case .skipped(let s) = item { _ = s.description }
                items += 1
                if items > 10_000_000 { fatalError("more than 10^7 rows: the reader does not advance") }
            }
        }
    } catch {
        _ = error.description
    }
}
