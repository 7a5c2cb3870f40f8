// iOS 6 transaction receipts: the old-style property list parser, then the legacy
// receipt decoder (purchase-info base64 inside, signature blob lengths).
import IAPBasics
import ReceiptFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lim = limits(for: data, size)
    _ = try? OldStylePlist.parse(bytes, limits: lim)
    _ = try? LegacyReceiptDecoder.decode(plist: bytes, limits: lim)
    return 0
}
