/// The layouts of docs/inputs.md.
public enum DumpFormat: String, Sendable, Equatable {
    case csv
    case tsv
    case jsonLines = "jsonl"
    case xml

    /// By extension, ignoring a trailing `.gz`: `.csv`, `.tsv`, `.jsonl`, `.ndjson`,
    /// `.json` (JSON Lines), `.xml`, any case; nil for anything else.
    public static func byExtension(of path: String) -> DumpFormat? {
        var name = Substring(path.lowercased())
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...] {
        case "csv": return .csv
        case "tsv": return .tsv
        case "jsonl", "ndjson", "json": return .jsonLines
        case "xml": return .xml
        default: return nil
        }
    }

    /// By the first bytes: the first non-space byte `<` is XML, `{` JSON Lines; otherwise
    /// CSV, or TSV when the first line has tabs and no commas.
    public static func byContent(_ head: UnsafeRawBufferPointer) -> DumpFormat {
        var i = 0
        while i < head.count, head[i] == 0x20 || head[i] == 0x09 || head[i] == 0x0A || head[i] == 0x0D { i += 1 }
        if i < head.count {
            if head[i] == 0x3C { return .xml }
            if head[i] == 0x7B { return .jsonLines }
        }
        var tabs = false
        for byte in head {
            if byte == 0x0A { break }
            if byte == 0x2C { return .csv }
            if byte == 0x09 { tabs = true }
        }
        return tabs ? .tsv : .csv
    }
}
