import IAPBasics

/// The octets of an OCTET STRING. Primitive: a copy of its contents. Constructed (BER; Xcode
/// wraps the receipt payload so): its primitive segments joined in order (X.690 §8.7.3),
/// with a map back to where each segment lies, so an error found inside the joined bytes
/// still names an offset in the original ones.
public struct ASN1Octets: Sendable {
    public let bytes: [UInt8]
    /// Ascending offsets in `bytes` where each segment starts, and that segment's first
    /// byte's offset in the source; never empty.
    private let segmentStarts: [Int]
    private let segmentSources: [Int]

    init(bytes: [UInt8], segmentStarts: [Int], segmentSources: [Int]) {
        self.bytes = bytes
        self.segmentStarts = segmentStarts
        self.segmentSources = segmentSources
    }

    /// Where `offset` in `bytes` came from in the source.
    public func sourceOffset(of offset: Int) -> Int {
        var low = 0
        var high = segmentStarts.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if segmentStarts[mid] <= offset { low = mid } else { high = mid }
        }
        return segmentSources[low] + (offset - segmentStarts[low])
    }

    /// The error with its offset moved from `bytes` to the source.
    public func inSource(_ error: DecodeError) -> DecodeError {
        DecodeError(error.code, error.reason, at: sourceOffset(of: error.offset))
    }
}

extension ASN1Reader {
    /// Reads an OCTET STRING, primitive or constructed.
    public mutating func readOctets() throws(DecodeError) -> ASN1Octets {
        let element = try readElement()
        return try octets(of: element)
    }

    public func octets(of element: ASN1Element) throws(DecodeError) -> ASN1Octets {
        guard element.tag.tagClass == .universal, element.tag.number == 4 else {
            throw DecodeError("unexpected-tag", "expected OCTET STRING, found \(element.tag)", at: element.start)
        }
        guard element.tag.isConstructed else {
            return ASN1Octets(
                bytes: Array(content(of: element)), segmentStarts: [0],
                segmentSources: [element.contentStart])
        }
        var joined: [UInt8] = []
        // Offsets before the first segment (or in an empty string) map to the contents' start.
        var starts: [Int] = [0]
        var sources: [Int] = [element.contentStart]
        try appendSegments(of: element, to: &joined, starts: &starts, sources: &sources)
        return ASN1Octets(bytes: joined, segmentStarts: starts, segmentSources: sources)
    }

    // constructed OCTET STRING ::= OCTET STRING segments, each primitive or constructed again.
    private func appendSegments(
        of element: ASN1Element, to joined: inout [UInt8], starts: inout [Int],
        sources: inout [Int]
    ) throws(DecodeError) {
        var inner = try contents(of: element)
        while !inner.isAtEnd {
            let segment = try inner.readElement()
            guard segment.tag.tagClass == .universal, segment.tag.number == 4 else {
                throw DecodeError(
                    "unexpected-tag", "a constructed OCTET STRING holds a \(segment.tag)", at: segment.start)
            }
            if segment.tag.isConstructed {
                try inner.appendSegments(of: segment, to: &joined, starts: &starts, sources: &sources)
            } else if segment.contentStart < segment.contentEnd {
                starts.append(joined.count)
                sources.append(segment.contentStart)
                joined.append(contentsOf: bytes[segment.contentRange])
            }
        }
    }

    /// Hands `body` a reader over the ASN.1 carried inside an OCTET STRING (receipt attribute
    /// values, the receipt payload): in place when primitive, over the joined segments when
    /// constructed. `body` must consume everything; errors name offsets in `bytes`.
    @inline(__always)
    public func readEncapsulated<T>(
        in element: ASN1Element,
        _ body: (inout ASN1Reader) throws(DecodeError) -> T
    ) throws(DecodeError) -> T {
        if !element.tag.isConstructed {
            guard element.tag == .octetString else {
                throw DecodeError("unexpected-tag", "expected OCTET STRING, found \(element.tag)", at: element.start)
            }
            var inner = try nested(in: element)
            let result = try body(&inner)
            try inner.finish()
            return result
        }
        let joined = try octets(of: element)
        guard depth < maxDepth else {
            throw DecodeError("too-deep", "ASN.1 nesting deeper than \(maxDepth) levels", at: element.start)
        }
        do throws(DecodeError) {
            return try ASN1Reader.withReader(
                over: joined.bytes, depth: depth + 1, maxDepth: maxDepth,
                maxElements: maxElements
            ) { (inner) throws(DecodeError) -> T in
                let result = try body(&inner)
                try inner.finish()
                return result
            }
        } catch {
            throw joined.inSource(error)
        }
    }
}
