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

    init() throws {
        switch UnlinkedFile.create("iapscreen-spill", naming: "a spill file") {
        case .success(let fd): self.fd = fd
        case .failure(let f): throw SpillError(description: f.description)
        }
    }

    deinit { close(fd) }

    /// What the reports need of one order, as the spill file keeps it: its findings and its
    /// receipt's key fields, one JSON object; nil when there is no finding.
    struct Entry {
        var findings: [Finding]
        var receiptFields: [(key: String, value: String)]
    }

    static func encode(_ findings: [Finding], receiptFields: [(key: String, value: String)] = []) -> [UInt8]? {
        guard !findings.isEmpty else { return nil }
        var out = [UInt8]()
        let fields = JSONValue.array(receiptFields.map { .array([.string($0.key), .string($0.value)]) })
        JSONWriter().write(
            .object(JSONObject([("findings", .array(findings.map { .object($0.json) })), ("receipt", fields)])),
            to: &out)
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

    /// Reads an entry already on disk (after `flushPending`); safe from several threads.
    func readFlushed(_ ref: Ref) throws -> Entry {
        guard ref.offset + Int64(ref.length) <= pendingStart else {
            throw SpillError(description: "findings read before they were flushed")
        }
        var bytes = [UInt8](repeating: 0, count: Int(ref.length))
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(ref.offset)) }
        guard n == Int(ref.length) else { throw SpillError(description: "the spill file could not be read back") }
        guard let object = try JSONParser.parse(bytes, limits: .standard).object else {
            throw SpillError(description: "the spill file holds something else than an entry")
        }
        let findings = (object["findings"]?.array ?? []).compactMap { $0.object.flatMap(Finding.init(json:)) }
        let fields: [(key: String, value: String)] = (object["receipt"]?.array ?? []).compactMap { pair in
            guard let kv = pair.array, kv.count == 2, let k = kv[0].string, let v = kv[1].string else { return nil }
            return (k, v)
        }
        return Entry(findings: findings, receiptFields: fields)
    }

    private func flush() throws {
        if let reason = UnlinkedFile.write(fd, pending, at: pendingStart) {
            throw SpillError(description: "cannot write the spill file: \(reason)")
        }
        pendingStart += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }
}
