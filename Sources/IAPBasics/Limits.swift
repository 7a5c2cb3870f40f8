/// Every cap on hostile input in one place, so tests can shrink them.
public struct Limits: Sendable, Equatable {
    /// Longest payload (receipt) accepted, in bytes, before or after base64 decoding.
    public var maxPayloadBytes: Int = 4 << 20
    /// Deepest nesting of JSON arrays/objects, ASN.1 constructed values, plists.
    public var maxDepth: Int = 64
    /// Most elements in one container (JSON array/object, ASN.1 SET, plist dictionary).
    public var maxElements: Int = 100_000
    /// Most purchases one receipt may carry.
    public var maxPurchases: Int = 10_000
    /// Longest single record (CSV row, JSON line, XML row) in a dump, in bytes.
    public var maxRecordBytes: Int = 16 << 20
    /// Most fields in one dump record.
    public var maxFields: Int = 4_096
    /// Most bytes one compressed input may expand to.
    public var maxDecompressedBytes: Int64 = 64 << 30
    /// Largest expansion ratio (decompressed / compressed) once past `ratioGraceBytes`.
    public var maxCompressionRatio: Int64 = 1_000
    /// Output below this size is never judged by ratio (tiny files compress absurdly well).
    public var ratioGraceBytes: Int64 = 16 << 20
    /// Most entries one zip archive may list.
    public var maxZipEntries: Int = 1_000

    public init() {}

    public static let standard = Limits()

    /// Caps that inputs of a few kilobytes reach, each of them: the hostile corpus's
    /// `small-` cases and the fuzz harnesses run with these.
    public static let small: Limits = {
        var l = Limits()
        l.maxPayloadBytes = 16 << 10
        l.maxDepth = 16
        l.maxElements = 64
        l.maxPurchases = 8
        l.maxRecordBytes = 2048
        l.maxFields = 32
        l.maxDecompressedBytes = 1 << 20
        l.maxCompressionRatio = 50
        l.ratioGraceBytes = 32 << 10
        return l
    }()
}
