// .xml dumps: DumpReader over a file named input.xml (header, quoting, fields, records,
// mapping to orders and receipts rows), standard and small limits.
import IAPBasics

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXml(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    readDump(inputBytes(data, size), name: "input.xml", limits: limits(for: data, size))
    return 0
}
