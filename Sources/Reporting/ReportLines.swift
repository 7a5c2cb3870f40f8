/// One report's lines for every report file, formatted on any thread into one buffer:
/// its findings.jsonl lines, its flagged.csv row (a flagged order's), then its report.html
/// data elements (`ReportData`) with their shared strings left as holes, which
/// `SharedStrings` fills in report order.
public struct ReportLines: Sendable {
    private let bytes: [UInt8]
    private let holes: [(offset: Int, text: String)]
    private let elements: [(section: ReportHTML.Section, end: Int, holesEnd: Int)]
    private let jsonlEnd: Int
    private let csvEnd: Int

    public init(_ r: OrderReport) {
        var w = ReportData.Writer()
        w.bytes.reserveCapacity(1024)
        FindingsJSONL.lines(r, into: &w.bytes)
        jsonlEnd = w.bytes.count
        if r.isFlagged { FlaggedCSV.row(r, into: &w.bytes) }
        csvEnd = w.bytes.count
        ReportData.elements(r, into: &w)
        bytes = w.bytes
        holes = w.holes
        elements = w.elements
    }

    /// findings.jsonl's lines, one a finding.
    public var jsonl: ArraySlice<UInt8> { bytes[..<jsonlEnd] }
    /// flagged.csv's row; empty when the order is not flagged.
    public var csv: ArraySlice<UInt8> { bytes[jsonlEnd..<csvEnd] }

    /// The sections of the data elements, in order.
    public var sections: some Collection<ReportHTML.Section> { elements.lazy.map(\.section) }

    /// Appends data element `k` (an index into `sections`) with its holes filled.
    public func writeElement(_ k: Int, strings: inout SharedStrings, to out: inout [UInt8]) {
        guard elements.indices.contains(k) else { return }
        var at = k == 0 ? csvEnd : elements[k - 1].end
        let firstHole = k == 0 ? 0 : elements[k - 1].holesEnd
        for (offset, text) in holes[firstHole..<elements[k].holesEnd] {
            out.append(contentsOf: bytes[at..<offset])
            at = offset
            strings.write(text, to: &out)
        }
        out.append(contentsOf: bytes[at..<elements[k].end])
    }
}
