import CLibXML2
import IAPBasics

/// Turns SAX events into rows. Three shapes are read (MySQL manual, `mysqldump --xml` and
/// `LOAD XML`):
///
///     <row><field name="col">value</field><field name="n" xsi:nil="true"/></row>
///     <row><col>value</col></row>
///     <row col="value"/>
///
/// A `<row>` may sit at any depth (`<mysqldump><database><table_data>` or `<resultset>`);
/// elements outside rows (`<table_structure>`, …) are skipped. Memory is one row: its text
/// is capped by `Limits.maxRecordBytes`, its fields by `Limits.maxFields`.
final class RowCollector {
    private let limits: Limits
    /// The parser feeding this collector (owned by `XMLDumpParser`), to stop it and ask
    /// where it is.
    var context: xmlParserCtxtPtr?
    private(set) var failure: XMLDumpError?

    private var depth = 0
    /// Elements opened and not yet closed.
    var openElements: Int { depth }
    private var rowDepth: Int?
    private var rowCount = 0
    private var fields: [XMLDumpField] = []
    private var rowBytes = 0
    private var rowProblem: String?

    private var inField = false
    private var fieldName: String?
    private var fieldIsNil = false
    private var fieldText: [UInt8] = []

    private var ready: [XMLDumpRow] = []
    private var readyHead = 0

    init(limits: Limits) {
        self.limits = limits
    }

    func dequeue() -> XMLDumpRow? {
        guard readyHead < ready.count else { return nil }
        let row = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        }
        return row
    }

    func fail(_ code: String, _ reason: String, line: Int, column: Int) {
        if failure == nil { failure = XMLDumpError(code: code, reason: reason, line: line, column: column) }
    }

    func position() -> (line: Int, column: Int) {
        guard let context else { return (0, 0) }
        return (Int(xmlSAX2GetLineNumber(context)), Int(xmlSAX2GetColumnNumber(context)))
    }

    /// Halts libxml2 once this collector has failed, so nothing more is parsed.
    func stopIfFailed() {
        if failure != nil, let context { xmlStopParser(context) }
    }

    // MARK: SAX events

    /// `attributes`: five pointers per attribute (localname, prefix, URI, value, value end),
    /// as libxml2's `startElementNsSAX2Func` documents.
    func startElement(
        _ localName: UnsafePointer<xmlChar>, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        guard depth <= limits.maxDepth else {
            let (line, column) = position()
            fail("xml-too-deep", "elements nested deeper than \(limits.maxDepth)", line: line, column: column)
            return
        }
        let attributeList = AttributeList(count: attributeCount, pointers: attributes)
        if let rowDepth {
            if depth == rowDepth + 1 {
                beginField(localName, attributeList)
            } else {
                note("field \"\(fieldName ?? "")\" holds an element <\(String(cString: localName))>")
            }
        } else if matches(localName, "row") {
            beginRow(attributeList)
        }
    }

    func endElement() {
        defer { depth -= 1 }
        guard let rowDepth else { return }
        if depth == rowDepth + 1, inField {
            endField()
        } else if depth == rowDepth {
            ready.append(XMLDumpRow(number: rowCount, fields: fields, problem: rowProblem))
            fields = []
            self.rowDepth = nil
        }
    }

    func text(_ bytes: UnsafePointer<xmlChar>, count: Int) {
        guard inField, rowProblem == nil, count > 0, add(bytes: count) else { return }
        fieldText.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Whether a row is open (its fields being read).
    var isInRow: Bool { rowDepth != nil }

    /// Counts a row that was not given to libxml2, between two rows, as the next one.
    func skipRow() {
        rowCount += 1
        ready.append(XMLDumpRow(number: rowCount, fields: [], isElsewhere: true))
    }

    var hasReadyRows: Bool { readyHead < ready.count }

    /// Counts a row read without libxml2 as the next one; its number.
    func countRow() -> Int {
        rowCount += 1
        return rowCount
    }

    // MARK: Rows and fields

    private func beginRow(_ attributes: AttributeList) {
        rowDepth = depth
        rowCount += 1
        fields = []
        rowBytes = 0
        rowProblem = nil
        // `<row col="value"/>`: plain attributes are the fields.
        for a in attributes where a.prefix == nil && a.uri == nil {
            let name = String(cString: a.localName)
            guard rowProblem == nil, add(bytes: name.utf8.count + a.value.count), addField() else { return }
            fields.append(XMLDumpField(name: name, value: String(decoding: a.value, as: UTF8.self)))
        }
    }

    private func beginField(_ localName: UnsafePointer<xmlChar>, _ attributes: AttributeList) {
        inField = true
        fieldIsNil = false
        fieldText.removeAll(keepingCapacity: true)
        var name: String?
        if !matches(localName, "field") { name = String(cString: localName) }
        for a in attributes {
            if name == nil, a.prefix == nil, matches(a.localName, "name") {
                name = String(decoding: a.value, as: UTF8.self)
            } else if matches(a.localName, "nil"), a.isSchemaInstance {
                fieldIsNil = a.value.elementsEqual("true".utf8) || a.value.elementsEqual("1".utf8)
            }
        }
        fieldName = name
        guard let name else {
            note("a <field> without a name attribute")
            return
        }
        _ = add(bytes: name.utf8.count)
    }

    private func endField() {
        inField = false
        guard rowProblem == nil, let fieldName, addField() else { return }
        fields.append(
            XMLDumpField(name: fieldName, value: fieldIsNil ? nil : String(decoding: fieldText, as: UTF8.self)))
    }

    /// Counts bytes into the row; false (and the row marked) once past the cap.
    private func add(bytes: Int) -> Bool {
        rowBytes += bytes
        guard rowBytes <= limits.maxRecordBytes else {
            note("row is longer than \(limits.maxRecordBytes) bytes")
            return false
        }
        return true
    }

    private func addField() -> Bool {
        guard fields.count < limits.maxFields else {
            note("row has more than \(limits.maxFields) fields")
            return false
        }
        return true
    }

    /// Marks the row unusable and drops what it holds: its fields would never be read.
    private func note(_ problem: String) {
        if rowProblem == nil { rowProblem = problem }
        fields = []
        fieldText = []
    }
}

/// Compares a NUL-terminated libxml2 name with an ASCII literal.
func matches(_ name: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    let bytes = literal.utf8Start
    for i in 0..<count where name[i] != bytes[i] { return false }
    return name[count] == 0
}
