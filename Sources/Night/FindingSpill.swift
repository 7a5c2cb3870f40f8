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
    /// The file as the last `flushPending` left it, mapped: an entry is then read where it
    /// lies, not by a system call. Earlier mappings stay until the spill goes (a reader may
    /// still hold one).
    private var mappings: [UnsafeRawBufferPointer] = []

    init() throws {
        switch UnlinkedFile.create("iapscreen-spill", naming: "a spill file") {
        case .success(let fd): self.fd = fd
        case .failure(let f): throw SpillError(description: f.description)
        }
    }

    deinit {
        for m in mappings { munmap(UnsafeMutableRawPointer(mutating: m.baseAddress), m.count) }
        close(fd)
    }

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
    func flushPending() throws {
        try flush()
        let size = Int(pendingStart)
        guard size > (mappings.last?.count ?? 0) else { return }
        // Unmapped, the entries are still read, by `pread`.
        guard let start = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0),
            start != UnsafeMutableRawPointer(bitPattern: -1)
        else { return }
        mappings.append(UnsafeRawBufferPointer(start: start, count: size))
    }

    /// Reads an entry already on disk (after `flushPending`); safe from several threads.
    func readFlushed(_ ref: Ref) throws -> SpilledEntry {
        let end = ref.offset + Int64(ref.length)
        guard ref.offset >= 0, end <= pendingStart else {
            throw SpillError(description: "findings read before they were flushed")
        }
        if let mapped = mappings.last, end <= Int64(mapped.count) {
            return try SpilledEntry(reading: UnsafeRawBufferPointer(rebasing: mapped[Int(ref.offset)..<Int(end)]))
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
