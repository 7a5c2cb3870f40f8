import Decompression
import DumpFormats
import Foundation

/// Writes orders dumps of about `megabytes` each — CSV, JSON Lines and mysqldump XML,
/// plain and gzip — whose rows are mostly a ~13 KB base64 receipt, reads them back as
/// orders, and reports throughput and peak memory, one line per file.
func runDumpBenchmark(megabytes: Int) -> [String] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "iapscreen-dump-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
        return ["dump benchmark: cannot create \(directory.path): \(error)"]
    }
    let rows = max(1, megabytes * 1_000_000 / BenchmarkRows.approximateRowBytes)
    var lines = ["dump reading: \(rows) orders per file, ~13 KB base64 receipt each (MB/s of decompressed bytes)"]
    for layout in BenchmarkRows.Layout.allCases {
        for gzip in [false, true] {
            let path = directory.appendingPathComponent("orders.\(layout.rawValue)\(gzip ? ".gz" : "")").path
            do {
                let sizes = try BenchmarkRows.write(layout, rows: rows, gzip: gzip, to: path)
                lines.append(measure(path: path, sizes: sizes))
                if gzip { lines.append(measureInflateOnly(path: path, plainBytes: sizes.plain)) }
            } catch {
                lines.append("\(path): \(error)")
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }
    return lines
}

private func measure(path: String, sizes: (plain: Int, stored: Int)) -> String {
    resetPeakMemory()
    let clock = ContinuousClock()
    let started = clock.now
    var orders = 0
    var malformed = 0
    do {
        let reader = try DumpReader(path: path)
        while let next = try reader.nextOrder() {
            switch next {
            case .success: orders += 1
            case .failure: malformed += 1
            }
        }
    } catch {
        return "\(path): \(error)"
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let name = (path as NSString).lastPathComponent.padding(toLength: 18, withPad: " ", startingAt: 0)
    let mb = Double(sizes.plain) / 1e6
    return String(
        format: "  %@ %7.1f MB (%7.1f MB stored)  %6.3f s  %7.1f MB/s  %9.0f records/s  %d malformed  peak RSS %@",
        name as NSString, mb, Double(sizes.stored) / 1e6, seconds, mb / seconds,
        Double(orders + malformed) / seconds, malformed, peakMemory() as NSString)
}

/// The same gzip file through zlib alone, nothing parsed: the pace reading cannot beat.
private func measureInflateOnly(path: String, plainBytes: Int) -> String {
    let clock = ContinuousClock()
    let started = clock.now
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    do {
        let input = try InputOpener.open(path: path)
        while try input.stream.read(into: buffer) > 0 {}
    } catch {
        return "\(path): \(error)"
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return String(
        format: "  %@ zlib inflate alone: %6.3f s  %7.1f MB/s",
        "".padding(toLength: 18, withPad: " ", startingAt: 0) as NSString, seconds, Double(plainBytes) / 1e6 / seconds)
}

/// Resets the kernel's peak-RSS mark (Linux ≥ 4.0), so each file is measured alone.
private func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// VmHWM from /proc/self/status: the peak resident set size.
private func peakMemory() -> String {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return "n/a" }
    return line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces)
}

/// Synthetic orders in each dump layout, written in 1 MiB blocks.
private enum BenchmarkRows {
    enum Layout: String, CaseIterable {
        case csv, jsonl, xml
    }

    static let approximateRowBytes = 13_500

    /// Random bytes; each row's receipt is a different 9,750-byte window of them in base64
    /// (~13 KB), so rows differ as real receipts do and gzip sees a realistic ratio.
    static let pool: Data = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8]()
        bytes.reserveCapacity(4 << 20)
        for _ in 0..<(4 << 20) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return Data(bytes)
    }()

    static func receipt(_ i: Int) -> String {
        let start = i &* 7_919 % (pool.count - 9_750)
        return pool.subdata(in: start..<(start + 9_750)).base64EncodedString()
    }

    static let columns = [
        "order_id", "user_id", "created_at", "platform", "item_id", "product_id",
        "transaction_id", "amount", "currency", "status", "environment", "receipt",
    ]

    static func values(_ i: Int) -> [String] {
        return [
            "\(100_000 + i)", "user\(i % 5_000)",
            "2024-03-01T12:\(String(format: "%02d", i / 60 % 60)):\(String(format: "%02d", i % 60))Z",
            i % 2 == 0 ? "ios" : "android", "gems_\(i % 7)", "com.example.gems\(i % 7)", "2000000\(700_000_000 + i)",
            "4.99", "USD", i % 50 == 0 ? "refunded" : "credited", "production", receipt(i),
        ]
    }

    static func row(_ layout: Layout, _ i: Int) -> String {
        let v = values(i)
        switch layout {
        case .csv:
            return v.joined(separator: ",") + "\n"
        case .jsonl:
            return "{" + zip(columns, v).map { "\"\($0)\":\"\($1)\"" }.joined(separator: ",") + "}\n"
        case .xml:
            return "\t<row>\n" + zip(columns, v).map { "\t\t<field name=\"\($0)\">\($1)</field>\n" }.joined()
                + "\t</row>\n"
        }
    }

    static func header(_ layout: Layout) -> String {
        switch layout {
        case .csv: return columns.joined(separator: ",") + "\n"
        case .jsonl: return ""
        case .xml:
            return "<?xml version=\"1.0\"?>\n<mysqldump xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n"
                + "<database name=\"shop\">\n<table_data name=\"orders\">\n"
        }
    }

    static func footer(_ layout: Layout) -> String {
        layout == .xml ? "</table_data>\n</database>\n</mysqldump>\n" : ""
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes the file; returns its plain size and its stored size.
    static func write(_ layout: Layout, rows: Int, gzip: Bool, to path: String) throws -> (plain: Int, stored: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw WriteError(description: "cannot create \(path)") }
        defer { try? file.close() }
        let encoder = gzip ? GzipEncoder(level: 6) : nil
        if gzip, encoder == nil { throw WriteError(description: "zlib could not start") }
        var block: [UInt8] = []
        var compressed: [UInt8] = []
        var plain = 0
        var stored = 0
        func flush(final: Bool) throws {
            plain += block.count
            if let encoder {
                encoder.append(block, to: &compressed)
                if final { encoder.finish(to: &compressed) }
                try file.write(contentsOf: compressed)
                stored += compressed.count
                compressed.removeAll(keepingCapacity: true)
            } else {
                try file.write(contentsOf: block)
                stored += block.count
            }
            block.removeAll(keepingCapacity: true)
        }
        block.append(contentsOf: header(layout).utf8)
        for i in 0..<rows {
            block.append(contentsOf: row(layout, i).utf8)
            if block.count >= 1 << 20 { try flush(final: false) }
        }
        block.append(contentsOf: footer(layout).utf8)
        try flush(final: true)
        return (plain, stored)
    }
}
