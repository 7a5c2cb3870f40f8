import CLibXML2
import IAPBasics

/// Streams a `mysqldump --xml` document through libxml2's SAX2 push parser: push the bytes
/// chunk by chunk as they come (from a file or a decompressor), take the finished rows.
///
/// Safety: a document with a DOCTYPE is refused at its DOCTYPE, before any entity is
/// declared or loaded (billion laughs, `SYSTEM "file:///…"`); without a DTD libxml2 knows
/// only the five predefined entities and fails on any other reference. `XML_PARSE_NONET`,
/// never `XML_PARSE_NOENT` nor `XML_PARSE_HUGE`: libxml2 keeps its own 10 MB caps on a
/// single name, attribute or unfinished construct, and text reaches us in pieces that
/// `RowCollector` caps per row. Nesting is capped by `Limits.maxDepth`.
public final class XMLDumpParser {
    private let collector: RowCollector
    private var context: xmlParserCtxtPtr?
    private var ended = false
    private var onlyWhitespaceSoFar = true
    /// Bytes pushed so far, and the end of the last one that was not whitespace.
    private var pushed = 0
    private var contentEnd = 0

    public init(limits: Limits = .standard) {
        collector = RowCollector(limits: limits)
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
    }

    /// True once the document ended or failed: pushing more does nothing.
    public var isDone: Bool { ended || collector.failure != nil }

    /// Parses the next piece of the document; its complete rows become available to `nextRow`.
    public func push(_ bytes: UnsafeRawBufferPointer) {
        guard !isDone, let base = bytes.baseAddress, bytes.count > 0 else { return }
        if onlyWhitespaceSoFar {
            onlyWhitespaceSoFar = bytes.allSatisfy(Self.isSpace)
        }
        guard let context = parserContext() else { return }
        var last = bytes.count
        while last > 0, Self.isSpace(bytes[last - 1]) { last -= 1 }
        if last > 0 { contentEnd = pushed + last }
        pushed += bytes.count
        var offset = 0
        while offset < bytes.count, collector.failure == nil {
            let n = min(bytes.count - offset, 1 << 30)
            let status = xmlParseChunk(context, (base + offset).assumingMemoryBound(to: CChar.self), Int32(n), 0)
            offset += n
            if status != 0 { recordLibraryError(context) }
        }
    }

    /// Whether a row may be counted without being parsed (`skipRow`): libxml2 has parsed all
    /// that was pushed but trailing whitespace, no row is open, and nothing failed.
    public var isBetweenRows: Bool {
        guard !isDone, let context, !collector.isInRow else { return false }
        let consumed = xmlByteConsumed(context)
        return consumed >= 0 && Int(consumed) >= contentEnd
    }

    /// Counts the next row without parsing it (a sharded worker's other shard's row, whose
    /// bytes are not pushed): `nextRow` gives it in its turn, marked `isElsewhere`. False
    /// (and nothing counted) unless `isBetweenRows`: then the row must be pushed.
    public func skipRow() -> Bool {
        guard isBetweenRows else { return false }
        collector.skipRow()
        return true
    }

    /// Counts the next row as one read without libxml2 (a row in mysqldump's strict form),
    /// and gives its number; nil (and nothing counted) unless `isBetweenRows` and every row
    /// parsed before it was taken with `nextRow`, so that rows come out in order.
    public func countRow() -> Int? {
        guard isBetweenRows, !hasRowsReady else { return nil }
        return collector.countRow()
    }

    /// Whether rows libxml2 finished wait for `nextRow`.
    public var hasRowsReady: Bool { collector.hasReadyRows }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// The document is complete: a missing end tag is an error now.
    public func finish() {
        guard !isDone else { return }
        ended = true
        // Nothing but whitespace: an empty dump, not a broken one.
        guard !onlyWhitespaceSoFar, let context = parserContext() else { return }
        guard xmlParseChunk(context, nil, 0, 1) != 0 else { return }
        // libxml2's push parser calls a document cut off mid-element "Extra content at the
        // end of the document"; with elements still open, say what happened.
        if collector.openElements > 0, let error = xmlCtxtGetLastError(context),
            error.pointee.code == Int32(XML_ERR_DOCUMENT_END.rawValue)
        {
            collector.fail(
                "xml-truncated", "the document ends with \(collector.openElements) element(s) still open (truncated?)",
                line: Int(error.pointee.line), column: Int(error.pointee.int2))
        }
        recordLibraryError(context)
    }

    /// The next complete row; nil when more input is needed (or the document is done).
    /// Rows read before an error come first, then the error.
    public func nextRow() throws(XMLDumpError) -> XMLDumpRow? {
        if let row = collector.dequeue() { return row }
        if let failure = collector.failure { throw failure }
        return nil
    }

    private func parserContext() -> xmlParserCtxtPtr? {
        if let context { return context }
        var handler = XMLDumpParser.makeHandler()
        guard
            let created = xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(collector).toOpaque(), nil, 0, nil)
        else {
            collector.fail("xml-malformed", "libxml2 could not create a parser", line: 0, column: 0)
            return nil
        }
        let options = XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
        xmlCtxtUseOptions(created, Int32(options))
        context = created
        collector.context = created
        return created
    }

    private func recordLibraryError(_ context: xmlParserCtxtPtr) {
        guard collector.failure == nil else { return }
        guard let error = xmlCtxtGetLastError(context) else {
            collector.fail("xml-malformed", "not well-formed XML", line: 0, column: 0)
            return
        }
        var message = error.pointee.message.map { String(cString: $0) } ?? "not well-formed XML"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        collector.fail("xml-malformed", message, line: Int(error.pointee.line), column: Int(error.pointee.int2))
    }

    // MARK: SAX2 callbacks (C function pointers: no captures; state comes through `ctx`)

    private static func collector(_ ctx: UnsafeMutableRawPointer?) -> RowCollector? {
        ctx.map { Unmanaged<RowCollector>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func makeHandler() -> xmlSAXHandler {
        var h = xmlSAXHandler()
        h.initialized = UInt32(XML_SAX2_MAGIC)
        h.startElementNs = { ctx, localName, _, _, _, _, attributeCount, _, attributes in
            guard let c = XMLDumpParser.collector(ctx), let localName else { return }
            c.startElement(localName, attributeCount: Int(attributeCount), attributes: attributes)
            c.stopIfFailed()
        }
        h.endElementNs = { ctx, _, _, _ in
            XMLDumpParser.collector(ctx)?.endElement()
        }
        h.characters = { ctx, bytes, count in
            guard let c = XMLDumpParser.collector(ctx), let bytes else { return }
            c.text(bytes, count: Int(count))
        }
        h.cdataBlock = { ctx, bytes, count in
            guard let c = XMLDumpParser.collector(ctx), let bytes else { return }
            c.text(bytes, count: Int(count))
        }
        // Called at `<!DOCTYPE …`, before its internal subset is read: refuse the document.
        h.internalSubset = { ctx, _, _, _ in
            guard let c = XMLDumpParser.collector(ctx) else { return }
            let (line, column) = c.position()
            c.fail(
                "xml-dtd-refused", "a DOCTYPE (DTD or entity declarations) is not accepted in a dump",
                line: line, column: column)
            c.stopIfFailed()
        }
        // Errors are read from the context after `xmlParseChunk` returns; nothing is printed.
        h.serror = { _, _ in }
        return h
    }
}
