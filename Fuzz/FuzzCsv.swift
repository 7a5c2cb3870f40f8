// CSV and TSV dumps: DumpReader over a file named input.csv (first byte odd) or input.tsv:
// header, quoting, fields, records, mapping to orders and receipts rows; standard and small limits.
import IAPBasics

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCsv(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let ext = size > 0 && data[0] & 1 == 1 && data[0] != 0x2D ? ".csv" : ".tsv"
    readDump(inputBytes(data, size), name: "input\(ext)", limits: limits(for: data, size))
    return 0
}
