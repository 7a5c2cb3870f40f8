// The explain index `explain --out DIR` opens (`ExplainIndex`): the input, its trailer's
// lengths and its header's digest made right (`sealed`), is written as `explain-index.bin`
// and opened with every check but the comparison with a night, then asked what `explain`
// asks: an order's entries, its facts, its receipt's rows, the order read again from the
// dumps, the store events naming it.
import Foundation
import Night
import StoreCrypto

/// Orders of the seeds' night (`samples/`): one from each orders dump, with facts
/// (ORD-1000001 took a receipts-dump row and has a refund request, ORD-1000190 is a replay,
/// ORD-1000243 was refunded through store events), and one the night never had. The
/// fuzzer moves entries onto their hashes.
private let orderIDs = ["ORD-1000001", "ORD-1000004", "ORD-1000005", "ORD-1000190", "ORD-1000243", "ORD-9999999"]

/// Names the night's store events go by (a transaction, a token, a Google order, the empty
/// name a notification without one keeps), and one no event has.
private let eventNames: Set<String> = [
    "100000000000216", "tok.100000000000673", "g:GPA.3540-3709-0000-03709", "", "no-such-name",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExplainindex(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    indexFile.replaceContents(with: sealed(inputBytes(data, size)))
    let index: ExplainIndex
    switch ExplainIndex.openIgnoringStamp(path: indexFile.path) {
    case .success(let opened): index = opened
    case .failure(let refusal):
        _ = refusal.description
        return 0
    }
    for orderID in orderIDs {
        do {
            for entry in try index.orderEntries(orderID) { _ = try index.facts(of: entry, orderID: orderID) }
            _ = try index.receiptEntries(orderID)
        } catch {
            _ = error.description
        }
    }
    // Read again where the entries say, in the dumps the header names (relative to the
    // repository, where run.sh runs): one order a run, the slowest lookup by far, picked by
    // the input's size so that the fuzzer reaches every dump.
    do { _ = try index.order(orderIDs[size % orderIDs.count]) } catch { _ = error.description }
    do { _ = try index.eventLines(naming: eventNames) } catch { _ = error.description }
    _ = (index.storeEventsRead, index.refundsJudged)
    return 0
}

// MARK: The trailer made right

/// The input with the lengths of its ledger JSON and its header, and the header's SHA-256,
/// made to hold where the input has them: a fuzzer cannot make a digest hold, nor a length
/// follow a JSON it lengthened, and the header (the sections' offsets and counts, the dumps)
/// would never be read past them. The end, from the back:
///
///     header | n u32 | SHA-256 (32) | ledger JSON | m u32 | "IAPSXEND"
///
/// `m` is taken to the last `{"ledger"` and `n` to the last `{"stamp"` before theirs, when
/// there is one; otherwise the input's own are kept.
private func sealed(_ input: [UInt8]) -> [UInt8] {
    var bytes = input
    let trailerAt = bytes.count - 12
    guard trailerAt >= 36 else { return bytes }
    let ledgerAt = lastStart(of: #"{"ledger""#, in: bytes, before: trailerAt) ?? (trailerAt - uint32(bytes, trailerAt))
    let footerAt = ledgerAt - 36
    guard ledgerAt <= trailerAt, footerAt >= 0 else { return bytes }
    put(UInt32(trailerAt - ledgerAt), into: &bytes, at: trailerAt)
    let headerAt = lastStart(of: #"{"stamp""#, in: bytes, before: footerAt) ?? (footerAt - uint32(bytes, footerAt))
    guard headerAt >= 0, headerAt <= footerAt,
        let digest = try? Digest.sha256(Array(bytes[headerAt..<footerAt]))
    else { return bytes }
    put(UInt32(footerAt - headerAt), into: &bytes, at: footerAt)
    bytes.replaceSubrange((footerAt + 4)..<ledgerAt, with: digest)
    return bytes
}

/// Where the last `marker` before `end` starts.
private func lastStart(of marker: String, in bytes: [UInt8], before end: Int) -> Int? {
    let m = Array(marker.utf8)
    var at = end - m.count
    while at >= 0 {
        if bytes[at..<(at + m.count)].elementsEqual(m) { return at }
        at -= 1
    }
    return nil
}

/// The little-endian u32 at `at` (the caller keeps `at + 4` inside `bytes`).
private func uint32(_ bytes: [UInt8], _ at: Int) -> Int {
    (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
}

private func put(_ value: UInt32, into bytes: inout [UInt8], at: Int) {
    for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
}

// MARK: The file

/// The one file every run writes its input to and the index reads with `pread`.
private let indexFile = ReusedFile(path: (indexDirectory as NSString).appendingPathComponent("explain-index.bin"))

/// A folder of this process's own, in memory where there is /dev/shm (a file rewritten on a
/// disk is written back on close, and the disk is shared), removed when the process exits
/// (one a crash or a signal ended stays).
private let indexDirectory: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let directory = (base as NSString).appendingPathComponent("fuzz-explainindex-\(getpid())")
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
        fatalError("\(directory) cannot be made: \(error)")
    }
    atexit { try? FileManager.default.removeItem(atPath: indexDirectory) }
    return directory
}()

private final class ReusedFile: Sendable {
    let path: String
    private let fd: Int32

    init(path: String) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("\(path) cannot be made: \(String(cString: strerror(errno)))") }
    }

    /// Writes `bytes` over the file's start and cuts it there.
    func replaceContents(with bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count, ftruncate(fd, off_t(bytes.count)) == 0 else {
            fatalError("\(path) cannot be written: \(String(cString: strerror(errno)))")
        }
    }
}
