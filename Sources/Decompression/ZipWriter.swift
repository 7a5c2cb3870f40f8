import CZlib

/// Writes a zip archive in memory, entries stored or deflated through zlib: test fixtures,
/// samples and benchmarks (the layout `ZipArchive` reads, without data descriptors).
public final class ZipWriter {
    public enum Method: UInt16 {
        case stored = 0
        case deflated = 8
    }

    public private(set) var bytes: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0
    // The entry being written.
    private var name: [UInt8] = []
    private var method = Method.deflated
    private var data: [UInt8] = []
    private var encoder: GzipEncoder?
    private var crc: uLong = 0
    private var size = 0

    public init() {}

    /// Starts an entry; the previous one, if any, is finished first.
    public func startEntry(_ name: String, method: Method = .deflated) {
        finishEntry()
        self.name = Array(name.utf8)
        self.method = method
        data = []
        crc = 0
        size = 0
        encoder = method == .deflated ? GzipEncoder(level: 6, raw: true) : nil
    }

    public func write(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { raw in
            crc = crc32(crc, raw.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(raw.count))
            if let encoder { encoder.append(raw, to: &data) } else { data.append(contentsOf: raw) }
        }
        size += chunk.count
    }

    public func write(_ text: String) { write(Array(text.utf8)) }

    /// A whole entry at once.
    public func add(_ name: String, _ content: [UInt8], method: Method = .deflated) {
        startEntry(name, method: method)
        write(content)
        finishEntry()
    }

    /// The archive: every entry, the central directory and its end record.
    public func finish() -> [UInt8] {
        finishEntry()
        let offset = bytes.count
        bytes += directory
        bytes +=
            le32(0x0605_4B50) + le16(0) + le16(0) + le16(count) + le16(count)
            + le32(directory.count) + le32(offset) + le16(0)
        directory = []
        return bytes
    }

    private func finishEntry() {
        guard !name.isEmpty else { return }
        encoder?.finish(to: &data)
        let offset = bytes.count
        // version, flags, method, 00:00, 1980-01-01
        let common =
            le16(20) + le16(0) + le16(Int(method.rawValue)) + le16(0) + le16(0x21)
            + le32(Int(UInt32(truncatingIfNeeded: crc))) + le32(data.count) + le32(size) + le16(name.count) + le16(0)
        bytes += le32(0x0403_4B50) + common + name
        bytes += data
        directory += le32(0x0201_4B50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name
        count += 1
        name = []
        data = []
        encoder = nil
    }

    private func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }

    private func le32(_ v: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16),
            UInt8(truncatingIfNeeded: v >> 24),
        ]
    }
}
