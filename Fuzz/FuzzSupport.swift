// Shared by every harness: the limits an input is read with, and reading a dump to its end.
// Every reader takes its input from memory, as the file it would be (a name picks the format),
// through `ReadBuffers.small`: nothing is written to disk, no megabyte buffer is allocated and
// no read-ahead thread is started per input.
import IAPBasics

/// Standard limits for most inputs, small ones when the input's last byte is odd:
/// the fuzzer can flip between them.
func limits(for data: UnsafePointer<UInt8>, _ size: Int) -> Limits {
    size > 0 && data[size - 1] & 1 == 1 ? .small : fuzzStandard
}

/// `Limits.standard`, but with the decompression caps sized for fuzz inputs. The real ones
/// (64 GiB; a 1000:1 ratio judged only past 16 MiB) let a 16 KiB gzip or zip bomb inflate to
/// 16 MiB, a second or more of parsing per run; and since a longer inflate reaches new loop
/// counts, the fuzzer fills its corpus with such bombs (gzip ran at 30 runs/s). Here nothing
/// inflates past 64 KiB, as much as the largest plain input of any harness, and the ratio is
/// judged past 16 KiB, so both caps are still reached. The real caps are tested on real
/// bombs in `Tests/HostileInputTests/BuiltCasesTests.swift`.
let fuzzStandard: Limits = {
    var l = Limits.standard
    l.maxDecompressedBytes = 64 << 10
    l.ratioGraceBytes = 16 << 10
    return l
}()

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
    guard let reader = try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small) else { return }
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
