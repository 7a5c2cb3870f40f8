// Shared by every harness: the limits an input is read with, and reading a dump to its end.
// Every reader takes its input from memory, as the file it would be (a name picks the format):
// nothing is written to disk per input.
import IAPBasics

/// Standard limits for most inputs, small ones when the input's last byte is odd:
/// the fuzzer can flip between them.
func limits(for data: UnsafePointer<UInt8>, _ size: Int) -> Limits {
    size > 0 && data[size - 1] & 1 == 1 ? .small : .standard
}

/// The input's bytes.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

// MARK: dumps

import DumpFormats

/// Reads `bytes` as the dump file `name` to the end with DumpReader, alternating orders
/// and receipts-rows; a reader that keeps returning items long after the input ran out is
/// stuck, and trapping shows it.
func readDump(_ bytes: [UInt8], name: String, limits: Limits) {
    guard let reader = try? DumpReader(bytes: bytes, name: name, limits: limits) else { return }
    var items = 0
    do {
        while true {
            let more: Bool
            if items % 2 == 0 { more = try reader.nextOrder() != nil } else { more = try reader.nextReceipt() != nil }
            guard more else { break }
            items += 1
            if items > 2 * bytes.count + 16 && reader.compression == .none {
                fatalError("\(items) items from \(bytes.count) bytes: the reader does not advance")
            }
            if items > 10_000_000 { fatalError("more than 10^7 items: the reader does not advance") }
        }
    } catch {
        _ = error.description
    }
}
