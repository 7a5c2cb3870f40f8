import Foundation
import JSONText
import Screening

#if canImport(Glibc)
    import Glibc
#endif

/// Findings of the night's orders wait here, on disk, until the reports are written in
/// input order: memory stays flat however many orders are flagged. The file has no name
/// (unlinked once open), so a run that dies leaves nothing behind.
final class FindingSpill {
    struct Ref: Sendable {
        var offset: Int64
        var length: UInt32
    }

    struct SpillError: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var pending: [UInt8] = []
    private var pendingStart: Int64 = 0
    /// The most a window reads (`window(over:)`): memory stays small however big the night.
    static let windowBytes: Int64 = 8 << 20

    init() throws {
        switch UnlinkedFile.create("iapscreen-spill", naming: "a spill file") {
        case .success(let fd): self.fd = fd
        case .failure(let f): throw SpillError(description: f.description)
        }
    }

    deinit { close(fd) }

    /// An order's findings and its receipt's key fields as the spill file keeps them
    /// (`SpilledEntry`); nil when there is no finding.
    static func encode(_ findings: [Finding], receiptFields: [(key: String, value: String)] = []) -> [UInt8]? {
        guard !findings.isEmpty else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(256)
        SpilledEntry.encode(findings, receiptFields: receiptFields, to: &out)
        return out
    }

    /// Keeps encoded findings.
    func append(_ encoded: [UInt8]) throws -> Ref {
        let start = pendingStart + Int64(pending.count)
        pending.append(contentsOf: encoded)
        let ref = Ref(offset: start, length: UInt32(clamping: encoded.count))
        if pending.count >= 1 << 20 { try flush() }
        return ref
    }

    /// Writes out what is still buffered, so that `readFlushed` may run on any thread.
    func flushPending() throws { try flush() }

    /// Flushed bytes read at once, from `offset` on.
    struct Window: Sendable {
        let offset: Int64
        let bytes: [UInt8]
    }

    /// The entries `refs` point at, read with one system call rather than one each when they
    /// lie within `windowBytes` (a chunk of reports in input order: the workers spilled them
    /// in about that order); nil when they do not.
    func window(over refs: some Sequence<Ref>) throws -> Window? {
        var low = Int64.max
        var high = Int64.min
        for r in refs {
            low = min(low, r.offset)
            high = max(high, r.offset + Int64(r.length))
        }
        guard low >= 0, low < high, high - low <= Self.windowBytes, high <= pendingStart else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(high - low))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(low) + off_t(done))
            }
            guard n > 0 else { throw SpillError(description: "the spill file could not be read back") }
            done += n
        }
        return Window(offset: low, bytes: bytes)
    }

    /// Reads an entry already on disk (after `flushPending`), from `window` when it holds
    /// it; safe from several threads.
    func readFlushed(_ ref: Ref, in window: Window? = nil) throws -> SpilledEntry {
        let end = ref.offset + Int64(ref.length)
        guard ref.offset >= 0, end <= pendingStart else {
            throw SpillError(description: "findings read before they were flushed")
        }
        if let window, ref.offset >= window.offset, end - window.offset <= Int64(window.bytes.count) {
            let from = Int(ref.offset - window.offset)
            return try window.bytes.withUnsafeBytes { all in
                try SpilledEntry(reading: UnsafeRawBufferPointer(rebasing: all[from..<from + Int(ref.length)]))
            }
        }
        return try withUnsafeTemporaryAllocation(byteCount: Int(ref.length), alignment: 1) { bytes in
            let n = pread(fd, bytes.baseAddress, bytes.count, off_t(ref.offset))
            guard n == Int(ref.length) else { throw SpillError(description: "the spill file could not be read back") }
            return try SpilledEntry(reading: UnsafeRawBufferPointer(bytes))
        }
    }

    private func flush() throws {
        if let reason = UnlinkedFile.write(fd, pending, at: pendingStart) {
            throw SpillError(description: "cannot write the spill file: \(reason)")
        }
        pendingStart += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }
}
