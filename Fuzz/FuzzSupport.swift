// Shared by every harness: libFuzzer hands bytes; file readers need a file.
#if canImport(Glibc)
import Glibc
#endif
import IAPBasics

/// A per-process scratch directory under /tmp, made once.
let fuzzScratch: String = {
    let dir = "/tmp/iapscreen-fuzz-\(getpid())"
    mkdir(dir, 0o700)
    return dir
}()

/// Writes `bytes` to `path` (created or truncated); false when it cannot.
@discardableResult
func writeFile(_ path: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        guard let base = bytes.baseAddress else { break }
        let n = write(fd, base + done, bytes.count - done)
        guard n > 0 else { return false }
        done += n
    }
    return true
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { writeFile(path, $0) }
}

/// Standard limits for most inputs, small ones when the input's last byte is odd:
/// the fuzzer can flip between them.
func limits(for data: UnsafePointer<UInt8>, _ size: Int) -> Limits {
    size > 0 && data[size - 1] & 1 == 1 ? .small : .standard
}

// MARK: dumps

import DumpFormats

/// Writes the input to a scratch file named `input<ext>` and reads it to the end with
/// DumpReader, alternating orders and receipts-rows; a reader that keeps returning items
/// long after the input ran out is stuck, and trapping shows it.
func readDump(_ data: UnsafePointer<UInt8>, _ size: Int, ext: String, limits: Limits) {
    let path = "\(fuzzScratch)/input\(ext)"
    writeFile(path, UnsafeRawBufferPointer(start: data, count: size))
    readDump(path: path, inputBytes: size, limits: limits)
}

func readDump(path: String, inputBytes: Int, limits: Limits) {
    guard let reader = try? DumpReader(path: path, limits: limits) else { return }
    var items = 0
    do {
        while true {
            let more: Bool
            if items % 2 == 0 { more = try reader.nextOrder() != nil } else { more = try reader.nextReceipt() != nil }
            guard more else { break }
            items += 1
            if items > 2 * inputBytes + 16 && reader.compression == .none {
                fatalError("\(items) items from \(inputBytes) bytes: the reader does not advance")
            }
            if items > 10_000_000 { fatalError("more than 10^7 items: the reader does not advance") }
        }
    } catch {
        _ = error.description
    }
}
