import IAPBasics

/// A field's value as the dump wrote it.
public enum DumpValue: Sendable, Equatable {
    /// SQL NULL: an unquoted empty CSV field, `\N`, `xsi:nil="true"`, JSON `null`.
    case null
    case text(String)
    /// Already a time: mongoexport's `{"$date": …}`.
    case timestamp(Timestamp)
}

public struct DumpField: Sendable, Equatable {
    /// The name as the file spells it (header cell, JSON key, XML field name).
    public var name: String
    public var value: DumpValue

    public init(name: String, value: DumpValue) {
        self.name = name
        self.value = value
    }
}

/// One record of a dump, with where it starts.
public struct DumpRecord: Sendable, Equatable {
    /// File and 1-based line where the record starts (the header is line 1), or XML row.
    public var location: SourceLocation
    /// 1-based position among the file's records, malformed ones included.
    public var ordinal: Int
    public var fields: [DumpField]

    public init(location: SourceLocation, ordinal: Int, fields: [DumpField]) {
        self.location = location
        self.ordinal = ordinal
        self.fields = fields
    }
}

/// A record that could not be read or mapped; the run goes on and reports it.
public struct UnreadableRecord: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    /// Short and specific: `missing order_id`, `unclosed quote`, `row has 5 fields, header has 7`.
    public var reason: String

    public init(location: SourceLocation, reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "\(location): \(reason)" }
}

public enum DumpItem: Sendable, Equatable {
    case record(DumpRecord)
    case malformed(UnreadableRecord)
}
