import IAPBasics

/// Reads BER (and so DER) elements from the front of a byte range, in the manner of
/// apple/swift-asn1: each nested value is read inside a sub-reader bounded by its length,
/// and a reader is finished with `finish()` ("nothing left over").
///
/// BER as Xcode writes it is accepted: indefinite lengths closed by end-of-contents
/// (`00 00`) and constructed OCTET STRINGs (see `ASN1Octets`). Nesting is capped by
/// `Limits.maxDepth` and the elements of one reader by `Limits.maxElements`; every error
/// carries the offset in `bytes`.
///
/// The reader borrows its bytes: it lives only inside `withReader(over:…)`, and neither it
/// nor a `content(of:)` slice may be kept past that call (copy with `rawBytes(of:)`).
/// Borrowing keeps nested readers free of reference counting, which dominated decoding.
public struct ASN1Reader {
    public let bytes: UnsafeRawBufferPointer
    public private(set) var position: Int
    public let end: Int
    /// How many constructed values enclose this reader's elements.
    public let depth: Int
    let maxDepth: Int
    let maxElements: Int
    private var elementsRead = 0

    /// Runs `body` with a reader over all of `bytes`; `depth` continues the nesting count of
    /// an enclosing structure when `bytes` were carried inside one (an OCTET STRING's octets).
    public static func withReader<T>(
        over bytes: [UInt8], limits: Limits = .standard, depth: Int = 0,
        _ body: (inout ASN1Reader) throws(DecodeError) -> T
    ) throws(DecodeError) -> T {
        try withReader(over: bytes, depth: depth, maxDepth: limits.maxDepth, maxElements: limits.maxElements, body)
    }

    static func withReader<T>(
        over bytes: [UInt8], depth: Int, maxDepth: Int, maxElements: Int,
        _ body: (inout ASN1Reader) throws(DecodeError) -> T
    ) throws(DecodeError) -> T {
        let result = bytes.withUnsafeBytes { buffer in
            Result<T, DecodeError> { () throws(DecodeError) -> T in
                var reader = ASN1Reader(
                    bytes: buffer, range: 0..<buffer.count, depth: depth, maxDepth: maxDepth,
                    maxElements: maxElements)
                return try body(&reader)
            }
        }
        return try result.get()
    }

