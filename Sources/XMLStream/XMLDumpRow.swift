/// One `<row>` of a `mysqldump --xml` (or `mysql --xml`, or `LOAD XML`-style) document.
public struct XMLDumpRow: Sendable, Equatable {
    /// 1-based position among the document's rows.
    public var number: Int
    public var fields: [XMLDumpField]
    /// Why the row cannot be used as it is (too long, too many fields, a nested element);
    /// the document itself goes on.
    public var problem: String?
    /// A row a sharded run's worker left unparsed: another shard's (`XMLDumpParser.skipRow`).
    public var isElsewhere = false

    public init(number: Int, fields: [XMLDumpField], problem: String? = nil, isElsewhere: Bool = false) {
        self.number = number
        self.fields = fields
        self.problem = problem
        self.isElsewhere = isElsewhere
    }
}

public struct XMLDumpField: Sendable, Equatable {
    public var name: String
    /// nil for `xsi:nil="true"` (SQL NULL); `""` for an empty element.
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// The document cannot be read on: not well-formed (libxml2's message and position), or
/// refused (a DTD, too deep).
public struct XMLDumpError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `xml-malformed`, `xml-truncated`, `xml-dtd-refused`, `xml-too-deep`.
    public var code: String
    public var reason: String
    public var line: Int
    public var column: Int

    public init(code: String, reason: String, line: Int, column: Int) {
        self.code = code
        self.reason = reason
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column): \(reason)" }
}
