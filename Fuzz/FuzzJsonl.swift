// .jsonl dumps: DumpReader over a file named input.jsonl (header, quoting, fields, records,
// mapping to orders and receipts rows), standard and small limits.
import IAPBasics

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJsonl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    readDump(inputBytes(data, size), name: "input.jsonl", limits: limits(for: data, size))
    return 0
}
