import Decompression
import DumpFormats
import Foundation
import IAPBasics

/// A directory of dump files made by one test, removed when the test is done with it.
final class DumpFixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iapscreen-dumps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    /// `text` gzip-compressed under `name`.
    func writeGzip(_ name: String, _ text: String) throws -> String {
        guard let compressed = GzipEncoder.compress(Array(text.utf8)) else { throw FixtureError.zlib }
        return try write(name, compressed)
    }

    enum FixtureError: Error { case zlib }
}

/// The orders of a dump written under `name`, or the reasons their rows are malformed.
func readOrders(_ name: String, _ text: String) throws -> [Result<OrderRow, UnreadableRecord>] {
    let files = try DumpFixtures()
    let reader = try DumpReader(path: try files.write(name, text))
    var out: [Result<OrderRow, UnreadableRecord>] = []
    while let next = try reader.nextOrder() { out.append(next) }
    return out
}

/// Every item of a dump, in order.
func readItems(_ path: String, limits: Limits = .standard, buffers: ReadBuffers = .standard) throws -> [DumpItem] {
    let reader = try DumpReader(path: path, limits: limits, buffers: buffers)
    var items: [DumpItem] = []
    while let item = try reader.next() { items.append(item) }
    return items
}

extension DumpItem {
    var record: DumpRecord? {
        if case .record(let r) = self { return r }
        return nil
    }

    var malformed: UnreadableRecord? {
        if case .malformed(let m) = self { return m }
        return nil
    }
}

extension DumpRecord {
    /// The value of the field spelt `name`.
    subscript(name: String) -> DumpValue? {
        fields.first { $0.name == name }?.value
    }

    var line: Int? {
        if case .line(let n) = location.position { return n }
        return nil
    }
}

extension UnreadableRecord {
    var line: Int? {
        if case .line(let n) = location.position { return n }
        return nil
    }
}