    init(bytes: UnsafeRawBufferPointer, range: Range<Int>, depth: Int, maxDepth: Int, maxElements: Int) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
        self.maxDepth = maxDepth
        self.maxElements = maxElements
    }

    public var isAtEnd: Bool { position >= end }

    /// Reads the next element, whatever its tag.
    @inline(__always)
    public mutating func readElement() throws(DecodeError) -> ASN1Element {
        let start = position
        // Most of a DER receipt is one-octet tags with short-form lengths: take those directly.
        if start + 1 < end, elementsRead < maxElements {
            let identifier = bytes[start]
            let length = Int(bytes[start + 1])
            if identifier & 0x1F != 0x1F, identifier != 0, length < 0x80, length <= end - start - 2 {
                elementsRead += 1
                position = start + 2 + length
                return ASN1Element(
                    tag: ASN1Tag(identifier: identifier), start: start, contentStart: start + 2,
                    contentEnd: position, end: position)
            }
        }
        return try readAnyElement()
    }

    /// `readElement` for every form: high tag numbers, long and indefinite lengths, errors.
    private mutating func readAnyElement() throws(DecodeError) -> ASN1Element {
        let start = position
        guard start < end else {
            throw DecodeError("truncated", "expected an ASN.1 element but the data ended", at: start)
        }
        elementsRead += 1
        guard elementsRead <= maxElements else {
            throw DecodeError("too-many-elements", "more than \(maxElements) elements in one ASN.1 value", at: start)
        }
        let header = try readHeader(at: start)
        if header.tag == .endOfContents {
            throw DecodeError("unexpected-end-of-contents", "end-of-contents where an element was expected", at: start)
        }
        let element: ASN1Element
        if let length = header.length {
            let contentEnd = header.contentStart + length
            element = ASN1Element(
                tag: header.tag, start: start, contentStart: header.contentStart,
                contentEnd: contentEnd, end: contentEnd)
        } else {
            let contentEnd = try findEndOfContents(from: header.contentStart, elementStart: start)
            element = ASN1Element(
                tag: header.tag, start: start, contentStart: header.contentStart,
                contentEnd: contentEnd, end: contentEnd + 2)
        }
        position = element.end
        return element
    }

    /// Reads the next element and checks its tag.
    @inline(__always)
    public mutating func read(_ tag: ASN1Tag) throws(DecodeError) -> ASN1Element {
        let element = try readElement()
        guard element.tag == tag else {
            throw DecodeError("unexpected-tag", "expected \(tag), found \(element.tag)", at: element.start)
        }
        return element
    }

    /// The tag of the next element without consuming it; nil at the end.
    public func peekTag() throws(DecodeError) -> ASN1Tag? {
        guard position < end else { return nil }
        return try readTag(at: position).tag
    }

    /// Reads an element with `tag` only if it comes next.
    public mutating func readOptional(_ tag: ASN1Tag) throws(DecodeError) -> ASN1Element? {
        guard try peekTag() == tag else { return nil }
        return try readElement()
    }

    /// A reader over a constructed element's contents, one level deeper.
    @inline(__always)
    public func contents(of element: ASN1Element) throws(DecodeError) -> ASN1Reader {
        guard element.tag.isConstructed else {
            throw DecodeError(
                "unexpected-tag", "\(element.tag) is primitive where a constructed value was expected",
                at: element.start)
        }
        return try nested(in: element)
    }

    /// A reader over an element's contents as encapsulated ASN.1, whether the element is
    /// constructed or a primitive OCTET STRING holding DER (receipt attribute values).
    @inline(__always)
    public func nested(in element: ASN1Element) throws(DecodeError) -> ASN1Reader {
        guard depth < maxDepth else {
            throw DecodeError("too-deep", "ASN.1 nesting deeper than \(maxDepth) levels", at: element.start)
        }
        return ASN1Reader(
            bytes: bytes, range: element.contentRange, depth: depth + 1, maxDepth: maxDepth,
            maxElements: maxElements)
    }

    /// Reads a constructed element with `tag` and hands its contents to `body`, which must
    /// consume all of them.
    @inline(__always)
    public mutating func readConstructed<T>(
        _ tag: ASN1Tag,
        _ body: (inout ASN1Reader) throws(DecodeError) -> T
    ) throws(DecodeError) -> T {
        let element = try read(tag)
        var inner = try contents(of: element)
        let result = try body(&inner)
        try inner.finish()
        return result
    }

    /// Fails unless every byte of this reader was consumed.
    @inline(__always)
    public func finish() throws(DecodeError) {
        guard position == end else {
            throw DecodeError(
                "trailing-bytes", "\(end - position) unexpected bytes after the last element", at: position)
        }
    }

    /// The element's bytes, identifier to end (certificates, names kept for later checks).
    public func rawBytes(of element: ASN1Element) -> [UInt8] {
        Array(bytes[element.start..<element.end])
    }

    /// The element's content octets, in place (valid only while the reader is).
    @inline(__always)
    public func content(of element: ASN1Element) -> Slice<UnsafeRawBufferPointer> {
        bytes[element.contentRange]
    }

    // MARK: Identifier and length octets

    // X.690 §8.1.2: identifier = class (2 bits) ‖ constructed (1 bit) ‖ number (5 bits);
    // number 31 means "high tag number": base-128 octets follow, bit 8 set on all but the last.
    @inline(__always)
    private func readTag(at offset: Int) throws(DecodeError) -> (tag: ASN1Tag, next: Int) {
        var tag = ASN1Tag(identifier: bytes[offset])
        var i = offset + 1
        guard tag.number == 0x1F else { return (tag, i) }
        var number: UInt32 = 0
        var firstOctet = true
        while true {
            guard i < end else {
                throw DecodeError("truncated", "the data ends inside a high tag number", at: i)
            }
            let octet = bytes[i]
            i += 1
            guard !(firstOctet && octet == 0x80) else {
                throw DecodeError("bad-tag", "high tag number starts with a padding octet", at: i - 1)
            }
            firstOctet = false
            guard number <= UInt32.max >> 7 else {
                throw DecodeError("bad-tag", "tag number does not fit in 32 bits", at: i - 1)
            }
            number = number << 7 | UInt32(octet & 0x7F)
            if octet & 0x80 == 0 { break }
        }
        tag.number = number
        return (tag, i)
    }

    // X.690 §8.1.3: length = one octet < 0x80 (short form), 0x80 (indefinite: contents end
    // with 00 00, constructed only), or 0x81…0x88 then that many big-endian octets.
    @inline(__always)
    private func readHeader(at offset: Int) throws(DecodeError) -> (tag: ASN1Tag, contentStart: Int, length: Int?) {
        let (tag, lengthOffset) = try readTag(at: offset)
        guard lengthOffset < end else {
            throw DecodeError("truncated", "the data ends before the length of a \(tag)", at: lengthOffset)
        }
        let first = bytes[lengthOffset]
        if first < 0x80 {
            return (
                tag, lengthOffset + 1,
                try checkedLength(
                    Int(first), contentStart: lengthOffset + 1,
                    lengthOffset: lengthOffset, tag: tag)
            )
        }
        if first == 0x80 {
            guard tag.isConstructed else {
                throw DecodeError("bad-length", "primitive \(tag) with an indefinite length", at: lengthOffset)
            }
            return (tag, lengthOffset + 1, nil)
        }
        let count = Int(first & 0x7F)
        guard count <= 8, first != 0xFF else {
            throw DecodeError("bad-length", "a length of \(count) octets is too large", at: lengthOffset)
        }
        let contentStart = lengthOffset + 1 + count
        guard contentStart <= end else {
            throw DecodeError("truncated", "the data ends inside the length of a \(tag)", at: lengthOffset)
        }
        var value: UInt64 = 0
        for i in (lengthOffset + 1)..<contentStart {
            value = value << 8 | UInt64(bytes[i])
        }
        guard let length = Int(exactly: value) else {
            throw DecodeError("bad-length", "length \(value) does not fit in memory", at: lengthOffset)
        }
        return (
            tag, contentStart,
            try checkedLength(length, contentStart: contentStart, lengthOffset: lengthOffset, tag: tag)
        )
    }

    /// A definite length must fit in what is left: of the whole buffer (else the data was
    /// cut short) and of the enclosing value (else the length lies).
    private func checkedLength(_ length: Int, contentStart: Int, lengthOffset: Int, tag: ASN1Tag) throws(DecodeError)
        -> Int
    {
        guard length <= end - contentStart else {
            let code = length > bytes.count - contentStart ? "truncated" : "bad-length"
            throw DecodeError(
                code, "\(tag) declares \(length) content bytes but only \(end - contentStart) remain",
                at: lengthOffset)
        }
        return length
    }

    /// Walks forward from an indefinite-length element's first content byte to its own
    /// end-of-contents and returns that offset. Iterative: nesting only moves a counter,
    /// which the depth cap bounds; definite-length children are skipped whole.
    private func findEndOfContents(from contentStart: Int, elementStart: Int) throws(DecodeError) -> Int {
        var open = 1
        var p = contentStart
        guard depth < maxDepth else {
            throw DecodeError("too-deep", "ASN.1 nesting deeper than \(maxDepth) levels", at: elementStart)
        }
        while true {
            guard p < end else {
                throw DecodeError(
                    "missing-end-of-contents",
                    "the indefinite-length value at offset \(elementStart) has no end-of-contents", at: p)
            }
            if bytes[p] == 0 {
                guard p + 1 < end, bytes[p + 1] == 0 else {
                    throw DecodeError("bad-end-of-contents", "end-of-contents must be the two octets 00 00", at: p)
                }
                open -= 1
                if open == 0 { return p }
                p += 2
                continue
            }
            let header = try readHeader(at: p)
            if let length = header.length {
                p = header.contentStart + length
            } else {
                guard depth + open < maxDepth else {
                    throw DecodeError("too-deep", "ASN.1 nesting deeper than \(maxDepth) levels", at: p)
                }
                open += 1
                p = header.contentStart
            }
        }
    }
}
