// A block of a run's flagged orders (`FlaggedBlock`) as the desk and `ledger copy` read it
// from a ledger, which may be another's or damaged. The input is tried as a plain block (the
// form the 4 -> 5 migration writes), as the same entries packed (gzip, base64) and as the
// block's text whatever it holds. Each is refused with an error or read; what reads packs
// again into a block that reads the same, and plain and packed read alike.
import Decompression
import IAPBasics
import Ledger

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlaggedBlock(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    _ = try? FlaggedBlock(n: 0, data: String(decoding: bytes, as: UTF8.self)).entries()
    let plain = bytes.first == 0x1E ? bytes : [0x1E] + bytes
    let plainText = String(decoding: plain, as: UTF8.self)
    let read = try? FlaggedBlock(n: 1, data: plainText).entries()
    if let packed = FastGzip.member(Array(plainText.utf8)) {
        let packedRead = try? FlaggedBlock(n: 2, data: Base64.encode(packed)).entries()
        guard packedRead == read else { fatalError("a plain block and the same entries packed read differently") }
    }
    guard let read else { return 0 }
    var packer = FlaggedBlockPacker()
    var again: [FlaggedBlock] = []
    for e in read {
        if let full = packer.add(
            orderID: e.orderID, receipt: e.receipt.map { Array($0.utf8) }, lines: e.lines.map { Array($0.utf8) })
        {
            again.append(full)
        }
    }
    if let last = packer.finish() { again.append(last) }
    var reread: [FlaggedEntry] = []
    for block in again {
        guard let entries = try? block.entries() else { fatalError("a block the packer wrote does not read") }
        reread += entries
    }
    guard reread == read else { fatalError("entries packed again read differently") }
    return 0
}
