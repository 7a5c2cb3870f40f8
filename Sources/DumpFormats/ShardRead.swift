import IAPBasics

/// A record as a sharded run's worker reads it (`DumpReader.nextOrder(in:)`): the layouts
/// that can find a record's order id on its own (CSV and TSV with one order-id column, JSON
/// Lines) leave another shard's records unread, which is most of a worker's parsing.
public enum ShardRead<Row: Sendable>: Sendable {
    /// Another shard's record: its order id was found and hashes elsewhere.
    case elsewhere
    case row(Row)
    /// `ownID`: the record's order id was found and is this shard's, so this worker
    /// reports it; false when no id could be found alone (the first shard reports those).
    case malformed(UnreadableRecord, ownID: Bool)

    /// An unsharded reader's record.
    public init(_ read: Result<Row, UnreadableRecord>) {
        switch read {
        case .success(let row): self = .row(row)
        case .failure(let m): self = .malformed(m, ownID: false)
        }
    }
}

/// An item of a `RecordSource` read for one shard.
enum SourceItem {
    case elsewhere
    /// `ownID` as in `ShardRead.malformed`.
    case item(DumpItem, ownID: Bool)
}

/// Order ids as a record holds them, found without reading the record.
enum OrderIDBytes {
    /// The id's bytes when the mapper would read exactly them as the order id: ASCII,
    /// nothing to unescape, not empty once trimmed as the mapper trims; nil otherwise (the
    /// record is then read whole).
    static func plain(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let (id, _) = LineSplitter.trimmed(bytes)
        guard !id.isEmpty else { return nil }
        for byte in id where byte >= 0x80 || byte == 0x5C || byte == 0x22 || byte < 0x20 { return nil }
        return id
    }

    /// Whether a field name stands for the order id (`DumpColumn.orderID`'s aliases,
    /// compared as `DumpColumn.normalised` compares them), without making a string; nil
    /// for a name that is not ASCII (Unicode case folding is the mapper's to do).
    static func isOrderIDName(_ name: UnsafeRawBufferPointer) -> Bool? {
        guard !name.contains(where: { $0 >= 0x80 }) else { return nil }
        var folded: (UInt64, UInt64) = (0, 0)
        var n = 0
        for c in name {
            switch c {
            case 0x5F, 0x2D, 0x20: continue
            case 0x41...0x5A, 0x61...0x7A:
                guard n < 16 else { return false }
                let lower = UInt64(c | 0x20) << UInt64(8 * (n % 8))
                if n < 8 { folded.0 |= lower } else { folded.1 |= lower }
                n += 1
            default: return false
            }
        }
        return aliases.contains { $0.0 == folded.0 && $0.1 == folded.1 }
    }

    private static let aliases: [(UInt64, UInt64)] = DumpColumn.orderID.aliases.map { alias in
        var folded: (UInt64, UInt64) = (0, 0)
        for (n, c) in alias.utf8.enumerated() where n < 16 {
            if n < 8 { folded.0 |= UInt64(c) << UInt64(8 * n) } else { folded.1 |= UInt64(c) << UInt64(8 * (n - 8)) }
        }
        return folded
    }
}

/// The order id of one JSON Lines object, found by walking its top level without building
/// any value: the first member whose name stands for the order id, when its value is a
/// plain string (`OrderIDBytes.plain`). Anything else (no such member, another kind of
/// value, an escape in a name, bytes that are not JSON) is nil, and the line is parsed.
enum JSONOrderIDSkim {
    static func orderID(in text: UnsafeRawBufferPointer, maxDepth: Int) -> UnsafeRawBufferPointer? {
        var i = 0
        let n = text.count
        func skipSpace() {
            while i < n, text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { i += 1 }
        }
        /// A string from its opening quote; the content's range, and whether it held escapes.
        func string() -> (Range<Int>, escaped: Bool)? {
            guard i < n, text[i] == 0x22 else { return nil }
            i += 1
            let begin = i
            var escaped = false
            while i < n {
                switch text[i] {
                case 0x22:
                    i += 1
                    return (begin..<(i - 1), escaped)
                case 0x5C:
                    escaped = true
                    i += 2
                default:
                    i += 1
                }
            }
            return nil
        }
        /// Any value, skipped; false when the bytes cannot be one.
        func skipValue() -> Bool {
            var depth = 0
            repeat {
                skipSpace()
                guard i < n else { return false }
                switch text[i] {
                case 0x22:
                    guard string() != nil else { return false }
                case 0x7B, 0x5B:
                    depth += 1
                    guard depth <= maxDepth else { return false }
                    i += 1
                case 0x7D, 0x5D:
                    depth -= 1
                    guard depth >= 0 else { return false }
                    i += 1
                case 0x2C, 0x3A:
                    guard depth > 0 else { return false }
                    i += 1
                default:
                    // A number, true, false or null: up to what ends it.
                    let begin = i
                    while i < n,
                        !(text[i] == 0x2C || text[i] == 0x7D || text[i] == 0x5D || text[i] == 0x20
                            || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D || text[i] == 0x3A)
                    { i += 1 }
                    guard i > begin else { return false }
                }
            } while depth > 0
            return true
        }
        skipSpace()
        guard i < n, text[i] == 0x7B else { return nil }
        i += 1
        while true {
            skipSpace()
            guard let (name, escaped) = string(), !escaped else { return nil }
            skipSpace()
            guard i < n, text[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            guard let isOrderID = OrderIDBytes.isOrderIDName(UnsafeRawBufferPointer(rebasing: text[name])) else {
                return nil
            }
            if isOrderID {
                guard let (value, escaped) = string(), !escaped else { return nil }
                return OrderIDBytes.plain(UnsafeRawBufferPointer(rebasing: text[value]))
            }
            guard skipValue() else { return nil }
            skipSpace()
            guard i < n, text[i] == 0x2C else { return nil }
            i += 1
        }
    }
}
