// gzip input: bytes that start with 1f 8b are read as-is as input.csv.gz (corrupt
// headers, members, trailers, lying sizes); anything else is gzipped here as two members
// (read as CSV, JSON Lines or XML by its first byte) so decompression caps and
// multi-member streams are exercised too. Small limits on odd last bytes.
import Decompression
import IAPBasics

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lim = limits(for: data, size)
    let bytes = inputBytes(data, size)
    if size >= 2, data[0] == 0x1F, data[1] == 0x8B {
        readDump(bytes, name: "input.csv.gz", limits: lim)
        return 0
    }
    let half = size / 2
    guard let first = GzipEncoder.compress(Array(bytes[..<half]), level: 1),
        let second = GzipEncoder.compress(Array(bytes[half...]), level: 9)
    else { return 0 }
    let ext = size == 0 ? ".csv.gz" : [".csv.gz", ".jsonl.gz", ".xml.gz", ".gz"][Int(data[0] % 4)]
    readDump(first + second, name: "member\(ext)", limits: lim)
    return 0
}
